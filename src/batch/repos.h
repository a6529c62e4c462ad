/* repos: teams' git repositories for batch scoring (DESIGN §7), through libgit2.
 *
 * Each repository is mirrored once into a cache folder, <cache_dir>/repos/<sha256 of its
 * location>, as a bare repository without a working tree, and refreshed by fetching. Branches,
 * tags and GitHub's pull-request heads (refs/pull/N/head) are fetched into the mirror under the
 * same names. Files are read from a commit's tree, never checked out, and copied out with a size
 * cap: the blobs come from teams and are untrusted.
 *
 * A location is a URL (https://, http://, ssh://, git://, file://, or scp-like user@host:path) or
 * a local path. Credentials in a URL (https://user:token@host/...) are used by libgit2 but never
 * printed, stored in the mirror's configuration, or put in a message: ks_repo_display is the
 * location without them, and every message from libgit2 is scrubbed of them.
 *
 * Every function that reports an error sets a message (ks_error_set) naming the repository (its
 * display form), the ref or file and the reason. */
#ifndef KS_REPOS_H
#define KS_REPOS_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

typedef struct ks_repo ks_repo;

typedef struct {
	const char *cache_dir;     /* required: mirrors live in <cache_dir>/repos/ */
	const char *base_dir;      /* relative local paths are relative to this folder [cwd] */
	uint64_t max_fetch_bytes;  /* a fetch that receives more is stopped [4 GiB] */
	double fetch_timeout_s;    /* a fetch that runs longer is stopped [900] */
} ks_repo_options;

#define KS_REPO_DEFAULT_MAX_FETCH_BYTES (4ull << 30)
#define KS_REPO_DEFAULT_FETCH_TIMEOUT_S 900.0

#define KS_REPO_OPTIONS_INIT                                                                     \
	{ .max_fetch_bytes = KS_REPO_DEFAULT_MAX_FETCH_BYTES,                                     \
	  .fetch_timeout_s = KS_REPO_DEFAULT_FETCH_TIMEOUT_S }

/* The location with any user information (user name, password, token) removed, for messages and
 * records: "https://tok@host/x.git" -> "https://host/x.git". Local paths are returned as given.
 * Caller frees. */
char *ks_repo_redact(const char *location);

/* 1 when `location` is a URL (has a scheme, or is scp-like user@host:path), 0 for a local path. */
int ks_repo_is_url(const char *location);

/* The location as it is fetched and as its mirror is keyed: a URL as given, a local path made
 * absolute (a relative one against base_dir, itself relative to the working directory; NULL: the
 * working directory) and canonical (realpath), so that "../x.git", "./sub/../x.git", a link to it
 * and its absolute path are one repository; a path that does not exist has its "." and ".."
 * folded by the letters. Caller frees (it may hold a URL's credentials). */
char *ks_repo_locate(const char *location, const char *base_dir);

/* Opens the cached mirror of `location`. Does not touch the network (ks_repo_fetch does). The
 * first time, the mirror is built in a temporary folder beside its place, renamed into place only
 * once ks_repo_fetch has fetched it whole (a killed first fetch leaves nothing that a later run
 * could take for the mirror, and the next open removes what it left). A relative local path is resolved against
 * opts->base_dir, so the cache key is the same from any working directory. Fails with KS_EIO when
 * the cache cannot be created or opened, KS_EINVALID for an empty location. Caller frees with
 * ks_repo_free. */
int ks_repo_open(ks_repo **out, const char *location, const ks_repo_options *opts);

/* Fetches every branch, tag and pull-request head (refs/heads/X, refs/tags/X, refs/pull/N/head)
 * from the location into the mirror under the same names, forced, and points the mirror's HEAD
 * at the remote's default branch. Takes the mirror's lock (another process's fetch of the same
 * location is waited for) and first removes what a killed fetch left in it (libgit2's
 * temporaries). A fetch that passes max_fetch_bytes or fetch_timeout_s is
 * stopped (KS_ELIMIT / KS_ETIMEOUT); an unreachable location, refused credentials or a broken
 * transfer fail with KS_ERROR. On success the fetch time is recorded in the mirror
 * (ks_repo_fetched_at). Refs deleted upstream are kept in the mirror, so a frozen batch stays
 * reproducible. The time cap is checked as data arrives: a server that accepts the connection
 * and then sends nothing is limited only by the operating system's TCP timeouts (libgit2 1.5 has
 * no read timeout).
 *
 * A local repository (a path or file:// URL) that lacks an object cannot be fetched whole; its
 * refs and every object they reach that it has are then copied one by one, and the fetch
 * succeeds: the objects it lacks are recorded in the mirror (kscore-mirror.json,
 * "missing_objects") and named by ks_repo_fetch_note. Reading a file that needs one of them
 * fails with KS_REPO_FILE_MISSING_OBJECT; every other file reads as usual. */
int ks_repo_fetch(ks_repo *r);

