/* sanitize: compute-sanitizer's tool options, and reading its log into findings and the detail
 * sentence.
 *
 * The logs are REAL: the .log files of tests/fixtures/nvtools, captured on an H100 with
 * compute-sanitizer 2025.3.1 (CUDA 13) by tests/gpu/capture-nvtools.sh (see the README there).
 * Only the shapes the H100 run did not produce (a racecheck error, the tool's own failure, hostile
 * input) are written here by hand, and say so. */
#include "ktest.h"
#include "util/buf.h"
#include "util/errors.h"
#include "util/fsutil.h"
#include "util/mem.h"
#include "nvtool/sanitize.h"

/* Parses tests/fixtures/nvtools/<name> into *r. */
static void parse_fixture(ks_sanitize_report *r, const char *name)
{
	const char *root = getenv("KSCORE_ROOT");
	char *path = ks_asprintf("%s/tests/fixtures/nvtools/%s", root && *root ? root : ".", name), *t = NULL;
	size_t len = 0;
	KT_ASSERT_MSG(ks_fs_read(&t, &len, path, 1u << 20) == 0, "%s: %s", path, ks_error_msg());
	ks_sanitize_parse(r, t, len);
	ks_free(t);
	ks_free(path);
}

static char *read_fixture(const char *name, size_t *len)
{
	const char *root = getenv("KSCORE_ROOT");
	char *path = ks_asprintf("%s/tests/fixtures/nvtools/%s", root && *root ? root : ".", name), *t = NULL;
	KT_ASSERT_MSG(ks_fs_read(&t, len, path, 1u << 20) == 0, "%s: %s", path, ks_error_msg());
	ks_free(path);
	return t;
}

/* A kept memcheck worker stays only while its part of the log says nothing (toolrun.h): its banner
 * and bare separator lines are nothing; a finding, a failed API call, a summary or any line kscore
 * does not know is something. */
static void test_sanitize_quiet_is_only_the_banner(void)
{
	static const char *nothing[] = { "", "\n", "========= COMPUTE-SANITIZER\n", "=========\n=========   \n",
					 "========= COMPUTE-SANITIZER\r\n=========", "\n\n", "=========   \r\n" };
	/* the last: carriage returns after the separator are a finding's text to the parser (found
	 * by fuzz_nvlog, which checks that a quiet part parses to nothing) */
	static const char *something[] = { "x", "========= COMPUTE-SANITIZER\nsomething\n", "=========x\n",
					   "========= \r\r\r\r\r\r\r\r",
					   "========= ERROR SUMMARY: 0 errors\n",
					   "========= COMPUTE-SANITIZER extra\n", "==ERROR== unknown option\n",
					   "========= Invalid __global__ write of size 4 bytes\n" };
	static const char *logs[] = { "memcheck-oob.log", "memcheck-clean.log", "racecheck-race.log",
				      "initcheck-clean.log" };
	size_t i, len;
	for (i = 0; i < sizeof(nothing) / sizeof(nothing[0]); i++) {
		ks_sanitize_report r;
		KT_ASSERT_MSG(ks_sanitize_quiet(nothing[i], strlen(nothing[i])), "nothing %zu", i);
		/* and what is quiet to the kept worker is nothing to the parser that judges the kernel */
		ks_sanitize_parse(&r, nothing[i], strlen(nothing[i]));
		KT_ASSERT_MSG(!r.total && !r.api_errors && r.summary_errors < 0 && !r.tool_error, "nothing %zu", i);
		ks_sanitize_report_clear(&r);
	}
	for (i = 0; i < sizeof(something) / sizeof(something[0]); i++)
		KT_ASSERT_MSG(!ks_sanitize_quiet(something[i], strlen(something[i])), "something %zu", i);
	/* every real log, even a clean one's, ends in a summary: a worker's whole life is never quiet */
	for (i = 0; i < sizeof(logs) / sizeof(logs[0]); i++) {
		char *t = read_fixture(logs[i], &len);
		KT_ASSERT_MSG(!ks_sanitize_quiet(t, len), "%s", logs[i]);
		ks_free(t);
	}
	/* the overrun's part of a kept worker's log, read once the worker was closed: a finding and
	 * the summary, as a worker of its own would have written (the clean kernels' parts before
	 * it were empty) */
	{
		ks_sanitize_report r;
		char *t = read_fixture("memcheck-kept-oob.log", &len), *d;
		KT_ASSERT(!ks_sanitize_quiet(t, len));
		ks_sanitize_parse(&r, t, len);
		KT_EQ_INT((int)r.errors, 1);
		KT_EQ_INT((int)r.summary_errors, 1);
		KT_ASSERT(ks_sanitize_fails(&r, KS_SAN_MEMCHECK));
		d = ks_sanitize_detail(&r, "memcheck");
		KT_CONTAINS(d, "memcheck: invalid __global__ write of size 4 bytes at vadd+0x1b0");
		ks_free(d);
		ks_sanitize_report_clear(&r);
		ks_free(t);
	}
	/* a length, not a terminator: the banner cut short is still only the banner's start */
	KT_ASSERT(!ks_sanitize_quiet("========= COMPUTE-SANITIZER", 20));
}

