/* outdir: the one rule for every path kscore writes in place of what is there (result folders,
 * `score batch`'s results folder and its team folders, `score baseline --out`, the site folder
 * of `score export`). kscore replaces only what it provably wrote:
 *
 *   - a folder that carries kscore's mark, the file KS_OUTDIR_MARK holding
 *     {"schema": "kscore.outdir/1", "kind": "<kind>", "scorer": "kscore <version>"}
 *     written inside the folder before it is renamed into place, of the kind asked for;
 *   - a folder an earlier version of kscore wrote before marks existed (the legacy rule below);
 *   - an empty folder, or nothing at all, or a folder holding only what a kscore process killed
 *     while making it left (the mark's temporary "<mark>.tmp.<id>" of a process that is gone,
 *     and in a batch results folder its empty lock files);
 *   - for files, a regular file whose JSON "schema" is the one kscore writes there.
 *
 * and never a path that is, holds or lies inside an input (a submission, the reference problems,
 * a manifest, a configuration file, the cache), nor one that is or holds the working directory.
 * Identities are compared by (st_dev, st_ino) of canonical paths, not by strings. A symbolic link
 * at the path itself is refused: kscore never follows a link into a removal. Everything else is
 * refused with a message naming the path and why; callers exit 73 (EX_CANTCREAT).
 *
 * Legacy rule (folders written before marks): a result folder with a regular score.json of
 * schema "kscore.score/1" or batch.json of schema "kscore.batch-team/1", in which every entry is
 * a file kscore writes there (out.json*, score.json, batch.json, exec/performance_analysis.txt,
 * exec/gen_perf/<name>.json and their "<name>.tmp.<pid>" leftovers); a batch results folder
 * with a regular leaderboard.json of schema "kscore.leaderboard/1". */
#ifndef KS_OUTDIR_H
#define KS_OUTDIR_H

#include <stddef.h>

#define KS_OUTDIR_MARK ".kscore-result"
#define KS_OUTDIR_SCHEMA "kscore.outdir/1"

typedef enum {
	KS_OUTDIR_RESULT = 0, /* one submission's result folder (`score`, a batch team's folder) */
	KS_OUTDIR_BATCH,      /* `score batch`'s results folder: written into, never replaced whole */
	KS_OUTDIR_SITE        /* `score export`'s site folder */
} ks_outdir_kind;

typedef struct {
	ks_outdir_kind kind;
	const char *const *inputs; /* paths that must survive; NULL entries and missing paths skipped */
	size_t ninputs;
} ks_outdir_options;

#define KS_OUTDIR_OPTIONS_INIT { .kind = KS_OUTDIR_RESULT }

/* The kind's name as stored in the mark ("result", "batch", "site"). */
const char *ks_outdir_kind_name(ks_outdir_kind kind);

/* Whether the folder at path may be written (created, or replaced whole for RESULT and SITE) under
 * the rule above. Returns 0 when it may; KS_EINVALID when it is refused, with a message naming the
 * path and the reason ("... exists and is not a kscore result folder; remove it or choose another
 * --out"); KS_EIO when the path cannot be examined (a parent is a file, no permission). Trailing
 * slashes of path are ignored. Reads nothing but metadata, the mark and, for the legacy rule, the
 * record files. */
int ks_outdir_check(const char *path, const ks_outdir_options *o);

/* The same rule for a single file that kscore replaces (an atomic rename over it): 0 when path
 * does not exist or is a regular file whose JSON top-level "schema" equals schema; KS_EINVALID
 * otherwise, or when it is or lies inside an input; KS_EIO when it cannot be examined. */
int ks_outdir_check_file(const char *path, const char *schema, const ks_outdir_options *o);

/* Whether the folder at path could be written, found before any work whose results would go
 * there: makes, then removes, an empty folder "<first>.tmp-<pid>-<n>" beside the first component
 * of path that does not exist yet (beside path itself when it exists, where ks_outdir_begin
 * would build it). Returns 0, or KS_EIO with a message naming the path and the system's reason
 * ("cannot create the result folder /x/y: Permission denied"). Leaves nothing behind. Does not
 * apply the replacement rule: call ks_outdir_check first. */
