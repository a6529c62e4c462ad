/* repos_tree: files read from a commit's tree without a checkout (repos.h, repos_int.h). Only the
 * objects on the way are read: the trees of the folders a pattern can match, then the one blob
 * selected, so that an object missing elsewhere in the repository does not matter. */
#include "batch/repos_int.h"
#include "util/buf.h"
#include "util/errors.h"
#include "util/mem.h"
#include "batch/pattern.h"

#include <stdlib.h>
#include <string.h>

/* Tree entries one read may visit: trees come from teams, so a hostile tree must not make the
 * search slow (pattern.c bounds each component match). */
#define MAX_VISIT 200000u
#define MAX_CANDIDATES_SHOWN 4
#define MAX_NAME 1024

typedef struct {
	char *path;
	git_oid oid;
	const char *num;   /* digits of <N> inside path (NULL without <N>) */
	size_t nd;
} candidate;

typedef struct {
	ks_repo *r;
	const char *id;          /* the commit, for messages */
	char **comps;
	size_t ncomps;
	int plain;               /* a path without wildcards: what is at it is named when unusable */
	candidate *c;
	size_t n, cap;
	size_t visited;
	char *nonfile;           /* plain: the path is a link, folder or submodule (its kind) */
	ks_repo_file_status status;  /* the reason of a failure, set with the message */
	char missing[41];
} search;

static const char *kind(git_filemode_t mode)
{
	return mode == GIT_FILEMODE_LINK ? "symbolic link" : mode == GIT_FILEMODE_TREE ? "folder" :
	       mode == GIT_FILEMODE_COMMIT ? "submodule" : "special entry";
}

/* An object the walk needs is not in the mirror: name it and say why. */
static int missing(search *s, const git_oid *oid, int tree, const char *path)
{
	git_oid_tostr(s->missing, sizeof(s->missing), oid);
	s->status = KS_REPO_FILE_MISSING_OBJECT;
	if (rp_missing_recorded(s->r, oid))
		return ks_error_set(KS_ENOTFOUND, "repository %s: commit %.12s: %s %s (%s %s) is missing: "
				    "the repository lacked that object when it was fetched (git fsck there "
				    "reports it)", s->r->display, s->id, tree ? "folder" : "file", path,
				    tree ? "tree" : "blob", s->missing);
	return ks_error_set(KS_ENOTFOUND, "repository %s: commit %.12s: %s %s (%s %s) is not in the "
			    "mirror %s: its object store is incomplete (remove the mirror to fetch it "
			    "again)", s->r->display, s->id, tree ? "folder" : "file", path,
			    tree ? "tree" : "blob", s->missing, s->r->path);
}

/* Looks up the tree of entry e; a tree the mirror lacks is a failure naming it. */
static int subtree(git_tree **out, search *s, const git_tree_entry *e, const char *path)
{
	int err = git_tree_lookup(out, s->r->git, git_tree_entry_id(e));
	if (err == GIT_ENOTFOUND)
		return missing(s, git_tree_entry_id(e), 1, path);
	if (err < 0) {
		s->status = KS_REPO_FILE_ERROR;
		return rp_fail(s->r, KS_ERROR, "cannot read folder", path);
	}
	return 0;
}

static void add_candidate(search *s, char *path, const git_tree_entry *e, const char *name,
			  const char *num, size_t nd)
{
	size_t i;
	for (i = 0; i < s->n; i++)
		if (!strcmp(s->c[i].path, path)) {  /* found again through another "**" split */
			ks_free(path);
			return;
		}
	s->c = ks_grow(s->c, sizeof(*s->c), &s->cap, s->n + 1);
	s->c[s->n].path = path;
	git_oid_cpy(&s->c[s->n].oid, git_tree_entry_id(e));
	s->c[s->n].num = num ? path + strlen(path) - strlen(name) + (size_t)(num - name) : NULL;
	s->c[s->n].nd = nd;
	s->n++;
}