static void test_sanitize_reads_the_real_memcheck_overrun(void)
{
	ks_sanitize_report r;
	char *d;
	cJSON *a, *f;
	/* (d): 64 KiB past the output, memcheck run by hand; with the API errors of the time (four
	 * parameter probes before, the failed synchronisation after) */
	parse_fixture(&r, "memcheck-oob.log");
	KT_EQ_INT((int)r.n, 1);
	KT_EQ_INT((int)r.total, 1);
	KT_EQ_INT((int)r.errors, 1);
	KT_EQ_INT((int)r.api_errors, 5);
	KT_EQ_INT((int)r.summary_errors, 6);
	KT_EQ_INT((int)r.not_printed, 0);
	KT_ASSERT(r.tool_error == NULL); /* "Target application returned an error" is not the tool's */
	KT_EQ_STR(r.items[0].what, "Invalid __global__ write of size 4 bytes");
	KT_EQ_STR(r.items[0].where, "vadd+0x1b0");
	KT_EQ_STR(r.items[0].who, "by thread (0,0,0) in block (0,0,0)");
	KT_EQ_STR(r.items[0].address, "Access to 0x7f267ca15804 is out of bounds and is 61,189 bytes after the nearest "
		  "allocation at 0x7f267ca04800 of size 8,448 bytes");
	KT_ASSERT(ks_sanitize_fails(&r, KS_SAN_MEMCHECK));
	d = ks_sanitize_detail(&r, "memcheck");
	KT_EQ_STR(d, "memcheck: invalid __global__ write of size 4 bytes at vadd+0x1b0 by thread (0,0,0) in block "
		  "(0,0,0): access to 0x7f267ca15804 is out of bounds and is 61,189 bytes after the nearest "
		  "allocation at 0x7f267ca04800 of size 8,448 bytes");
	ks_free(d);
	a = ks_sanitize_findings_json(&r, "memcheck");
	KT_EQ_INT(cJSON_GetArraySize(a), 1);
	f = cJSON_GetArrayItem(a, 0);
	KT_EQ_STR(cJSON_GetObjectItem(f, "tool")->valuestring, "memcheck");
	KT_EQ_STR(cJSON_GetObjectItem(f, "severity")->valuestring, "error");
	KT_EQ_STR(cJSON_GetObjectItem(f, "where")->valuestring, "vadd+0x1b0");
	cJSON_Delete(a);
	ks_sanitize_report_clear(&r);
}