/* After a fetch that copied all but some objects: a sentence naming them (how many, the first
 * ones, and the paths and commits that needed them); NULL after a complete fetch. Owned by r. */
const char *ks_repo_fetch_note(const ks_repo *r);

/* 0 when the mirror is complete: a fetch of it finished (its kscore-mirror.json has fetched_at),
 * so it holds every ref the source had then. Otherwise the mirror is not used, and the message
 * says its state: KS_ENOTFOUND when no fetch of it ever finished (not in the cache; it says when a
 * stopped one was cleared away), KS_EINVALID when it is incomplete (a mirror of an earlier version
 * whose fetch was stopped; a fetch that finishes completes it). ks_repo_resolve and
 * ks_repo_pull_requests fail so too on a mirror that is not complete. */
int ks_repo_ready(const ks_repo *r);

/* The location as safe to show (see ks_repo_redact). */
const char *ks_repo_display(const ks_repo *r);
/* The mirror's folder. */
const char *ks_repo_path(const ks_repo *r);
/* When the mirror was last fetched successfully, by any process (0: never). */
time_t ks_repo_fetched_at(const ks_repo *r);
/* 1 when the mirror holds at least one ref (a previous fetch got something). */
int ks_repo_has_refs(ks_repo *r);

/* Resolves `ref` to a commit id (40 hex characters + NUL): "HEAD" (the remote's default branch),
 * a full ref name ("refs/pull/3/head", "refs/heads/x"), a branch name, a tag name (annotated tags
 * are peeled), or a full or abbreviated (at least 4 hex digits, unambiguous) commit id, tried in
 * that order. KS_ENOTFOUND when nothing matches, KS_EINVALID when an abbreviated id is
 * ambiguous or the ref does not lead to a commit. */
int ks_repo_resolve(char id[41], ks_repo *r, const char *ref);

typedef struct {
	char id[41];
	int64_t time;            /* committer time, seconds since the epoch */
	int offset_min;          /* the committer's time-zone offset, minutes east of UTC */
	char *subject;           /* first line of the message (libgit2's summary), made valid UTF-8 */
	int ancestor_of_chosen;  /* a later-dated commit that the chosen commit contains */
} ks_repo_commit;

typedef struct {
	int found;               /* 0: no commit at or before the deadline */
	ks_repo_commit chosen;
	ks_repo_commit *later;   /* commits dated after the deadline, newest first; up to max_later */
	size_t nlater;
	size_t later_total;      /* how many there are in all */
} ks_repo_pick;

/* Applies a deadline to the history of commit `tip`. Commits are walked from the tip in committer
 * time order (newest first); the first one whose committer time is <= deadline is chosen, and
 * every commit walked before it (all dated after the deadline) is listed as later. Then the chosen
 * commit's own ancestry is searched for commits dated after the deadline: a commit that contains
 * later-dated work has a forged or skewed date, and those are listed too with ancestor_of_chosen
 * set. With `base` (a full commit id; NULL: none) both walks leave out the base's history: only
 * the commits reachable from tip and not from base are the team's own (a pull request's), so a
 * team whose own commits are all later is not given a commit of the base. Fills *out in every
 * case (out->found = 0 when no commit qualifies: not an error). Fails with KS_ENOTFOUND for an
 * unknown tip, KS_ELIMIT beyond a million commits. Caller frees with ks_repo_pick_clear. */
int ks_repo_pick_commit(ks_repo_pick *out, ks_repo *r, const char *tip, const char *base,
			int64_t deadline, size_t max_later);

/* The repository's default branch, the base of a pull request that names none: "HEAD" when it
 * leads to a commit, else "refs/heads/main", else "refs/heads/master" (a hub made with
 * `git init --bare` into which main was pushed has a HEAD naming a master it does not have).
 * *ref gets the name (a static string). KS_ENOTFOUND, with a message saying what HEAD names,
 * when there is none. */
int ks_repo_default_branch(const char **ref, ks_repo *r);

/* The commit whose history is not the team's own, for ks_repo_pick_commit: `base_ref` (NULL: the
 * default branch, ks_repo_default_branch) resolved, when it does not contain `tip` or is tip itself (then
 * nothing is the team's own). When it contains tip (the pull request was merged), the first parent of the merge that brought tip in, found along the base's
 * first parents. out gets 41 bytes. Fails with the message set: KS_ENOTFOUND (no such base),
 * KS_EINVALID when tip lies on the base's first-parent line itself (fast-forwarded: its own
 * commits cannot be told apart; the manifest must name the commit it started from). */
int ks_repo_base(char out[41], ks_repo *r, const char *tip, const char *base_ref);

/* The best common ancestor of commits a and b into out: 1 found, 0 none (unrelated histories),
 * <0 on error. */
int ks_repo_merge_base(char out[41], ks_repo *r, const char *a, const char *b);

void ks_repo_pick_clear(ks_repo_pick *p);

/* 1 when commit `id` is `tip` or one of its ancestors, 0 when it is not (or is not in the
 * mirror), a negative code on error. */
