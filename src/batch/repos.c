#include "batch/repos_int.h"
#include "util/buf.h"
#include "util/errors.h"
#include "util/fsutil.h"
#include "util/hash.h"
#include "util/jsonutil.h"
#include "util/mem.h"
#include "report/outdir.h"
#include "util/secret.h"
#include "util/utf8.h"

#include <git2.h>

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* A history longer than this is not a hackathon repository; walking it would only cost time. */
#define MAX_WALK 1000000u
#define MAX_ANCESTRY 100000u
/* First-parent steps searched for the merge that brought a pull request into its base. */
#define MAX_MAINLINE 100000u

static const ks_repo_options default_opts = KS_REPO_OPTIONS_INIT;

/* ---- locations ---- */

static const char *scheme_end(const char *s)
{
	const char *p = s;
	if (!isalpha((unsigned char)*p))
		return NULL;
	while (isalnum((unsigned char)*p) || *p == '+' || *p == '-' || *p == '.')
		p++;
	return !strncmp(p, "://", 3) ? p + 3 : NULL;
}

int ks_repo_is_url(const char *location)
{
	const char *colon, *slash;
	if (scheme_end(location))
		return 1;
	/* git's rule for scp-like syntax: a ':' before any '/', and not a one-letter drive name */
	colon = strchr(location, ':');
	slash = strchr(location, '/');
	return colon && (!slash || colon < slash) && colon - location > 1 && location[0] != '.';
}

/* Splits a URL into the part before the user information, the user information and the rest.
 * Returns 0 when there is no user information. */
static int find_userinfo(const char *url, size_t *start, size_t *len)
{
	const char *auth = scheme_end(url), *end, *at = NULL, *p;
	if (!auth)
		return 0;
	end = auth + strcspn(auth, "/?#");
	for (p = auth; p < end; p++)
		if (*p == '@')
			at = p;
	if (!at)
		return 0;
	*start = (size_t)(auth - url);
	*len = (size_t)(at + 1 - auth);
	return 1;
}

char *ks_repo_redact(const char *location)
{
	size_t start, len;
	char *out;
	if (!find_userinfo(location, &start, &len))
		return ks_strdup(location);
	out = ks_malloc(strlen(location) - len + 1);
	memcpy(out, location, start);
	strcpy(out + start, location + start + len);
	return out;
}

/* The secrets of a URL's user information "user:token" (or a bare "token"): the whole of it, and
 * the token alone in case a message quotes only that. Short parts ("git") are no secret and would
 * mangle messages. */
static void keep_secrets(ks_repo *r, const char *info, size_t len)
{
	const char *colon = memchr(info, ':', len);
	r->secret[0] = ks_strndup(info, len);
	if (colon && len - (size_t)(colon + 1 - info) >= 4)
		r->secret[1] = ks_strndup(colon + 1, len - (size_t)(colon + 1 - info));
}

/* An absolute path with "." and ".." components and repeated slashes folded away, by the
 * letters alone: for a path that does not exist, which realpath cannot resolve. */
static char *fold_dots(const char *abs)
{
	char *out = ks_malloc(strlen(abs) + 2);
	const char *p = abs;
	size_t n = 0;
	while (*p) {
		const char *end;
		size_t len;
		while (*p == '/')
			p++;
		end = p + strcspn(p, "/");
		len = (size_t)(end - p);
		if (len == 2 && p[0] == '.' && p[1] == '.') {
			while (n > 0 && out[n - 1] != '/')
				n--;
			if (n > 0)
				n--;
		} else if (len && !(len == 1 && p[0] == '.')) {
			out[n++] = '/';
			memcpy(out + n, p, len);
			n += len;
		}
		p = end;
	}
	if (!n)
		out[n++] = '/';
	out[n] = '\0';
	return out;
}

static char *absolute(const char *path, const char *base)
{
	char *joined, *real, *cwd = NULL;
	if (path[0] == '/') {
		joined = ks_strdup(path);
	} else if (base && *base && base[0] == '/') {
		joined = ks_path_join(base, path);
	} else {
		char buf[PATH_MAX];
		cwd = getcwd(buf, sizeof(buf)) ? ks_strdup(buf) : ks_strdup(".");
		if (base && *base) {
			char *b = ks_path_join(cwd, base);
			joined = ks_path_join(b, path);
			ks_free(b);
		} else {
			joined = ks_path_join(cwd, path);
		}
	}
	ks_free(cwd);
	real = realpath(joined, NULL);
	if (real) {
		/* realpath's buffer comes from malloc: copy it into ours */
		char *r = ks_strdup(real);
		free(real);
		ks_free(joined);
		return r;
	}
	real = fold_dots(joined);
	ks_free(joined);
	return real;
}

