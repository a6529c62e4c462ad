#include "report/outdir.h"
#include "util/errors.h"
#include "util/fsutil.h"
#include "util/jsonutil.h"
#include "util/mem.h"
#include "util/version.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>


#define MARK_MAX 4096u             /* the mark is one short line */
#define HEAD_MAX 4096u             /* a legacy record's schema is its first key */
#define FILE_MAX (16u << 20)       /* a file checked by schema (a baseline) is parsed whole */
#define LEGACY_MAX_ENTRIES 100000u /* a legacy folder with more entries is not kscore's */

typedef struct {
	dev_t dev;
	ino_t ino;
} fid;

static const char *const kind_names[] = { "result", "batch", "site" };
static const char *const kind_nouns[] = { "result folder", "batch results folder", "site folder" };

const char *ks_outdir_kind_name(ks_outdir_kind kind)
{
	return (unsigned)kind < 3 ? kind_names[kind] : "unknown";
}

static const char *kind_noun(ks_outdir_kind kind)
{
	return (unsigned)kind < 3 ? kind_nouns[kind] : "folder";
}

static char *trim(const char *path)
{
	size_t n = strlen(path);
	while (n > 1 && path[n - 1] == '/')
		n--;
	return ks_strndup(path, n);
}

static int same(const struct stat *st, const fid *f)
{
	return st->st_dev == f->dev && st->st_ino == f->ino;
}

/* Where the folder d stands to the canonical path of p: 0 apart, 1 d is p, 2 d is an ancestor of
 * p. Walks up realpath(p) component by component and compares identities, so links, "..", bind
 * spellings and case games in the strings do not matter. */
static int position(const fid *d, const char *p)
{
	char *r = realpath(p, NULL), *s;
	int depth = 0, found = 0;
	if (!r)
		return 0;
	for (;;) {
		struct stat st;
		if (stat(r, &st) == 0 && same(&st, d)) {
			found = depth ? 2 : 1;
			break;
		}
		if (!strcmp(r, "/"))
			break;
		s = strrchr(r, '/');
		if (!s)
			break;
		if (s == r)
			s[1] = '\0';
		else
			*s = '\0';
		depth++;
	}
	free(r);
	return found;
}

/* The deepest existing prefix of a path that does not exist yet: where it would be created. */
static char *existing_ancestor(const char *path)
{
	char *cur = ks_strdup(path);
	struct stat st;
	while (lstat(cur, &st) < 0 && strcmp(cur, ".") && strcmp(cur, "/")) {
		char *up = ks_path_dirname(cur);
		ks_free(cur);
		cur = up;
	}
	return cur;
}

/* The existing path p (identity self) must not be or hold an input, the working directory, or lie
 * inside an input folder. For a path that does not exist yet, self is NULL and p is where it
 * would be created: only the last rule applies. */
static int check_inputs(const char *path, const char *p, const fid *self, const ks_outdir_options *o)
{
	size_t i;
	int pos;

	if (self) {
		for (i = 0; i < o->ninputs; i++) {
			const char *in = o->inputs[i];
			struct stat st;
			char *dir;
			if (!in || !*in || lstat(in, &st) < 0)
				continue;
			pos = position(self, in);
			if (!pos) {
				/* the input's own name (a link, say) living inside the path */
				char *t = trim(in);
				dir = ks_path_dirname(t);
				ks_free(t);
				pos = position(self, dir) ? 2 : 0;
				ks_free(dir);
			}
			if (pos == 1)
				return ks_error_set(KS_EINVALID, "%s is the input %s; choose another --out", path, in);
			if (pos == 2)
				return ks_error_set(KS_EINVALID, "%s holds the input %s; choose another --out", path,
						    in);
		}
		pos = position(self, ".");
		if (pos == 1)
			return ks_error_set(KS_EINVALID, "%s is the working directory; choose another --out", path);
		if (pos == 2)
			return ks_error_set(KS_EINVALID, "%s holds the working directory; choose another --out",
					    path);
	}
	for (i = 0; i < o->ninputs; i++) {
		const char *in = o->inputs[i];
		struct stat st;
		fid d;
		if (!in || !*in || stat(in, &st) < 0 || !S_ISDIR(st.st_mode))
			continue;
		d.dev = st.st_dev;
		d.ino = st.st_ino;
		if (position(&d, p))
			return ks_error_set(KS_EINVALID, "%s is inside the input folder %s; choose another --out",
					    path, in);
	}
	return 0;
}

