#include "run/result.h"
#include "util/jsonutil.h"
#include "util/mem.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const char *const g_names[] = {
	"ok",              "bad_entry",       "unknown_problem", "problem_invalid",
	"no_code",         "bad_launch",      "compile_error",   "compile_timeout",
	"compile_limit",   "compile_crash",   "missing_kernel",  "load_error",
	"launch_error",    "fault",           "timeout",         "crash",
	"oob_write",       "input_modified",  "unwritten",       "mismatch",
	"nondeterministic", "not_run",     "bad_encoding",    "duplicate",
	"not_cuda",
	"sanitizer",
	"missing_header",
	"refused",         "host_op",         "untraceable",     "trace_error",
};
_Static_assert(sizeof(g_names) / sizeof(g_names[0]) == KS_REASON_COUNT, "a reason has no name");

const char *ks_reason_name(ks_reason r)
{
	return r < KS_REASON_COUNT ? g_names[r] : "?";
}

void ks_kernel_result_clear(ks_kernel_result *r)
{
	size_t i;
	ks_free(r->file);
	ks_free(r->problem);
	ks_free(r->detail);
	ks_free(r->extract_note);
	ks_free(r->launch_source);
	cJSON_Delete(r->launch);
	ks_free(r->compile_log);
	for (i = 0; i < r->nkernels; i++)
		ks_free(r->kernels[i].name);
	ks_free(r->kernels);
	for (i = 0; i < r->ncases; i++) {
		ks_free(r->cases[i].label);
		ks_free(r->cases[i].detail);
	}
	ks_free(r->cases);
	for (i = 0; i < r->nperf; i++) {
		ks_free(r->perf[i].label);
		ks_free(r->perf[i].why);
	}
	ks_free(r->perf);
	ks_free(r->timing_error);
	ks_free(r->suspicious_why);
	ks_free(r->reference_note);
	cJSON_Delete(r->sanitizer);
	cJSON_Delete(r->profile);
	ks_free(r->device_output);
	memset(r, 0, sizeof(*r));
}

void ks_kernel_result_fail(ks_kernel_result *r, ks_reason reason, const char *fmt, ...)
{
	char buf[2048];
	va_list ap;
	if (r->reason != KS_REASON_OK)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	r->reason = reason;
	ks_free(r->detail);
	r->detail = ks_strdup(buf);
}