char *ks_repo_locate(const char *location, const char *base_dir)
{
	return ks_repo_is_url(location) ? ks_strdup(location) : absolute(location, base_dir);
}

time_t ks_repo_fetched_at(const ks_repo *r)
{
	cJSON *o = rp_meta_read(r);
	double v = 0;
	if (ks_json_num(&v, o, "fetched_at_epoch", 0) < 0)
		v = 0;
	ks_error_clear();
	cJSON_Delete(o);
	return (time_t)v;
}

/* ---- open ---- */

static int mirror_file_kind(const char *name, size_t len, void *ud)
{
	(void)ud;
	return len == 18 && !strncmp(name, "kscore-mirror.json", 18) ? KS_OUTDIR_RESULT : -1;
}

int ks_repo_open(ks_repo **out, const char *location, const ks_repo_options *opts)
{
	ks_repo *r;
	char hex[65], *root = NULL;
	size_t start, len;
	int rc = 0;

	*out = NULL;
	if (!opts)
		opts = &default_opts;
	if (!location || !*location)
		return ks_error_set(KS_EINVALID, "empty repository location");
	if (!opts->cache_dir)
		return ks_error_set(KS_EINVALID, "repository %s: no cache folder given", location);
	git_libgit2_init(); /* reference-counted: ks_repo_free shuts it down */
	r = ks_calloc(1, sizeof(*r));
	r->opts = *opts;
	r->location = ks_repo_locate(location, opts->base_dir);
	if (ks_repo_is_url(location)) {
		r->display = ks_repo_redact(location);
		if (find_userinfo(location, &start, &len) && len > 1)
			keep_secrets(r, location + start, len - 1);
	} else {
		r->display = ks_strdup(r->location);
	}
	/* the key leaves credentials out: a new token must not orphan the mirror */
	ks_sha256_hex(hex, r->display, strlen(r->display));
	root = ks_asprintf("%s/repos", opts->cache_dir);
	r->path = ks_path_join(root, hex);
	if (ks_fs_mkdir_p(root, 0755) < 0) {
		rc = ks_error_wrap(KS_EIO, "repository %s: cannot create the cache %s", r->display, root);
		goto done;
	}
	if (!ks_fs_is_dir(r->path)) {
		/* built aside and renamed once fetched whole: nobody ever opens half a mirror */
		if ((rc = rp_mirror_create(r, root, hex)) < 0)
			goto done;
	} else {
		char *m = ks_path_join(r->path, "kscore-mirror.json");
		cJSON *meta;
		r->dir = ks_strdup(r->path);
		if (git_repository_open_bare(&r->git, r->path) < 0) {
			rc = rp_fail(r, KS_EIO, "cannot open the mirror", r->path);
			ks_free(m);
			goto done;
		}
		/* the record's write that a killed process never finished */
		ks_outdir_tidy(r->path, mirror_file_kind, NULL);
		if (!ks_fs_exists(m))
			rp_meta_write(r, 0, NULL);
		ks_free(m);
		/* what the mirror lacks is known before any fetch (a --no-fetch run says it too) */
		meta = rp_meta_read(r);
		r->complete = cJSON_GetObjectItemCaseSensitive(meta, "fetched_at_epoch") != NULL;
		r->fetch_note = rp_missing_note(r, cJSON_GetObjectItemCaseSensitive(meta, "missing_objects"), 0,
						"it lacked", " when it was last fetched");
		cJSON_Delete(meta);
	}
	*out = r;
	r = NULL;
done:
	ks_free(root);
	ks_repo_free(r);
	return rc;
}

const char *ks_repo_display(const ks_repo *r)
{
	return r->display;
}

const char *ks_repo_path(const ks_repo *r)
{
	return r->path;
}

