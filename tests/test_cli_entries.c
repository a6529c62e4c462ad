/* End-to-end tests of what a submission's entries hold: duplicates, bytes that code cannot hold,
 * answers that are not CUDA. */
#include "clitest.h"
#include "util/jsonutil.h"
#include "util/utf8.h"

#include <dirent.h>

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
	/* one warning line for the file, naming each duplicate and the entry it repeats */
	KT_CONTAINS(g_err, "dup.json: 3 entries name an earlier entry's problem and are not counted: "
		    "entry 2 (duplicate of entry 0, \"vadd\"), entry 3 (duplicate of entry 0, \"vadd\"), "
		    "entry 4 (duplicate of entry 1, \"rowsum\")");
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

/* A file of a Triton answer and a Python one without a Triton kernel: each entry says what it is.
 * Without a GPU the Triton answer gets the static check alone (the real kscore-triton, which needs
 * only Python) and not_run; the other is neither CUDA nor Triton (not_cuda). */
static void test_triton_and_python_answers_are_told_apart(void)
{
	char args[8192];
	char *t;
	cJSON *j = NULL;
	const cJSON *k;
	snprintf(args, sizeof(args), "--compile-only --refs tests/fixtures/problems --out '%s/res' "
		 "tests/fixtures/cli/triton.json", kt_tmpdir());
	KT_EQ_INT(score(args), 2);
	t = slurp("res/score.json");
	KT_EQ_INT(ks_json_parse(&j, t, strlen(t), 64, "score.json"), 0);
	k = cJSON_GetObjectItem(j, "kernels");
	KT_EQ_STR(cJSON_GetObjectItem(cJSON_GetArrayItem(k, 0), "reason")->valuestring, "not_run");
	KT_EQ_STR(cJSON_GetObjectItem(cJSON_GetArrayItem(k, 0), "language")->valuestring, "triton");
	KT_CONTAINS(cJSON_GetObjectItem(cJSON_GetArrayItem(k, 0), "detail")->valuestring,
		    "a Triton answer: it passed the static check; tracing and running it need a GPU");
	KT_EQ_STR(cJSON_GetObjectItem(cJSON_GetArrayItem(k, 1), "reason")->valuestring, "not_cuda");
	KT_EQ_STR(cJSON_GetObjectItem(cJSON_GetArrayItem(k, 1), "language")->valuestring, "none");
	KT_CONTAINS(cJSON_GetObjectItem(cJSON_GetArrayItem(k, 1), "detail")->valuestring,
		    "the answer is Python without a Triton kernel");
	KT_CONTAINS(cJSON_GetObjectItem(cJSON_GetArrayItem(k, 1), "detail")->valuestring,
		    "docs/submission-format.md");
	KT_EQ_INT(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "summary"), "not_cuda")->valuedouble, 1);
	cJSON_Delete(j);
	ks_free(t);
	/* a file of CUDA answers has no such warning */
	snprintf(args, sizeof(args), "--compile-only --refs tests/fixtures/problems --out '%s/res2' "
		 "tests/fixtures/cli/good.json", kt_tmpdir());
	score(args);
	KT_NOT_CONTAINS(g_err, "Python/Triton");
	t = slurp("res2/score.json");
	KT_NOT_CONTAINS(t, "\"warning\"");
	ks_free(t);
}

/* A host without the Python kscore needs: the Triton answer is not run and says what is missing;
 * CUDA answers of the same run are unaffected (issue 22, item 4). */
static void test_triton_answers_name_the_missing_python(void)
{
	char args[8192];
	char *t;
	cJSON *j = NULL;
	const cJSON *k;
	setenv("KSCORE_PYTHON", "/nonexistent/python3", 1);
	snprintf(args, sizeof(args), "--compile-only --refs tests/fixtures/problems --out '%s/res' "
		 "tests/fixtures/cli/triton.json", kt_tmpdir());
	KT_EQ_INT(score(args), 2);
	unsetenv("KSCORE_PYTHON");
	t = slurp("res/score.json");
	KT_EQ_INT(ks_json_parse(&j, t, strlen(t), 64, "score.json"), 0);
	k = cJSON_GetObjectItem(j, "kernels");
	KT_EQ_STR(cJSON_GetObjectItem(cJSON_GetArrayItem(k, 0), "reason")->valuestring, "not_run");
	KT_CONTAINS(cJSON_GetObjectItem(cJSON_GetArrayItem(k, 0), "detail")->valuestring,
		    "KSCORE_PYTHON=/nonexistent/python3 is not an executable");
	cJSON_Delete(j);
	ks_free(t);
}

