/* repos_int: the insides of the repos module, shared by its files only:
 *   repos.c       locations, the mirror, fetch, refs, commits and history, pull requests
 *   repos_tree.c  files read from a commit's tree: the path walk, patterns, the base's files
 *   repos_copy.c  a local repository copied object by object when a fetch cannot pack it
 *   repos_meta.c  what they share: libgit2 failures as messages, the mirror's own record
 * Callers use repos.h; names here are rp_<what>. */
#ifndef KS_REPOS_INT_H
#define KS_REPOS_INT_H

#include <git2.h>
#include <cJSON.h>
#include <time.h>
#include "batch/repos.h"

struct ks_repo {
	git_repository *git;
	char *location;   /* what libgit2 fetches from: the URL, or an absolute path */
	char *display;    /* location without credentials */
	char *secret[2];  /* the URL's user information and its token part, scrubbed from messages */
	char *path;       /* the mirror */
	char *dir;        /* the folder r->git is open on: path, or the first copy built beside it */
	int building;     /* dir is a first copy, "<path>.tmp-<pid>-<n>", renamed to path once fetched */
	int complete;     /* the mirror's record has a fetch time: every ref it had was copied */
	int stopped_before; /* a dead process's first copy of this location was found and removed */
	char *fetch_note; /* the last fetch copied all but some objects (repos_copy.c); NULL: all */
	ks_repo_options opts;
};

/* Sets the thread's error from libgit2's last error, with the credentials scrubbed out:
 * "repository <display>: <what> <arg>: <libgit2's message>". Returns code. */
int rp_fail(const ks_repo *r, int code, const char *what, const char *arg);

/* The mirror's life (repos_meta.c). A mirror is complete or it is not used: a first copy is built
 * in "<path>.tmp-<pid>-<n>" and renamed to path only once its fetch has finished and its record
 * holds the fetch time; a refresh fetches in place, under the mirror's lock, and a refresh that is
 * stopped leaves the mirror as complete as before (refs are written after their objects, and
 * none is ever removed).
 *
 * rp_mirror_create: r->path does not exist; creates the first copy beside it (after removing the
 * first copies of this location whose process is gone) and opens it as r->git. */
int rp_mirror_create(ks_repo *r, const char *root, const char *hex);

/* Takes the mirror's lock (<path>.lock, flock, waiting for another process's fetch): the one
 * writer of the mirror. Under it, a first copy switches to the mirror when another process has
 * put one in place meanwhile, and libgit2's temporaries that a killed fetch left in the mirror
 * (objects/tmp_object_git2_*, objects/pack/pack_git2_*, refs' *.lock) are removed. *fd gets the
 * lock's descriptor (for rp_mirror_unlock). */
int rp_mirror_lock(int *fd, ks_repo *r);
void rp_mirror_unlock(int fd);

/* After a fetch that finished (its record written with the fetch time): a first copy is renamed
 * into place and opened there; r->complete is set. */
int rp_mirror_finish(ks_repo *r);

/* The path of the mirror's record, kscore-mirror.json (caller frees). */
char *rp_meta_path(const ks_repo *r);

/* The mirror's record, or NULL when it is missing or unreadable (no error left set). */
cJSON *rp_meta_read(const ks_repo *r);

/* Writes the mirror's kscore-mirror.json: location, fetch time (0: never) and the missing
 * objects (JSON array, may be NULL; taken over). */
void rp_meta_write(const ks_repo *r, time_t fetched, cJSON *missing);

/* Looks up a commit by its full id (KS_EINVALID: not an id, KS_ENOTFOUND: not in the mirror). */
int rp_commit(git_commit **out, ks_repo *r, const char *id);

/* 1 when the mirror's record (kscore-mirror.json) says its source lacked `oid` at the last fetch,
 * 0 otherwise. */
int rp_missing_recorded(const ks_repo *r, const git_oid *oid);

/* repos_copy.c: copies the refs of the local repository r->location that a fetch takes
 * (branches, tags, pull-request heads) and every object they reach that the source has, object
 * by object, into the mirror, and points the mirror's HEAD as the source's. Objects the source
 * lacks are left out and recorded (kscore-mirror.json "missing_objects"), with those of `prev`
 * (the last fetch's record, may be NULL) that the mirror still lacks and the source has not
 * regained; r->fetch_note says which. Fails (message set) when the source cannot be opened, a cap
 * is passed, or no ref could be copied. */
int rp_copy_local(ks_repo *r, const cJSON *prev);

/* After a fetch that succeeded whole: what `prev` (the last fetch's record, may be NULL) says the
 * source lacked is still lacking unless the mirror has it now or, for a local source (`local`),
 * the source has it again (then it is copied). Writes the mirror's record with the fetch time and
 * what is still lacking, and sets r->fetch_note (NULL: nothing lacks). Fails only when the
 * mirror's object store cannot be read or written. */
int rp_missing_recheck(ks_repo *r, const cJSON *prev, int local);

/* The sentence naming what a record says the repository lacks: `before` ("it lacks"), how many
 * (total, or the record's size when 0), the first few with their paths and commits, `after`.
 * NULL when nothing lacks. Caller frees. */
char *rp_missing_note(const ks_repo *r, const cJSON *missing, size_t total, const char *before,
		      const char *after);

#endif