int ks_repo_ready(const ks_repo *r)
{
	if (r->complete)
		return 0;
	if (r->building)
		return ks_error_set(KS_ENOTFOUND, "repository %s: not in the cache (%s): no fetch of it has "
				    "finished%s", r->display, r->path, r->stopped_before ? " (one was stopped "
				    "before the end; its partial copy was removed)" : "");
	return ks_error_set(KS_EINVALID, "repository %s: the mirror %s is incomplete: a fetch into it "
			    "was stopped before it finished (kscore-mirror.json has no fetched_at), so it "
			    "may lack pull requests and branches; it is not used until a fetch finishes",
			    r->display, r->path);
}

int ks_repo_has_refs(ks_repo *r)
{
	git_reference_iterator *it = NULL;
	git_reference *ref = NULL;
	int any = 0;
	if (git_reference_iterator_new(&it, r->git) < 0)
		return 0;
	while (!any && git_reference_next(&ref, it) == 0) {
		any = git_reference_type(ref) == GIT_REFERENCE_DIRECT;
		git_reference_free(ref);
	}
	git_reference_iterator_free(it);
	return any;
}

/* ---- fetch ---- */

typedef struct {
	const ks_repo *r;
	struct timespec t0;
	int stopped;          /* KS_ELIMIT or KS_ETIMEOUT once a cap stopped the transfer */
	int cred_tries;
	uint64_t received;
} fetch_state;

static double elapsed(const struct timespec *t0)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) + (t.tv_nsec - t0->tv_nsec) * 1e-9;
}

static int over_time(fetch_state *st)
{
	if (elapsed(&st->t0) > st->r->opts.fetch_timeout_s) {
		st->stopped = KS_ETIMEOUT;
		return -1;
	}
	return 0;
}

static int on_transfer(const git_indexer_progress *stats, void *payload)
{
	fetch_state *st = payload;
	st->received = stats->received_bytes;
	if (stats->received_bytes > st->r->opts.max_fetch_bytes) {
		st->stopped = KS_ELIMIT;
		return -1;
	}
	return over_time(st);
}

static int on_sideband(const char *str, int len, void *payload)
{
	(void)str;
	(void)len;
	return over_time(payload);
}

/* ssh: ask the agent once; everything else: libgit2's own handling (credentials in the URL). */
static int on_credentials(git_credential **out, const char *url, const char *user, unsigned int allowed,
			  void *payload)
{
	fetch_state *st = payload;
	(void)url;
	if ((allowed & GIT_CREDENTIAL_SSH_KEY) && st->cred_tries++ == 0)
		return git_credential_ssh_key_from_agent(out, user ? user : "git");
	return GIT_PASSTHROUGH;
}

/* A location libgit2 reads through its local transport: a path, or a file:// URL. */
static int local_source(const char *location)
{
	return !ks_repo_is_url(location) || !strncmp(location, "file://", 7);
}

const char *ks_repo_fetch_note(const ks_repo *r)
{
	return r->fetch_note;
}