/* A compile error inside kscore's compatibility headers names the header by its folder's name in
 * every file the run writes, never by the installation's path on this host. */
static void test_compile_errors_in_kscores_headers_name_no_host_path(void)
{
	const char sub[] =
		"[{\"file\": \"vadd.py\", \"predict\": \"```cuda\\n#include <vector>\\n"
		"extern \\\"C\\\" __global__ void vadd(const float *a, const float *b, float *c, int n)\\n"
		"{ std::vector<float> v(4); c[0] = v[0]; }\\n```\"}]\n";
	char args[9000], *cp = ks_path_join(getenv("KSCORE_ROOT") ? getenv("KSCORE_ROOT") : ".", "compat/include");
	char *compat = realpath(cp, NULL), *t, *cmd;

	KT_ASSERT(compat != NULL);
	kt_write("vec.json", sub, sizeof(sub) - 1);
	snprintf(args, sizeof(args), "--compile-only --refs tests/fixtures/problems --out '%s/res' '%s/vec.json'",
		 kt_tmpdir(), kt_tmpdir());
	KT_EQ_INT(score(args), 2);
	t = slurp("res/score.json");
	KT_CONTAINS(t, "compile_error");
	KT_CONTAINS(t, "<kscore-compat>/vector(");
	ks_free(t);
	/* no file of the result folder, and no output, holds the path */
	cmd = ks_asprintf("! grep -rqF '%s' '%s/res'", compat, kt_tmpdir());
	KT_EQ_INT(system(cmd), 0);
	KT_NOT_CONTAINS(g_out, compat);
	KT_NOT_CONTAINS(g_err, compat);
	ks_free(cmd);
	free(compat);
	ks_free(cp);
}

/* `score runs/` on KernelBench's answer layout: a pass per sample, entries keyed by problem, the
 * misnamed file named in an error and in the record, the rest scored. */
static void test_kernelbench_runs_folder_is_a_submission(void)
{
	const char *root = getenv("KSCORE_ROOT");
	char args[16384], *t;
	const cJSON *p, *k;
	cJSON *j = NULL;

	snprintf(args, sizeof(args), "--compile-only --refs tests/fixtures/problems --out '%s/res' "
		 "'%s/tests/fixtures/submission/kernelbench-runs'", kt_tmpdir(), root ? root : ".");
	KT_EQ_INT(score(args), 65); /* a file of the input could not be used */
	KT_CONTAINS(g_err, "score: error: ");
	KT_CONTAINS(g_err, "demo_run/level_x_problem_3_sample_0_kernel.py: not a name of KernelBench's "
			   "answer layout (level_<L>_problem_<P>_sample_<S>_kernel.py): the level is not a "
			   "number; skipped");
	KT_CONTAINS(g_err, "pass 1, entry 1: \"level_2_problem_10.py\" names no problem");
	t = slurp("res/score.json");
	KT_EQ_INT(ks_json_parse(&j, t, strlen(t), 64, "score.json"), 0);
	ks_free(t);
	p = cJSON_GetObjectItem(cJSON_GetObjectItem(j, "submission"), "passes");
	KT_EQ_INT(cJSON_GetArraySize(p), 3);
	KT_EQ_STR(kernel_str(p, 0, "file"), "sample_0");
	KT_EQ_STR(kernel_str(p, 1, "file"), "sample_1");
	KT_CONTAINS(kernel_str(p, 2, "error"), "level_x_problem_3_sample_0_kernel.py");
	k = cJSON_GetObjectItem(j, "kernels");
	KT_EQ_INT(cJSON_GetArraySize(k), 4);
	KT_EQ_STR(kernel_str(k, 0, "file"), "level_1_problem_1.py");
	KT_EQ_STR(kernel_str(k, 3, "file"), "level_2_problem_10.py");
	KT_EQ_INT(cJSON_GetObjectItem(cJSON_GetArrayItem(k, 3), "pass")->valuedouble, 1);
	cJSON_Delete(j);
}

static const kt_test tests[] = {
	KT(test_duplicates_are_reported_and_not_counted),
	KT(test_compile_errors_in_kscores_headers_name_no_host_path),
	KT(test_bytes_the_code_cannot_hold_leave_every_output_valid),
	KT(test_triton_and_python_answers_are_told_apart),
	KT(test_triton_answers_name_the_missing_python),
	KT(test_kernelbench_runs_folder_is_a_submission),
	{ 0 }
};
KT_MAIN("cli_entries", tests)