/* Path does not exist: only where it would be created matters. */
static int check_absent(const char *path, const ks_outdir_options *o)
{
	char *anc = existing_ancestor(path);
	int rc = check_inputs(path, anc, NULL, o);
	ks_free(anc);
	return rc;
}

/* 1: dir has a valid mark of kind; 0: no mark; -1: a mark that is not valid or of another kind,
 * why says which. */
static int read_mark(const char *dir, ks_outdir_kind kind, char *why, size_t whylen)
{
	char *p = ks_path_join(dir, KS_OUTDIR_MARK), *text = NULL;
	const char *s = NULL;
	struct stat st;
	cJSON *j = NULL;
	size_t len = 0;
	int r = -1;

	if (lstat(p, &st) < 0) {
		if (errno == ENOENT)
			r = 0;
		else
			snprintf(why, whylen, "its %s cannot be read: %s", KS_OUTDIR_MARK, strerror(errno));
		goto done;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(why, whylen, "its %s is not a regular file", KS_OUTDIR_MARK);
		goto done;
	}
	if (ks_fs_read(&text, &len, p, MARK_MAX) < 0 || ks_json_parse(&j, text, len, 4, p) < 0 ||
	    !cJSON_IsObject(j) || ks_json_str(&s, j, "schema", 1) < 0 || strcmp(s, KS_OUTDIR_SCHEMA) ||
	    ks_json_str(&s, j, "kind", 1) < 0) {
		ks_error_clear();
		snprintf(why, whylen, "its %s is not a valid %s mark", KS_OUTDIR_MARK, KS_OUTDIR_SCHEMA);
		goto done;
	}
	if (strcmp(s, ks_outdir_kind_name(kind))) {
		snprintf(why, whylen, "its mark says it is a kscore \"%.32s\" folder", s);
		goto done;
	}
	r = 1;
done:
	cJSON_Delete(j);
	ks_free(text);
	ks_free(p);
	return r;
}

static int is_empty_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int empty = 1;
	if (!d)
		return 0;
	while (empty && (e = readdir(d)) != NULL)
		empty = !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..");
	closedir(d);
	return empty;
}

/* 1 when the regular file path starts, as kscore writes it, with {"schema": "<schema>". Only the
 * head is read: a legacy record can be large, and its schema is always its first key. */
static int head_schema_is(const char *path, const char *schema)
{
	char buf[HEAD_MAX + 1], *p, *want;
	struct stat st;
	ssize_t n;
	int fd, ok = 0;

	if (lstat(path, &st) < 0 || !S_ISREG(st.st_mode))
		return 0;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return 0;
	n = read(fd, buf, HEAD_MAX);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	p = buf + strspn(buf, " \t\r\n");
	if (*p++ != '{')
		return 0;
	p += strspn(p, " \t\r\n");
	if (strncmp(p, "\"schema\"", 8))
		return 0;
	p += 8;
	p += strspn(p, " \t\r\n");
	if (*p++ != ':')
		return 0;
	p += strspn(p, " \t\r\n");
	want = ks_asprintf("\"%s\"", schema);
	ok = !strncmp(p, want, strlen(want));
	ks_free(want);
	return ok;
}

static int digits_then(const char *s, const char *suffix)
{
	const char *p = s;
	while (*p >= '0' && *p <= '9')
		p++;
	return p > s && !strcmp(p, suffix);
}