/* ks_repo_fetch under the mirror's lock, into r->dir; its record gets the fetch time at the end. */
static int fetch_locked(ks_repo *r)
{
	static char *specs[] = { "+refs/heads/*:refs/heads/*", "+refs/tags/*:refs/tags/*",
				 "+refs/pull/*/head:refs/pull/*/head" };
	git_strarray sa = { specs, sizeof(specs) / sizeof(specs[0]) };
	git_remote_callbacks cb = GIT_REMOTE_CALLBACKS_INIT;
	git_fetch_options fo = GIT_FETCH_OPTIONS_INIT;
	git_proxy_options po = GIT_PROXY_OPTIONS_INIT;
	git_remote_create_options co = GIT_REMOTE_CREATE_OPTIONS_INIT;
	git_remote *remote = NULL;
	git_buf head = { 0 };
	fetch_state st;
	cJSON *meta = NULL;
	const cJSON *prev;
	int rc = 0, have_head;

	/* what the last fetch found missing: a fetch that finds every ref up to date never meets
	 * those objects, and must not forget them */
	meta = rp_meta_read(r);
	prev = cJSON_GetObjectItemCaseSensitive(meta, "missing_objects");
	memset(&st, 0, sizeof(st));
	st.r = r;
	clock_gettime(CLOCK_MONOTONIC, &st.t0);
	cb.transfer_progress = on_transfer;
	cb.sideband_progress = on_sideband;
	cb.credentials = on_credentials;
	cb.payload = &st;
	po.type = GIT_PROXY_AUTO;
	/* Anonymous (no name): the URL, and any token in it, is never written to the mirror's
	 * config. url.*.insteadOf rewriting is skipped so that the location fetched is the one the
	 * manifest names, whatever the organizer's personal git config says (it also avoids a
	 * regex leak in libgit2 1.5's config lookup). */
	co.repository = r->git;
	co.flags = GIT_REMOTE_CREATE_SKIP_INSTEADOF | GIT_REMOTE_CREATE_SKIP_DEFAULT_FETCHSPEC;
	if (git_remote_create_with_opts(&remote, r->location, &co) < 0) {
		rc = rp_fail(r, KS_EINVALID, "bad location", NULL);
		goto done;
	}
	if (git_remote_connect(remote, GIT_DIRECTION_FETCH, &cb, &po, NULL) < 0) {
		rc = rp_fail(r, KS_ERROR, "cannot connect", NULL);
		goto done;
	}
	have_head = git_remote_default_branch(&head, remote) == 0;
	fo.callbacks = cb;
	fo.prune = GIT_FETCH_NO_PRUNE;
	fo.update_fetchhead = 0;
	fo.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_NONE; /* the refspec takes every tag already */
	fo.proxy_opts = po;
	if (git_remote_download(remote, &sa, &fo) < 0)
		goto failed;
	git_remote_disconnect(remote);
	if (git_remote_update_tips(remote, &cb, 0, GIT_REMOTE_DOWNLOAD_TAGS_NONE, "kscore fetch") < 0)
		goto failed;
	if (have_head && !strncmp(head.ptr, "refs/heads/", 11))
		git_repository_set_head(r->git, head.ptr);
	rc = rp_missing_recheck(r, prev, local_source(r->location));
	goto done;
failed:
	if (st.stopped == KS_ELIMIT)
		rc = ks_error_set(KS_ELIMIT, "repository %s: fetch stopped after %llu bytes, over the "
				  "limit of %llu", r->display, (unsigned long long)st.received,
				  (unsigned long long)r->opts.max_fetch_bytes);
	else if (st.stopped == KS_ETIMEOUT)
		rc = ks_error_set(KS_ETIMEOUT, "repository %s: fetch stopped after %.0f s, the limit",
				  r->display, r->opts.fetch_timeout_s);
	else
		rc = rp_fail(r, KS_ERROR, "fetch failed", NULL);
	/* A local repository that lacks an object cannot be packed whole; copy what it has, object
	 * by object, so that teams whose files are all there can still be scored. */
	if (!st.stopped && local_source(r->location)) {
		char *why = ks_strdup(ks_error_msg());
		git_remote_free(remote);
		remote = NULL;
		if (rp_copy_local(r, prev) == 0) {
			rc = 0;
		} else {
			char *also = ks_strdup(ks_error_msg());
			rc = ks_error_set(KS_ERROR, "%s (and copying it object by object failed too: %s)", why,
					  also);
			ks_free(also);
		}
		ks_free(why);
	}
done:
	cJSON_Delete(meta);
	git_buf_dispose(&head);
	git_remote_free(remote);
	return rc;
}

int ks_repo_fetch(ks_repo *r)
{
	int fd, rc;
	if (!ks_repo_is_url(r->location) && !ks_fs_exists(r->location))
		return ks_error_set(KS_ERROR, "repository %s: no such folder", r->display);
	if ((rc = rp_mirror_lock(&fd, r)) < 0)
		return rc;
	if ((rc = fetch_locked(r)) == 0)
		rc = rp_mirror_finish(r);
	rp_mirror_unlock(fd);
	return rc;
}

/* ---- refs and commits ---- */

static void oid_hex(char out[41], const git_oid *oid)
{
	git_oid_tostr(out, 41, oid);
}

static int is_hex(const char *s, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]))
			return 0;
	return 1;
}