static void test_sanitize_real_clean_logs_fail_nothing(void)
{
	static const char *const clean[] = { "memcheck-clean.log", "racecheck-clean.log", "initcheck-clean.log",
					     "synccheck-clean.log" };
	static const unsigned tool[] = { KS_SAN_MEMCHECK, KS_SAN_RACECHECK, KS_SAN_INITCHECK, KS_SAN_SYNCCHECK };
	ks_sanitize_report r;
	size_t i;
	for (i = 0; i < 4; i++) {
		parse_fixture(&r, clean[i]);
		KT_ASSERT_MSG(r.n == 0 && r.total == 0 && r.errors == 0, "%s: %zu findings", clean[i], r.total);
		KT_ASSERT(!ks_sanitize_fails(&r, tool[i]));
		KT_ASSERT(ks_sanitize_detail(&r, ks_sanitize_tool_name(tool[i])) == NULL);
		KT_ASSERT(r.tool_error == NULL);
		ks_sanitize_report_clear(&r);
	}
	/* kscore's own memcheck run on the clean kernel: its two errors are the worker's
	 * cuFuncGetParamInfo probes, API errors and no finding */
	parse_fixture(&r, "memcheck-clean.log");
	KT_EQ_INT((int)r.api_errors, 2);
	KT_EQ_INT((int)r.summary_errors, 2);
	ks_sanitize_report_clear(&r);
	parse_fixture(&r, "racecheck-clean.log");
	KT_EQ_INT((int)r.summary_hazards, 0);
	KT_EQ_INT((int)r.summary_errors, -1);
	ks_sanitize_report_clear(&r);
	parse_fixture(&r, "initcheck-clean.log");
	KT_EQ_INT((int)r.summary_errors, 0);
	KT_EQ_INT((int)r.summary_hazards, -1);
	ks_sanitize_report_clear(&r);
	/* nothing at all (the tool never ran) */
	ks_sanitize_parse(&r, "", 0);
	KT_EQ_INT((int)r.n, 0);
	KT_EQ_INT((int)r.summary_errors, -1);
	ks_sanitize_report_clear(&r);
}

static void test_sanitize_second_summary_line_past_the_print_limit(void)
{
	ks_sanitize_report r;
	/* 43 API errors, 32 printed: "ERROR SUMMARY: 43 errors" then "ERROR SUMMARY: 11 errors were
	 * not printed. Use --print-limit ..." (which used to overwrite the 43) */
	parse_fixture(&r, "memcheck-clean-print-limit.log");
	KT_EQ_INT((int)r.summary_errors, 43);
	KT_EQ_INT((int)r.not_printed, 11);
	KT_EQ_INT((int)r.api_errors, 32);
	KT_EQ_INT((int)r.n, 0);
	KT_ASSERT(!ks_sanitize_fails(&r, KS_SAN_MEMCHECK));
	ks_sanitize_report_clear(&r);
}

static void test_sanitize_real_warp_synchronous_race_fails(void)
{
	ks_sanitize_report r;
	char *d;
	/* (e): the old warp-synchronous reduction without __syncwarp; racecheck rates its hazards
	 * warnings, and exited with --error-exitcode on them */
	parse_fixture(&r, "racecheck-race.log");
	KT_EQ_INT((int)r.n, 5);
	KT_EQ_INT((int)r.total, 5);
	KT_EQ_INT((int)r.errors, 0);
	KT_EQ_INT((int)r.summary_hazards, 5);
	KT_EQ_INT(r.items[0].error, 0);
	KT_EQ_STR(r.items[0].what, "Race reported between Read access at rowsum+0x430 and Write access at rowsum+0x410 "
		  "[124 hazards] and Write access at rowsum+0x450 [124 hazards]");
	KT_EQ_STR(r.items[4].what, "Race reported between Read access at rowsum+0x330 and Write access at rowsum+0x310 "
		  "[64 hazards] and Write access at rowsum+0x350 [64 hazards]");
	KT_ASSERT(r.items[0].where == NULL && r.items[0].address == NULL);
	KT_ASSERT(ks_sanitize_fails(&r, KS_SAN_RACECHECK));
	KT_ASSERT(!ks_sanitize_fails(&r, KS_SAN_MEMCHECK)); /* a warning from another tool would not */
	d = ks_sanitize_detail(&r, "racecheck");
	KT_ASSERT(!strncmp(d, "racecheck: race reported between Read access at rowsum+0x430 and Write access at "
			   "rowsum+0x410 [124 hazards] and Write access at rowsum+0x450 [124 hazards] (5 hazard "
			   "reports; racecheck rates them warnings", 170));
	KT_CONTAINS(d, "__syncwarp");
	ks_free(d);
	KT_ASSERT(ks_sanitize_detail(&r, "memcheck") == NULL);
	ks_sanitize_report_clear(&r);
}

