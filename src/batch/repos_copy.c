/* repos_copy: a local repository copied into its mirror object by object (repos_int.h), for when
 * libgit2's fetch cannot pack it because it lacks an object. Everything the repository has is
 * copied; what it lacks is recorded, so that only the teams whose files need it fail, each with
 * the object named. The record outlives later fetches: they find the refs up to date (or the
 * commits in the mirror already) and never meet the missing objects again, so each fetch carries
 * over what the last one recorded and the source still lacks. */
#include "batch/repos_int.h"
#include "util/buf.h"
#include "util/errors.h"
#include "util/mem.h"

#include <string.h>
#include <time.h>

#define MAX_MISSING_RECORDED 1000
#define MAX_MISSING_NAMED 3
#define MAX_COMMITS 1000000u

typedef struct {
	ks_repo *r;
	git_repository *src;
	git_odb *sodb, *dodb;
	git_oid *missing;           /* the ids recorded so far */
	size_t nmissing, cap;
	git_oid *tips;              /* commits whose history was copied already: not walked again */
	size_t ntips, tcap;
	cJSON *record;              /* kscore-mirror.json "missing_objects" */
	uint64_t bytes;
	struct timespec t0;
} copy_state;

static int over_caps(copy_state *c)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	if (c->bytes > c->r->opts.max_fetch_bytes)
		return ks_error_set(KS_ELIMIT, "repository %s: copy stopped after %llu bytes, over the limit "
				    "of %llu", c->r->display, (unsigned long long)c->bytes,
				    (unsigned long long)c->r->opts.max_fetch_bytes);
	if ((double)(t.tv_sec - c->t0.tv_sec) + (t.tv_nsec - c->t0.tv_nsec) * 1e-9 > c->r->opts.fetch_timeout_s)
		return ks_error_set(KS_ETIMEOUT, "repository %s: copy stopped after %.0f s, the limit",
				    c->r->display, c->r->opts.fetch_timeout_s);
	return 0;
}

static void record_missing(copy_state *c, const git_oid *oid, const char *type, const char *path,
			   const git_oid *commit)
{
	char id[41], cid[41];
	size_t i;
	for (i = 0; i < c->nmissing; i++)
		if (git_oid_equal(&c->missing[i], oid))
			return;
	c->missing = ks_grow(c->missing, sizeof(*c->missing), &c->cap, c->nmissing + 1);
	git_oid_cpy(&c->missing[c->nmissing++], oid);
	git_oid_tostr(id, sizeof(id), oid);
	git_oid_tostr(cid, sizeof(cid), commit);
	if (c->nmissing <= MAX_MISSING_RECORDED) {
		cJSON *e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "id", id);
		cJSON_AddStringToObject(e, "type", type);
		cJSON_AddStringToObject(e, "path", path);
		cJSON_AddStringToObject(e, "commit", cid);
		cJSON_AddItemToArray(c->record, e);
	}
	git_error_clear();
}

/* Copies one object as it is; 1 copied or already there, 0 the source lacks it, <0 error. */
static int copy_raw(copy_state *c, const git_oid *oid)
{
	git_odb_object *o = NULL;
	git_oid written;
	int e;
	if (git_odb_exists(c->dodb, oid))
		return 1;
	e = git_odb_read(&o, c->sodb, oid);
	if (e == GIT_ENOTFOUND)
		return 0;
	if (e < 0)
		return rp_fail(c->r, KS_ERROR, "cannot read an object of", c->r->display);
	c->bytes += git_odb_object_size(o);
	e = git_odb_write(&written, c->dodb, git_odb_object_data(o), git_odb_object_size(o),
			  git_odb_object_type(o));
	git_odb_object_free(o);
	if (e < 0)
		return rp_fail(c->r, KS_EIO, "cannot write to the mirror", c->r->path);
	e = over_caps(c);
	return e < 0 ? e : 1;
}

