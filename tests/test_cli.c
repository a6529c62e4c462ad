/* End-to-end tests: run the score binary as a user would, on small fixtures. Without a GPU (CI)
 * only compile-only paths run; the GPU paths live in tests/gpu. This file holds the general CLI
 * (help, version, exit codes, --json, options) and cli.c's in-process tests; result folders are in
 * test_cli_output.c, what a submission's entries hold in test_cli_entries.c. */
#include "clitest.h"
#include "passestest.h"
#include "cli/cli.h"
#include "lang/cuda/compat.h"
#include "util/jsonutil.h"

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

/* The compile settings reach the compiles through the one options tree (scoreopts parses them into
 * the pipeline's nested compile options, which the check stage receives whole). */
static void test_compile_options_reach_the_compiles(void)
{
	char args[8192];
	char *t;
	cJSON *j = NULL;
	const cJSON *k;
	snprintf(args, sizeof(args), "--compile-only --no-cache --arch sm_80 --compile-timeout 0.001 --refs "
		 "tests/fixtures/problems --out '%s/ct' tests/fixtures/cli/sub.json", kt_tmpdir());
	KT_EQ_INT(score(args), 2); /* nothing compiles in a millisecond */
	t = slurp("ct/score.json");
	KT_EQ_INT(ks_json_parse(&j, t, strlen(t), 64, "score.json"), 0);
	KT_EQ_STR(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "toolchain"), "arch")->valuestring, "sm_80");
	k = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "kernels"), 0);
	KT_EQ_STR(cJSON_GetObjectItem(k, "reason")->valuestring, "compile_timeout");
	cJSON_Delete(j);
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

/* The name of the option whose "--" is at p ("pass-at-k" for "--pass-at-k LIST") into opt;
 * returns its length (0: no name follows). */
static size_t option_name(char *opt, size_t n, const char *p)
{
	size_t j;
	for (j = 0; j + 1 < n && (p[2 + j] == '-' || (p[2 + j] >= 'a' && p[2 + j] <= 'z')); j++)
		opt[j] = p[2 + j];
	opt[j] = '\0';
	return j;
}

/* --opt as the man page spells it: troff writes a hyphen \- */
static void man_option(char *esc, size_t n, const char *opt)
{
	size_t k = 4;
	memcpy(esc, "\\-\\-", 4);
	for (; *opt && k + 3 < n; opt++) {
		if (*opt == '-')
			esc[k++] = '\\';
		esc[k++] = *opt;
	}
	esc[k] = '\0';
}

/* The man page renders cleanly and names every option and exit status of the --help texts. */
static void test_man_page_matches_help(void)
{
	static const char *const cmds[] = { "--help",		"batch --help",	   "baseline --help", "calibrate --help",
					    "problems --help", "check-refs --help", "upload --help", "export --help" };
	char *man = NULL, *p, opt[64], esc[160];
	size_t i;
	if (ks_fs_read(&man, NULL, "docs/score.1", 1u << 20) < 0)
		KT_FAIL("docs/score.1: %s", ks_error_msg());
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		KT_EQ_INT(score(cmds[i]), 0);
		for (p = g_out; (p = strstr(p, "--")) != NULL; p += 2) {
			if (!option_name(opt, sizeof(opt), p))
				continue;
			man_option(esc, sizeof(esc), opt);
			KT_ASSERT_MSG(strstr(man, esc), "docs/score.1 does not mention --%s (from score %s)", opt, cmds[i]);
		}
	}
	for (i = 0; i < 5; i++) {
		static const char *const codes[] = { ".B 64", ".B 65", ".B 73", ".B 74", ".B 78" };
		KT_CONTAINS(man, codes[i]);
	}
	ks_free(man);
	if (system("command -v groff >/dev/null 2>&1") != 0)
		KT_SKIP("groff is not installed: the rendering is not checked");
	{
		char cmd[8800];
		snprintf(cmd, sizeof(cmd), "groff -man -ww -z docs/score.1 2>'%s/warnings'", kt_tmpdir());
		KT_EQ_INT(system(cmd), 0);
		man = slurp("warnings");
		KT_EQ_STR(man, "");
		ks_free(man);
	}
}