static void test_sanitize_exit_status_is_a_second_witness(void)
{
	ks_sanitize_report r;
	const int found = KS_SANITIZE_EXIT_CODE << 8; /* a wait status: exited with 86 */
	/* exit 86 and a finding read: the finding speaks, nothing unread */
	parse_fixture(&r, "racecheck-race.log");
	KT_ASSERT(!ks_sanitize_unread_errors(&r, found));
	ks_sanitize_report_clear(&r);
	/* the real clean memcheck run exited 86 on its two API errors alone: not the kernel's */
	parse_fixture(&r, "memcheck-clean.log");
	KT_ASSERT(!ks_sanitize_unread_errors(&r, found));
	ks_sanitize_report_clear(&r);
	/* exit 86 with a log kscore cannot read (empty, or a summary of more than API errors) */
	ks_sanitize_parse(&r, "", 0);
	KT_ASSERT(ks_sanitize_unread_errors(&r, found));
	KT_ASSERT(!ks_sanitize_unread_errors(&r, 0));
	KT_ASSERT(!ks_sanitize_unread_errors(&r, -1));
	KT_ASSERT(!ks_sanitize_unread_errors(&r, 9)); /* killed by a signal */
	ks_sanitize_report_clear(&r);
	{
		const char *odd = "========= COMPUTE-SANITIZER\n========= ERROR SUMMARY: 3 errors\n";
		ks_sanitize_parse(&r, odd, strlen(odd));
		KT_ASSERT(ks_sanitize_unread_errors(&r, found));
		ks_sanitize_report_clear(&r);
	}
}

static void test_sanitize_reads_racecheck_errors(void)
{
	/* HAND-WRITTEN: the H100 run saw no racecheck error; this is the real warning's shape with the
	 * severity racecheck gives a race between threads of different warps, and the older hazard
	 * form */
	const char *race =
		"========= COMPUTE-SANITIZER\n"
		"========= Error: Race reported between Write access at tile_sum+0x1a0\n"
		"=========     and Read access at tile_sum+0x220 [1024 hazards]\n"
		"========= \n"
		"========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)\n";
	const char *hazard = "========= ERROR: Potential WAW hazard detected at __shared__ 0x0 in block (0,0,0) :\n"
			     "=========     Write Thread (1,0,0) at 0x50 in k\n";
	ks_sanitize_report r;
	char *d;
	ks_sanitize_parse(&r, race, strlen(race));
	KT_EQ_INT((int)r.n, 1);
	KT_EQ_INT((int)r.errors, 1);
	KT_EQ_INT((int)r.summary_hazards, 1);
	d = ks_sanitize_detail(&r, "racecheck");
	KT_EQ_STR(d, "racecheck: race reported between Write access at tile_sum+0x1a0 and Read access at "
		  "tile_sum+0x220 [1024 hazards]");
	ks_free(d);
	ks_sanitize_report_clear(&r);
	ks_sanitize_parse(&r, hazard, strlen(hazard));
	KT_EQ_INT((int)r.errors, 1);
	KT_EQ_STR(r.items[0].what, "Potential WAW hazard detected at __shared__ 0x0 in block (0,0,0)");
	d = ks_sanitize_detail(&r, "racecheck");
	KT_EQ_STR(d, "racecheck: potential WAW hazard detected at __shared__ 0x0 in block (0,0,0): write Thread "
		  "(1,0,0) at 0x50 in k");
	ks_free(d);
	ks_sanitize_report_clear(&r);
}

static void test_sanitize_tool_trouble_is_not_a_finding(void)
{
	/* HAND-WRITTEN: the tool's own failure, which the H100 run never hit */
	const char *log = "========= COMPUTE-SANITIZER\n"
			  "========= Internal Sanitizer Error: The Sanitizer got an unknown error\n"
			  "========= Error: process didn't terminate successfully\n"
			  "========= Target application returned an error\n"
			  "========= ERROR SUMMARY: 0 errors\n";
	ks_sanitize_report r;
	ks_sanitize_parse(&r, log, strlen(log));
	KT_EQ_INT((int)r.n, 0);
	KT_EQ_STR(r.tool_error, "Internal Sanitizer Error: The Sanitizer got an unknown error");
	ks_sanitize_report_clear(&r);
}

