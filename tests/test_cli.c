/* End-to-end tests: run the score binary as a user would, on small fixtures. Without a GPU (CI)
 * only compile-only paths run; the GPU paths live in tests/gpu. */
#include "ktest.h"
#include "compat.h"
#include "fsutil.h"
#include "jsonutil.h"
#include "mem.h"

static char g_out[8192], g_err[8192];

static const char *bin(void)
{
	const char *b = getenv("KSCORE_BIN");
	return b ? b : "build/test/score";
}

static int has_gpu(void)
{
	return access("/dev/nvidia0", F_OK) == 0 || access("/dev/nvidiactl", F_OK) == 0;
}

/* Runs `score ARGS` with stdout and stderr captured; returns the exit status. */
static int score(const char *args)
{
	char cmd[32768], po[4300], pe[4300];
	FILE *f;
	size_t n;
	int st;
	snprintf(po, sizeof(po), "%s/stdout", kt_tmpdir());
	snprintf(pe, sizeof(pe), "%s/stderr", kt_tmpdir());
	snprintf(cmd, sizeof(cmd), "XDG_CACHE_HOME='%s/cache' %s %s >'%s' 2>'%s'", kt_tmpdir(), bin(), args,
		 po, pe);
	st = system(cmd);
	f = fopen(po, "r");
	n = f ? fread(g_out, 1, sizeof(g_out) - 1, f) : 0;
	g_out[n] = 0;
	if (f)
		fclose(f);
	f = fopen(pe, "r");
	n = f ? fread(g_err, 1, sizeof(g_err) - 1, f) : 0;
	g_err[n] = 0;
	if (f)
		fclose(f);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static char *slurp(const char *rel)
{
	char path[4400], *text = NULL;
	snprintf(path, sizeof(path), "%s/%s", kt_tmpdir(), rel);
	if (ks_fs_read(&text, NULL, path, 64u << 20) < 0)
		KT_FAIL("cannot read %s", path);
	return text;
}

static void test_help_version_and_usage_errors(void)
{
	KT_EQ_INT(score("--help"), 0);
	KT_CONTAINS(g_out, "Usage: score");
	KT_CONTAINS(g_out, "Exit status");
	KT_EQ_INT(score("--version"), 0);
	KT_CONTAINS(g_out, "kscore");
	KT_EQ_INT(score(""), 64);
	KT_CONTAINS(g_err, "no SUBMISSION");
	KT_EQ_INT(score("--bogus x.json"), 64);
	KT_EQ_INT(score("-k 0 x.json"), 64);
	KT_EQ_INT(score("--out o a.json b.json"), 64);
	KT_EQ_INT(score("--compile-only --require-gpu x.json"), 64);
}

static void test_compile_only_writes_results(void)
{
	char args[8192];
	char *t;
	cJSON *j = NULL;
	const cJSON *k, *sum;
	snprintf(args, sizeof(args), "--compile-only --refs tests/fixtures/problems --team t1 "
		 "--out '%s/res' tests/fixtures/cli/sub.json", kt_tmpdir());
	KT_EQ_INT(score(args), 1); /* some compiled, some did not */
	KT_CONTAINS(g_out, "Compile Accuracy");
	t = slurp("res/score.json");
	KT_EQ_INT(ks_json_parse(&j, t, strlen(t), 64, "score.json"), 0);
	KT_EQ_STR(cJSON_GetObjectItem(j, "schema")->valuestring, "kscore.score/1");
	KT_EQ_STR(cJSON_GetObjectItem(j, "mode")->valuestring, "compile-only");
	KT_EQ_STR(cJSON_GetObjectItem(j, "team")->valuestring, "t1");
	KT_EQ_INT(strlen(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "submission"), "sha256")->valuestring), 64);
	k = cJSON_GetObjectItem(j, "kernels");
	KT_EQ_INT(cJSON_GetArraySize(k), 5);
	KT_EQ_STR(cJSON_GetObjectItem(cJSON_GetArrayItem(k, 0), "reason")->valuestring, "not_run");
	KT_ASSERT(cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetArrayItem(k, 0), "compiled")));
	KT_EQ_STR(cJSON_GetObjectItem(cJSON_GetArrayItem(k, 1), "reason")->valuestring, "compile_error");
	KT_CONTAINS(cJSON_GetObjectItem(cJSON_GetArrayItem(k, 1), "detail")->valuestring, "undefined_symbol");
	KT_EQ_STR(cJSON_GetObjectItem(cJSON_GetArrayItem(k, 2), "reason")->valuestring, "unknown_problem");
	KT_EQ_STR(cJSON_GetObjectItem(cJSON_GetArrayItem(k, 3), "reason")->valuestring, "no_code");
	KT_EQ_STR(cJSON_GetObjectItem(cJSON_GetArrayItem(k, 4), "reason")->valuestring, "bad_launch");
	KT_CONTAINS(cJSON_GetObjectItem(cJSON_GetArrayItem(k, 4), "detail")->valuestring, "not a valid block");
	sum = cJSON_GetObjectItem(j, "summary");
	KT_NEAR(cJSON_GetObjectItem(sum, "compile_accuracy")->valuedouble, 1.0 / 9.0, 1e-9); /* vadd 1 of 3, rowsum 0, unknown 0 */
	KT_ASSERT(cJSON_IsNull(cJSON_GetObjectItem(sum, "call_accuracy")));
	cJSON_Delete(j);
	ks_free(t);
	t = slurp("res/out.json");
	KT_CONTAINS(t, "File: vadd.py, Compile Status: True");
	KT_CONTAINS(t, "File: rowsum.py, Compile Status: False");
	KT_CONTAINS(t, "Compile Accuracy");
	ks_free(t);
	t = slurp("res/out.json_results_0.json");
	KT_CONTAINS(t, "\"file_name\":\t\"nosuch_kernel.py\"");
	KT_CONTAINS(t, "unknown_problem");
	ks_free(t);
	t = slurp("res/out.jsonpassk.txt");
	KT_CONTAINS(t, "Compile-only");
	ks_free(t);
	t = slurp("res/out.json_all_passes.json");
	ks_free(t);
}