/* The man page states the same defaults as `score --help`, which prints them from the constants
 * the options are initialised with (scoreopts.h): for every help line "--OPT ... (default: V)"
 * with a plain value V, the man page's entry for --OPT says "default: V". */
static void test_man_page_defaults_match_help(void)
{
	char *man = NULL, *line, *end, opt[64] = "";
	size_t checked = 0;
	if (ks_fs_read(&man, NULL, "docs/score.1", 1u << 20) < 0)
		KT_FAIL("docs/score.1: %s", ks_error_msg());
	KT_EQ_INT(score("--help"), 0);
	for (line = g_out; line && *line; line = end ? end + 1 : NULL) {
		char val[64], esc[160], want[96], *d, *o, *entry, *next;
		size_t k;
		if ((end = strchr(line, '\n')) != NULL)
			*end = '\0';
		/* an option's line starts with it ("  -k, --pass-at-k" or "      --arch"); a default may
		 * sit on one of its continuation lines */
		o = line + strspn(line, " ");
		if (*o == '-' && (o = strstr(line, "--")) != NULL)
			option_name(opt, sizeof(opt), o);
		d = strstr(line, "(default: ");
		if (end)
			*end = '\n';
		if (!opt[0] || !d)
			continue;
		d += strlen("(default: ");
		for (k = 0; k + 1 < sizeof(val) && d[k] && strchr("); ,\n", d[k]) == NULL; k++)
			val[k] = d[k];
		val[k] = '\0';
		/* plain values only: numbers, sizes, architecture names */
		if (!k || (d[k] != ')' && d[k] != ';') || strspn(val, "0123456789_.abcdefghijklmnopqrstuvwxyzKMGT") != k ||
		    strcmp(val, "random") == 0)
			continue;
		man_option(esc, sizeof(esc), opt);
		/* the option's entry, not its mention in the synopsis */
		entry = strstr(man, "\n.SH OPTIONS");
		entry = entry ? strstr(entry, esc) : NULL;
		KT_ASSERT_MSG(entry, "docs/score.1 has no entry for --%s", opt);
		next = strstr(entry, "\n.TP");
		snprintf(want, sizeof(want), "default: %s", val);
		if (next)
			*next = '\0';
		KT_ASSERT_MSG(strstr(entry, want), "docs/score.1's --%s does not say \"%s\" as --help does", opt, want);
		if (next)
			*next = '\n';
		checked++;
	}
	ks_free(man);
	fprintf(stderr, "  %zu defaults compared\n", checked);
	KT_ASSERT(checked >= 7);
}

/* `make install` places the program, the man page and the docs under DESTDIR, and `make
 * uninstall` takes back exactly what it placed. */
static void test_make_install_places_man_page_and_docs(void)
{
	char cmd[24576], *t;
	if (access("build/score", X_OK) != 0 || system("command -v make >/dev/null 2>&1") != 0)
		KT_SKIP("needs make and a built build/score");
	put_file("stage/usr/share/doc/other/keep.txt", "another package's file");
	/* -o all: use the build as it is, never compile from a test */
	snprintf(cmd, sizeof(cmd), "make -s -o all install DESTDIR='%s/stage' PREFIX=/usr >'%s/make.log' 2>&1",
		 kt_tmpdir(), kt_tmpdir());
	KT_EQ_INT(system(cmd), 0);
	KT_ASSERT(there("stage/usr/bin/score"));
	KT_ASSERT(there("stage/usr/libexec/kscore/kscore-worker"));
	KT_ASSERT(there("stage/usr/share/man/man1/score.1"));
	KT_ASSERT(there("stage/usr/share/doc/kscore/README.md"));
	KT_ASSERT(there("stage/usr/share/doc/kscore/results.md"));
	KT_ASSERT(there("stage/usr/share/doc/kscore/batch.md"));
	KT_ASSERT(there("stage/usr/share/kscore/reference_tests"));
	t = slurp("stage/usr/share/man/man1/score.1");
	KT_CONTAINS(t, ".TH SCORE 1");
	ks_free(t);
	snprintf(cmd, sizeof(cmd), "make -s uninstall DESTDIR='%s/stage' PREFIX=/usr >>'%s/make.log' 2>&1 && "
		 "cd '%s/stage' && find . -type f -o -type l > '%s/left'", kt_tmpdir(), kt_tmpdir(), kt_tmpdir(),
		 kt_tmpdir());
	KT_EQ_INT(system(cmd), 0);
	t = slurp("left");
	KT_EQ_STR(t, "./usr/share/doc/other/keep.txt\n");
	ks_free(t);
	KT_ASSERT(!there("stage/usr/share/doc/kscore"));
	KT_ASSERT(!there("stage/usr/share/kscore"));
}