/* A file name kscore writes at this depth of a result folder (0: the folder, 1: exec/,
 * 2: exec/gen_perf/), or its atomic-write leftover "<name>.tmp.<pid>". */
static int known_file(const char *name, int level)
{
	char *b = ks_strdup(name), *t = strstr(b, ".tmp.");
	size_t n;
	int ok;

	if (t && digits_then(t + 5, ""))
		*t = '\0';
	n = strlen(b);
	if (level == 0)
		ok = !strcmp(b, "score.json") || !strcmp(b, "batch.json") || !strcmp(b, "out.json") ||
		     !strcmp(b, "out.jsonpassk.txt") || !strcmp(b, "out.json_all_passes.json") ||
		     (!strncmp(b, "out.json_results_", 17) && digits_then(b + 17, ".json")) ||
		     (!strncmp(b, "out.json_perf_", 14) && digits_then(b + 14, ".json"));
	else if (level == 1)
		ok = !strcmp(b, "performance_analysis.txt");
	else
		ok = n > 5 && b[0] != '.' && !strcmp(b + n - 5, ".json");
	ks_free(b);
	return ok;
}

/* 1 when every entry under dir is a file or folder that kscore writes there. */
static int only_known(const char *dir, int level, size_t *count)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int ok = 1;

	if (!d)
		return 0;
	while (ok && (e = readdir(d)) != NULL) {
		struct stat st;
		char *p;
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (++*count > LEGACY_MAX_ENTRIES) {
			ok = 0;
			break;
		}
		p = ks_path_join(dir, e->d_name);
		if (lstat(p, &st) < 0)
			ok = 0;
		else if (S_ISREG(st.st_mode))
			ok = known_file(e->d_name, level);
		else if (S_ISDIR(st.st_mode))
			ok = ((level == 0 && !strcmp(e->d_name, "exec")) ||
			      (level == 1 && !strcmp(e->d_name, "gen_perf"))) &&
			     only_known(p, level + 1, count);
		else
			ok = 0;
		ks_free(p);
	}
	closedir(d);
	return ok;
}

/* The legacy rule: a folder that an earlier version of kscore wrote before marks existed. */
static int legacy(const char *dir, ks_outdir_kind kind)
{
	char *a = NULL, *b = NULL;
	size_t count = 0;
	int ok = 0;

	if (kind == KS_OUTDIR_RESULT) {
		a = ks_path_join(dir, "score.json");
		b = ks_path_join(dir, "batch.json");
		ok = (head_schema_is(a, "kscore.score/1") || head_schema_is(b, "kscore.batch-team/1")) &&
		     only_known(dir, 0, &count);
	} else if (kind == KS_OUTDIR_BATCH) {
		a = ks_path_join(dir, "leaderboard.json");
		ok = head_schema_is(a, "kscore.leaderboard/1");
	}
	ks_free(a);
	ks_free(b);
	return ok;
}

/* ---- what a killed kscore leaves ---- */

ks_outdir_temp ks_outdir_temp_parse(const char *entry, size_t *name_len, long *pid)
{
	static const struct {
		const char *sep;
		ks_outdir_temp kind;
	} forms[] = { { ".tmp.", KS_OUTDIR_TEMP_FILE }, { ".tmp-", KS_OUTDIR_TEMP_BUILD },
		      { ".old-", KS_OUTDIR_TEMP_OLD } };
	size_t i;
	for (i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		/* the last occurrence: a name may hold the separator itself ("a.tmp.b.tmp.12") */
		const char *at = NULL, *p = entry, *d;
		char *end;
		long v;
		while ((p = strstr(p, forms[i].sep)) != NULL)
			at = p++;
		if (!at || at == entry)
			continue;
		d = at + 5;
		if (*d < '1' || *d > '9' || strspn(d, "0123456789") > 10)
			continue;
		errno = 0;
		v = strtol(d, &end, 10);
		if (errno || v <= 0 || v > INT32_MAX)
			continue;
		/* "<pid>-<n>" for folders ("<pid>" alone: a mirror being created, repos.c) */
		if (forms[i].kind != KS_OUTDIR_TEMP_FILE && *end == '-' && end[1] >= '0' && end[1] <= '9')
			end += 1 + strspn(end + 1, "0123456789");
		if (*end || (forms[i].kind == KS_OUTDIR_TEMP_OLD && !strchr(d, '-')))
			continue;
		*name_len = (size_t)(at - entry);
		*pid = v;
		return forms[i].kind;
	}
	return KS_OUTDIR_TEMP_NONE;
}

