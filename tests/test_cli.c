/* End-to-end tests: run the score binary as a user would, on small fixtures. Without a GPU (CI)
 * only compile-only paths run; the GPU paths live in tests/gpu. */
#include "ktest.h"
#include "fsutil.h"
#include "jsonutil.h"
#include "mem.h"
#include "utf8.h"

#include <dirent.h>

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
	/* entries 3 and 4 name vadd again: duplicates, not compiled (no_code and bad_launch: below) */
	KT_EQ_STR(cJSON_GetObjectItem(cJSON_GetArrayItem(k, 3), "reason")->valuestring, "duplicate");
	KT_EQ_STR(cJSON_GetObjectItem(cJSON_GetArrayItem(k, 4), "reason")->valuestring, "duplicate");
	sum = cJSON_GetObjectItem(j, "summary");
	KT_NEAR(cJSON_GetObjectItem(sum, "compile_accuracy")->valuedouble, 1.0 / 3.0, 1e-9); /* vadd 1, rowsum 0, unknown 0 */
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


/* ---- duplicates and bytes that code cannot hold, end to end */

/* as JSON string text */
#define VADD_PREDICT "```cuda\\nextern \\\"C\\\" __global__ void vadd(const float *a, const float *b, float *c, int n)\\n" \
		     "{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) c[i] = a[i] + b[i]; }\\n```"

static const char *kernel_str(const cJSON *k, int i, const char *key)
{
	const cJSON *v = cJSON_GetObjectItem(cJSON_GetArrayItem(k, i), key);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static void test_duplicates_are_reported_and_not_counted(void)
{
	char args[16384], *t;
	const char *sub =
		"[{\"file\": \"vadd.py\", \"predict\": \"" VADD_PREDICT "\"},\n"
		" {\"file\": \"rowsum.py\", \"predict\": \"I cannot do this.\"},\n"
		" {\"file\": \"vadd.py\", \"predict\": \"" VADD_PREDICT "\"},\n"
		" {\"file\": \"dir/vadd.cu\", \"predict\": \"" VADD_PREDICT "\"},\n"
		" {\"file\": \"rowsum.py\", \"predict\": \"" VADD_PREDICT "\"}]\n";
	const char *launch = "{\"file\": \"vadd.py\", \"predict\": \"" VADD_PREDICT "\", "
			     "\"launch\": {\"kernel\": \"vadd\", \"grid\": [\"cdiv(n, 4096)\"], \"block\": [4096]}}\n";
	cJSON *j = NULL;
	const cJSON *k, *sum;
	int i;

	kt_write("dup.json", sub, strlen(sub));
	snprintf(args, sizeof(args), "--compile-only --refs tests/fixtures/problems --out '%s/res' '%s/dup.json'",
		 kt_tmpdir(), kt_tmpdir());
	KT_EQ_INT(score(args), 1);
	KT_CONTAINS(g_err, "dup.json: entry 2: duplicate of entry 0");
	t = slurp("res/score.json");
	KT_EQ_INT(ks_json_parse(&j, t, strlen(t), 64, "score.json"), 0);
	ks_free(t);
	k = cJSON_GetObjectItem(j, "kernels");
	KT_EQ_INT(cJSON_GetArraySize(k), 5);
	KT_EQ_STR(kernel_str(k, 0, "reason"), "not_run");
	KT_EQ_STR(kernel_str(k, 1, "reason"), "no_code");
	for (i = 2; i < 5; i++) {
		KT_EQ_STR(kernel_str(k, i, "reason"), "duplicate");
		KT_ASSERT(cJSON_IsFalse(cJSON_GetObjectItem(cJSON_GetArrayItem(k, i), "compiled")));
	}
	KT_CONTAINS(kernel_str(k, 3, "detail"), "duplicate of entry 0, which names the same problem \"vadd\"");
	KT_CONTAINS(kernel_str(k, 4, "detail"), "duplicate of entry 1");
	sum = cJSON_GetObjectItem(j, "summary");
	KT_EQ_INT(cJSON_GetObjectItem(sum, "kernels")->valuedouble, 5);
	KT_EQ_INT(cJSON_GetObjectItem(sum, "duplicates")->valuedouble, 3);
	KT_EQ_INT(cJSON_GetObjectItem(sum, "problems")->valuedouble, 2);
	/* per problem: vadd compiled, rowsum did not; the copies change nothing */
	KT_NEAR(cJSON_GetObjectItem(sum, "compile_accuracy")->valuedouble, 0.5, 1e-9);
	KT_EQ_INT(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(sum, "passes"), 0), "duplicates")->valuedouble, 3);
	cJSON_Delete(j);
	t = slurp("res/out.json");
	KT_CONTAINS(t, "File: dir/vadd.cu, Compile Status: False, difficulty: -1, stderr: duplicate: ");
	KT_CONTAINS(t, "Compile Accuracy: 0.5 ");
	ks_free(t);
	t = slurp("res/out.json_results_0.json");
	KT_CONTAINS(t, "\"reason\":\t\"duplicate\"");
	ks_free(t);
	t = slurp("res/out.json_all_passes.json");
	KT_CONTAINS(t, "\"reason\":\t\"duplicate\"");
	ks_free(t);

	/* a malformed launch on the problem's only entry is still a bad_launch */
	kt_write("launch.jsonl", launch, strlen(launch));
	snprintf(args, sizeof(args), "--compile-only --refs tests/fixtures/problems --out '%s/res2' '%s/launch.jsonl'",
		 kt_tmpdir(), kt_tmpdir());
	KT_EQ_INT(score(args), 2);
	t = slurp("res2/score.json");
	KT_EQ_INT(ks_json_parse(&j, t, strlen(t), 64, "score.json"), 0);
	ks_free(t);
	KT_EQ_STR(kernel_str(cJSON_GetObjectItem(j, "kernels"), 0, "reason"), "bad_launch");
	KT_CONTAINS(kernel_str(cJSON_GetObjectItem(j, "kernels"), 0, "detail"), "not a valid block");
	cJSON_Delete(j);
}