/* A tree after everything in it, so that a tree in the mirror means its contents were tried. */
static int copy_tree(copy_state *c, const git_oid *oid, const char *path, const git_oid *commit)
{
	git_tree *t = NULL;
	size_t i, n;
	int rc = 0, e;
	if (git_odb_exists(c->dodb, oid))
		return 0;
	e = git_tree_lookup(&t, c->src, oid);
	if (e == GIT_ENOTFOUND) {
		record_missing(c, oid, "tree", path, commit);
		return 0;
	}
	if (e < 0)
		return rp_fail(c->r, KS_ERROR, "cannot read folder", path);
	n = git_tree_entrycount(t);
	for (i = 0; i < n && rc >= 0; i++) {
		const git_tree_entry *te = git_tree_entry_byindex(t, i);
		char *sub = *path ? ks_asprintf("%s/%s", path, git_tree_entry_name(te)) :
			    ks_strdup(git_tree_entry_name(te));
		if (git_tree_entry_type(te) == GIT_OBJECT_TREE)
			rc = copy_tree(c, git_tree_entry_id(te), sub, commit);
		else if (git_tree_entry_type(te) == GIT_OBJECT_BLOB &&
			 (rc = copy_raw(c, git_tree_entry_id(te))) == 0)
			record_missing(c, git_tree_entry_id(te), "blob", sub, commit);
		ks_free(sub);
	}
	git_tree_free(t);
	if (rc >= 0)
		rc = copy_raw(c, oid);
	return rc < 0 ? rc : 0;
}

/* Every commit reachable from tip, parents first, each after its tree. */
static int copy_history(copy_state *c, const git_oid *tip)
{
	git_revwalk *w = NULL;
	git_oid oid;
	size_t n = 0;
	size_t i;
	int rc = 0, e;
	if (git_revwalk_new(&w, c->src) < 0 || git_revwalk_push(w, tip) < 0) {
		rc = rp_fail(c->r, KS_ERROR, "cannot walk the history of", c->r->display);
		goto done;
	}
	for (i = 0; i < c->ntips; i++)
		if (git_revwalk_hide(w, &c->tips[i]) < 0) {
			rc = rp_fail(c->r, KS_ERROR, "cannot walk the history of", c->r->display);
			goto done;
		}
	git_revwalk_sorting(w, GIT_SORT_TOPOLOGICAL | GIT_SORT_REVERSE);
	while (rc == 0 && (e = git_revwalk_next(&oid, w)) == 0) {
		git_commit *cm = NULL;
		if (++n > MAX_COMMITS) {
			rc = ks_error_set(KS_ELIMIT, "repository %s: history longer than %u commits",
					  c->r->display, MAX_COMMITS);
			break;
		}
		if (git_odb_exists(c->dodb, &oid))
			continue;
		if (git_commit_lookup(&cm, c->src, &oid) < 0) {
			rc = rp_fail(c->r, KS_ERROR, "cannot read a commit of", c->r->display);
			break;
		}
		rc = copy_tree(c, git_commit_tree_id(cm), "", &oid);
		git_commit_free(cm);
		if (rc == 0 && (rc = copy_raw(c, &oid)) == 0)
			rc = ks_error_set(KS_ERROR, "repository %s: commit vanished while copying", c->r->display);
		if (rc > 0)
			rc = 0;
	}
	if (rc == 0 && e != GIT_ITEROVER)
		rc = rp_fail(c->r, KS_ERROR, "cannot walk the history of", c->r->display);
	if (rc == 0) {
		c->tips = ks_grow(c->tips, sizeof(*c->tips), &c->tcap, c->ntips + 1);
		git_oid_cpy(&c->tips[c->ntips++], tip);
	}
done:
	git_revwalk_free(w);
	return rc;
}

/* One ref: its objects, then the ref itself, forced. 1 copied, 0 left out (the source cannot give
 * its commit), <0 a cap or a write failed. */