static void test_sanitize_parse_caps_hostile_logs(void)
{
	ks_buf b = KS_BUF_INIT(64u << 20);
	ks_sanitize_report r;
	char *d;
	size_t i;
	/* 1000 findings, control bytes and a kernel name of 10 KiB; lines without the prefix (as a
	 * kernel's printf would be) are ignored */
	for (i = 0; i < 1000; i++) {
		size_t k;
		ks_buf_puts(&b, "========= Invalid __shared__ read of size 16 bytes\n=========     at k\x1b[2J\xc3\xa9");
		for (k = 0; k < 10000; k++)
			ks_buf_puts(&b, "n");
		ks_buf_puts(&b, "+0x10\n=========\n");
		ks_buf_puts(&b, "Invalid __global__ write of size 4 bytes\n");
	}
	KT_EQ_INT(ks_buf_put(&b, "========= Misaligned\0 access\n", 29), 0);
	ks_sanitize_parse(&r, b.ptr, b.len);
	KT_EQ_INT((int)r.total, 1001);
	KT_EQ_INT((int)r.errors, 1001);
	KT_EQ_INT((int)r.n, KS_SANITIZE_MAX_FINDINGS);
	KT_EQ_INT((int)strlen(r.items[0].where), KS_SANITIZE_MAX_TEXT);
	KT_ASSERT(!strncmp(r.items[0].where, "k?[2J??nnn", 10));
	d = ks_sanitize_detail(&r, "memcheck");
	KT_ASSERT(strlen(d) < 1200);
	KT_CONTAINS(d, "(1001 errors in all)");
	ks_free(d);
	ks_sanitize_report_clear(&r);
	ks_buf_free(&b);
}

/* Found by fuzz_nvlog: sixteen warnings (all the findings kept) and then an error. The error
 * fails the kernel, and the kernel must get a detail that says so: without one, nvtool.c took the
 * kernel for clean. Hand-written (no tool run printed it). */
static void test_sanitize_an_error_past_the_kept_warnings_still_has_a_detail(void)
{
	ks_buf b = KS_BUF_INIT(1u << 20);
	ks_sanitize_report r;
	char *d;
	int i;
	for (i = 0; i < KS_SANITIZE_MAX_FINDINGS; i++)
		ks_buf_puts(&b, "========= Warning: Race reported between Read access at k+0x10\n"
				"=========     and Write access at k+0x20 [4 hazards]\n=========\n");
	ks_buf_puts(&b, "========= Invalid __global__ write of size 4 bytes\n=========     at k+0x30\n=========\n");
	ks_sanitize_parse(&r, b.ptr, b.len);
	KT_EQ_INT((int)r.n, KS_SANITIZE_MAX_FINDINGS);
	KT_EQ_INT((int)r.errors, 1);
	KT_ASSERT(ks_sanitize_fails(&r, KS_SAN_MEMCHECK));
	d = ks_sanitize_detail(&r, "memcheck");
	KT_ASSERT_MSG(d != NULL, "a failing report without a detail");
	KT_CONTAINS(d, "memcheck: 1 error among 17 findings");
	ks_free(d);
	ks_sanitize_report_clear(&r);
	ks_buf_free(&b);
}

static void test_sanitize_tools_and_options(void)
{
	unsigned m = 0;
	char **argv = NULL;
	size_t n = 0, i;
	int has_log = 0, has_tool = 0, has_exit = 0, no_api = 0;
	KT_EQ_INT(ks_sanitize_tools_parse(&m, "memcheck"), 0);
	KT_EQ_INT((int)m, KS_SAN_MEMCHECK);
	KT_EQ_INT(ks_sanitize_tools_parse(&m, "racecheck,memcheck,racecheck"), 0);
	KT_EQ_INT((int)m, KS_SAN_MEMCHECK | KS_SAN_RACECHECK);
	KT_EQ_INT(ks_sanitize_tools_parse(&m, "all"), 0);
	KT_EQ_INT((int)m, KS_SAN_ALL);
	KT_EQ_INT(ks_sanitize_tools_parse(&m, "memcheck,leakcheck"), KS_EINVALID);
	KT_CONTAINS(ks_error_msg(), "\"leakcheck\"");
	KT_EQ_INT(ks_sanitize_tools_parse(&m, ""), KS_EINVALID);
	KT_EQ_INT(ks_sanitize_tools_parse(&m, KS_SANITIZE_DEFAULT_TOOLS), 0);
	KT_EQ_STR(ks_sanitize_tool_name(KS_SAN_SYNCCHECK), "synccheck");
	KT_ASSERT(ks_sanitize_tool_name(3) == NULL);
	ks_sanitize_argv(&argv, &n, "/opt/cuda/bin/compute-sanitizer", KS_SAN_RACECHECK, "/tmp/x/log");
	KT_EQ_STR(argv[0], "/opt/cuda/bin/compute-sanitizer");
	KT_ASSERT(argv[n] == NULL);
	for (i = 1; i + 1 < n; i++) {
		has_log |= !strcmp(argv[i], "--log-file") && !strcmp(argv[i + 1], "/tmp/x/log");
		has_tool |= !strcmp(argv[i], "--tool") && !strcmp(argv[i + 1], "racecheck");
		has_exit |= !strcmp(argv[i], "--error-exitcode") && atoi(argv[i + 1]) == KS_SANITIZE_EXIT_CODE;
		no_api |= !strcmp(argv[i], "--report-api-errors") && !strcmp(argv[i + 1], "no");
	}
	KT_ASSERT(has_log && has_tool && has_exit);
	/* the worker's parameter probes made memcheck exit 86 on every clean kernel */
	KT_ASSERT(no_api);
	ks_free_strv(argv, n);
}