/* Every file under dir (recursively) is valid UTF-8, and valid JSON where its name ends in .json. */
static int check_tree(const char *dir)
{
	struct dirent *d;
	DIR *D = opendir(dir);
	int files = 0;

	KT_ASSERT_MSG(D != NULL, "cannot open %s", dir);
	while ((d = readdir(D)) != NULL) {
		char path[8192], *text = NULL;
		size_t len = 0, bad = 0;
		struct stat st;
		cJSON *j = NULL;
		if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
		KT_ASSERT(lstat(path, &st) == 0);
		if (S_ISDIR(st.st_mode)) {
			files += check_tree(path);
			continue;
		}
		if (ks_fs_read(&text, &len, path, 64u << 20) < 0)
			KT_FAIL("%s", ks_error_msg());
		KT_ASSERT_MSG(ks_utf8_valid(text, len, &bad), "%s is not UTF-8 at byte %zu", path, bad);
		KT_ASSERT_MSG(strlen(text) == len, "%s holds a NUL", path);
		/* out.json is GEAK-eval's text log, despite its name */
		if (strlen(d->d_name) > 5 && !strcmp(d->d_name + strlen(d->d_name) - 5, ".json") &&
		    strcmp(d->d_name, "out.json")) {
			KT_ASSERT_MSG(ks_json_parse(&j, text, len, 64, path) == 0, "%s", ks_error_msg());
			cJSON_Delete(j);
		}
		ks_free(text);
		files++;
	}
	closedir(D);
	return files;
}

