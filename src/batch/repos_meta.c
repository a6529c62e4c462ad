/* repos_meta: what the repository files share (repos_int.h): libgit2 failures turned into
 * messages with the credentials scrubbed out, the mirror's life (a first copy built aside and
 * renamed when complete, the lock its fetches take, what a killed fetch left) and its own record,
 * kscore-mirror.json (where it came from, when it was last fetched, what its source lacked).
 * repos.c and repos_copy.c include this one way. */
#include "batch/repos_int.h"
#include "util/errors.h"
#include "util/fsutil.h"
#include "util/jsonutil.h"
#include "util/mem.h"
#include "report/outdir.h"
#include "util/secret.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

/* folders below refs/ searched for a killed writer's lock files */
#define MAX_REFS_DEPTH 16

/* Sets the thread's error from libgit2's last error, with the credentials scrubbed out. */
int rp_fail(const ks_repo *r, int code, const char *what, const char *arg)
{
	const git_error *e = git_error_last();
	char *msg = ks_strdup(e && e->message ? e->message : "unknown libgit2 error");
	msg = ks_secret_scrub(ks_secret_scrub(msg, r->secret[0]), r->secret[1]);
	code = ks_error_set(code, "repository %s: %s%s%s: %s", r->display, what, arg ? " " : "",
			    arg ? arg : "", msg);
	ks_free(msg);
	return code;
}

/* ---- the mirror's life: built aside, locked while fetched, complete once fetched ---- */

/* First copies that a killed process was building, "<hash>.tmp-<pid>[-<n>]" beside the mirrors:
 * known by their name alone (this location's hash) and their process being gone. Returns how
 * many were removed. */
static int remove_dead_creations(const char *root, const char *hex)
{
	char **names = NULL;
	size_t n = 0, i, len;
	long pid;
	int removed = 0;
	if (ks_fs_list(&names, &n, root, 1) < 0) {
		ks_error_clear();
		return 0;
	}
	for (i = 0; i < n; i++)
		if (ks_outdir_temp_parse(names[i], &len, &pid) == KS_OUTDIR_TEMP_BUILD && len == 64 &&
		    !strncmp(names[i], hex, 64) && ks_outdir_writer_gone(pid)) {
			char *p = ks_path_join(root, names[i]);
			removed += ks_fs_rm_rf(p) == 0;
			ks_free(p);
		}
	ks_free_strv(names, n);
	ks_error_clear();
	return removed;
}

int rp_mirror_create(ks_repo *r, const char *root, const char *hex)
{
	static atomic_uint seq;
	r->stopped_before = remove_dead_creations(root, hex) > 0;
	r->dir = ks_asprintf("%s.tmp-%ld-%u", r->path, (long)getpid(), atomic_fetch_add(&seq, 1) + 1);
	r->building = 1;
	ks_fs_rm_rf(r->dir);
	if (git_repository_init(&r->git, r->dir, 1) < 0)
		return rp_fail(r, KS_EIO, "cannot create the mirror", r->dir);
	return 0;
}

/* Removes the files of `dir` whose names start with `prefix` (and end with `suffix`). */
static void remove_named(const char *dir, const char *prefix, const char *suffix)
{
	char **names = NULL;
	size_t n = 0, i, lp = strlen(prefix), ls = strlen(suffix);
	if (ks_fs_list(&names, &n, dir, 0) < 0) {
		ks_error_clear();
		return;
	}
	for (i = 0; i < n; i++) {
		size_t l = strlen(names[i]);
		if (l >= lp + ls && !strncmp(names[i], prefix, lp) && !strcmp(names[i] + l - ls, suffix)) {
			char *p = ks_path_join(dir, names[i]);
			unlink(p);
			ks_free(p);
		}
	}
	ks_free_strv(names, n);
}

/* The refs' lock files below dir, which libgit2 leaves when it is killed while writing a ref (the
 * next write of that ref would fail on them). */
static void remove_ref_locks(const char *dir, int depth)
{
	char **names = NULL;
	size_t n = 0, i;
	remove_named(dir, "", ".lock");
	if (depth >= MAX_REFS_DEPTH || ks_fs_list(&names, &n, dir, 1) < 0) {
		ks_error_clear();
		return;
	}
	for (i = 0; i < n; i++) {
		char *p = ks_path_join(dir, names[i]);
		if (ks_fs_is_dir(p))
			remove_ref_locks(p, depth + 1);
		ks_free(p);
	}
	ks_free_strv(names, n);
}

/* What a killed fetch or copy left in the mirror: libgit2's temporaries, never its objects. Only
 * under the lock, so that no live writer's temporary is touched. */
