#include "util/fsutil.h"
#include "util/version.h"
#include "util/errors.h"
#include "util/mem.h"
#include "util/buf.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

int ks_fs_read_fd(char **out, size_t *len, int fd, size_t max)
{
	ks_buf b = KS_BUF_INIT(max);
	char chunk[65536];

	for (;;) {
		ssize_t n = read(fd, chunk, sizeof(chunk));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			ks_buf_free(&b);
			return ks_error_set(KS_EIO, "read failed: %s", strerror(errno));
		}
		if (n == 0)
			break;
		if (ks_buf_put(&b, chunk, (size_t)n) < 0) {
			ks_buf_free(&b);
			return ks_error_set(KS_ELIMIT, "larger than the limit of %zu bytes", max);
		}
	}
	*out = ks_buf_take(&b, len);
	return 0;
}

int ks_fs_read(char **out, size_t *len, const char *path, size_t max)
{
	struct stat st;
	int fd, rc;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			return ks_error_set(KS_ENOTFOUND, "%s: no such file", path);
		return ks_error_set(KS_EIO, "%s: %s", path, strerror(errno));
	}
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		close(fd);
		return ks_error_set(KS_EINVALID, "%s: is a directory", path);
	}
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (uint64_t)st.st_size > max) {
		close(fd);
		return ks_error_set(KS_ELIMIT, "%s: file is %lld bytes, over the limit of %zu",
				    path, (long long)st.st_size, max);
	}
	rc = ks_fs_read_fd(out, len, fd, max);
	close(fd);
	if (rc < 0)
		return ks_error_wrap(rc, "%s", path);
	return 0;
}

int ks_fs_write_atomic(const char *path, const void *data, size_t len)
{
	/* the thread's id (the pid in the main thread): two threads writing one path (a cache entry)
	 * must not share a temporary file */
	char *tmp = ks_asprintf("%s.tmp.%ld", path, (long)syscall(SYS_gettid));
	const char *p = data;
	int fd, rc = 0;

	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		rc = ks_error_set(KS_EIO, "%s: %s", path, strerror(errno));
		goto done;
	}
	while (len > 0) {
		ssize_t n = write(fd, p, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			rc = ks_error_set(KS_EIO, "%s: write failed: %s", path, strerror(errno));
			close(fd);
			unlink(tmp);
			goto done;
		}
		p += n;
		len -= (size_t)n;
	}
	if (fsync(fd) < 0 && errno != EINVAL) {
		rc = ks_error_set(KS_EIO, "%s: fsync failed: %s", path, strerror(errno));
		close(fd);
		unlink(tmp);
		goto done;
	}
	close(fd);
	if (rename(tmp, path) < 0) {
		rc = ks_error_set(KS_EIO, "%s: rename failed: %s", path, strerror(errno));
		unlink(tmp);
	}
done:
	ks_free(tmp);
	return rc;
}

int ks_fs_mkdir_p(const char *path, unsigned mode)
{
	char *p = ks_strdup(path), *s;
	int rc = 0;

	for (s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, mode) < 0 && errno != EEXIST) {
			rc = ks_error_set(KS_EIO, "mkdir %s: %s", p, strerror(errno));
			goto done;
		}
		*s = '/';
	}
	if (mkdir(p, mode) < 0 && errno != EEXIST)
		rc = ks_error_set(KS_EIO, "mkdir %s: %s", p, strerror(errno));
	else if (!ks_fs_is_dir(p))
		rc = ks_error_set(KS_EIO, "%s exists and is not a directory", p);
done:
	ks_free(p);
	return rc;
}

/* Removes everything inside the open directory dfd (which it closes), relative to it: every entry is
 * looked at without following links and opened with O_NOFOLLOW, so a link that replaces a folder
 * while the tree is removed (a confined helper's child may still be writing it) is removed itself,
 * never followed out of the tree. */
static int rm_inside(int dfd, const char *path)
{
	DIR *d = fdopendir(dfd);
	struct dirent *e;
	int rc = 0;
	if (!d) {
		close(dfd);
		return ks_error_set(KS_EIO, "%s: %s", path, strerror(errno));
	}
	while ((e = readdir(d)) != NULL) {
		struct stat st;
		int sub;
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue; /* gone already */
		if (!S_ISDIR(st.st_mode)) {
			if (unlinkat(dirfd(d), e->d_name, 0) < 0 && errno != ENOENT)
				rc = ks_error_set(KS_EIO, "rm %s/%s: %s", path, e->d_name, strerror(errno));
			continue;
		}
		sub = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub < 0) {
			/* a folder that became a link or a file meanwhile: remove what is there now */
			if (unlinkat(dirfd(d), e->d_name, 0) < 0 && errno != ENOENT)
				rc = ks_error_set(KS_EIO, "rm %s/%s: %s", path, e->d_name, strerror(errno));
			continue;
		}
		{
			char *child = ks_path_join(path, e->d_name);
			if (rm_inside(sub, child) < 0)
				rc = KS_EIO;
			ks_free(child);
		}
		if (unlinkat(dirfd(d), e->d_name, AT_REMOVEDIR) < 0 && errno != ENOENT)
			rc = ks_error_set(KS_EIO, "rmdir %s/%s: %s", path, e->d_name, strerror(errno));
	}
	closedir(d);
	return rc;
}