static void test_bytes_the_code_cannot_hold_leave_every_output_valid(void)
{
	const char sub[] =
		"[{\"file\": \"vadd.py\", \"predict\": \"```cuda\\nextern \\\"C\\\" __global__ void vadd(const float *a, "
		"const float *b, float *c, int n)\\n{ int i = blockIdx.x;\xFF if (i < n) c[i] = a[i] + b[i]; }\\n```\"},\n"
		" {\"file\": \"rowsum.py\", \"predict\": \"__global__ void rowsum() {}\\u0000 int hidden;\"},\n"
		" {\"file\": \"x\xFF\xFE.py\", \"predict\": \"" VADD_PREDICT "\"},\n"
		" {\"file\": \"raw_nul.py\", \"predict\": \"__global__ void k() {}\0 hidden\"},\n"
		" {\"file\": \"surrogate.py\", \"predict\": \"\\udcff __global__ void k() {}\"}]\n";
	char args[8192], dir[4400], *t, *out;
	cJSON *j = NULL;
	const cJSON *k;
	size_t bad;
	int i;

	kt_write("bad\xFF.json", sub, sizeof(sub) - 1);
	/* the team name and the submission's own name are not UTF-8 either */
	snprintf(args, sizeof(args), "--compile-only --json --refs tests/fixtures/problems --team \"$(printf 't\\377\\376')\" "
		 "'%s'/bad*.json", kt_tmpdir());
	KT_EQ_INT(score(args), 2);
	KT_ASSERT_MSG(ks_utf8_valid(g_out, strlen(g_out), &bad), "stdout is not UTF-8 at byte %zu", bad);
	KT_EQ_INT(ks_json_parse(&j, g_out, strlen(g_out), 64, "stdout"), 0);
	cJSON_Delete(j);
	snprintf(dir, sizeof(dir), "%s/bad\xFF", kt_tmpdir());
	KT_ASSERT(check_tree(dir) >= 5);

	out = ks_asprintf("bad\xFF/score.json");
	t = slurp(out);
	ks_free(out);
	KT_EQ_INT(ks_json_parse(&j, t, strlen(t), 64, "score.json"), 0);
	ks_free(t);
	KT_EQ_STR(cJSON_GetObjectItem(j, "team")->valuestring, "t\xEF\xBF\xBD\xEF\xBF\xBD");
	KT_CONTAINS(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "submission"), "path")->valuestring,
		    "/bad\xEF\xBF\xBD.json");
	k = cJSON_GetObjectItem(j, "kernels");
	KT_EQ_INT(cJSON_GetArraySize(k), 5);
	for (i = 0; i < 5; i++) {
		KT_EQ_STR(kernel_str(k, i, "reason"), "bad_encoding");
		KT_ASSERT(cJSON_IsFalse(cJSON_GetObjectItem(cJSON_GetArrayItem(k, i), "compiled")));
	}
	/* the reason names the byte and its place instead of a missing kernel */
	KT_CONTAINS(kernel_str(k, 0, "detail"), "field \"predict\" holds a byte that is not UTF-8 (0xFF) at byte offset 110, "
						"line 3, column 22 of its text");
	KT_CONTAINS(kernel_str(k, 1, "detail"), "field \"predict\" holds a NUL character at byte offset 27, line 1, column 28");
	KT_CONTAINS(kernel_str(k, 2, "detail"), "field \"file\" holds a byte that is not UTF-8 (0xFF) at byte offset 1");
	KT_EQ_STR(kernel_str(k, 2, "file"), "x\xEF\xBF\xBD\xEF\xBF\xBD.py");
	KT_CONTAINS(kernel_str(k, 3, "detail"), "field \"predict\" holds a NUL character at byte offset 22");
	KT_CONTAINS(kernel_str(k, 4, "detail"), "an unpaired UTF-16 surrogate (\\uDCFF) at byte offset 0");
	cJSON_Delete(j);
}

static const kt_test tests[] = {
	KT(test_problems_listing_and_prompt_export), KT(test_every_shipped_problem_loads_and_its_golden_compiles),
	KT(test_help_version_and_usage_errors), KT(test_compile_only_writes_results),
	KT(test_rerun_replaces_the_folder), KT(test_default_output_folder_and_gzip_jsonl),
	KT(test_bad_input_is_named_and_others_still_scored), KT(test_json_summary),
	KT(test_no_gpu_falls_back_with_its_own_exit_code), KT(test_missing_refs),
	KT(test_duplicates_are_reported_and_not_counted),
	KT(test_bytes_the_code_cannot_hold_leave_every_output_valid), { 0 }
};
KT_MAIN("cli", tests)