/* ---- which correctness case the sanitizer runs (issue 23.2) */

static ks_problem *problem(const char *dir, const char *suite)
{
	const char *root = getenv("KSCORE_ROOT");
	char *path = ks_asprintf("%s/%s", root && *root ? root : ".", dir);
	ks_problem *p = NULL;
	KT_ASSERT_MSG(ks_problem_load(&p, path, suite) == 0, "%s: %s", path, ks_error_msg());
	ks_free(path);
	return p;
}

static ks_launch launch_of(const char *text)
{
	ks_launch l;
	KT_ASSERT_MSG(ks_launch_parse_text(&l, text, "test") == 0, "%s", ks_error_msg());
	return l;
}

static void pick(size_t *ci, ks_sanitize_case_rule *rule, const ks_problem *p, const ks_launch *l, uint64_t cap)
{
	ks_plan_limits lim = KS_PLAN_LIMITS_INIT;
	ks_candidate_image img;
	memset(&img, 0, sizeof(img));
	img.problem = p;
	img.language = KS_LANG_CUDA;
	img.launch = *l; /* a view: not cleared */
	KT_ASSERT_MSG(ks_sanitize_pick_case(ci, rule, &img, &lim, cap) == 0, "%s", ks_error_msg());
}

static void test_sanitize_case_is_the_first_with_several_blocks_and_a_partial_tail(void)
{
	ks_problem *vadd = problem("tests/fixtures/problems/demo/vadd", "demo");
	ks_problem *sin = problem("reference_tests/hackathon/sin_kernel", "hackathon");
	ks_launch tile = launch_of("{\"kernel\": \"vadd\", \"grid\": [\"cdiv(n, 1024)\"], \"block\": [256]}");
	ks_sanitize_case_rule rule;
	size_t ci = 99;
	/* vadd's n=1 is one block; n=1000 is four blocks of 256, the last with 232 elements */
	pick(&ci, &rule, vadd, &vadd->launch, KS_SANITIZE_MAX_CASE_BYTES);
	KT_EQ_INT((int)ci, 1);
	KT_EQ_INT(rule, KS_SAN_CASE_TAIL);
	KT_EQ_STR(ks_sanitize_case_rule_name(rule), "partial_tail");
	/* four elements a thread: n=1000 fits one block of 1024; n=4097 is five, the last with one */
	pick(&ci, &rule, vadd, &tile, KS_SANITIZE_MAX_CASE_BYTES);
	KT_EQ_INT((int)ci, 2);
	/* sin_kernel: n=1 and n=3 are one block; the participant's launch (256 a block) tails on
	 * n=1000, the golden launch (2048 a block) first on n=4097 (three blocks) */
	pick(&ci, &rule, sin, &sin->launch, KS_SANITIZE_MAX_CASE_BYTES);
	KT_EQ_INT((int)ci, 2);
	KT_EQ_INT(rule, KS_SAN_CASE_TAIL);
	pick(&ci, &rule, sin, &sin->golden_launch, KS_SANITIZE_MAX_CASE_BYTES);
	KT_EQ_INT((int)ci, 3);
	KT_EQ_STR(sin->correctness[ci].label, "one past a 2048-element golden tile, twice");
	ks_launch_clear(&tile);
	ks_problem_free(vadd);
	ks_problem_free(sin);
}

