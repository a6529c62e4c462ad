/* fuzz_nvlog: an NVIDIA tool's log as kscore reads it back (nvtool/sanitize.c, nvtool/profile.c).
 * The tools write it while a submission's kernel runs, and it quotes the kernel's names: untrusted
 * input. The whole input is read both as a compute-sanitizer log and as ncu's CSV output.
 * Contract: the readers never fail; the counts agree with each other and with the caps; a log part
 * that ks_sanitize_quiet calls nothing holds nothing the parser counts (a kept memcheck worker is
 * trusted on it, nvtool/toolrun.h); the detail sentence and the findings are printable ASCII; what
 * fails a kernel has a detail; every profiled launch has a printable name and survives JSON. */
#include "fuzz.h"
#include "nvtool/profile.h"
#include "nvtool/sanitize.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

static void check_printable(const char *s, size_t cap, const char *what)
{
	size_t i;
	if (!s)
		return;
	for (i = 0; s[i]; i++)
		FZ_CHECK((unsigned char)s[i] >= 0x20 && (unsigned char)s[i] < 0x7f, "%s has byte 0x%02x at %zu", what,
			 (unsigned char)s[i], i);
	FZ_CHECK(i <= cap, "%s is %zu bytes long, over %zu", what, i, cap);
}

static void sanitizer_log(const uint8_t *data, size_t size)
{
	ks_sanitize_report r;
	unsigned tool;
	size_t i;
	int quiet = ks_sanitize_quiet((const char *)data, size);
	ks_sanitize_parse(&r, (const char *)data, size);
	FZ_CHECK(r.n <= KS_SANITIZE_MAX_FINDINGS && r.n <= r.total && r.errors <= r.total,
		 "counts: %zu kept, %zu seen, %zu errors", r.n, r.total, r.errors);
	FZ_CHECK(r.total >= KS_SANITIZE_MAX_FINDINGS || r.n == r.total, "%zu seen, only %zu kept", r.total, r.n);
	if (quiet)
		FZ_CHECK(!r.total && !r.api_errors && r.summary_errors < 0 && r.summary_hazards < 0 && !r.not_printed &&
				 !r.tool_error,
			 "a quiet log part that says something: %zu findings, %zu API errors, summary %ld",
			 r.total, r.api_errors, r.summary_errors);
	for (i = 0; i < r.n; i++) {
		check_printable(r.items[i].what, KS_SANITIZE_MAX_TEXT, "a finding's what");
		check_printable(r.items[i].where, KS_SANITIZE_MAX_TEXT, "a finding's where");
		check_printable(r.items[i].who, KS_SANITIZE_MAX_TEXT, "a finding's who");
		check_printable(r.items[i].address, KS_SANITIZE_MAX_TEXT, "a finding's address");
	}
	check_printable(r.tool_error, KS_SANITIZE_MAX_TEXT, "the tool's error");
	for (tool = KS_SAN_MEMCHECK; tool <= KS_SAN_SYNCCHECK; tool <<= 1) {
		const char *name = ks_sanitize_tool_name(tool);
		char *d = ks_sanitize_detail(&r, name);
		cJSON *f = ks_sanitize_findings_json(&r, name);
		char *txt;
		FZ_CHECK(!ks_sanitize_fails(&r, tool) || d, "%s fails the kernel without a detail", name);
		check_printable(d, 4096, "the detail");
		FZ_CHECK(f && (size_t)cJSON_GetArraySize(f) == r.n, "findings JSON of %d, %zu kept",
			 f ? cJSON_GetArraySize(f) : -1, r.n);
		txt = cJSON_PrintUnformatted(f);
		FZ_CHECK(txt != NULL, "findings JSON does not print");
		cJSON_free(txt);
		cJSON_Delete(f);
		ks_free(d);
		(void)ks_sanitize_unread_errors(&r, 86 << 8);
	}
	ks_sanitize_report_clear(&r);
}

static void profile_csv(const uint8_t *data, size_t size)
{
	ks_profile_data d;
	unsigned char skip[KS_PM_COUNT];
	size_t i;
	memset(skip, 0, sizeof(skip));
	FZ_CHECK(ks_profile_parse(&d, (const char *)data, size) == 0, "the profile reader failed");
	FZ_CHECK(d.n <= KS_PROFILE_MAX_LAUNCHES, "%zu launches", d.n);
	FZ_CHECK(d.n == 0 || d.format, "launches without a table");
	for (i = 0; i < d.n; i++) {
		cJSON *j = ks_profile_launch_json(&d.launches[i]);
		char *txt = cJSON_PrintUnformatted(j);
		FZ_CHECK(memchr(d.launches[i].name, 0, sizeof(d.launches[i].name)) != NULL, "an unterminated name");
		check_printable(d.launches[i].name, sizeof(d.launches[i].name), "a launch's name");
		FZ_CHECK(txt != NULL, "a launch's JSON does not print");
		cJSON_free(txt);
		cJSON_Delete(j);
	}
	(void)ks_profile_failed_metrics(skip, (const char *)data, size);
	ks_profile_data_clear(&d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	sanitizer_log(data, size);
	profile_csv(data, size);
	return 0;
}
