/* gputest: run the score binary on a GPU host and read back what it wrote, for the GPU suites
 * (test_gpu.c, test_gpu_lanes.c): without a usable GPU every test reports itself skipped, by name.
 * Static functions: include once per test file. */
#ifndef KS_GPUTEST_H
#define KS_GPUTEST_H

#include "ktest.h"
#include "util/fsutil.h"
#include "util/jsonutil.h"
#include "util/mem.h"

static char g_err[16384];

static inline const char *bin(void)
{
	const char *b = getenv("KSCORE_BIN");
	return b ? b : "build/test/score";
}

static inline int score(const char *args)
{
	char cmd[32768], pe[4300];
	FILE *f;
	size_t n;
	int st;
	snprintf(pe, sizeof(pe), "%s/stderr", kt_tmpdir());
	snprintf(cmd, sizeof(cmd), "XDG_CACHE_HOME='%s/cache' %s %s >/dev/null 2>'%s'", kt_tmpdir(), bin(),
		 args, pe);
	st = system(cmd);
	f = fopen(pe, "r");
	n = f ? fread(g_err, 1, sizeof(g_err) - 1, f) : 0;
	g_err[n] = 0;
	if (f)
		fclose(f);
	if (getenv("KT_VERBOSE"))
		fprintf(stderr, "%s", g_err);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static inline void need_gpu(void)
{
	char args[4400];
	snprintf(args, sizeof(args), "--require-gpu --refs tests/fixtures/problems --out '%s/probe' "
		 "tests/fixtures/cli/good.json", kt_tmpdir());
	if (score(args) == 69) {
		/* one short reason per skipped test ("no CUDA driver"), not the driver loader's whole
		 * message on each of them; KT_VERBOSE=1 prints score's own words */
		static const char lead[] = "no usable GPU: ";
		char *why = strstr(g_err, lead), *end;
		why = why ? why + strlen(lead) : g_err;
		end = why + strcspn(why, ":\n(");
		while (end > why && end[-1] == ' ')
			end--;
		*end = 0;
		KT_SKIP("no usable GPU (%s)", *why ? why : "see KT_VERBOSE=1");
	}
}

static inline cJSON *load_json(const char *rel)
{
	char path[16500], *t = NULL;
	cJSON *j = NULL;
	snprintf(path, sizeof(path), "%s/%s", kt_tmpdir(), rel);
	if (ks_fs_read(&t, NULL, path, 256u << 20) < 0 || ks_json_parse(&j, t, strlen(t), 64, path) < 0)
		KT_FAIL("cannot read %s: %s", path, ks_error_msg());
	ks_free(t);
	return j;
}

/* An expectations file of the repository (path relative to its root), parsed. Caller deletes. */
static inline cJSON *expected_json(const char *path)
{
	char *t = NULL;
	cJSON *exp = NULL;
	KT_EQ_INT(ks_fs_read(&t, NULL, path, 1 << 20), 0);
	KT_EQ_INT(ks_json_parse(&exp, t, strlen(t), 16, "expected"), 0);
	ks_free(t);
	return exp;
}

/* The bundled example's record j (scored with `extra` options) has the verdicts of
 * submissions/example/expected.json and nothing suspicious. */
static inline void check_example_verdicts(const cJSON *j, const char *extra)
{
	cJSON *exp = expected_json("submissions/example/expected.json");
	const cJSON *k;
	int wrong = 0;
	cJSON_ArrayForEach(k, cJSON_GetObjectItem(j, "kernels"))
	{
		const char *prob = cJSON_GetObjectItem(k, "problem")->valuestring;
		const cJSON *e = cJSON_GetObjectItem(exp, prob);
		int call = cJSON_IsTrue(cJSON_GetObjectItem(k, "call")), ex = cJSON_IsTrue(cJSON_GetObjectItem(k, "exec"));
		if (!e || call != cJSON_IsTrue(cJSON_GetObjectItem(e, "call")) ||
		    ex != cJSON_IsTrue(cJSON_GetObjectItem(e, "exec"))) {
			fprintf(stderr, "  %s (%s): call %d exec %d (%s)\n", prob, extra, call, ex,
				cJSON_GetObjectItem(k, "reason")->valuestring);
			wrong++;
		}
	}
	KT_ASSERT_MSG(wrong == 0, "%d kernels of the example got an unexpected verdict with \"%s\"", wrong,
		      extra);
	KT_EQ_INT(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "summary"), "suspicious")->valuedouble, 0);
	cJSON_Delete(exp);
}

static inline const char *kstr(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItem(o, k);
	return cJSON_IsString(v) ? v->valuestring : "";
}

/* The entries idx[0..n) of nvtools.json (nvtools_subset, in <tmp>/<name>) scored with --no-timing
 * --sanitize=tools; some fail, so score exits 1. Returns r/score.json (caller deletes). */
/* Runs score with its stdout through a pipe (`| cat`) or into a file, as an organizer would;
 * returns what it wrote there (caller frees). */
static inline char *score_stdout(const char *args, int piped)
{
	char cmd[32768], pe[4300], po[4300], *out = NULL;
	FILE *f;
	size_t n;
	snprintf(pe, sizeof(pe), "%s/stderr", kt_tmpdir());
	snprintf(po, sizeof(po), "%s/stdout", kt_tmpdir());
	if (piped)
		snprintf(cmd, sizeof(cmd), "XDG_CACHE_HOME='%s/cache' %s %s 2>'%s' | cat >'%s'", kt_tmpdir(), bin(),
			 args, pe, po);
	else
		snprintf(cmd, sizeof(cmd), "XDG_CACHE_HOME='%s/cache' %s %s >'%s' 2>'%s'", kt_tmpdir(), bin(), args,
			 po, pe);
	KT_ASSERT(system(cmd) != -1);
	f = fopen(pe, "r");
	n = f ? fread(g_err, 1, sizeof(g_err) - 1, f) : 0;
	g_err[n] = 0;
	if (f)
		fclose(f);
	if (getenv("KT_VERBOSE"))
		fprintf(stderr, "%s", g_err);
	KT_EQ_INT(ks_fs_read(&out, NULL, po, 16u << 20), 0);
	return out;
}

#endif