/* Peels a reference to a commit. Returns 1 found, 0 no such reference, <0 error (message set). */
static int ref_commit(git_oid *out, ks_repo *r, const char *name, const char *asked)
{
	git_reference *ref = NULL;
	git_object *obj = NULL;
	int e = git_reference_lookup(&ref, r->git, name), rc;
	if (e == GIT_ENOTFOUND || e == GIT_EINVALIDSPEC)
		return 0;
	if (e < 0)
		return rp_fail(r, KS_ERROR, "cannot read ref", asked);
	if ((e = git_reference_peel(&obj, ref, GIT_OBJECT_COMMIT)) == GIT_ENOTFOUND &&
	    git_reference_type(ref) == GIT_REFERENCE_SYMBOLIC) {
		git_reference_free(ref);  /* a symbolic ref to a branch that does not exist: unborn */
		return 0;
	}
	if (e < 0) {
		rc = rp_fail(r, KS_EINVALID, "ref does not lead to a commit:", asked);
		git_reference_free(ref);
		return rc;
	}
	git_oid_cpy(out, git_object_id(obj));
	git_object_free(obj);
	git_reference_free(ref);
	return 1;
}

int ks_repo_resolve(char id[41], ks_repo *r, const char *ref)
{
	static const char *const prefixes[] = { "refs/heads/", "refs/tags/" };
	git_oid oid;
	size_t i, n;
	int found = 0;

	id[0] = '\0';
	if (!r->complete)
		return ks_repo_ready(r);
	if (!ref || !*ref)
		return ks_error_set(KS_EINVALID, "repository %s: empty ref", r->display);
	if (!strcmp(ref, "HEAD") || !strncmp(ref, "refs/", 5)) {
		found = ref_commit(&oid, r, ref, ref);
	} else {
		for (i = 0; !found && i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
			char *full = ks_asprintf("%s%s", prefixes[i], ref);
			found = ref_commit(&oid, r, full, ref);
			ks_free(full);
		}
		n = strlen(ref);
		if (!found && n >= 4 && n <= 40 && is_hex(ref, n)) {
			git_object *obj = NULL;
			int e;
			git_oid_fromstrn(&oid, ref, n);
			e = git_object_lookup_prefix(&obj, r->git, &oid, n, GIT_OBJECT_COMMIT);
			if (e == GIT_EAMBIGUOUS)
				return ks_error_set(KS_EINVALID, "repository %s: commit id %s is ambiguous",
						    r->display, ref);
			if (e == 0) {
				git_oid_cpy(&oid, git_object_id(obj));
				git_object_free(obj);
				found = 1;
			}
		}
	}
	if (found < 0)
		return found;
	if (!found && !strcmp(ref, "HEAD"))
		return ks_error_set(KS_ENOTFOUND, "repository %s: no default branch (its HEAD names no "
				    "branch it has); name a branch, tag or commit as the ref", r->display);
	if (!found)
		return ks_error_set(KS_ENOTFOUND, "repository %s: no branch, tag, pull request or commit "
				    "named %s", r->display, ref);
	oid_hex(id, &oid);
	return 0;
}

static void commit_fill(ks_repo_commit *c, git_commit *cm)
{
	const char *s = git_commit_summary(cm);
	memset(c, 0, sizeof(*c));
	oid_hex(c->id, git_commit_id(cm));
	c->time = (int64_t)git_commit_time(cm);
	c->offset_min = git_commit_time_offset(cm);
	c->subject = ks_utf8_clean(s ? s : "");
}

void ks_repo_commit_clear(ks_repo_commit *c)
{
	if (!c)
		return;
	ks_free(c->subject);
	memset(c, 0, sizeof(*c));
}

int rp_commit(git_commit **out, ks_repo *r, const char *id)
{
	git_oid oid;
	if (strlen(id) != 40 || git_oid_fromstr(&oid, id) < 0)
		return ks_error_set(KS_EINVALID, "repository %s: %s is not a full commit id", r->display, id);
	if (git_commit_lookup(out, r->git, &oid) < 0)
		return rp_fail(r, KS_ENOTFOUND, "no commit", id);
	return 0;
}

int ks_repo_commit_info(ks_repo_commit *out, ks_repo *r, const char *id)
{
	git_commit *cm = NULL;
	int rc;
	memset(out, 0, sizeof(*out));
	if ((rc = rp_commit(&cm, r, id)) < 0)
		return rc;
	commit_fill(out, cm);
	git_commit_free(cm);
	return 0;
}