static int descend(search *s, const git_tree *tree, size_t depth, const char *prefix)
{
	const char *pat = s->comps[depth];
	int last = depth + 1 == s->ncomps, globstar = ks_pattern_is_globstar(pat);
	size_t i, n = git_tree_entrycount(tree);
	int rc = 0;

	if (globstar && (rc = descend(s, tree, depth + 1, prefix)) < 0)  /* "**" as no folder */
		return rc;
	for (i = 0; i < n && rc == 0; i++) {
		const git_tree_entry *e = git_tree_entry_byindex(tree, i);
		const char *name = git_tree_entry_name(e), *num = NULL;
		git_filemode_t mode = git_tree_entry_filemode(e);
		git_tree *sub = NULL;
		char *path;
		size_t nd = 0;
		if (++s->visited > MAX_VISIT) {
			s->status = KS_REPO_FILE_ERROR;
			return ks_error_set(KS_ELIMIT, "repository %s: the pattern visits more than %u tree "
					    "entries", s->r->display, MAX_VISIT);
		}
		if (strlen(name) > MAX_NAME || (globstar ? mode != GIT_FILEMODE_TREE :
						 !ks_pattern_match(&num, &nd, pat, name)))
			continue;
		path = *prefix ? ks_asprintf("%s/%s", prefix, name) : ks_strdup(name);
		if ((globstar || !last) && mode == GIT_FILEMODE_TREE) {
			/* "**" as one more folder, or the next component */
			if ((rc = subtree(&sub, s, e, path)) == 0)
				rc = descend(s, sub, globstar ? depth : depth + 1, path);
			git_tree_free(sub);
		} else if (last && (mode == GIT_FILEMODE_BLOB || mode == GIT_FILEMODE_BLOB_EXECUTABLE)) {
			add_candidate(s, path, e, name, num, nd);
			path = NULL;
		} else if (last && s->plain && !s->nonfile) {
			s->nonfile = ks_asprintf("%s is a %s, not a file", path, kind(mode));
		}
		ks_free(path);
	}
	return rc;
}

/* Adds the files one expanded pattern matches. */
static int search_one(search *s, const git_tree *root, const char *pattern)
{
	char *dup = ks_strdup(pattern), *tok, *save = NULL;
	size_t cap = 0;
	int rc;
	s->ncomps = 0;
	for (tok = strtok_r(dup, "/", &save); tok; tok = strtok_r(NULL, "/", &save)) {
		s->comps = ks_grow(s->comps, sizeof(*s->comps), &cap, s->ncomps + 1);
		s->comps[s->ncomps++] = tok;
	}
	rc = s->ncomps ? descend(s, root, 0, "") : 0;
	ks_free(s->comps);
	s->comps = NULL;
	ks_free(dup);
	return rc;
}

/* The blob at `path` in tree `root`, without reading anything but the trees on the way: 1 found
 * (*oid set), 0 not there (or not readable: the base's files only ever narrow a choice). */
static int blob_at(git_oid *oid, git_repository *git, const git_tree *root, const char *path)
{
	const git_tree *t = root;
	git_tree *owned = NULL;
	const char *p = path;
	int found = 0;
	for (;;) {
		size_t n = strcspn(p, "/");
		char name[MAX_NAME + 1];
		const git_tree_entry *e;
		if (n > MAX_NAME)
			break;
		memcpy(name, p, n);
		name[n] = '\0';
		if (!(e = git_tree_entry_byname(t, name)))
			break;
		if (!p[n]) {
			git_filemode_t mode = git_tree_entry_filemode(e);
			if ((found = mode == GIT_FILEMODE_BLOB || mode == GIT_FILEMODE_BLOB_EXECUTABLE))
				git_oid_cpy(oid, git_tree_entry_id(e));
			break;
		}
		{
			git_tree *next = NULL;
			if (git_tree_entry_filemode(e) != GIT_FILEMODE_TREE ||
			    git_tree_lookup(&next, git, git_tree_entry_id(e)) < 0)
				break;
			git_tree_free(owned);
			t = owned = next;
		}
		p += n + 1;
	}
	git_tree_free(owned);
	git_error_clear();
	return found;
}

/* Leaves out the matches that are the base commit's own files (same path, same blob). */
static void drop_base_files(search *s, const char *base, size_t *dropped)
{
	git_commit *cm = NULL;
	git_tree *bt = NULL;
	size_t i, k = 0;
	if (!base || rp_commit(&cm, s->r, base) < 0 || git_commit_tree(&bt, cm) < 0) {
		ks_error_clear();
		git_commit_free(cm);
		return;
	}
	for (i = 0; i < s->n; i++) {
		git_oid o;
		if (blob_at(&o, s->r->git, bt, s->c[i].path) && git_oid_equal(&o, &s->c[i].oid)) {
			ks_free(s->c[i].path);
			(*dropped)++;
			continue;
		}
		s->c[k++] = s->c[i];
	}
	s->n = k;
	git_tree_free(bt);
	git_commit_free(cm);
}