static void test_rerun_replaces_the_folder(void)
{
	char args[8192], stale[4400];
	FILE *f;
	snprintf(args, sizeof(args), "--compile-only --refs tests/fixtures/problems --out '%s/res' "
		 "tests/fixtures/cli/good.json", kt_tmpdir());
	KT_EQ_INT(score(args), 0);
	snprintf(stale, sizeof(stale), "%s/res/stale_file.txt", kt_tmpdir());
	f = fopen(stale, "w");
	fputs("old", f);
	fclose(f);
	KT_EQ_INT(score(args), 0);
	KT_ASSERT(access(stale, F_OK) != 0);
	snprintf(stale, sizeof(stale), "%s/res/score.json", kt_tmpdir());
	KT_ASSERT(access(stale, F_OK) == 0);
}

static void test_default_output_folder_and_gzip_jsonl(void)
{
	char args[8192], cmd[16384];
	snprintf(cmd, sizeof(cmd), "python3 -c \"import json,gzip,sys; d=json.load(open('tests/fixtures/cli/good.json')); "
		 "f=gzip.open('%s/team7.json','wt'); [f.write(json.dumps(e)+'\\\\n') for e in d]; f.close()\"",
		 kt_tmpdir());
	if (system(cmd) != 0)
		KT_SKIP("python3 is not available to build the gzip fixture");
	snprintf(args, sizeof(args), "--compile-only --refs tests/fixtures/problems '%s/team7.json'", kt_tmpdir());
	KT_EQ_INT(score(args), 0);
	ks_free(slurp("team7/score.json"));
	ks_free(slurp("team7/out.json_results_0.json"));
}

