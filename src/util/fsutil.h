/* fsutil: the filesystem operations kscore needs, each with a size cap or an atomic guarantee.
 * Results are written to a temporary name and renamed into place, so a kill never leaves a
 * half-written result file behind (DESIGN §4.8). */
#ifndef KS_FSUTIL_H
#define KS_FSUTIL_H

#include <stddef.h>
#include <stdint.h>

/* Reads a whole file into *out (NUL-terminated, caller frees). Fails with KS_ELIMIT if the file
 * is larger than max bytes, KS_ENOTFOUND if it does not exist, KS_EIO otherwise. */
int ks_fs_read(char **out, size_t *len, const char *path, size_t max);

/* Reads all of fd until EOF, up to max bytes (KS_ELIMIT beyond). Caller frees *out. */
int ks_fs_read_fd(char **out, size_t *len, int fd, size_t max);

/* Writes data to path through path.tmp.<pid> + fsync + rename. */
int ks_fs_write_atomic(const char *path, const void *data, size_t len);

/* mkdir -p. */
int ks_fs_mkdir_p(const char *path, unsigned mode);

/* rm -rf; never follows symbolic links out of the tree. Missing path is not an error. */
int ks_fs_rm_rf(const char *path);

int ks_fs_is_dir(const char *path);
int ks_fs_exists(const char *path);

/* Lists the regular-file names (not paths) in dir, sorted bytewise; hidden files skipped.
 * dirs_too=1 includes directories. Caller frees with ks_free_strv(*names, *n). */
int ks_fs_list(char ***names, size_t *n, const char *dir, int dirs_too);

/* Joins two path parts with one '/'. Caller frees. */
char *ks_path_join(const char *a, const char *b);
/* The last component of a path, without the given suffix chain: "a/b/x.json.gz" -> "x". */
char *ks_path_stem(const char *path);
/* Directory part of a path ("." when none). Caller frees. */
char *ks_path_dirname(const char *path);
/* The directory holding the running executable. Caller frees. */
char *ks_exe_dir(void);

/* Finds one of kscore's helper programs (an executable file): in $KSCORE_LIBEXEC, beside the
 * running executable, then in ../libexec/kscore beside it. Returns its path (caller frees), or NULL
 * with KS_ENOTFOUND and a message naming where it looked. */
char *ks_fs_find_helper(const char *name);

#endif