int ks_outdir_writer_gone(long pid)
{
	char proc[32];
	if (pid <= 0 || (pid_t)pid == getpid())
		return 0;
	if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
		return 0;
	/* a thread id (atomic writes name their file by the writing thread) that kill cannot see */
	snprintf(proc, sizeof(proc), "/proc/%ld", pid);
	return access(proc, F_OK) != 0;
}

/* 1 when the regular file p holds the start of a mark kscore writes for kind (of any version):
 * a mark cut short by a kill, the empty file included. */
static int cut_mark(const char *p, ks_outdir_kind kind)
{
	char buf[MARK_MAX + 1], *head;
	struct stat st;
	size_t hl, rest;
	ssize_t n;
	int fd, ok = 0;

	if (lstat(p, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > (off_t)MARK_MAX)
		return 0;
	if ((fd = open(p, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) < 0)
		return 0;
	n = read(fd, buf, MARK_MAX);
	close(fd);
	if (n < 0)
		return 0;
	buf[n] = '\0';
	head = ks_asprintf("{\"schema\": \"%s\", \"kind\": \"%s\", \"scorer\": \"kscore ", KS_OUTDIR_SCHEMA,
			   ks_outdir_kind_name(kind));
	hl = strlen(head);
	if ((size_t)n <= hl) {
		ok = !memcmp(buf, head, (size_t)n);
	} else if (!memcmp(buf, head, hl) && strlen(buf) == (size_t)n) {
		/* the version, then the start of "}\n */
		rest = hl + strspn(buf + hl, "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.+-_");
		ok = !strncmp(buf + rest, "\"}\n", strlen(buf + rest));
	}
	ks_free(head);
	return ok;
}

/* 1 when the regular file p is empty (a lock file, never written). */
static int empty_file(const char *p)
{
	struct stat st;
	return lstat(p, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0;
}

/* 1 when dir holds nothing but what a kscore process killed while making it leaves: the mark's
 * temporary of a process that is gone, cut short or whole, and in a batch results folder its
 * lock files; with `final`, the mark itself cut short (a folder being built). */
static int only_leftovers(const char *dir, ks_outdir_kind kind, int final)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t seen = 0;
	int ok = 1;

	if (!d)
		return 0;
	while (ok && (e = readdir(d)) != NULL) {
		const char *n = e->d_name;
		size_t len;
		long pid;
		char *p;
		if (!strcmp(n, ".") || !strcmp(n, ".."))
			continue;
		if (++seen > 64) {
			ok = 0;
			break;
		}
		p = ks_path_join(dir, n);
		if (!strcmp(n, KS_OUTDIR_MARK))
			ok = final && cut_mark(p, kind);
		else if (kind == KS_OUTDIR_BATCH && (!strcmp(n, ".lock") || !strncmp(n, ".lock-shard-", 12)))
			ok = empty_file(p);
		else
			ok = ks_outdir_temp_parse(n, &len, &pid) == KS_OUTDIR_TEMP_FILE &&
			     len == strlen(KS_OUTDIR_MARK) && !strncmp(n, KS_OUTDIR_MARK, len) &&
			     ks_outdir_writer_gone(pid) && cut_mark(p, kind);
		ks_free(p);
	}
	closedir(d);
	return ok;
}

/* The whole rule; *self receives the identity of what was approved (when *exists). */
static int check(const char *path, const ks_outdir_options *o, fid *self, int *exists)
{
	struct stat st;
	char why[256];
	int rc, m;

	*exists = 0;
	if (lstat(path, &st) < 0) {
		if (errno != ENOENT)
			return ks_error_set(KS_EIO, "%s: %s", path, strerror(errno));
		return check_absent(path, o);
	}
	*exists = 1;
	self->dev = st.st_dev;
	self->ino = st.st_ino;
	if (S_ISLNK(st.st_mode))
		return ks_error_set(KS_EINVALID, "%s is a symbolic link and kscore does not replace links; "
				    "remove it or choose another --out", path);
	if ((rc = check_inputs(path, path, self, o)) < 0)
		return rc;
	if (!S_ISDIR(st.st_mode))
		return ks_error_set(KS_EINVALID, "%s exists and is not a kscore %s (it is not a folder); "
				    "remove it or choose another --out", path, kind_noun(o->kind));
	m = read_mark(path, o->kind, why, sizeof(why));
	if (m == 1 || (m == 0 && (is_empty_dir(path) || only_leftovers(path, o->kind, 0) ||
				  legacy(path, o->kind))))
		return 0;
	if (m < 0)
		return ks_error_set(KS_EINVALID, "%s exists and is not a kscore %s (%s); remove it or choose "
				    "another --out", path, kind_noun(o->kind), why);
	return ks_error_set(KS_EINVALID, "%s exists and is not a kscore %s; remove it or choose another "
			    "--out", path, kind_noun(o->kind));
}

int ks_outdir_check(const char *path, const ks_outdir_options *o)
{
	char *p = trim(path);
	fid self;
	int exists, rc = check(p, o, &self, &exists);
	ks_free(p);
	return rc;
}

int ks_outdir_check_file(const char *path, const char *schema, const ks_outdir_options *o)
{
	char *p = trim(path), *text = NULL;
	const char *s = NULL;
	struct stat st;
	cJSON *j = NULL;
	size_t len = 0;
	fid self;
	int rc = 0;

	if (lstat(p, &st) < 0) {
		rc = errno == ENOENT ? check_absent(p, o) : ks_error_set(KS_EIO, "%s: %s", p, strerror(errno));
		goto done;
	}
	self.dev = st.st_dev;
	self.ino = st.st_ino;
	if (S_ISLNK(st.st_mode)) {
		rc = ks_error_set(KS_EINVALID, "%s is a symbolic link and kscore does not replace links; "
				  "remove it or choose another --out", p);
		goto done;
	}
	if ((rc = check_inputs(p, p, &self, o)) < 0)
		goto done;
	if (!S_ISREG(st.st_mode) || ks_fs_read(&text, &len, p, FILE_MAX) < 0 ||
	    ks_json_parse(&j, text, len, 64, p) < 0 || ks_json_str(&s, j, "schema", 1) < 0 ||
	    strcmp(s, schema)) {
		ks_error_clear();
		rc = ks_error_set(KS_EINVALID, "%s exists and is not a kscore file of schema \"%s\"; remove it "
				  "or choose another --out", p, schema);
	}
done:
	cJSON_Delete(j);
	ks_free(text);
	ks_free(p);
	return rc;
}

/* Makes a new empty folder "<base>.tmp-<pid>-<n>" that did not exist before and returns its path
 * (caller frees); NULL with errno set when none can be made. */
static char *make_fresh(const char *base)
{
	unsigned n;
	for (n = 0; n < 1000; n++) {
		char *t = ks_asprintf("%s.tmp-%ld-%u", base, (long)getpid(), n);
		int err;
		if (mkdir(t, 0755) == 0)
			return t;
		err = errno;
		ks_free(t);
		errno = err;
		if (err != EEXIST)
			return NULL;
	}
	return NULL;
}

int ks_outdir_probe(const char *path)
{
	char *p = trim(path), *first = ks_strdup(p), *t = NULL;
	struct stat st;
	int rc = 0;

	/* the shallowest missing component: the first folder a run would have to create (path
	 * itself when it exists: its replacement is built beside it) */
	while (lstat(first, &st) < 0) {
		char *up = ks_path_dirname(first);
		if (!strcmp(up, first) || lstat(up, &st) == 0) {
			ks_free(up);
			break;
		}
		ks_free(first);
		first = up;
	}
	if (!(t = make_fresh(first))) {
		rc = ks_error_set(KS_EIO, "cannot create the result folder %s: %s", p, strerror(errno));
		goto done;
	}
	rmdir(t);
done:
	ks_free(t);
	ks_free(first);
	ks_free(p);
	return rc;
}

int ks_outdir_mark(const char *dir, ks_outdir_kind kind)
{
	char *p = ks_path_join(dir, KS_OUTDIR_MARK);
	char *text = ks_asprintf("{\"schema\": \"%s\", \"kind\": \"%s\", \"scorer\": \"kscore %s\"}\n",
				 KS_OUTDIR_SCHEMA, ks_outdir_kind_name(kind), KS_VERSION);
	int rc = ks_fs_write_atomic(p, text, strlen(text));
	ks_free(text);
	ks_free(p);
	return rc;
}

/* rename() that never replaces what is at `to` (a rename onto an empty folder would). */
static int rename_noreplace(const char *from, const char *to)
{
	struct stat st;
#ifdef RENAME_NOREPLACE
	if (renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE) == 0)
		return 0;
	if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP)
		return -1;
#endif
	if (lstat(to, &st) == 0) {
		errno = EEXIST;
		return -1;
	}
	return rename(from, to);
}