/* 1 when `a` is `b` or a descendant of it, 0 when not, <0 on error. */
static int descends(ks_repo *r, const git_oid *a, const git_oid *b)
{
	int e;
	if (git_oid_equal(a, b))
		return 1;
	e = git_graph_descendant_of(r->git, a, b);
	if (e < 0 && e != GIT_ENOTFOUND)
		return rp_fail(r, KS_ERROR, "cannot compare commits", NULL);
	return e == 1;
}

int ks_repo_contains(ks_repo *r, const char *tip, const char *id)
{
	git_oid a, b;
	if (git_oid_fromstr(&a, tip) < 0 || git_oid_fromstr(&b, id) < 0)
		return ks_error_set(KS_EINVALID, "repository %s: not a commit id", r->display);
	return descends(r, &a, &b);
}

void ks_repo_pick_clear(ks_repo_pick *p)
{
	size_t i;
	if (!p)
		return;
	ks_repo_commit_clear(&p->chosen);
	for (i = 0; i < p->nlater; i++)
		ks_repo_commit_clear(&p->later[i]);
	ks_free(p->later);
	memset(p, 0, sizeof(*p));
}

static void later_add(ks_repo_pick *p, git_commit *cm, int ancestor, size_t max_later)
{
	size_t i;
	char id[41];
	oid_hex(id, git_commit_id(cm));
	for (i = 0; i < p->nlater; i++)
		if (!strcmp(p->later[i].id, id)) {
			p->later[i].ancestor_of_chosen |= ancestor;
			return;
		}
	p->later_total++;
	if (p->nlater >= max_later)
		return;
	p->later = ks_realloc(p->later, (p->nlater + 1) * sizeof(*p->later));
	commit_fill(&p->later[p->nlater], cm);
	p->later[p->nlater].ancestor_of_chosen = ancestor;
	p->nlater++;
}

/* Walks from `from` in commit-time order; calls back with each commit until it returns nonzero. */
static int walk(ks_repo *r, const git_oid *from, const git_oid *hide, int (*fn)(git_commit *, void *),
		void *ud)
{
	git_revwalk *w = NULL;
	git_oid oid;
	size_t n = 0;
	int rc = 0, e;

	if (git_revwalk_new(&w, r->git) < 0 || git_revwalk_push(w, from) < 0 ||
	    (hide && git_revwalk_hide(w, hide) < 0)) {
		rc = rp_fail(r, KS_ERROR, "cannot walk the history", NULL);
		goto done;
	}
	git_revwalk_sorting(w, GIT_SORT_TIME);
	while ((e = git_revwalk_next(&oid, w)) == 0) {
		git_commit *cm = NULL;
		if (++n > MAX_WALK) {
			rc = ks_error_set(KS_ELIMIT, "repository %s: history longer than %u commits",
					  r->display, MAX_WALK);
			goto done;
		}
		if (git_commit_lookup(&cm, r->git, &oid) < 0) {
			rc = rp_fail(r, KS_ERROR, "cannot read a commit of the history", NULL);
			goto done;
		}
		e = fn(cm, ud);
		git_commit_free(cm);
		if (e)
			break;
	}
	if (e < 0 && e != GIT_ITEROVER)
		rc = rp_fail(r, KS_ERROR, "cannot walk the history", NULL);
done:
	git_revwalk_free(w);
	return rc;
}

typedef struct {
	ks_repo_pick *p;
	int64_t deadline;
	size_t max_later;
	int ancestors;   /* second walk: over the chosen commit's ancestry */
	size_t visited;
} pick_state;

static int pick_step(git_commit *cm, void *ud)
{
	pick_state *ps = ud;
	int64_t t = (int64_t)git_commit_time(cm);
	if (ps->ancestors) {
		if (t > ps->deadline)
			later_add(ps->p, cm, 1, ps->max_later);
		/* evidence, not a requirement: a huge upstream history is not searched to the end */
		return ++ps->visited >= MAX_ANCESTRY;
	}
	if (t <= ps->deadline) {
		commit_fill(&ps->p->chosen, cm);
		ps->p->found = 1;
		return 1;
	}
	later_add(ps->p, cm, 0, ps->max_later);
	return 0;
}