int ks_repo_contains(ks_repo *r, const char *tip, const char *id);

/* Fills the details (time, offset, subject) of commit `id`. Caller frees with
 * ks_repo_commit_clear. */
int ks_repo_commit_info(ks_repo_commit *out, ks_repo *r, const char *id);
void ks_repo_commit_clear(ks_repo_commit *c);

typedef enum {
	KS_REPO_FILE_OK = 0,
	KS_REPO_FILE_NO_MATCH,       /* no file matches any of the paths or patterns */
	KS_REPO_FILE_BASE_ONLY,      /* only files identical to the base's own match */
	KS_REPO_FILE_AMBIGUOUS,      /* several files at the highest <N>, or several without <N> */
	KS_REPO_FILE_UNUSABLE,       /* a link, folder, submodule, Git LFS pointer, or a bad pattern */
	KS_REPO_FILE_TOO_LARGE,      /* larger than max_bytes */
	KS_REPO_FILE_MISSING_OBJECT, /* a tree or blob on the file's path is not in the mirror */
	KS_REPO_FILE_ERROR           /* libgit2 failed otherwise, or a search cap was reached */
} ks_repo_file_status;

typedef struct {
	const char *const *specs;    /* paths or patterns (pattern.h), tried in order */
	size_t nspecs;
	size_t max_bytes;            /* a larger blob is refused */
	const char *base;            /* a commit whose files are not the team's: a match with the same
				      * path and the same blob there is left out; NULL: none */
} ks_repo_read_options;

#define KS_REPO_READ_DEFAULT_MAX_BYTES (64u << 20)

#define KS_REPO_READ_OPTIONS_INIT { .max_bytes = KS_REPO_READ_DEFAULT_MAX_BYTES }

typedef struct {
	ks_repo_file_status status;
	char *data;                  /* OK: the blob's bytes, NUL-terminated */
	size_t len;
	char *path;                  /* OK: the file's path in the tree */
	const char *spec;            /* OK: the one of specs that selected it */
	size_t base_matches;         /* matches left out as the base's own */
	char missing[41];            /* MISSING_OBJECT: the id of the tree or blob */
} ks_repo_file;

/* Reads one file from the tree of commit `id` without a checkout, reading only the trees of the
 * folders the patterns can reach and then the selected blob. The specs are tried in order; the
 * first that selects a file wins (the file with the highest <N> among all its alternatives'
 * matches). Returns 0 with out filled, or a negative code with the message set and out->status
 * saying why: KS_ENOTFOUND (NO_MATCH, BASE_ONLY, MISSING_OBJECT: the message names the object,
 * the path that needs it, and whether the repository lacked it when fetched), KS_EINVALID
 * (AMBIGUOUS, UNUSABLE), KS_ELIMIT (TOO_LARGE, or a search past 200,000 tree entries), KS_ERROR.
 * Caller frees with ks_repo_file_clear. */
int ks_repo_read(ks_repo_file *out, ks_repo *r, const char *id, const ks_repo_read_options *o);
void ks_repo_file_clear(ks_repo_file *f);

/* The regular files of commit id's tree that one pattern matches, sorted bytewise, at most max
 * (*paths: caller frees with ks_free_strv(*paths, *n)). */
int ks_repo_list(char ***paths, size_t *n, ks_repo *r, const char *id, const char *spec, size_t max);

/* ks_repo_read with one path or pattern (pattern.h): `spec` names a path ("sub/x.json") or
 * selects exactly one regular file (the highest <N>, compared as integers, so 10 beats 9).
 * *data (NUL-terminated, caller frees) gets the blob's bytes and *path (caller frees; may be
 * NULL) the file's path in the tree. Fails with KS_ENOTFOUND when nothing matches or an object
 * on the way is missing, KS_ELIMIT when the blob is larger than max_bytes, and KS_EINVALID when
 * the match is ambiguous, the path is a symbolic link, a folder or a submodule, or the blob is a
 * Git LFS pointer (whose content is not in the repository). */
int ks_repo_read_file(char **data, size_t *len, char **path, ks_repo *r, const char *id,
		      const char *spec, size_t max_bytes);

typedef struct {
	unsigned long number;    /* N of refs/pull/N/head */
	char id[41];             /* the head commit */
	char *subject;           /* the head commit's subject (valid UTF-8) */
	char *author;            /* the head commit's author name (valid UTF-8) */
	char *scored_subject;    /* the subject of the commit that is scored, when the caller found
				  * it (not the head); the team is named from it (NULL: subject) */
} ks_repo_pull;

/* Lists the mirror's refs/pull/N/head refs, by increasing N. Caller frees with
 * ks_repo_pulls_free. */
int ks_repo_pull_requests(ks_repo_pull **out, size_t *n, ks_repo *r);
void ks_repo_pulls_free(ks_repo_pull *p, size_t n);

void ks_repo_free(ks_repo *r);

#endif