/* Bad option values are usage errors (64) with the option named, before anything is compiled. */
static void test_bad_option_values_are_usage_errors(void)
{
	KT_EQ_INT(score("--compile-only --arch sm_1 x.json"), 64);
	KT_CONTAINS(g_err, "--arch \"sm_1\" is not a GPU architecture");
	KT_EQ_INT(score("--compile-only --arch 'sm_90a;rm' x.json"), 64);
	KT_CONTAINS(g_err, "is not a GPU architecture");
	KT_EQ_INT(score("--compile-only --seed -1 x.json"), 64);
	KT_CONTAINS(g_err, "--seed takes an integer");
	KT_EQ_INT(score("--compile-only --seed 18446744073709551616 x.json"), 64);
	KT_EQ_INT(score("--compile-only -k 1,,5 x.json"), 64);
	KT_CONTAINS(g_err, "-k has an empty item");
	KT_EQ_INT(score("--compile-only -k 5,5 x.json"), 64);
	KT_CONTAINS(g_err, "-k lists 5 twice");
	KT_EQ_INT(score("--compile-only --max-scratch 0 x.json"), 64);
	KT_CONTAINS(g_err, "--max-scratch");
	KT_EQ_INT(score("batch --compile-only --arch sm_1 m.json"), 64);
	KT_CONTAINS(g_err, "is not a GPU architecture");
}

/* --baseline reference=DIR, as a user types it (with or without '='): a folder that holds no
 * reference is the run's error before anything is scored; without a GPU nothing is timed, and the
 * run says the references were not scored. */
static void test_baseline_reference_on_the_command_line(void)
{
	char args[8192];
	KT_EQ_INT(score("--compile-only --baseline reference tests/fixtures/cli/sub.json"), 64);
	KT_CONTAINS(g_err, "--baseline reference needs the folder of the reference implementations");
	KT_EQ_INT(score("--compile-only --baseline=reference tests/fixtures/cli/sub.json"), 64);
	KT_CONTAINS(g_err, "--baseline reference needs the folder of the reference implementations");
	snprintf(args, sizeof(args), "--compile-only --refs tests/fixtures/problems --baseline "
		 "reference=tests/fixtures/no-such-folder --out '%s/rb' tests/fixtures/cli/sub.json", kt_tmpdir());
	KT_EQ_INT(score(args), 65);
	KT_CONTAINS(g_err, "--baseline reference=tests/fixtures/no-such-folder");
	snprintf(args, sizeof(args), "--compile-only --refs tests/fixtures/problems --baseline "
		 "reference=tests/fixtures/refbase --out '%s/rb' tests/fixtures/cli/sub.json", kt_tmpdir());
	KT_EQ_INT(score(args), 1);
	KT_CONTAINS(g_err, "--baseline reference: nothing is timed in this run (no GPU)");
	/* batch takes it the same way (its jobs get the joined form) */
	KT_EQ_INT(score("batch --compile-only --baseline reference m.json"), 64);
	KT_CONTAINS(g_err, "--baseline reference needs the folder of the reference implementations");
}

/* Each entry of a fixture array in a file of its own (one pass per entry), so that entries for the
 * same problem are all counted: kernels[i] of the result is entry i. Returns the folder. */
static const char *as_passes(const char *fixture)
{
	return kt_fixture_passes(fixture, "passes", NULL, 0);
}