/* The one file the candidates select: the highest <N>, and only one of it. */
static int select_one(size_t *best_out, search *s, const char *spec)
{
	size_t i, best = 0, nbest = 0;
	for (i = 1; i < s->n; i++) {
		int c = s->c[i].num ? ks_pattern_cmp_number(s->c[i].num, s->c[i].nd, s->c[best].num, s->c[best].nd) : 0;
		if (c > 0)
			best = i;
	}
	for (i = 0; i < s->n; i++)
		if (!s->c[i].num || !ks_pattern_cmp_number(s->c[i].num, s->c[i].nd, s->c[best].num, s->c[best].nd))
			nbest++;
	if (nbest > 1) {
		ks_buf b = KS_BUF_INIT(4096);
		size_t shown = 0;
		int rc;
		for (i = 0; i < s->n; i++) {
			if (s->c[i].num && ks_pattern_cmp_number(s->c[i].num, s->c[i].nd, s->c[best].num, s->c[best].nd))
				continue;
			if (shown++ < MAX_CANDIDATES_SHOWN)
				ks_buf_printf(&b, "%s%s", shown > 1 ? ", " : "", s->c[i].path);
		}
		if (nbest > MAX_CANDIDATES_SHOWN)
			ks_buf_printf(&b, " and %zu more", nbest - MAX_CANDIDATES_SHOWN);
		s->status = KS_REPO_FILE_AMBIGUOUS;
		rc = ks_error_set(KS_EINVALID, "repository %s: commit %.12s: %s matches %zu files%s: %s",
				  s->r->display, s->id, spec, nbest, s->c[best].num ? " with the highest <N>" : "",
				  b.ptr ? b.ptr : "");
		ks_buf_free(&b);
		return rc;
	}
	*best_out = best;
	return 0;
}

static void search_reset(search *s)
{
	size_t i;
	for (i = 0; i < s->n; i++)
		ks_free(s->c[i].path);
	s->n = 0;
	ks_free(s->nonfile);
	s->nonfile = NULL;
}

/* Fills out->data from the blob oid at path. */
static int read_blob(ks_repo_file *out, search *s, const git_oid *oid, const char *path, size_t max)
{
	static const char lfs[] = "version https://git-lfs.github.com/spec/";
	git_blob *blob = NULL;
	git_object_size_t size;
	int rc = 0, e = git_blob_lookup(&blob, s->r->git, oid);

	if (e == GIT_ENOTFOUND)
		return missing(s, oid, 0, path);
	if (e < 0) {
		s->status = KS_REPO_FILE_ERROR;
		return rp_fail(s->r, KS_ERROR, "cannot read", path);
	}
	size = git_blob_rawsize(blob);
	if (size > (git_object_size_t)max) {
		s->status = KS_REPO_FILE_TOO_LARGE;
		rc = ks_error_set(KS_ELIMIT, "repository %s: commit %.12s: %s is %llu bytes, over the limit "
				  "of %zu", s->r->display, s->id, path, (unsigned long long)size, max);
	} else if (size >= sizeof(lfs) - 1 && !memcmp(git_blob_rawcontent(blob), lfs, sizeof(lfs) - 1)) {
		s->status = KS_REPO_FILE_UNUSABLE;
		rc = ks_error_set(KS_EINVALID, "repository %s: commit %.12s: %s is a Git LFS pointer; the "
				  "file itself is not in the repository (commit it without LFS)",
				  s->r->display, s->id, path);
	} else {
		out->data = ks_malloc((size_t)size + 1);
		memcpy(out->data, git_blob_rawcontent(blob), (size_t)size);
		out->data[size] = '\0';
		out->len = (size_t)size;
	}
	git_blob_free(blob);
	return rc;
}

/* The root tree of commit id, or a failure naming what is missing. */
static int root_tree(git_tree **out, search *s)
{
	git_commit *cm = NULL;
	int rc = rp_commit(&cm, s->r, s->id), e;
	if (rc < 0) {
		s->status = rc == KS_ENOTFOUND ? KS_REPO_FILE_MISSING_OBJECT : KS_REPO_FILE_ERROR;
		return rc;
	}
	e = git_commit_tree(out, cm);
	if (e == GIT_ENOTFOUND)
		rc = missing(s, git_commit_tree_id(cm), 1, "/");
	else if (e < 0) {
		s->status = KS_REPO_FILE_ERROR;
		rc = rp_fail(s->r, KS_ERROR, "cannot read the tree of commit", s->id);
	}
	git_commit_free(cm);
	return rc;
}

/* Message for no match: the specs asked for, and what left some out. */
static int no_match(search *s, const ks_repo_read_options *o, size_t dropped)
{
	ks_buf b = KS_BUF_INIT(4096);
	size_t i;
	int rc;
	for (i = 0; i < o->nspecs; i++)
		ks_buf_printf(&b, "%s%s", i == 0 ? "" : i + 1 == o->nspecs ? " or " : ", ", o->specs[i]);
	if (dropped) {
		s->status = KS_REPO_FILE_BASE_ONLY;
		rc = ks_error_set(KS_ENOTFOUND, "repository %s: commit %.12s: every file matching %s (%zu) "
				  "is the base's own, unchanged since commit %.12s: the team committed no "
				  "submission of its own", s->r->display, s->id, b.ptr, dropped, o->base);
	} else {
		s->status = KS_REPO_FILE_NO_MATCH;
		rc = ks_error_set(KS_ENOTFOUND, "repository %s: commit %.12s has no file %s%s",
				  s->r->display, s->id, o->nspecs == 1 && !ks_pattern_has_wildcard(o->specs[0]) ?
				  "" : "matching ", b.ptr);
	}
	ks_buf_free(&b);
	return rc;
}