static int copy_ref(copy_state *c, git_reference *ref)
{
	git_reference *direct = NULL, *made = NULL;
	git_object *peeled = NULL;
	const git_oid *target;
	int rc = 0;
	if (git_reference_resolve(&direct, ref) < 0 || !(target = git_reference_target(direct)) ||
	    git_reference_peel(&peeled, direct, GIT_OBJECT_COMMIT) < 0)
		goto skip;
	if ((rc = copy_history(c, git_object_id(peeled))) < 0) {
		if (rc == KS_ELIMIT || rc == KS_ETIMEOUT || rc == KS_EIO)
			goto done;
		goto skip;  /* this ref's history cannot be walked: the others may still be copied */
	}
	/* an annotated tag object, on top of its commit */
	if (!git_oid_equal(target, git_object_id(peeled)) && (rc = copy_raw(c, target)) <= 0)
		goto skip;
	if (git_reference_create(&made, c->r->git, git_reference_name(ref), target, 1, "kscore copy") < 0) {
		rc = rp_fail(c->r, KS_EIO, "cannot write ref", git_reference_name(ref));
		goto done;
	}
	rc = 1;
	goto done;
skip:
	rc = 0;
	ks_error_clear();
	git_error_clear();
done:
	git_reference_free(made);
	git_object_free(peeled);
	git_reference_free(direct);
	return rc;
}

char *rp_missing_note(const ks_repo *r, const cJSON *missing, size_t total, const char *before,
		      const char *after)
{
	ks_buf b = KS_BUF_INIT(4096);
	const cJSON *e;
	size_t named = 0;
	char *note;
	if (!total)
		total = (size_t)cJSON_GetArraySize(missing);
	if (!total)
		return NULL;
	cJSON_ArrayForEach(e, missing) {
		const char *type = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "type"));
		const char *id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "id"));
		const char *path = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "path"));
		const char *cid = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "commit"));
		if (named == MAX_MISSING_NAMED)
			break;
		ks_buf_printf(&b, "%s%s %s (%s, commit %.12s)", named++ ? ", " : "", type ? type : "object",
			      id ? id : "?", path && *path ? path : "/", cid ? cid : "?");
	}
	note = ks_asprintf("repository %s: %s %zu object%s (%s%s)%s; teams whose submission needs "
			   "one are reported, the others are scored", r->display, before, total,
			   total == 1 ? "" : "s", b.ptr ? b.ptr : "", total > named ? ", ..." : "", after);
	ks_buf_free(&b);
	return note;
}

/* What the last fetch recorded as lacking: still lacking unless the mirror has it now or the
 * source has it again (copied then). Keeps the record right however the fetch went. */
static int carry_over(copy_state *c, const cJSON *prev)
{
	const cJSON *e;
	cJSON_ArrayForEach(e, prev) {
		const char *id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "id"));
		const char *type = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "type"));
		const char *path = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "path"));
		const char *cid = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "commit"));
		git_oid oid, commit;
		int rc = 0;
		if (!id || git_oid_fromstr(&oid, id) < 0 || git_odb_exists(c->dodb, &oid))
			continue;
		if (!cid || git_oid_fromstr(&commit, cid) < 0)
			git_oid_cpy(&commit, &oid);
		type = type && !strcmp(type, "tree") ? "tree" : "blob";
		path = path ? path : "";
		if (c->sodb && git_odb_exists(c->sodb, &oid)) {
			if (!strcmp(type, "tree"))
				rc = copy_tree(c, &oid, path, &commit);
			else
				rc = copy_raw(c, &oid);
			if (rc < 0)
				return rc;
			if (git_odb_exists(c->dodb, &oid))
				continue;
		}
		record_missing(c, &oid, type, path, &commit);
	}
	git_error_clear();
	return 0;
}

/* Opens the local source and both object stores. */
static int open_stores(copy_state *c, const char *path)
{
	if (git_repository_open_ext(&c->src, path, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) < 0)
		return rp_fail(c->r, KS_ERROR, "cannot open", path);
	if (git_repository_odb(&c->sodb, c->src) < 0)
		return rp_fail(c->r, KS_ERROR, "cannot open the object stores of", path);
	return 0;
}

static void copy_state_free(copy_state *c)
{
	cJSON_Delete(c->record);
	ks_free(c->missing);
	ks_free(c->tips);
	git_odb_free(c->sodb);
	git_odb_free(c->dodb);
	git_repository_free(c->src);
}

static const char *source_path(const ks_repo *r)
{
	return strncmp(r->location, "file://", 7) ? r->location : r->location + 7;
}