static void test_bad_input_is_named_and_others_still_scored(void)
{
	char args[16384], path[4400];
	FILE *f;
	snprintf(path, sizeof(path), "%s/broken.json", kt_tmpdir());
	f = fopen(path, "w");
	fputs("[{\"file\": \"vadd.py\", \"predict\": \"x\"},\n  {oops]", f);
	fclose(f);
	snprintf(args, sizeof(args), "cp tests/fixtures/cli/good.json '%s/good.json'", kt_tmpdir());
	KT_EQ_INT(system(args), 0);
	/* each input gets its default folder beside it; the broken and missing ones are named */
	snprintf(args, sizeof(args), "--compile-only --refs tests/fixtures/problems '%s' '%s/missing.json' "
		 "'%s/good.json'", path, kt_tmpdir(), kt_tmpdir());
	KT_EQ_INT(score(args), 65);
	KT_CONTAINS(g_err, "broken.json:2:");
	KT_CONTAINS(g_err, "missing.json");
	KT_CONTAINS(g_out, "good.json");
	ks_free(slurp("good/score.json"));
}

static void test_json_summary(void)
{
	char args[8192];
	cJSON *j = NULL;
	const cJSON *s;
	snprintf(args, sizeof(args), "--compile-only --json --refs tests/fixtures/problems --out '%s/r' "
		 "tests/fixtures/cli/sub.json", kt_tmpdir());
	KT_EQ_INT(score(args), 1);
	KT_EQ_INT(ks_json_parse(&j, g_out, strlen(g_out), 64, "stdout"), 0);
	KT_EQ_STR(cJSON_GetObjectItem(j, "mode")->valuestring, "compile-only");
	KT_EQ_INT(cJSON_GetObjectItem(j, "exit_status")->valuedouble, 1);
	s = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "submissions"), 0);
	KT_EQ_INT(cJSON_GetArraySize(cJSON_GetObjectItem(s, "kernels")), 5);
	cJSON_Delete(j);
}

static void test_no_gpu_falls_back_with_its_own_exit_code(void)
{
	char args[8192];
	if (has_gpu())
		KT_SKIP("this machine has a GPU; the fallback path needs one without");
	snprintf(args, sizeof(args), "--refs tests/fixtures/problems --out '%s/r' tests/fixtures/cli/good.json",
		 kt_tmpdir());
	KT_EQ_INT(score(args), 3);
	KT_CONTAINS(g_err, "no usable GPU");
	KT_CONTAINS(g_err, "compile-only");
	ks_free(slurp("r/score.json"));
	KT_EQ_INT(score("--require-gpu --refs tests/fixtures/problems tests/fixtures/cli/good.json"), 69);
	KT_CONTAINS(g_err, "no usable GPU");
}

static void test_missing_refs(void)
{
	char args[8192];
	snprintf(args, sizeof(args), "--compile-only --refs '%s/nowhere' tests/fixtures/cli/good.json", kt_tmpdir());
	KT_EQ_INT(score(args), 65);
	KT_CONTAINS(g_err, "reference problems");
}

/* Code written for nvcc compiles (kscore's compatibility headers); a header that is still missing
 * gets its own reason, naming it; score.json's toolchain record names the headers and options. */