/* Launch plans that used to hang the scorer, reach undefined behaviour or pass a wrong parameter
 * list as compiled (tests/fixtures/cli/bounds.json): each entry gets its own verdict, quickly. */
static void test_hostile_plans_and_signatures_in_compile_only_mode(void)
{
	char args[8192];
	char *t;
	cJSON *j = NULL;
	const cJSON *k;
	snprintf(args, sizeof(args), "--compile-only --seed 7 --max-scratch 1M --refs tests/fixtures/problems "
		 "--out '%s/res' '%s'", kt_tmpdir(), as_passes("tests/fixtures/cli/bounds.json"));
	KT_EQ_INT(score(args), 1);
	t = slurp("res/score.json");
	KT_EQ_INT(ks_json_parse(&j, t, strlen(t), 64, "score.json"), 0);
	KT_EQ_STR(cJSON_GetObjectItem(j, "seed")->valuestring, "7");
	k = cJSON_GetObjectItem(j, "kernels");
	KT_EQ_INT(cJSON_GetArraySize(k), 4);
	/* a kernel whose parameters do not match its plan: compiled, but it could never be launched */
	KT_EQ_STR(cJSON_GetObjectItem(cJSON_GetArrayItem(k, 0), "reason")->valuestring, "launch_error");
	KT_ASSERT(cJSON_IsFalse(cJSON_GetObjectItem(cJSON_GetArrayItem(k, 0), "compiled")));
	KT_CONTAINS(cJSON_GetObjectItem(cJSON_GetArrayItem(k, 0), "detail")->valuestring,
		    "kernel vadd takes 3 parameters (8, 8, 4 bytes) but the launch plan passes 4 (8, 8, 8, 4 bytes)");
	/* 1 ** (2^63 - 1) in the grid */
	KT_EQ_STR(cJSON_GetObjectItem(cJSON_GetArrayItem(k, 1), "reason")->valuestring, "not_run");
	KT_ASSERT(cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetArrayItem(k, 1), "compiled")));
	/* 1e40 in the grid */
	KT_EQ_STR(cJSON_GetObjectItem(cJSON_GetArrayItem(k, 2), "reason")->valuestring, "bad_launch");
	KT_CONTAINS(cJSON_GetObjectItem(cJSON_GetArrayItem(k, 2), "detail")->valuestring, "1e+40 is not an integer");
	/* 2 MiB of scratch under --max-scratch 1M */
	KT_EQ_STR(cJSON_GetObjectItem(cJSON_GetArrayItem(k, 3), "reason")->valuestring, "bad_launch");
	KT_CONTAINS(cJSON_GetObjectItem(cJSON_GetArrayItem(k, 3), "detail")->valuestring,
		    "limit of 1048576 bytes (--max-scratch)");
	cJSON_Delete(j);
	ks_free(t);
	/* the default limit lets the same plan through */
	snprintf(args, sizeof(args), "--compile-only --refs tests/fixtures/problems --out '%s/res' '%s'",
		 kt_tmpdir(), as_passes("tests/fixtures/cli/bounds.json"));
	KT_EQ_INT(score(args), 1);
	t = slurp("res/score.json");
	KT_EQ_INT(ks_json_parse(&j, t, strlen(t), 64, "score.json"), 0);
	k = cJSON_GetObjectItem(j, "kernels");
	KT_EQ_STR(cJSON_GetObjectItem(cJSON_GetArrayItem(k, 3), "reason")->valuestring, "not_run");
	cJSON_Delete(j);
	ks_free(t);
}

