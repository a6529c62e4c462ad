/* set: the problem-set family's front (set.h): which format a folder holds, the walk over its
 * files, the readers (tritonbench.c, kernelbench.c) called per file, and the lookup by an answer's
 * key. */
#include "load/sets/set.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "load/sets/set_int.h"
#include "util/errors.h"
#include "util/fsutil.h"
#include "util/mem.h"
#include "util/utf8.h"

/* The separator GEAK-eval's files put between the reference and its test code: 146 '#'. */
#define TB_SEPARATOR_LEN 146

const char *ks_set_format_name(ks_set_format f)
{
	switch (f) {
	case KS_SET_KSCORE:
		return "kscore";
	case KS_SET_TRITONBENCH_G:
		return "tritonbench-g";
	case KS_SET_KERNELBENCH:
		return "kernelbench";
	}
	return "unknown";
}

static int has_suffix(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);
	return a >= b && strcmp(s + a - b, suf) == 0;
}

/* "level3" -> 3; 0 when name is not level<digit>. */
static int level_of(const char *name)
{
	return strncmp(name, "level", 5) == 0 && isdigit((unsigned char)name[5]) && name[6] == 0 ? name[5] - '0' : 0;
}

/* Whether one of the first few .py files of dir holds the separator line (TritonBench-G). */
static int has_tb_reference(const char *dir)
{
	char **names = NULL;
	size_t n = 0, i, looked = 0;
	int found = 0;
	if (ks_fs_list(&names, &n, dir, 0) < 0)
		return 0;
	for (i = 0; i < n && !found && looked < 8; i++) {
		char *path, *text = NULL, sep[TB_SEPARATOR_LEN + 3];
		if (!has_suffix(names[i], ".py"))
			continue;
		looked++;
		path = ks_path_join(dir, names[i]);
		memset(sep + 1, '#', TB_SEPARATOR_LEN);
		sep[0] = '\n';
		sep[TB_SEPARATOR_LEN + 1] = '\n';
		sep[TB_SEPARATOR_LEN + 2] = 0;
		if (ks_fs_read(&text, NULL, path, KS_SET_DEFAULT_MAX_FILE_BYTES) == 0 && strstr(text, sep))
			found = 1;
		ks_free(text);
		ks_free(path);
	}
	ks_free_strv(names, n);
	return found;
}

/* Whether dir holds <suite>/<name>/problem.json for some suite and name. */
static int has_kscore_problems(const char *dir)
{
	char **suites = NULL;
	size_t ns = 0, i;
	int found = 0;
	if (ks_fs_list(&suites, &ns, dir, 1) < 0)
		return 0;
	for (i = 0; i < ns && !found; i++) {
		char *sd = ks_path_join(dir, suites[i]), **names = NULL;
		size_t nn = 0, j;
		if (ks_fs_is_dir(sd) && ks_fs_list(&names, &nn, sd, 1) == 0) {
			for (j = 0; j < nn && !found; j++) {
				char *pj = ks_asprintf("%s/%s/problem.json", sd, names[j]);
				found = ks_fs_exists(pj);
				ks_free(pj);
			}
			ks_free_strv(names, nn);
		}
		ks_free(sd);
	}
	ks_free_strv(suites, ns);
	return found;
}

int ks_set_detect(ks_set_format *out, const char *dir)
{
	char *ref, *base;
	int i, found = -1;
	if (!ks_fs_is_dir(dir))
		return ks_error_set(KS_ENOTFOUND, "%s: no such folder", dir);
	ref = ks_path_join(dir, "reference");
	base = ks_path_stem(dir);
	if (has_kscore_problems(dir))
		found = KS_SET_KSCORE;
	else if ((ks_fs_is_dir(ref) && has_tb_reference(ref)) || has_tb_reference(dir))
		found = KS_SET_TRITONBENCH_G;
	else if (level_of(base))
		found = KS_SET_KERNELBENCH;
	for (i = 1; found < 0 && i <= 9; i++) {
		char lv[16], *p;
		snprintf(lv, sizeof(lv), "level%d", i);
		p = ks_path_join(dir, lv);
		if (ks_fs_is_dir(p))
			found = KS_SET_KERNELBENCH;
		ks_free(p);
	}
	ks_free(ref);
	ks_free(base);
	if (found < 0)
		return ks_error_set(KS_EINVALID, "%s: not a problem set kscore reads (kscore's <suite>/<name>/problem.json, "
				    "TritonBench-G's reference/*.py with their 146-'#' separator, or KernelBench's "
				    "level<N>/*.py)", dir);
	*out = (ks_set_format)found;
	return 0;
}