int ks_outdir_probe(const char *path);

/* Writes the mark of kind into the existing folder dir (atomically). KS_EIO on failure. */
int ks_outdir_mark(const char *dir, ks_outdir_kind kind);

/* Starts building a folder for path: finishes or removes what killed runs left for path
 * (ks_outdir_tidy: an old folder is put back first), checks path (as ks_outdir_check), creates
 * its parents and a new marked sibling "<path>.tmp-<pid>-<n>" that did not exist before, and
 * returns that sibling's path in *tmp (caller frees, and ends with ks_outdir_commit or
 * ks_outdir_abort). */
int ks_outdir_begin(char **tmp, const char *path, const ks_outdir_options *o);

/* Puts the folder tmp (from ks_outdir_begin) in place of path: checks path again, moves what is
 * there aside (never over an existing name), makes sure what moved is what was checked, renames
 * tmp into place and only then removes the old folder. On failure the old folder is put back and
 * tmp is left for the caller to abort. */
int ks_outdir_commit(const char *tmp, const char *path, const ks_outdir_options *o);

/* Removes a folder made by ks_outdir_begin (it is kscore's, so nothing else is lost). */
void ks_outdir_abort(const char *tmp);

/* ---- what a killed kscore leaves (docs/results.md, "Leftovers of a kill") ----
 * kscore names its temporaries "<name>.tmp.<id>" (a file being written by ks_fs_write_atomic;
 * id: the writing thread, the pid in a process's main thread), "<name>.tmp-<pid>-<n>" (a folder
 * being built by ks_outdir_begin; "<name>.tmp-<pid>": a repository mirror being created) and
 * "<name>.old-<pid>-<n>" (a folder moved aside by ks_outdir_commit). */
typedef enum {
	KS_OUTDIR_TEMP_NONE = 0,
	KS_OUTDIR_TEMP_FILE,   /* <name>.tmp.<id> */
	KS_OUTDIR_TEMP_BUILD,  /* <name>.tmp-<pid>-<n>, <name>.tmp-<pid> */
	KS_OUTDIR_TEMP_OLD     /* <name>.old-<pid>-<n> */
} ks_outdir_temp;

/* Which of kscore's temporaries the directory entry `entry` is named as (NONE: none), with the
 * length of the name it stands for in *name_len and the id of the process or thread that made it
 * in *pid. Names only: nothing is looked at on disk. */
ks_outdir_temp ks_outdir_temp_parse(const char *entry, size_t *name_len, long *pid);

/* 1 when no process or thread of this id exists on this machine any more (a temporary of a live
 * one, this process's included, is never touched). */
int ks_outdir_writer_gone(long pid);

/* For ks_outdir_tidy: the kind of folder the name (name[0..len)) stands for, or -1 to leave its
 * temporaries alone. Files' temporaries need only a kind >= 0. */
typedef int (*ks_outdir_tidy_fn)(const char *name, size_t len, void *ud);

/* Finishes or removes, in folder dir, the temporaries that kscore processes now gone left for the
 * names kind_of accepts: "<name>.tmp.<id>", a regular file, is removed (a write that never
 * finished); "<name>.tmp-<pid>-<n>", a folder that is kscore's (accepted as of its kind by
 * ks_outdir_check, or holding nothing but a mark cut short), is removed; "<name>.old-<pid>-<n>",
 * such a folder, is put back as <name> when <name> is gone (the kill fell between the two renames
 * of ks_outdir_commit) and removed otherwise. Anything else (a live writer's, a link, a folder
 * holding what kscore does not write) is left alone. Returns how many were finished or removed. */
size_t ks_outdir_tidy(const char *dir, ks_outdir_tidy_fn kind_of, void *ud);

#endif