/* check-refs refuses a spec whose byte count wraps (2^62 f32 elements used to count as 0 bytes). */
static void test_check_refs_refuses_sizes_that_wrap(void)
{
	char args[8192], dir[4400], path[4500], spec[2048];
	int n;
	snprintf(dir, sizeof(dir), "%s/refs/s/wrap", kt_tmpdir());
	KT_EQ_INT(ks_fs_mkdir_p(dir, 0755), 0);
	n = snprintf(spec, sizeof(spec), "{\"name\": \"wrap\", \"dims\": [\"n\"], \"args\": [{\"name\": \"y\", "
		     "\"type\": \"f32*\", \"role\": \"out\", \"shape\": [\"n\"]}, {\"name\": \"n\", \"type\": "
		     "\"i32\", \"value\": \"1\"}], \"launch\": {\"kernel\": \"k\", \"grid\": [1], \"block\": [32]}, "
		     "\"tolerance\": {\"atol\": 0, \"rtol\": 0}, \"bytes\": \"4\", \"cases\": {\"correctness\": "
		     "[{\"n\": 4}], \"perf\": [{\"n\": \"1 << 62\"}]}}");
	snprintf(path, sizeof(path), "%s/problem.json", dir);
	KT_EQ_INT(ks_fs_write_atomic(path, spec, (size_t)n), 0);
	snprintf(path, sizeof(path), "%s/golden.cu", dir);
	{
		static const char golden[] = "extern \"C\" __global__ void k(float *y, int n) {}\n";
		KT_EQ_INT(ks_fs_write_atomic(path, golden, strlen(golden)), 0);
	}
	snprintf(path, sizeof(path), "%s/instruction.md", dir);
	KT_EQ_INT(ks_fs_write_atomic(path, "x\n", 2), 0);
	snprintf(args, sizeof(args), "check-refs --compile-only --refs '%s/refs'", kt_tmpdir());
	KT_EQ_INT(score(args), 1);
	KT_CONTAINS(g_out, "1 problems, 0 passed, 1 failed");
	KT_CONTAINS(g_out, "wrap/problem.json: case n=1 << 62, arg y: 4611686018427387904 elements of f32: "
		    "the byte count overflows 64 bits");
}

/* --devices: a list of ordinals (repeats allowed), or all; anything else is a usage error. */
static void test_devices_option_values(void)
{
	static const char *bad[] = { "''", "0,,1", ",0", "0,", "all,0", "0,all", "-1", "1024", "0x1", "a", "'0 ,1'",
				     NULL };
	char args[512];
	size_t i;
	for (i = 0; bad[i]; i++) {
		snprintf(args, sizeof(args), "--compile-only --devices %s x.json", bad[i]);
		KT_ASSERT_MSG(score(args) == 64, "--devices %s accepted", bad[i]);
		KT_CONTAINS(g_err, "--devices takes a device ordinal from 0 to 1023, a comma-separated list");
	}
	KT_EQ_INT(score("--compile-only --device 0,x x.json"), 64);
	KT_CONTAINS(g_err, "--device takes");
	KT_EQ_INT(score("batch --compile-only --devices 0,,1 m.json"), 64);
	KT_CONTAINS(g_err, "--devices takes");
	KT_EQ_INT(score("--compile-only --devices all --mixed-gpus --help"), 0);
}

/* --device N of the one-GPU commands: an ordinal or a usage error, never atoi's silent 0 */
static void test_device_option_of_one_gpu_commands(void)
{
	static const char *cmds[] = { "calibrate", "baseline", "check-refs", NULL };
	static const char *bad[] = { "1x", "''", "-1", "1024", "99999", "0x1", NULL };
	char args[256];
	size_t i, j;
	int d = -1;
	for (i = 0; cmds[i]; i++)
		for (j = 0; bad[j]; j++) {
			snprintf(args, sizeof(args), "%s --device %s", cmds[i], bad[j]);
			KT_ASSERT_MSG(score(args) == 64, "score %s accepted", args);
			KT_CONTAINS(g_err, "--device takes a device ordinal from 0 to 1023");
		}
	KT_EQ_INT(ks_cli_device_parse(&d, "7"), 0);
	KT_EQ_INT(d, 7);
	KT_EQ_INT(ks_cli_device_parse(&d, "1023"), 0);
	KT_EQ_INT(d, 1023);
	KT_EQ_INT(ks_cli_device_parse(&d, "01024"), -1);
	KT_EQ_INT(ks_cli_device_parse(&d, " 1"), -1);
	KT_EQ_INT(d, 1023);
}

/* Without a GPU, any device list falls back to compile-only like one device, with the driver's
 * reason: the second lane's cleanup used to replace it with "worker connection: write failed". */