int ks_repo_pick_commit(ks_repo_pick *out, ks_repo *r, const char *tip, const char *base,
			int64_t deadline, size_t max_later)
{
	git_commit *cm = NULL;
	pick_state ps = { out, deadline, max_later, 0, 0 };
	git_oid chosen, hide;
	int rc;

	memset(out, 0, sizeof(*out));
	if (base && (strlen(base) != GIT_OID_HEXSZ || git_oid_fromstr(&hide, base) < 0))
		return ks_error_set(KS_EINVALID, "repository %s: base %s is not a full commit id", r->display,
				    base);
	if ((rc = rp_commit(&cm, r, tip)) < 0)
		return rc;
	rc = walk(r, git_commit_id(cm), base ? &hide : NULL, pick_step, &ps);
	git_commit_free(cm);
	if (rc < 0 || !out->found)
		return rc;
	/* Dates are set by whoever commits: a chosen commit that contains work dated after the
	 * deadline tells the organizers that a date was moved back. */
	git_oid_fromstr(&chosen, out->chosen.id);
	ps.ancestors = 1;
	return walk(r, &chosen, base ? &hide : NULL, pick_step, &ps);
}

int ks_repo_default_branch(const char **ref, ks_repo *r)
{
	static const char *const tried[] = { "HEAD", "refs/heads/main", "refs/heads/master" };
	git_reference *head = NULL;
	char *names = NULL;
	git_oid oid;
	size_t i;
	int found;

	*ref = NULL;
	for (i = 0; i < sizeof(tried) / sizeof(tried[0]); i++) {
		if ((found = ref_commit(&oid, r, tried[i], tried[i])) < 0)
			return found;
		if (found) {
			*ref = tried[i];
			return 0;
		}
	}
	/* say what HEAD names: "refs/heads/master" in a `git init --bare` hub that got only main */
	if (git_reference_lookup(&head, r->git, "HEAD") == 0 && git_reference_type(head) == GIT_REFERENCE_SYMBOLIC)
		names = ks_asprintf("its HEAD names %s, which it does not have", git_reference_symbolic_target(head));
	git_reference_free(head);
	git_error_clear();
	found = ks_error_set(KS_ENOTFOUND, "repository %s: no default branch (%s, and it has neither "
			     "refs/heads/main nor refs/heads/master)", r->display,
			     names ? names : "its HEAD names no branch it has");
	ks_free(names);
	return found;
}

int ks_repo_base(char out[41], ks_repo *r, const char *tip, const char *base_ref)
{
	git_oid t, b, prev;
	git_commit *cm = NULL;
	char id[41];
	size_t steps = 0;
	int rc, in;

	out[0] = '\0';
	if (!base_ref && (rc = ks_repo_default_branch(&base_ref, r)) < 0)
		return rc;
	if ((rc = ks_repo_resolve(id, r, base_ref)) < 0)
		return ks_error_wrap(rc, "the base of ref commit %.12s", tip);
	if (git_oid_fromstr(&t, tip) < 0 || strlen(tip) != GIT_OID_HEXSZ)
		return ks_error_set(KS_EINVALID, "repository %s: %s is not a full commit id", r->display, tip);
	git_oid_fromstr(&b, id);
	/* the base itself as the head: nothing of the team's own (it is late) */
	if (git_oid_equal(&b, &t) || (in = descends(r, &b, &t)) == 0) {
		memcpy(out, id, 41);
		return 0;
	}
	if (in < 0)
		return in;
	/* The base contains the head: the pull request was merged. Its own commits are those the
	 * merge brought in: follow the base's first parents back to the oldest commit that still
	 * contains the head, and exclude the history of that commit's first parent. */
	git_oid_cpy(&prev, &b);
	for (;;) {
		const git_oid *p1;
		if (++steps > MAX_MAINLINE)
			return ks_error_set(KS_ELIMIT, "repository %s: no merge of %.12s within %u commits of "
					    "the base %s", r->display, tip, MAX_MAINLINE, base_ref);
		if (git_commit_lookup(&cm, r->git, &prev) < 0)
			return rp_fail(r, KS_ERROR, "cannot read a commit of the base", base_ref);
		p1 = git_commit_parentcount(cm) ? git_commit_parent_id(cm, 0) : NULL;
		in = p1 ? descends(r, p1, &t) : 0;
		if (in < 0) {
			git_commit_free(cm);
			return in;
		}
		if (!in) {
			rc = 0;
			if (git_oid_equal(&prev, &t) || !p1)
				rc = ks_error_set(KS_EINVALID, "repository %s: the head %.12s is on the base's "
						  "main line (fast-forwarded): its own commits cannot be told "
						  "from the base's; name the commit it started from as its "
						  "\"base\"", r->display, tip);
			else
				oid_hex(out, p1);
			git_commit_free(cm);
			return rc;
		}
		git_oid_cpy(&prev, p1);
		git_commit_free(cm);
	}
}