static void skip(ks_problem_source *s, const char *path, char *reason)
{
	s->skipped = ks_realloc(s->skipped, (s->nskipped + 1) * sizeof(*s->skipped));
	s->skipped[s->nskipped].path = ks_strdup(path);
	s->skipped[s->nskipped].reason = reason;
	s->nskipped++;
}

void ks_set_problem_clear(ks_set_problem *p)
{
	ks_free(p->name);
	ks_free(p->suite);
	ks_free(p->path);
	ks_free(p->perf_path);
	ks_free(p->reference);
	ks_free(p->test_code);
	ks_free(p->test_fn);
	ks_free_strv(p->kernels, p->nkernels);
	ks_free_strv(p->entries, p->nentries);
	ks_free_strv(p->imports, p->nimports);
	memset(p, 0, sizeof(*p));
}

/* Reads every .py file of dir with reader into s, as problems of suite. Counts files in *seen
 * against the cap. */
static int read_folder(ks_problem_source *s, const char *dir, const char *suite, int level,
		       const ks_set_reader *reader, const ks_set_limits *lim, size_t *seen)
{
	char **names = NULL;
	size_t n = 0, i;
	int rc;
	if ((rc = ks_fs_list(&names, &n, dir, 0)) < 0)
		return rc;
	for (i = 0; i < n; i++) {
		ks_set_problem p;
		char *path, *text = NULL, *reason = NULL;
		size_t len = 0, bad = 0;
		if (!has_suffix(names[i], ".py") || (reader->format == KS_SET_TRITONBENCH_G && has_suffix(names[i], "_perf.py")))
			continue;
		if (++*seen > lim->max_files) {
			ks_free_strv(names, n);
			return ks_error_set(KS_ELIMIT, "%s: more than %zu files", s->root, lim->max_files);
		}
		path = ks_path_join(dir, names[i]);
		memset(&p, 0, sizeof(p));
		if ((rc = ks_fs_read(&text, &len, path, lim->max_file_bytes)) < 0)
			reason = ks_strdup(rc == KS_ELIMIT ? "larger than the cap on a source file" : ks_error_msg());
		else if (ks_utf8_valid(text, len, &bad) != 1 || strlen(text) != len)
			reason = ks_asprintf("not UTF-8 text (byte %zu)", bad);
		if (!reason) {
			p.path = ks_strdup(path);
			p.name = ks_strndup(names[i], strlen(names[i]) - 3);
			p.suite = ks_strdup(suite);
			p.level = level;
			reason = reader->read_file(&p, text, lim);
		}
		if (reason) {
			skip(s, path, reason);
			ks_set_problem_clear(&p);
		} else {
			s->problems = ks_realloc(s->problems, (s->n + 1) * sizeof(*s->problems));
			s->problems[s->n++] = p;
		}
		ks_free(text);
		ks_free(path);
	}
	ks_free_strv(names, n);
	return 0;
}

/* TritonBench-G: reference/ (or dir itself) and the perf scripts of perf/ (or beside them). */
static int read_tritonbench(ks_problem_source *s, const ks_set_limits *lim, size_t *seen)
{
	char *ref = ks_path_join(s->root, "reference"), *perf = ks_path_join(s->root, "perf");
	const char *rdir = ks_fs_is_dir(ref) ? ref : s->root;
	size_t i;
	int rc = read_folder(s, rdir, "tritonbench-g", 0, &ks_set_tritonbench_reader, lim, seen);
	for (i = 0; rc == 0 && i < s->n; i++) {
		char *name = ks_asprintf("%s_perf.py", s->problems[i].name), *a = ks_path_join(perf, name),
		     *b = ks_path_join(rdir, name);
		if (ks_fs_exists(a))
			s->problems[i].perf_path = ks_strdup(a);
		else if (ks_fs_exists(b))
			s->problems[i].perf_path = ks_strdup(b);
		ks_free(name);
		ks_free(a);
		ks_free(b);
	}
	ks_free(ref);
	ks_free(perf);
	return rc;
}