static void test_devices_without_a_gpu_fall_back_to_compile_only(void)
{
	static const char *lists[] = { "0", "0,1", "0,0", "all", "3,1,3", NULL };
	char args[8192];
	size_t i;
	int round;
	if (has_gpu())
		KT_SKIP("this machine has a GPU; the fallback path needs one without");
	for (i = 0; lists[i]; i++)
		for (round = 0; round < 3; round++) {
			cJSON *j;
			char *t;
			snprintf(args, sizeof(args), "--devices %s --refs tests/fixtures/problems --out '%s/r' "
				 "tests/fixtures/cli/good.json", lists[i], kt_tmpdir());
			KT_EQ_INT(score(args), 3);
			KT_CONTAINS(g_err, "no usable GPU (");
			KT_NOT_CONTAINS(g_err, "worker connection");
			KT_NOT_CONTAINS(g_err, "lane");
			t = slurp("r/score.json");
			KT_EQ_INT(ks_json_parse(&j, t, strlen(t), 64, "score.json"), 0);
			KT_EQ_STR(cJSON_GetObjectItem(j, "mode")->valuestring, "compile-only");
			KT_EQ_INT(cJSON_GetArraySize(cJSON_GetObjectItem(j, "devices")), 0);
			KT_ASSERT(cJSON_IsFalse(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "summary"), "shared_gpu")));
			KT_ASSERT(cJSON_IsNull(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(j, "kernels"), 0),
							       "gpu")));
			cJSON_Delete(j);
			ks_free(t);
		}
	snprintf(args, sizeof(args), "--require-gpu --devices 0,0 --refs tests/fixtures/problems --out '%s/r' "
		 "tests/fixtures/cli/good.json", kt_tmpdir());
	KT_EQ_INT(score(args), 69);
	KT_CONTAINS(g_err, "no usable GPU");
}

/* ---- cli.c, what the commands share (in process) ---- */

/* Runs fn with stderr going to <tmp>/cli-stderr, read back into g_err; returns fn's result. */
static int with_stderr(int (*fn)(void *), void *arg)
{
	char path[4300];
	int saved = dup(2), fd, rc;
	FILE *f;
	size_t n;
	snprintf(path, sizeof(path), "%s/cli-stderr", kt_tmpdir());
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	fflush(stderr);
	dup2(fd, 2);
	rc = fn(arg);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	close(fd);
	f = fopen(path, "r");
	n = f ? fread(g_err, 1, sizeof(g_err) - 1, f) : 0;
	g_err[n] = 0;
	if (f)
		fclose(f);
	return rc;
}

typedef struct {
	ks_cli_refs o;
	int need_some;
	ks_problem_set *set;
	char *refs;
} refs_call;

static int call_refs_load(void *arg)
{
	refs_call *c = arg;
	return ks_cli_refs_load(&c->set, &c->refs, &c->o, "score test", c->need_some);
}

static void refs_call_clear(refs_call *c)
{
	ks_problem_set_free(c->set);
	ks_free(c->refs);
	c->set = NULL;
	c->refs = NULL;
}

static void test_cli_refs_options_and_loading(void)
{
	refs_call c = { { 0 }, 0, NULL, NULL };
	char empty[4300];

	KT_EQ_INT(ks_cli_refs_option(&c.o, KS_CLI_OPT_REFS, "tests/fixtures/problems"), 1);
	KT_EQ_INT(ks_cli_refs_option(&c.o, KS_CLI_OPT_SUITE, "level1"), 1);
	KT_EQ_INT(ks_cli_refs_option(&c.o, 'x', "other"), 0);
	KT_EQ_STR(c.o.refs, "tests/fixtures/problems");
	KT_EQ_STR(c.o.suite, "level1");
	c.o.suite = NULL;
	KT_EQ_INT(with_stderr(call_refs_load, &c), 0);
	KT_ASSERT(c.set && c.set->n > 0);
	KT_EQ_STR(c.refs, "tests/fixtures/problems");
	refs_call_clear(&c);

	c.o.refs = "/nonexistent/reference_tests";
	KT_EQ_INT(with_stderr(call_refs_load, &c), KS_EXIT_DATAERR);
	KT_CONTAINS(g_err, "score test: ");
	KT_CONTAINS(g_err, "/nonexistent/reference_tests");
	refs_call_clear(&c);

	/* a folder without problems loads; only a command that needs some refuses it */
	snprintf(empty, sizeof(empty), "%s/empty-refs", kt_tmpdir());
	ks_fs_mkdir_p(empty, 0755);
	c.o.refs = empty;
	KT_EQ_INT(with_stderr(call_refs_load, &c), 0);
	KT_EQ_INT(c.set->n, 0);
	refs_call_clear(&c);
	c.need_some = 1;
	KT_EQ_INT(with_stderr(call_refs_load, &c), KS_EXIT_DATAERR);
	KT_CONTAINS(g_err, "score test: no valid problem in ");
	refs_call_clear(&c);
}