static void remove_leftovers(const ks_repo *r)
{
	char *objects = ks_path_join(r->dir, "objects"), *pack = ks_path_join(objects, "pack");
	char *refs = ks_path_join(r->dir, "refs");
	remove_named(objects, "tmp_object_git2_", "");
	remove_named(pack, "pack_git2_", "");
	remove_ref_locks(refs, 0);
	remove_named(r->dir, "HEAD", ".lock");
	remove_named(r->dir, "packed-refs", ".lock");
	remove_named(r->dir, "config", ".lock");
	ks_free(refs);
	ks_free(pack);
	ks_free(objects);
}

/* Opens r->git on r->path (the mirror in place) and reads its state. */
static int open_in_place(ks_repo *r)
{
	git_repository_free(r->git);
	r->git = NULL;
	if (r->building)
		ks_fs_rm_rf(r->dir);
	ks_free(r->dir);
	r->dir = ks_strdup(r->path);
	r->building = 0;
	if (git_repository_open_bare(&r->git, r->path) < 0)
		return rp_fail(r, KS_EIO, "cannot open the mirror", r->path);
	{
		cJSON *o = rp_meta_read(r);
		r->complete = cJSON_GetObjectItemCaseSensitive(o, "fetched_at_epoch") != NULL;
		cJSON_Delete(o);
	}
	return 0;
}

int rp_mirror_lock(int *fd, ks_repo *r)
{
	char *lock = ks_asprintf("%s.lock", r->path);
	int rc = 0;
	*fd = open(lock, O_CREAT | O_RDWR | O_CLOEXEC, 0644);
	if (*fd < 0 || flock(*fd, LOCK_EX) < 0) {
		rc = ks_error_set(KS_EIO, "repository %s: cannot lock the mirror %s: %s", r->display, lock,
				  strerror(errno));
		if (*fd >= 0)
			close(*fd);
		*fd = -1;
		goto done;
	}
	/* another process finished a first copy while this one waited: refresh that one */
	if (r->building && ks_fs_is_dir(r->path) && (rc = open_in_place(r)) < 0)
		goto done;
	remove_leftovers(r);
done:
	ks_free(lock);
	return rc;
}

void rp_mirror_unlock(int fd)
{
	if (fd >= 0)
		close(fd);  /* releases the flock */
}

int rp_mirror_finish(ks_repo *r)
{
	if (r->building) {
		git_repository_free(r->git);
		r->git = NULL;
		/* a mirror put there meanwhile (by a process that took no lock) is complete too */
		if (rename(r->dir, r->path) < 0 && errno != EEXIST && errno != ENOTEMPTY)
			return ks_error_set(KS_EIO, "repository %s: cannot put the mirror in place at %s: %s",
					    r->display, r->path, strerror(errno));
		return open_in_place(r);
	}
	r->complete = 1;
	return 0;
}

/* ---- the mirror's own record: where it came from, when it was last fetched ---- */

char *rp_meta_path(const ks_repo *r)
{
	return ks_path_join(r->dir, "kscore-mirror.json");
}

void rp_meta_write(const ks_repo *r, time_t fetched, cJSON *missing)
{
	cJSON *o = cJSON_CreateObject();
	char ts[32], *path = rp_meta_path(r);
	cJSON_AddStringToObject(o, "schema", "kscore.mirror/1");
	cJSON_AddStringToObject(o, "location", r->display);
	if (fetched) {
		struct tm tm;
		gmtime_r(&fetched, &tm);
		strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%SZ", &tm);
		cJSON_AddStringToObject(o, "fetched_at", ts);
		cJSON_AddNumberToObject(o, "fetched_at_epoch", (double)fetched);
	}
	if (missing)
		cJSON_AddItemToObject(o, "missing_objects", missing);
	/* best effort: it only tells people (and --no-fetch runs) when the mirror was refreshed */
	ks_json_write_file(path, o, 1);
	cJSON_Delete(o);
	ks_free(path);
}

cJSON *rp_meta_read(const ks_repo *r)
{
	char *path = rp_meta_path(r), *text = NULL;
	cJSON *o = NULL;
	size_t n;
	if (ks_fs_read(&text, &n, path, 1u << 20) == 0 && ks_json_parse(&o, text, n, 8, path) < 0)
		o = NULL;
	ks_free(text);
	ks_free(path);
	ks_error_clear();
	return o;
}

int rp_missing_recorded(const ks_repo *r, const git_oid *oid)
{
	cJSON *o = rp_meta_read(r);
	const cJSON *e;
	char hex[GIT_OID_HEXSZ + 1];
	int found = 0;
	git_oid_tostr(hex, sizeof(hex), oid);
	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(o, "missing_objects")) {
		const cJSON *id = cJSON_GetObjectItemCaseSensitive(e, "id");
		found |= cJSON_IsString(id) && !strcmp(id->valuestring, hex);
	}
	cJSON_Delete(o);
	return found;
}