/* KernelBench: level<N>/ folders (or dir itself, named level<N>). */
static int read_kernelbench(ks_problem_source *s, const ks_set_limits *lim, size_t *seen)
{
	char *base = ks_path_stem(s->root), suite[32];
	int lv = level_of(base), rc = 0, i;
	ks_free(base);
	if (lv) {
		snprintf(suite, sizeof(suite), "kernelbench-level%d", lv);
		return read_folder(s, s->root, suite, lv, &ks_set_kernelbench_reader, lim, seen);
	}
	for (i = 1; rc == 0 && i <= 9; i++) {
		char lvname[16], *dir;
		snprintf(lvname, sizeof(lvname), "level%d", i);
		dir = ks_path_join(s->root, lvname);
		snprintf(suite, sizeof(suite), "kernelbench-level%d", i);
		if (ks_fs_is_dir(dir))
			rc = read_folder(s, dir, suite, i, &ks_set_kernelbench_reader, lim, seen);
		ks_free(dir);
	}
	return rc;
}

int ks_set_read(ks_problem_source **out, const char *dir, const ks_set_limits *limits)
{
	ks_set_limits dflt = KS_SET_LIMITS_INIT;
	ks_problem_source *s = NULL;
	ks_set_format f;
	size_t seen = 0;
	int rc;

	*out = NULL;
	if (!limits)
		limits = &dflt;
	if ((rc = ks_set_detect(&f, dir)) < 0)
		return rc;
	if (f == KS_SET_KSCORE)
		return ks_error_set(KS_EINVALID, "%s: kscore's own problems (load them as reference problems)", dir);
	s = ks_calloc(1, sizeof(*s));
	s->format = f;
	s->root = ks_strdup(dir);
	rc = f == KS_SET_TRITONBENCH_G ? read_tritonbench(s, limits, &seen) : read_kernelbench(s, limits, &seen);
	if (rc < 0) {
		ks_set_free(s);
		return rc;
	}
	*out = s;
	return 0;
}

/* KernelBench's run layout names a problem "level_<L>_problem_<N>_sample_<S>_kernel": L and N. */
static int kb_key(int *level, int *number, const char *key)
{
	char *end;
	long l, n;
	if (strncmp(key, "level_", 6) != 0)
		return 0;
	l = strtol(key + 6, &end, 10);
	if (end == key + 6 || strncmp(end, "_problem_", 9) != 0)
		return 0;
	n = strtol(end + 9, &end, 10);
	if (*end && *end != '_' && *end != '.')
		return 0;
	*level = (int)l;
	*number = (int)n;
	return l > 0 && n > 0;
}

const ks_set_problem *ks_set_find(const ks_problem_source *s, const char *key)
{
	char stem[256];
	const char *slash = strrchr(key, '/');
	size_t i, len;
	int level = 0, number = 0;
	if (!s || !key)
		return NULL;
	key = slash ? slash + 1 : key;
	len = strlen(key);
	if (has_suffix(key, ".py"))
		len -= 3;
	if (len >= sizeof(stem))
		return NULL;
	memcpy(stem, key, len);
	stem[len] = 0;
	for (i = 0; i < s->n; i++)
		if (strcmp(s->problems[i].name, stem) == 0)
			return &s->problems[i];
	if (s->format == KS_SET_KERNELBENCH && kb_key(&level, &number, stem))
		for (i = 0; i < s->n; i++)
			if (s->problems[i].level == level && s->problems[i].number == number)
				return &s->problems[i];
	return NULL;
}

void ks_set_free(ks_problem_source *s)
{
	size_t i;
	if (!s)
		return;
	for (i = 0; i < s->n; i++)
		ks_set_problem_clear(&s->problems[i]);
	for (i = 0; i < s->nskipped; i++) {
		ks_free(s->skipped[i].path);
		ks_free(s->skipped[i].reason);
	}
	ks_free(s->problems);
	ks_free(s->skipped);
	ks_free(s->root);
	ks_free(s);
}