static int call_usage_error(void *arg)
{
	(void)arg;
	return ks_cli_usage_error("score thing", "bad %s", "value");
}

static void test_cli_usage_error_and_colour(void)
{
	int c = 7;
	KT_EQ_INT(with_stderr(call_usage_error, NULL), KS_EXIT_USAGE);
	KT_CONTAINS(g_err, "score thing: bad value\nTry 'score thing --help'.");

	KT_EQ_INT(ks_cli_color_parse(&c, NULL), 0);
	KT_EQ_INT(c, 1); /* a bare --color means always */
	KT_EQ_INT(ks_cli_color_parse(&c, "never"), 0);
	KT_EQ_INT(c, 0);
	KT_EQ_INT(ks_cli_color_parse(&c, "auto"), 0);
	KT_EQ_INT(c, -1);
	KT_EQ_INT(ks_cli_color_parse(&c, "sometimes"), -1);
	KT_EQ_INT(c, -1);

	KT_EQ_INT(ks_cli_color_use(1, -1), 1);
	KT_EQ_INT(ks_cli_color_use(0, -1), 0);
	unsetenv("NO_COLOR");
	KT_EQ_INT(ks_cli_color_use(-1, -1), 0); /* not a terminal */
	{
		int fd = open("/dev/tty", O_RDWR);
		if (fd >= 0 && isatty(fd)) {
			KT_EQ_INT(ks_cli_color_use(-1, fd), 1);
			setenv("NO_COLOR", "1", 1);
			KT_EQ_INT(ks_cli_color_use(-1, fd), 0);
			setenv("NO_COLOR", "", 1);
			KT_EQ_INT(ks_cli_color_use(-1, fd), 1);
		}
		if (fd >= 0)
			close(fd);
	}
}

static const kt_test tests[] = {
	KT(test_problems_listing_and_prompt_export),
	KT(test_every_shipped_problem_loads_and_its_golden_compiles),
	KT(test_nvcc_style_code_and_missing_headers),
	KT(test_help_version_and_usage_errors),
	KT(test_compile_only_writes_results),
	KT(test_compile_options_reach_the_compiles),
	KT(test_rerun_replaces_the_folder),
	KT(test_default_output_folder_and_gzip_jsonl),
	KT(test_bad_input_is_named_and_others_still_scored),
	KT(test_json_summary),
	KT(test_no_gpu_falls_back_with_its_own_exit_code),
	KT(test_missing_refs),
	KT(test_man_page_matches_help), KT(test_man_page_defaults_match_help),
	KT(test_make_install_places_man_page_and_docs),
	KT(test_bad_option_values_are_usage_errors),
	KT(test_hostile_plans_and_signatures_in_compile_only_mode),
	KT(test_check_refs_refuses_sizes_that_wrap),
	KT(test_devices_option_values), KT(test_device_option_of_one_gpu_commands),
	KT(test_devices_without_a_gpu_fall_back_to_compile_only),
	KT(test_cli_refs_options_and_loading),
	KT(test_cli_usage_error_and_colour),
	KT(test_baseline_reference_on_the_command_line), { 0 }
};
KT_MAIN("cli", tests)