/* A folder named as kscore's temporary is kscore's when the rule accepts it as of its kind, or
 * when it holds nothing but a mark cut short. */
static int leftover_ours(const char *path, ks_outdir_kind kind)
{
	ks_outdir_options oo = KS_OUTDIR_OPTIONS_INIT;
	int ok;
	oo.kind = kind;
	ok = ks_outdir_check(path, &oo) == 0 || only_leftovers(path, kind, 1);
	ks_error_clear();
	return ok;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The names in dir that stand for a temporary of a name kind_of wants (hidden ones included:
 * ".kscore-result.tmp.<id>"), read before any is touched, sorted (of several old folders of one
 * name, the same one is put back whatever the order of the directory). */
static char **temp_names(size_t *n, const char *dir, ks_outdir_tidy_fn kind_of, void *ud)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **v = NULL;
	size_t cap = 0;
	*n = 0;
	if (!d)
		return NULL;
	while ((e = readdir(d)) != NULL) {
		size_t len;
		long pid;
		if (ks_outdir_temp_parse(e->d_name, &len, &pid) == KS_OUTDIR_TEMP_NONE ||
		    kind_of(e->d_name, len, ud) < 0)
			continue;
		v = ks_grow(v, sizeof(*v), &cap, *n + 1);
		v[(*n)++] = ks_strdup(e->d_name);
	}
	closedir(d);
	if (*n > 1)
		qsort(v, *n, sizeof(*v), cmp_name);
	return v;
}