cJSON *ks_kernel_result_json(const ks_kernel_result *r)
{
	cJSON *o = cJSON_CreateObject(), *a;
	size_t i;
	char s[32];

	cJSON_AddNumberToObject(o, "pass", (double)r->pass);
	cJSON_AddNumberToObject(o, "index", (double)r->index);
	ks_json_add_str(o, "file", r->file);
	ks_json_add_str(o, "problem", r->problem);
	cJSON_AddNumberToObject(o, "difficulty", r->difficulty);
	cJSON_AddStringToObject(o, "entry_sha256", r->entry_sha256);
	cJSON_AddBoolToObject(o, "compiled", r->compiled);
	if (r->ran) {
		cJSON_AddBoolToObject(o, "call", r->call);
		cJSON_AddBoolToObject(o, "exec", r->exec);
	} else {
		cJSON_AddNullToObject(o, "call");
		cJSON_AddNullToObject(o, "exec");
	}
	cJSON_AddStringToObject(o, "reason", ks_reason_name(r->reason));
	cJSON_AddStringToObject(o, "language", ks_language_name(r->language));
	ks_json_add_str(o, "detail", r->detail);
	ks_json_add_str(o, "extraction", r->extract_note);
	ks_json_add_str(o, "launch_source", r->launch_source);
	if (r->launch)
		cJSON_AddItemToObject(o, "launch", cJSON_Duplicate(r->launch, 1));
	a = cJSON_AddObjectToObject(o, "compile");
	ks_json_add_str(a, "log", r->compile_log);
	ks_json_add_num(a, "seconds", r->compile_s);
	cJSON_AddBoolToObject(a, "cached", r->compile_cached);
	a = cJSON_AddArrayToObject(o, "kernels");
	for (i = 0; i < r->nkernels; i++) {
		const ks_func_info *f = &r->kernels[i].info;
		cJSON *k = cJSON_CreateObject();
		cJSON_AddStringToObject(k, "name", r->kernels[i].name);
		cJSON_AddNumberToObject(k, "registers", f->registers);
		cJSON_AddNumberToObject(k, "shared_static_bytes", f->shared_static);
		cJSON_AddNumberToObject(k, "local_bytes", f->local_bytes);
		cJSON_AddNumberToObject(k, "max_threads_per_block", f->max_threads);
		cJSON_AddItemToArray(a, k);
	}
	/* an untimed kernel's numbers are null, whatever the struct holds */
	ks_json_add_num(o, "speedup", r->timed ? r->speedup : NAN);
	ks_json_add_num(o, "speedup_geomean", r->timed ? r->speedup_geomean : NAN);
	if (r->over_reference) {
		/* the speedups above are over the reference; the golden kernel's beside them */
		ks_json_add_num(o, "speedup_golden", r->timed ? r->speedup_golden : NAN);
		ks_json_add_str(o, "reference_note", r->reference_note);
	}
	ks_json_add_num(o, "roofline_fraction", r->timed ? r->roofline_fraction : NAN);
	cJSON_AddBoolToObject(o, "suspicious", r->suspicious);
	ks_json_add_str(o, "suspicious_why", r->suspicious_why);
	ks_json_add_num(o, "score", r->score);
	ks_json_add_str(o, "timing_error", r->timing_error);
	if (r->extended) {
		char text[96];
		a = cJSON_AddObjectToObject(o, "extended");
		cJSON_AddNumberToObject(a, "cases", (double)r->extended);
		cJSON_AddNumberToObject(a, "run", (double)r->extended_run);
		cJSON_AddNumberToObject(a, "passed", (double)r->extended_passed);
		ks_kernel_result_extended_text(text, sizeof(text), r);
		cJSON_AddStringToObject(a, "text", text);
	}
	a = cJSON_AddArrayToObject(o, "perf");
	for (i = 0; i < r->nperf; i++) {
		const ks_perf_result *pc = &r->perf[i];
		cJSON *k = cJSON_CreateObject();
		cJSON_AddStringToObject(k, "case", pc->label);
		cJSON_AddNumberToObject(k, "case_index", (double)pc->case_index);
		ks_json_add_num(k, "ms", pc->ms);
		ks_json_add_num(k, "ms_min", pc->ms_min);
		ks_json_add_num(k, "ms_max", pc->ms_max);
		ks_json_add_num(k, "ms_stdev", pc->ms_stdev);
		cJSON_AddNumberToObject(k, "runs", (double)pc->runs);
		ks_json_add_num(k, "rel_error", pc->rel_error);
		ks_json_add_num(k, "golden_ms", pc->golden_ms);
		ks_json_add_num(k, "golden_ms_min", pc->golden_min);
		ks_json_add_num(k, "golden_ms_max", pc->golden_max);
		ks_json_add_num(k, "golden_ms_stdev", pc->golden_stdev);
		cJSON_AddNumberToObject(k, "golden_runs", (double)pc->golden_runs);
		ks_json_add_num(k, "speedup", pc->speedup);
		if (r->over_reference) {
			ks_json_add_num(k, "reference_ms", pc->reference_ms > 0 ? pc->reference_ms : NAN);
			ks_json_add_num(k, "speedup_golden", pc->speedup_golden);
		}
		ks_json_add_num(k, "bytes", pc->bytes);
		ks_json_add_num(k, "flops", pc->flops);
		ks_json_add_num(k, "gbps", pc->gbps);
		ks_json_add_num(k, "tflops", pc->tflops);
		ks_json_add_num(k, "floor_ms", pc->floor_ms);
		ks_json_add_num(k, "roofline_fraction", pc->roofline_fraction);
		cJSON_AddNumberToObject(k, "verified_runs", pc->verified);
		cJSON_AddNumberToObject(k, "checked_runs", pc->checked);
		cJSON_AddBoolToObject(k, "suspicious", pc->suspicious);
		ks_json_add_str(k, "why", pc->why);
		cJSON_AddItemToArray(a, k);
	}
	if (r->sanitizer)
		cJSON_AddItemToObject(o, "sanitizer", cJSON_Duplicate(r->sanitizer, 1));
	if (r->profile)
		cJSON_AddItemToObject(o, "profile", cJSON_Duplicate(r->profile, 1));
	if (r->device_output_bytes) {
		a = cJSON_AddObjectToObject(o, "device_output");
		ks_json_add_str(a, "text", r->device_output);
		cJSON_AddNumberToObject(a, "bytes", (double)r->device_output_bytes);
		cJSON_AddBoolToObject(a, "truncated", r->device_output_bytes > r->device_output_raw);
	} else
		cJSON_AddNullToObject(o, "device_output");
	a = cJSON_AddObjectToObject(o, "seconds");
	ks_json_add_num(a, "compile", r->compile_s);
	ks_json_add_num(a, "check", r->check_s);
	ks_json_add_num(a, "timing", r->timing_s);
	ks_json_add_num(a, "timed_gpu", r->timing_gpu_ms / 1e3);
	ks_json_add_num(a, "timed_busy", r->timing_busy_ms / 1e3);
	a = cJSON_AddArrayToObject(o, "cases");
	for (i = 0; i < r->ncases; i++) {
		const ks_case_result *c = &r->cases[i];
		cJSON *k = cJSON_CreateObject();
		cJSON_AddStringToObject(k, "case", c->label);
		cJSON_AddNumberToObject(k, "case_index", (double)c->case_index);
		if (c->seed_index < 0)
			cJSON_AddStringToObject(k, "run", "repeat");
		else
			cJSON_AddNumberToObject(k, "seed_index", c->seed_index);
		snprintf(s, sizeof(s), "%llu", (unsigned long long)c->seed);
		cJSON_AddStringToObject(k, "seed", s);
		cJSON_AddBoolToObject(k, "passed", c->passed);
		cJSON_AddStringToObject(k, "reason", ks_reason_name(c->reason));
		ks_json_add_str(k, "detail", c->detail);
		ks_json_add_num(k, "ms", c->ms);
		if (c->extended)
			cJSON_AddTrueToObject(k, "extended");
		cJSON_AddItemToArray(a, k);
	}
	return o;
}

void ks_kernel_result_extended_text(char *buf, size_t n, const ks_kernel_result *r)
{
	if (!r->extended)
		snprintf(buf, n, "extended: none");
	else if (r->extended_run == r->extended)
		snprintf(buf, n, "extended: %zu of %zu", r->extended_passed, r->extended);
	else if (r->extended_run)
		snprintf(buf, n, "extended: %zu of %zu (%zu not run)", r->extended_passed, r->extended,
			 r->extended - r->extended_run);
	else if (r->language == KS_LANG_TRITON && r->exec)
		snprintf(buf, n, "extended: %zu not run (a trace covers the scored cases)", r->extended);
	else
		snprintf(buf, n, "extended: %zu not run (the scored cases did not pass)", r->extended);
}
