/* sanitize: compute-sanitizer's tool options, and reading its log into findings and the detail
 * sentence.
 *
 * The logs below are HAND-WRITTEN in the layout compute-sanitizer documents (every line prefixed
 * "========= ", a finding's headline then its indented "at", "by thread" and "Address" lines, an
 * "ERROR SUMMARY"); addresses and offsets are invented. Real logs captured on the H100 by
 * tests/gpu/capture-nvtools.sh replace them as fixtures (tests/fixtures/gpu/nvtools-*) once
 * recorded. */
#include "ktest.h"
#include "buf.h"
#include "mem.h"
#include "sanitize.h"

static const char *g_oob =
	"========= COMPUTE-SANITIZER\n"
	"========= Invalid __global__ write of size 4 bytes\n"
	"=========     at vadd+0x70\n"
	"=========     by thread (0,0,0) in block (0,0,0)\n"
	"=========     Address 0x7f3a2e010ffc is out of bounds\n"
	"=========     and is 65532 bytes after the nearest allocation at 0x7f3a2e000000 of size 8448 bytes\n"
	"=========\n"
	"========= Program hit CUDA_ERROR_LAUNCH_FAILED (error 719) due to \"unspecified launch failure\" on CUDA "
	"API call to cuStreamSynchronize.\n"
	"=========\n"
	"========= Program hit CUDA_ERROR_LAUNCH_FAILED (error 719) due to \"unspecified launch failure\" on CUDA "
	"API call to cuMemFree_v2.\n"
	"=========\n"
	"========= ERROR SUMMARY: 3 errors\n";

static void test_sanitize_reads_a_memcheck_finding(void)
{
	ks_sanitize_report r;
	char *d;
	ks_sanitize_parse(&r, g_oob, strlen(g_oob));
	KT_EQ_INT((int)r.n, 1);
	KT_EQ_INT((int)r.errors, 1);
	KT_EQ_INT((int)r.api_errors, 2);
	KT_EQ_INT((int)r.summary_errors, 3);
	KT_ASSERT(r.tool_error == NULL);
	KT_EQ_STR(r.items[0].what, "Invalid __global__ write of size 4 bytes");
	KT_EQ_STR(r.items[0].where, "vadd+0x70");
	KT_EQ_STR(r.items[0].who, "by thread (0,0,0) in block (0,0,0)");
	KT_EQ_STR(r.items[0].address, "Address 0x7f3a2e010ffc is out of bounds; and is 65532 bytes after the nearest "
		  "allocation at 0x7f3a2e000000 of size 8448 bytes");
	d = ks_sanitize_detail(&r, "memcheck");
	KT_EQ_STR(d, "memcheck: invalid __global__ write of size 4 bytes at vadd+0x70 by thread (0,0,0) in block "
		  "(0,0,0): address 0x7f3a2e010ffc is out of bounds; and is 65532 bytes after the nearest allocation "
		  "at 0x7f3a2e000000 of size 8448 bytes");
	ks_free(d);
	ks_sanitize_report_clear(&r);
}

static void test_sanitize_clean_log_and_api_errors_are_no_findings(void)
{
	const char *clean = "========= COMPUTE-SANITIZER\n========= ERROR SUMMARY: 0 errors\n";
	const char *api = "========= COMPUTE-SANITIZER\n"
			  "========= Program hit CUDA_ERROR_NOT_SUPPORTED (error 801) due to \"operation not supported\" "
			  "on CUDA API call to cuCtxSetLimit.\n"
			  "=========     Saved host backtrace up to driver entry point at error\n"
			  "=========         Host Frame: [0x1234] in libcuda.so.1\n"
			  "=========\n"
			  "========= ERROR SUMMARY: 1 error\n";
	ks_sanitize_report r;
	ks_sanitize_parse(&r, clean, strlen(clean));
	KT_EQ_INT((int)r.n, 0);
	KT_EQ_INT((int)r.summary_errors, 0);
	KT_ASSERT(ks_sanitize_detail(&r, "memcheck") == NULL);
	ks_sanitize_report_clear(&r);
	ks_sanitize_parse(&r, api, strlen(api));
	KT_EQ_INT((int)r.n, 0);
	KT_EQ_INT((int)r.api_errors, 1);
	KT_EQ_INT((int)r.summary_errors, 1);
	KT_ASSERT(ks_sanitize_detail(&r, "memcheck") == NULL);
	ks_sanitize_report_clear(&r);
	/* nothing at all (the tool never ran) */
	ks_sanitize_parse(&r, "", 0);
	KT_EQ_INT((int)r.n, 0);
	KT_EQ_INT((int)r.summary_errors, -1);
	ks_sanitize_report_clear(&r);
}