int ks_repo_read(ks_repo_file *out, ks_repo *r, const char *id, const ks_repo_read_options *o)
{
	search s;
	git_tree *root = NULL;
	size_t i, j, dropped = 0, best = 0;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	memset(&s, 0, sizeof(s));
	s.r = r;
	s.id = id;
	s.status = KS_REPO_FILE_ERROR;
	for (i = 0; i < o->nspecs && rc == 0; i++)
		rc = ks_pattern_check(o->specs[i]);
	if (rc < 0 || !o->nspecs) {
		out->status = KS_REPO_FILE_UNUSABLE;
		return rc < 0 ? rc : ks_error_set(KS_EINVALID, "no submission path given");
	}
	if ((rc = root_tree(&root, &s)) < 0)
		goto done;
	for (i = 0; i < o->nspecs; i++) {
		char **alt = NULL;
		size_t nalt = 0;
		search_reset(&s);
		ks_pattern_expand(&alt, &nalt, o->specs[i]);
		s.plain = nalt == 1 && !ks_pattern_has_wildcard(alt[0]);
		for (j = 0; j < nalt && rc == 0; j++)
			rc = search_one(&s, root, alt[j]);
		ks_free_strv(alt, nalt);
		if (rc < 0)
			goto done;
		drop_base_files(&s, o->base, &dropped);
		if (s.n) {
			if ((rc = select_one(&best, &s, o->specs[i])) < 0)
				goto done;
			out->spec = o->specs[i];
			break;
		}
		if (s.nonfile && o->nspecs == 1) {
			s.status = KS_REPO_FILE_UNUSABLE;
			rc = ks_error_set(KS_EINVALID, "repository %s: commit %.12s: %s", r->display, id,
					  s.nonfile);
			goto done;
		}
	}
	if (!s.n) {
		rc = no_match(&s, o, dropped);
		goto done;
	}
	if ((rc = read_blob(out, &s, &s.c[best].oid, s.c[best].path, o->max_bytes)) < 0)
		goto done;
	out->path = s.c[best].path;
	s.c[best].path = NULL;
	s.status = KS_REPO_FILE_OK;
done:
	out->status = s.status;
	out->base_matches = dropped;
	memcpy(out->missing, s.missing, sizeof(out->missing));
	if (rc < 0) {
		ks_free(out->data);
		out->data = NULL;
		out->len = 0;
		out->spec = NULL;
	}
	search_reset(&s);
	ks_free(s.c);
	git_tree_free(root);
	return rc;
}

void ks_repo_file_clear(ks_repo_file *f)
{
	if (!f)
		return;
	ks_free(f->data);
	ks_free(f->path);
	memset(f, 0, sizeof(*f));
}

int ks_repo_read_file(char **data, size_t *len, char **path, ks_repo *r, const char *id,
		      const char *spec, size_t max_bytes)
{
	ks_repo_read_options o = KS_REPO_READ_OPTIONS_INIT;
	ks_repo_file f;
	int rc;
	o.specs = &spec;
	o.nspecs = 1;
	o.max_bytes = max_bytes;
	rc = ks_repo_read(&f, r, id, &o);
	*data = f.data;
	if (len)
		*len = f.len;
	if (path)
		*path = f.path;
	else
		ks_free(f.path);
	return rc;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int ks_repo_list(char ***paths, size_t *n, ks_repo *r, const char *id, const char *spec, size_t max)
{
	search s;
	git_tree *root = NULL;
	char **alt = NULL;
	size_t nalt = 0, i;
	int rc;

	*paths = NULL;
	*n = 0;
	memset(&s, 0, sizeof(s));
	s.r = r;
	s.id = id;
	if ((rc = ks_pattern_expand(&alt, &nalt, spec)) < 0 || (rc = root_tree(&root, &s)) < 0)
		goto done;
	for (i = 0; i < nalt && rc == 0; i++)
		rc = search_one(&s, root, alt[i]);
	if (rc < 0)
		goto done;
	*paths = ks_calloc(s.n + 1, sizeof(**paths));
	for (i = 0; i < s.n; i++) {
		(*paths)[i] = s.c[i].path;
		s.c[i].path = NULL;
	}
	if (s.n)
		qsort(*paths, s.n, sizeof(**paths), cmp_str);
	*n = s.n < max ? s.n : max;
	for (i = *n; i < s.n; i++)
		ks_free((*paths)[i]);
done:
	ks_free_strv(alt, nalt);
	search_reset(&s);
	ks_free(s.c);
	git_tree_free(root);
	return rc;
}