int ks_repo_merge_base(char out[41], ks_repo *r, const char *a, const char *b)
{
	git_oid x, y, m;
	int e;
	out[0] = '\0';
	if (git_oid_fromstr(&x, a) < 0 || git_oid_fromstr(&y, b) < 0)
		return ks_error_set(KS_EINVALID, "repository %s: not a commit id", r->display);
	e = git_merge_base(&m, r->git, &x, &y);
	if (e == GIT_ENOTFOUND)
		return 0;
	if (e < 0)
		return rp_fail(r, KS_ERROR, "cannot find the common ancestor of", a);
	oid_hex(out, &m);
	return 1;
}

/* ---- pull requests ---- */

static int cmp_pull(const void *a, const void *b)
{
	const ks_repo_pull *x = a, *y = b;
	return x->number < y->number ? -1 : x->number > y->number;
}

int ks_repo_pull_requests(ks_repo_pull **out, size_t *n, ks_repo *r)
{
	git_reference_iterator *it = NULL;
	git_reference *ref = NULL;
	ks_repo_pull *v = NULL;
	size_t cnt = 0, cap = 0;
	int rc = 0, e;

	*out = NULL;
	*n = 0;
	if (!r->complete)
		return ks_repo_ready(r);  /* a partial mirror's list would drop teams without a word */
	if (git_reference_iterator_glob_new(&it, r->git, "refs/pull/*/head") < 0)
		return rp_fail(r, KS_ERROR, "cannot list the pull requests", NULL);
	while ((e = git_reference_next(&ref, it)) == 0) {
		const char *name = git_reference_name(ref), *digits = name + 10, *end;
		git_object *obj = NULL;
		unsigned long num;
		char *stop;
		end = digits + strspn(digits, "0123456789");
		errno = 0;
		num = strtoul(digits, &stop, 10);
		/* only refs/pull/<N>/head exactly */
		if (end == digits || stop != end || strcmp(end, "/head") || errno || num == 0 ||
		    git_reference_peel(&obj, ref, GIT_OBJECT_COMMIT) < 0) {
			git_reference_free(ref);
			continue;
		}
		v = ks_grow(v, sizeof(*v), &cap, cnt + 1);
		memset(&v[cnt], 0, sizeof(v[cnt]));
		v[cnt].number = num;
		oid_hex(v[cnt].id, git_object_id(obj));
		{
			const char *s = git_commit_summary((git_commit *)obj);
			const git_signature *a = git_commit_author((git_commit *)obj);
			v[cnt].subject = ks_utf8_clean(s ? s : "");
			v[cnt].author = ks_utf8_clean(a && a->name ? a->name : "");
		}
		cnt++;
		git_object_free(obj);
		git_reference_free(ref);
	}
	if (e != GIT_ITEROVER) {
		rc = rp_fail(r, KS_ERROR, "cannot list the pull requests", NULL);
		ks_repo_pulls_free(v, cnt);
		goto done;
	}
	if (cnt)
		qsort(v, cnt, sizeof(*v), cmp_pull);
	*out = v;
	*n = cnt;
done:
	git_reference_iterator_free(it);
	return rc;
}

void ks_repo_pulls_free(ks_repo_pull *p, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++) {
		ks_free(p[i].subject);
		ks_free(p[i].author);
		ks_free(p[i].scored_subject);
	}
	ks_free(p);
}

void ks_repo_free(ks_repo *r)
{
	int i;
	if (!r)
		return;
	git_repository_free(r->git);
	if (r->building && r->dir)
		ks_fs_rm_rf(r->dir);  /* a first copy that was never fetched whole */
	ks_free(r->dir);
	/* the token's bytes do not stay in freed memory (the location holds them too) */
	ks_secret_free(r->location);
	ks_free(r->display);
	for (i = 0; i < 2; i++)
		ks_secret_free(r->secret[i]);
	ks_free(r->path);
	ks_free(r->fetch_note);
	ks_free(r);
	git_libgit2_shutdown();
}