int ks_fs_rm_rf(const char *path)
{
	struct stat st;
	int dfd, rc;

	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : ks_error_set(KS_EIO, "%s: %s", path, strerror(errno));
	if (!S_ISDIR(st.st_mode)) {
		if (unlink(path) < 0 && errno != ENOENT)
			return ks_error_set(KS_EIO, "rm %s: %s", path, strerror(errno));
		return 0;
	}
	dfd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0)
		return errno == ENOENT ? 0 : ks_error_set(KS_EIO, "%s: %s", path, strerror(errno));
	rc = rm_inside(dfd, path);
	if (rmdir(path) < 0 && errno != ENOENT)
		return ks_error_set(KS_EIO, "rmdir %s: %s", path, strerror(errno));
	return rc;
}

int ks_fs_is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int ks_fs_exists(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int ks_fs_list(char ***names, size_t *n, const char *dir, int dirs_too)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **v = NULL;
	size_t cnt = 0, cap = 0;

	if (!d)
		return ks_error_set(errno == ENOENT ? KS_ENOTFOUND : KS_EIO, "%s: %s", dir,
				    strerror(errno));
	while ((e = readdir(d)) != NULL) {
		char *full;
		int isdir;
		if (e->d_name[0] == '.')
			continue;
		full = ks_path_join(dir, e->d_name);
		isdir = ks_fs_is_dir(full);
		ks_free(full);
		if (isdir && !dirs_too)
			continue;
		v = ks_grow(v, sizeof(*v), &cap, cnt + 1);
		v[cnt++] = ks_strdup(e->d_name);
	}
	closedir(d);
	if (cnt)
		qsort(v, cnt, sizeof(*v), cmp_str);
	*names = v;
	*n = cnt;
	return 0;
}

char *ks_path_join(const char *a, const char *b)
{
	size_t la = strlen(a);
	if (la == 0)
		return ks_strdup(b);
	if (b[0] == '/')
		return ks_strdup(b);
	return ks_asprintf("%s%s%s", a, a[la - 1] == '/' ? "" : "/", b);
}

char *ks_path_stem(const char *path)
{
	const char *base = strrchr(path, '/');
	char *s, *dot;
	base = base ? base + 1 : path;
	s = ks_strdup(base);
	/* strip known suffixes repeatedly: .gz, .json, .jsonl, .py, .cu */
	for (;;) {
		dot = strrchr(s, '.');
		if (!dot || dot == s)
			break;
		if (!strcmp(dot, ".gz") || !strcmp(dot, ".json") || !strcmp(dot, ".jsonl") ||
		    !strcmp(dot, ".py") || !strcmp(dot, ".cu") || !strcmp(dot, ".cuh"))
			*dot = '\0';
		else
			break;
	}
	return s;
}

char *ks_path_dirname(const char *path)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		return ks_strdup(".");
	if (slash == path)
		return ks_strdup("/");
	return ks_strndup(path, (size_t)(slash - path));
}

char *ks_exe_dir(void)
{
	char buf[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
	if (n <= 0)
		return ks_strdup(".");
	buf[n] = '\0';
	return ks_path_dirname(buf);
}

char *ks_fs_find_helper(const char *name)
{
	const char *env = getenv("KSCORE_LIBEXEC");
	char *dir = ks_exe_dir(), *cands[4], *found = NULL;
	int i;
	cands[0] = env && *env ? ks_path_join(env, name) : NULL;
	cands[1] = ks_path_join(dir, name);
	cands[2] = ks_asprintf("%s/../libexec/kscore/%s", dir, name);
	/* a program that embeds libkscore lies anywhere: the helpers' installed folder last */
	cands[3] = ks_path_join(KS_LIBEXECDIR, name);
	for (i = 0; i < 4; i++) {
		if (!found && cands[i] && access(cands[i], X_OK) == 0)
			found = ks_strdup(cands[i]);
		ks_free(cands[i]);
	}
	if (!found)
		ks_error_set(KS_ENOTFOUND, "cannot find the helper program %s (looked in $KSCORE_LIBEXEC, "
			     "%s, %s/../libexec/kscore and " KS_LIBEXECDIR ")", name, dir, dir);
	ks_free(dir);
	return found;
}
