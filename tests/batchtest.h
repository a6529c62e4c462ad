/* batchtest: helpers of the `score batch` tests (test_batch.c, test_batch_repos.c, test_slurm.c),
 * of the git repositories of test_repos.c and of the file readers of test_leaderboard.c:
 * git repositories built with the git command-line tool in the test's folder, and the score
 * binary run there with its output captured. Static functions: include once per test file. */
#ifndef KS_BATCHTEST_H
#define KS_BATCHTEST_H

#include "ktest.h"
#include "util/errors.h"
#include "util/fsutil.h"
#include "util/jsonutil.h"
#include "util/mem.h"

#include <stdarg.h>

#define DEADLINE "2025-08-24T23:59:59Z"

static char g_root[4096];

static inline const char *root(void)
{
	const char *r = getenv("KSCORE_ROOT");
	if (!g_root[0]) {
		if (r && *r)
			snprintf(g_root, sizeof(g_root), "%s", r);
		else if (!getcwd(g_root, sizeof(g_root)))
			KT_FAIL("getcwd");
	}
	return g_root;
}

static inline char *bin(void)
{
	const char *b = getenv("KSCORE_BIN");
	if (b && *b)
		return ks_strdup(b);
	return ks_asprintf("%s/build/test/score", root());
}

static inline int have_git(void)
{
	return system("git --version >/dev/null 2>&1") == 0;
}

/* Runs a shell command in the test's folder, with a git identity of its own and no user or
 * system git configuration; fails the test when it fails. */
static inline void sh(const char *fmt, ...)
{
	char cmd[16384], *full;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	full = ks_asprintf("cd '%s' && export HOME='%s' GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=t "
			   "GIT_AUTHOR_EMAIL=t@example.org GIT_COMMITTER_NAME=t "
			   "GIT_COMMITTER_EMAIL=t@example.org && (%s) >/dev/null 2>&1",
			   kt_tmpdir(), kt_tmpdir(), cmd);
	if (system(full) != 0)
		KT_FAIL("command failed: %s", cmd);
	ks_free(full);
}

static inline void commit(const char *repo, const char *date, const char *subject)
{
	sh("cd '%s' && git add -A && GIT_AUTHOR_DATE='%s' GIT_COMMITTER_DATE='%s' "
	   "git commit -q --allow-empty -m '%s'", repo, date, date, subject);
}

static inline char *tmp(const char *rel)
{
	return ks_asprintf("%s/%s", kt_tmpdir(), rel);
}

static inline void put(const char *rel, const char *text)
{
	char *path = tmp(rel), *dir = ks_path_dirname(path);
	ks_fs_mkdir_p(dir, 0755);
	if (ks_fs_write_atomic(path, text, strlen(text)) < 0)
		KT_FAIL("cannot write %s", path);
	ks_free(dir);
	ks_free(path);
}

/* Copies a submission fixture of tests/fixtures/cli into the test's folder. */
static inline void put_fixture(const char *fixture, const char *rel)
{
	char *dst = tmp(rel), *dir = ks_path_dirname(dst);
	ks_fs_mkdir_p(dir, 0755);
	sh("cp '%s/tests/fixtures/cli/%s' '%s'", root(), fixture, dst);
	ks_free(dir);
	ks_free(dst);
}

/* The text of a file of the test's folder, or NULL when it cannot be read (an output that may not
 * be there). */
static inline char *slurp_or_null(const char *rel)
{
	char *path = tmp(rel), *text = NULL;
	size_t n;
	if (ks_fs_read(&text, &n, path, 64u << 20) < 0)
		text = NULL;
	ks_free(path);
	return text;
}

/* The text of a file of the test's folder; fails the test when it cannot be read. */
static inline char *slurp(const char *rel)
{
	char *text = slurp_or_null(rel);
	if (!text)
		KT_FAIL("cannot read %s/%s", kt_tmpdir(), rel);
	return text;
}

static inline cJSON *json_file(const char *rel)
{
	char *text = slurp(rel);
	cJSON *j = NULL;
	if (ks_json_parse(&j, text, strlen(text), 64, rel) < 0)
		KT_FAIL("%s: %s", rel, ks_error_msg());
	ks_free(text);
	return j;
}

static inline int exists(const char *rel)
{
	char *p = tmp(rel);
	int e = ks_fs_exists(p);
	ks_free(p);
	return e;
}

static char *g_out, *g_err;

/* Runs `score batch ARGS` in the test's folder (so results/ lands there), with the fixture
 * problems, the test's own cache and stdout and stderr captured; returns the exit status. */
static inline int batch(const char *args)
{
	char *b = bin(), *cmd;
	int st;
	ks_free(g_out);
	ks_free(g_err);
	cmd = ks_asprintf("cd '%s' && XDG_CACHE_HOME='%s/cache' HOME='%s' '%s' batch --refs "
			  "'%s/tests/fixtures/problems' %s >stdout.txt 2>stderr.txt",
			  kt_tmpdir(), kt_tmpdir(), kt_tmpdir(), b, root(), args);
	st = system(cmd);
	g_out = slurp("stdout.txt");
	g_err = slurp("stderr.txt");
	ks_free(cmd);
	ks_free(b);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static inline const cJSON *get(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	if (!v)
		KT_FAIL("no key \"%s\"", key);
	return v;
}

static inline const char *gets_(const cJSON *o, const char *key)
{
	const cJSON *v = get(o, key);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* The --json report's entry for a team. */
static inline const cJSON *report_team(const cJSON *rep, const char *team)
{
	const cJSON *t;
	cJSON_ArrayForEach(t, get(rep, "teams"))
		if (!strcmp(gets_(t, "team"), team))
			return t;
	KT_FAIL("team %s not in the report", team);
	return NULL;
}

static inline cJSON *report(void)
{
	cJSON *j = NULL;
	if (ks_json_parse(&j, g_out, strlen(g_out), 64, "stdout") < 0)
		KT_FAIL("stdout is not JSON: %s\n%s", ks_error_msg(), g_err);
	return j;
}

static inline char *git_out(const char *repo, const char *rev)
{
	char *path = tmp("rev.txt"), *text = NULL;
	size_t n;
	sh("git -C '%s' rev-parse '%s' > rev.txt", repo, rev);
	if (ks_fs_read(&text, &n, path, 4096) < 0)
		KT_FAIL("rev-parse");
	while (n && text[n - 1] == '\n')
		text[--n] = 0;
	ks_free(path);
	return text;
}

static inline void init_repo(const char *dir)
{
	sh("mkdir -p '%s' && git -c init.defaultBranch=main init -q '%s'", dir, dir);
}

#endif