size_t ks_outdir_tidy(const char *dir, ks_outdir_tidy_fn kind_of, void *ud)
{
	size_t n = 0, i, done = 0;
	char **names = temp_names(&n, dir, kind_of, ud);
	for (i = 0; i < n; i++) {
		ks_outdir_temp t;
		struct stat st;
		size_t len;
		long pid;
		int kind;
		char *p, *target;
		if ((t = ks_outdir_temp_parse(names[i], &len, &pid)) == KS_OUTDIR_TEMP_NONE ||
		    (kind = kind_of(names[i], len, ud)) < 0 || !ks_outdir_writer_gone(pid))
			continue;
		p = ks_path_join(dir, names[i]);
		if (lstat(p, &st) < 0) {
			ks_free(p);
			continue;
		}
		if (t == KS_OUTDIR_TEMP_FILE) {
			done += S_ISREG(st.st_mode) && unlink(p) == 0;
		} else if (S_ISDIR(st.st_mode) && leftover_ours(p, (ks_outdir_kind)kind)) {
			/* killed between the two renames of a swap: the old folder goes back in place */
			target = ks_strndup(p, strlen(dir) + 1 + len);
			if (t == KS_OUTDIR_TEMP_OLD && lstat(target, &st) < 0 && errno == ENOENT &&
			    rename_noreplace(p, target) == 0)
				done++;
			else
				done += ks_fs_rm_rf(p) == 0;
			ks_free(target);
		}
		ks_error_clear();
		ks_free(p);
	}
	ks_free_strv(names, n);
	return done;
}