static void test_nvcc_style_code_and_missing_headers(void)
{
	static const char sub[] =
		"[{\"file\": \"vadd.py\", \"predict\": \"```cuda\\n#include <cuda.h>\\n#include <cmath>\\n"
		"#include <vector>\\ninline float add(float a, float b) { return a + b; }\\n"
		"extern \\\"C\\\" __global__ void vadd(const float *a, const float *b, float *c, int n)\\n"
		"{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) c[i] = add(a[i], std::abs(b[i])); }\\n```\"},\n"
		" {\"file\": \"rowsum.py\", \"predict\": \"```cuda\\n#include <cutlass/gemm/device/gemm.h>\\n"
		"extern \\\"C\\\" __global__ void rowsum(const float *x, float *y, int rows, int cols) {}\\n```\"}]\n";
	char args[16384];
	char *t;
	cJSON *j = NULL;
	const cJSON *k, *tc;
	kt_write("nvcc.json", sub, sizeof(sub) - 1);
	snprintf(args, sizeof(args), "--compile-only --refs tests/fixtures/problems --out '%s/res' '%s/nvcc.json'",
		 kt_tmpdir(), kt_tmpdir());
	KT_EQ_INT(score(args), 1);
	t = slurp("res/score.json");
	KT_EQ_INT(ks_json_parse(&j, t, strlen(t), 64, "score.json"), 0);
	k = cJSON_GetObjectItem(j, "kernels");
	KT_EQ_STR(cJSON_GetObjectItem(cJSON_GetArrayItem(k, 0), "reason")->valuestring, "not_run");
	KT_EQ_STR(cJSON_GetObjectItem(cJSON_GetArrayItem(k, 1), "reason")->valuestring, "missing_header");
	KT_CONTAINS(cJSON_GetObjectItem(cJSON_GetArrayItem(k, 1), "detail")->valuestring,
		    "missing header \"cutlass/gemm/device/gemm.h\" (included from submission.cu line 1): CUTLASS");
	tc = cJSON_GetObjectItem(j, "toolchain");
	KT_EQ_INT(strlen(cJSON_GetObjectItem(tc, "compat_sha256")->valuestring), 64);
	KT_CONTAINS(cJSON_GetObjectItem(tc, "compile_options")->valuestring, "-default-device -I<compat>");
	cJSON_Delete(j);
	ks_free(t);
}

static void test_problems_listing_and_prompt_export(void)
{
	char args[8192];
	char *t;
	cJSON *j = NULL;
	KT_EQ_INT(score("problems --refs tests/fixtures/problems"), 0);
	KT_CONTAINS(g_out, "rowsum");
	KT_CONTAINS(g_out, "2 problems");
	snprintf(args, sizeof(args), "problems --refs tests/fixtures/problems --export-prompts '%s/p.json'", kt_tmpdir());
	KT_EQ_INT(score(args), 0);
	t = slurp("p.json");
	KT_EQ_INT(ks_json_parse(&j, t, strlen(t), 16, "prompts"), 0);
	KT_EQ_INT(cJSON_GetArraySize(j), 2);
	KT_EQ_STR(cJSON_GetObjectItem(cJSON_GetArrayItem(j, 1), "file")->valuestring, "vadd.cu");
	KT_CONTAINS(cJSON_GetObjectItem(cJSON_GetArrayItem(j, 1), "instruction")->valuestring, "c[i] = a[i] + b[i]");
	KT_CONTAINS(cJSON_GetObjectItem(cJSON_GetArrayItem(j, 1), "instruction")->valuestring, KS_COMPAT_PROMPT_NOTE);
	cJSON_Delete(j);
	ks_free(t);
}

static void test_every_shipped_problem_loads_and_its_golden_compiles(void)
{
	/* the whole reference suite, as CI sees it: every spec valid, every golden kernel compiles */
	KT_EQ_INT(score("check-refs --compile-only"), 0);
	KT_CONTAINS(g_out, "0 failed (compile-only");
	KT_NOT_CONTAINS(g_out, "FAIL");
}

static const kt_test tests[] = {
	KT(test_problems_listing_and_prompt_export), KT(test_every_shipped_problem_loads_and_its_golden_compiles),
	KT(test_nvcc_style_code_and_missing_headers),
	KT(test_help_version_and_usage_errors), KT(test_compile_only_writes_results),
	KT(test_rerun_replaces_the_folder), KT(test_default_output_folder_and_gzip_jsonl),
	KT(test_bad_input_is_named_and_others_still_scored), KT(test_json_summary),
	KT(test_no_gpu_falls_back_with_its_own_exit_code), KT(test_missing_refs), { 0 }
};
KT_MAIN("cli", tests)