static void test_sanitize_reads_races_errors_and_warnings(void)
{
	const char *race =
		"========= COMPUTE-SANITIZER\n"
		"========= Error: Race reported between Write access at tile_sum+0x1a0\n"
		"=========     and Read access at tile_sum+0x220 [1024 hazards]\n"
		"=========\n"
		"========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)\n";
	const char *warn =
		"========= COMPUTE-SANITIZER\n"
		"========= Warning: Race reported between Read access at k+0x10\n"
		"=========     and Write access at k+0x40 [32 hazards]\n"
		"=========\n"
		"========= RACECHECK SUMMARY: 1 hazard displayed (0 errors, 1 warning)\n";
	const char *hazard = "========= ERROR: Potential WAW hazard detected at __shared__ 0x0 in block (0,0,0) :\n"
			     "=========     Write Thread (1,0,0) at 0x50 in k\n";
	ks_sanitize_report r;
	char *d;
	ks_sanitize_parse(&r, race, strlen(race));
	KT_EQ_INT((int)r.n, 1);
	KT_EQ_INT((int)r.errors, 1);
	KT_EQ_STR(r.items[0].what, "Race reported between Write access at tile_sum+0x1a0; and Read access at "
		  "tile_sum+0x220 [1024 hazards]");
	d = ks_sanitize_detail(&r, "racecheck");
	KT_EQ_STR(d, "racecheck: race reported between Write access at tile_sum+0x1a0; and Read access at "
		  "tile_sum+0x220 [1024 hazards]");
	ks_free(d);
	ks_sanitize_report_clear(&r);
	ks_sanitize_parse(&r, warn, strlen(warn));
	KT_EQ_INT((int)r.n, 1);
	KT_EQ_INT((int)r.errors, 0);
	KT_EQ_INT(r.items[0].error, 0);
	KT_ASSERT(ks_sanitize_detail(&r, "racecheck") == NULL);
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

static void test_sanitize_tools_and_options(void)
{
	unsigned m = 0;
	char **argv = NULL;
	size_t n = 0, i;
	int has_log = 0, has_tool = 0, has_exit = 0;
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
	}
	KT_ASSERT(has_log && has_tool && has_exit);
	ks_free_strv(argv, n);
}

static void test_sanitize_findings_json(void)
{
	ks_sanitize_report r;
	cJSON *a, *f;
	ks_sanitize_parse(&r, g_oob, strlen(g_oob));
	a = ks_sanitize_findings_json(&r, "memcheck");
	KT_EQ_INT(cJSON_GetArraySize(a), 1);
	f = cJSON_GetArrayItem(a, 0);
	KT_EQ_STR(cJSON_GetObjectItem(f, "tool")->valuestring, "memcheck");
	KT_EQ_STR(cJSON_GetObjectItem(f, "severity")->valuestring, "error");
	KT_EQ_STR(cJSON_GetObjectItem(f, "where")->valuestring, "vadd+0x70");
	cJSON_Delete(a);
	ks_sanitize_report_clear(&r);
}

static const kt_test tests[] = {
	KT(test_sanitize_reads_a_memcheck_finding),
	KT(test_sanitize_clean_log_and_api_errors_are_no_findings),
	KT(test_sanitize_reads_races_errors_and_warnings),
	KT(test_sanitize_tool_trouble_is_not_a_finding),
	KT(test_sanitize_parse_caps_hostile_logs),
	KT(test_sanitize_tools_and_options),
	KT(test_sanitize_findings_json),
	{ 0 }
};
KT_MAIN("sanitize", tests)