/* The kind of the leftovers of one name (ks_outdir_begin's target). */
typedef struct {
	const char *name;
	ks_outdir_kind kind;
} one_name;

static int kind_of_one(const char *name, size_t len, void *ud)
{
	const one_name *o = ud;
	return strlen(o->name) == len && !strncmp(name, o->name, len) ? (int)o->kind : -1;
}

int ks_outdir_begin(char **tmp, const char *path, const ks_outdir_options *o)
{
	char *p = trim(path), *dir = NULL, *t = NULL, *slash;
	one_name self;
	int rc;

	*tmp = NULL;
	/* what a killed run left for this path goes first: an old folder put back is then checked */
	dir = ks_path_dirname(p);
	slash = strrchr(p, '/');
	self.name = slash ? slash + 1 : p;
	self.kind = o->kind;
	if (*self.name && ks_fs_is_dir(dir))
		ks_outdir_tidy(dir, kind_of_one, &self);
	if ((rc = ks_outdir_check(p, o)) < 0)
		goto done;
	if ((rc = ks_fs_mkdir_p(dir, 0755)) < 0)
		goto done;
	if (!(t = make_fresh(p))) {
		rc = ks_error_set(KS_EIO, "mkdir %s.tmp-%ld-*: %s", p, (long)getpid(), strerror(errno));
		goto done;
	}
	if ((rc = ks_outdir_mark(t, o->kind)) < 0) {
		ks_fs_rm_rf(t);
		goto done;
	}
	*tmp = t;
	t = NULL;
done:
	ks_free(t);
	ks_free(dir);
	ks_free(p);
	return rc;
}

int ks_outdir_commit(const char *tmp, const char *path, const ks_outdir_options *o)
{
	char *p = trim(path), *old = NULL;
	struct stat st;
	unsigned n;
	fid self;
	int exists, rc, err;

	if ((rc = check(p, o, &self, &exists)) < 0)
		goto done;
	if (exists) {
		for (n = 0;; n++) {
			old = ks_asprintf("%s.old-%ld-%u", p, (long)getpid(), n);
			if (rename_noreplace(p, old) == 0)
				break;
			err = errno;
			ks_free(old);
			old = NULL;
			if (err != EEXIST || n >= 1000) {
				rc = ks_error_set(KS_EIO, "cannot replace %s: %s", p, strerror(err));
				goto done;
			}
		}
		/* what moved aside must be what was checked, or it is put back untouched */
		if (lstat(old, &st) < 0 || !same(&st, &self)) {
			rename_noreplace(old, p);
			rc = ks_error_set(KS_EINVALID, "%s changed while it was being replaced; nothing was "
					  "removed", p);
			goto done;
		}
	}
	if (rename_noreplace(tmp, p) < 0) {
		err = errno;
		if (old)
			rename_noreplace(old, p);
		rc = ks_error_set(KS_EIO, "cannot move the results into %s: %s", p, strerror(err));
		goto done;
	}
	if (old)
		ks_fs_rm_rf(old);
done:
	ks_free(old);
	ks_free(p);
	return rc;
}

void ks_outdir_abort(const char *tmp)
{
	if (tmp)
		ks_fs_rm_rf(tmp);
}