int rp_missing_recheck(ks_repo *r, const cJSON *prev, int local)
{
	copy_state c;
	int rc = 0;

	memset(&c, 0, sizeof(c));
	c.r = r;
	c.record = cJSON_CreateArray();
	clock_gettime(CLOCK_MONOTONIC, &c.t0);
	ks_free(r->fetch_note);
	r->fetch_note = NULL;
	if (cJSON_GetArraySize(prev) > 0) {
		if (git_repository_odb(&c.dodb, r->git) < 0) {
			rc = rp_fail(r, KS_ERROR, "cannot open the object store of the mirror", r->path);
			goto done;
		}
		/* a source that cannot be opened now (it was fetched a moment ago) is not looked at */
		if (local && open_stores(&c, source_path(r)) < 0)
			ks_error_clear();
		if ((rc = carry_over(&c, prev)) < 0)
			goto done;
	}
	r->fetch_note = rp_missing_note(r, c.record, c.nmissing, "it lacks",
					", as found when it was fetched object by object");
	rp_meta_write(r, time(NULL), c.nmissing ? c.record : NULL);
	if (c.nmissing)
		c.record = NULL;
done:
	copy_state_free(&c);
	return rc;
}

int rp_copy_local(ks_repo *r, const cJSON *prev)
{
	static const char *const globs[] = { "refs/heads/*", "refs/tags/*", "refs/pull/*/head" };
	const char *path = source_path(r);
	copy_state c;
	git_reference *head = NULL;
	size_t g, copied = 0, skipped = 0;
	int rc = 0;

	memset(&c, 0, sizeof(c));
	c.r = r;
	c.record = cJSON_CreateArray();
	clock_gettime(CLOCK_MONOTONIC, &c.t0);
	if ((rc = open_stores(&c, path)) < 0)
		goto done;
	if (git_repository_odb(&c.dodb, r->git) < 0) {
		rc = rp_fail(r, KS_ERROR, "cannot open the object stores of", path);
		goto done;
	}
	for (g = 0; g < sizeof(globs) / sizeof(globs[0]) && rc >= 0; g++) {
		git_reference_iterator *it = NULL;
		git_reference *ref = NULL;
		if (git_reference_iterator_glob_new(&it, c.src, globs[g]) < 0) {
			rc = rp_fail(r, KS_ERROR, "cannot list the refs of", path);
			break;
		}
		while (rc >= 0 && git_reference_next(&ref, it) == 0) {
			rc = copy_ref(&c, ref);
			copied += rc == 1;
			skipped += rc == 0;
			git_reference_free(ref);
		}
		git_reference_iterator_free(it);
	}
	if (rc < 0)
		goto done;
	if (!copied) {
		rc = ks_error_set(KS_ERROR, "repository %s: no branch, tag or pull request could be copied",
				  r->display);
		goto done;
	}
	/* commits copied by an earlier fetch are not walked again: what they lacked comes from the
	 * record */
	if ((rc = carry_over(&c, prev)) < 0)
		goto done;
	if (git_reference_lookup(&head, c.src, "HEAD") == 0 && git_reference_type(head) == GIT_REFERENCE_SYMBOLIC &&
	    !strncmp(git_reference_symbolic_target(head), "refs/heads/", 11))
		git_repository_set_head(r->git, git_reference_symbolic_target(head));
	git_error_clear();
	ks_free(r->fetch_note);
	if (c.nmissing)
		r->fetch_note = rp_missing_note(r, c.record, c.nmissing, "fetched object by object, as it "
						"cannot be fetched whole: it lacks", skipped ? ", and some of its refs "
						"could not be copied" : "");
	else
		r->fetch_note = ks_asprintf("repository %s: fetched object by object, as it cannot be "
					    "fetched whole (the objects it lacks were in the mirror already)%s",
					    r->display, skipped ? "; some of its refs could not be copied" : "");
	rp_meta_write(r, time(NULL), c.record);
	c.record = NULL;
done:
	git_reference_free(head);
	copy_state_free(&c);
	return rc;
}