static void test_sanitize_case_falls_back_under_the_cap(void)
{
	ks_problem *vadd = problem("tests/fixtures/problems/demo/vadd", "demo");
	ks_launch one = launch_of("{\"kernel\": \"vadd\", \"grid\": [1], \"block\": [256]}");
	ks_sanitize_case_rule rule;
	size_t ci = 99;
	/* vadd's cases are 12, 12000 and 49164 bytes */
	pick(&ci, &rule, vadd, &vadd->launch, 20000);
	KT_EQ_INT((int)ci, 1); /* the tail case is under the cap */
	pick(&ci, &rule, vadd, &vadd->launch, 11999);
	KT_EQ_INT((int)ci, 0); /* it is not: the largest case under the cap */
	KT_EQ_INT(rule, KS_SAN_CASE_LARGEST);
	pick(&ci, &rule, vadd, &vadd->launch, 0);
	KT_EQ_INT((int)ci, 0); /* every case is over it: the smallest */
	KT_EQ_INT(rule, KS_SAN_CASE_SMALLEST);
	KT_EQ_STR(ks_sanitize_case_rule_name(rule), "smallest");
	/* one block whatever n (a grid-stride loop): no case has a tail, the largest is run */
	pick(&ci, &rule, vadd, &one, KS_SANITIZE_MAX_CASE_BYTES);
	KT_EQ_INT((int)ci, 2);
	KT_EQ_INT(rule, KS_SAN_CASE_LARGEST);
	ks_launch_clear(&one);
	ks_problem_free(vadd);
}

static void test_sanitize_tail_rule_on_plans(void)
{
	ks_problem *vadd = problem("tests/fixtures/problems/demo/vadd", "demo");
	ks_env env = KS_ENV_INIT;
	ks_plan plan;
	KT_EQ_INT(ks_problem_env(&env, vadd, &vadd->correctness[1]), 0);
	KT_EQ_INT(ks_plan_build(&plan, vadd, &vadd->launch, &vadd->correctness[1], &env, 1, 0, NULL), 0);
	KT_EQ_INT(ks_sanitize_plan_has_tail(&plan), 1); /* 1000 over 4 blocks of 256 */
	plan.bufs[2].count = 1024;
	KT_EQ_INT(ks_sanitize_plan_has_tail(&plan), 0); /* whole blocks */
	plan.bufs[0].count = plan.bufs[1].count = 1023;
	KT_EQ_INT(ks_sanitize_plan_has_tail(&plan), 0); /* inputs are read, not written */
	plan.kernels[0].grid[0] = 2;
	KT_EQ_INT(ks_sanitize_plan_has_tail(&plan), 0); /* two tiles of 512 */
	plan.bufs[2].count = 1000;
	KT_EQ_INT(ks_sanitize_plan_has_tail(&plan), 1); /* tiles of 512: the second has 488 */
	plan.kernels[0].grid[0] = 1;
	KT_EQ_INT(ks_sanitize_plan_has_tail(&plan), 0); /* one block has no tail past the first */
	plan.kernels[0].grid[1] = 3; /* blocks count in every dimension */
	KT_EQ_INT(ks_sanitize_plan_has_tail(&plan), 1);
	ks_plan_clear(&plan);
	ks_env_free(&env);
	ks_problem_free(vadd);
}

static const kt_test tests[] = {
	KT(test_sanitize_case_is_the_first_with_several_blocks_and_a_partial_tail),
	KT(test_sanitize_case_falls_back_under_the_cap),
	KT(test_sanitize_tail_rule_on_plans),
	KT(test_sanitize_quiet_is_only_the_banner),
	KT(test_sanitize_reads_the_real_memcheck_overrun),
	KT(test_sanitize_real_clean_logs_fail_nothing),
	KT(test_sanitize_second_summary_line_past_the_print_limit),
	KT(test_sanitize_real_warp_synchronous_race_fails),
	KT(test_sanitize_exit_status_is_a_second_witness),
	KT(test_sanitize_reads_racecheck_errors),
	KT(test_sanitize_tool_trouble_is_not_a_finding),
	KT(test_sanitize_parse_caps_hostile_logs),
	KT(test_sanitize_an_error_past_the_kept_warnings_still_has_a_detail),
	KT(test_sanitize_tools_and_options),
	{ 0 }
};
KT_MAIN("sanitize", tests)
