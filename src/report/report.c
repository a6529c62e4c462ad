#include "report/report.h"
#include "util/errors.h"
#include "util/fsutil.h"
#include "util/jsonutil.h"
#include "util/buf.h"
#include "util/mem.h"
#include "judge/metrics.h"
#include "nvtool/nvtool.h"
#include "report/outdir.h"
#include "util/utf8.h"
#include "util/version.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>


static void stamp(char *buf, size_t n, time_t t, const char *fmt)
{
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(buf, n, fmt, &tm);
}

static const char *tf(int b)
{
	return b ? "True" : "False";
}

/* The problem text GEAK-eval puts in "stderr": None when fine, else reason and detail. */
static char *stderr_text(const ks_kernel_result *r)
{
	if (r->reason == KS_REASON_OK)
		return ks_strdup("None");
	return ks_asprintf("%s: %s", ks_reason_name(r->reason), r->detail ? r->detail : "");
}

static cJSON *geak_record(const ks_kernel_result *r, int gpu)
{
	cJSON *o = cJSON_CreateObject();
	char *err = stderr_text(r);
	cJSON_AddNumberToObject(o, "pass_num", (double)r->pass);
	ks_json_add_str(o, "file_name", r->file);
	ks_json_add_str(o, "problem", r->problem);
	cJSON_AddNumberToObject(o, "call_status", gpu ? r->call : r->compiled);
	cJSON_AddNumberToObject(o, "exec_status", gpu ? r->exec : 0);
	/* GEAK-eval's field for what the kernel printed: its device printf, made safe to show */
	cJSON_AddStringToObject(o, "stdout", r->device_output && *r->device_output ? r->device_output : "None");
	cJSON_AddStringToObject(o, "stderr", err);
	cJSON_AddNumberToObject(o, "difficulty", r->difficulty);
	cJSON_AddStringToObject(o, "reason", ks_reason_name(r->reason));
	if (r->extended) {
		/* kscore's own key: cases beyond the problem's domain, never counted */
		char text[96];
		ks_kernel_result_extended_text(text, sizeof(text), r);
		cJSON_AddStringToObject(o, "extended", text);
	}
	ks_free(err);
	return o;
}

static double acc(double v)
{
	return isnan(v) ? 0.0 : v;
}

static cJSON *device_json(const ks_report *rep)
{
	const ks_device_info *d = rep->device;
	cJSON *o;
	char s[64];
	if (!d)
		return cJSON_CreateNull();
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "name", d->name);
	cJSON_AddStringToObject(o, "uuid", d->uuid);
	cJSON_AddStringToObject(o, "pci_bus_id", d->pci_bus_id);
	snprintf(s, sizeof(s), "%d.%d", d->cc_major, d->cc_minor);
	cJSON_AddStringToObject(o, "compute_capability", s);
	snprintf(s, sizeof(s), "%d.%d", d->driver_version / 1000, (d->driver_version % 1000) / 10);
	cJSON_AddStringToObject(o, "driver_cuda_version", s);
	ks_json_add_str(o, "arch", rep->arch);
	cJSON_AddNumberToObject(o, "sm_count", d->sm_count);
	cJSON_AddNumberToObject(o, "memory_bytes", (double)d->memory_bytes);
	cJSON_AddNumberToObject(o, "l2_bytes", d->l2_bytes);
	cJSON_AddNumberToObject(o, "clock_khz", d->clock_khz);
	cJSON_AddNumberToObject(o, "memory_clock_khz", d->memory_clock_khz);
	cJSON_AddNumberToObject(o, "memory_bus_bits", d->memory_bus_bits);
	cJSON_AddBoolToObject(o, "ecc", d->ecc);
	return o;
}

/* Which GPU ran a kernel, and whether it had that GPU to itself. */
static int kernel_shared(const ks_report *rep, size_t i)
{
	int l = rep->kernel_lane ? rep->kernel_lane[i] : -1;
	return l >= 0 && (size_t)l < rep->nlanes && rep->lanes[l].shared;
}

static cJSON *kernel_gpu_json(const ks_report *rep, size_t i)
{
	int l = rep->kernel_lane ? rep->kernel_lane[i] : -1;
	const ks_report_lane *ln;
	cJSON *o;
	if (l < 0 || (size_t)l >= rep->nlanes)
		return cJSON_CreateNull();
	ln = &rep->lanes[l];
	o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "lane", l);
	cJSON_AddNumberToObject(o, "ordinal", ln->ordinal);
	ks_json_add_str(o, "uuid", ln->device ? ln->device->uuid : NULL);
	return o;
}

static cJSON *lanes_json(const ks_report *rep)
{
	cJSON *a = cJSON_CreateArray();
	size_t i, k;
	for (i = 0; i < rep->nlanes; i++) {
		const ks_report_lane *ln = &rep->lanes[i];
		cJSON *o = cJSON_CreateObject();
		size_t nk = 0;
		for (k = 0; rep->kernel_lane && k < rep->nresults; k++)
			nk += rep->kernel_lane[k] == (int)i;
		cJSON_AddNumberToObject(o, "lane", (double)i);
		cJSON_AddNumberToObject(o, "ordinal", ln->ordinal);
		ks_json_add_str(o, "name", ln->device ? ln->device->name : NULL);
		ks_json_add_str(o, "uuid", ln->device ? ln->device->uuid : NULL);
		ks_json_add_str(o, "pci_bus_id", ln->device ? ln->device->pci_bus_id : NULL);
		cJSON_AddBoolToObject(o, "shared_gpu", ln->shared);
		cJSON_AddStringToObject(o, "status", !ln->device ? "not_started" : ln->out ? "failed" : "ok");
		ks_json_add_str(o, "failure", ln->out);
		cJSON_AddNumberToObject(o, "kernels", (double)nk);
		if (ln->ceilings)
			cJSON_AddItemToObject(o, "ceilings", ks_ceilings_json(ln->ceilings));
		else
			cJSON_AddNullToObject(o, "ceilings");
		ks_json_add_str(o, "golden_times", ln->golden_source);
		if (ln->have_goldens) {
			cJSON *g = cJSON_AddObjectToObject(o, "golden_results");
			cJSON_AddNumberToObject(g, "computed", (double)ln->goldens_computed);
			cJSON_AddNumberToObject(g, "reused", (double)ln->goldens_reused);
		} else
			cJSON_AddNullToObject(o, "golden_results");
		cJSON_AddItemToArray(a, o);
	}
	return a;
}

static void add_timing_summary(cJSON *o, const ks_file_metrics *m)
{
	if (!m->timed) {
		cJSON_AddNullToObject(o, "score");
		cJSON_AddNullToObject(o, "geomean_speedup");
		cJSON_AddNullToObject(o, "fast_1");
		cJSON_AddNullToObject(o, "fast_2");
		cJSON_AddNullToObject(o, "roofline_fraction");
	} else {
		ks_json_add_num(o, "score", m->score);
		ks_json_add_num(o, "geomean_speedup", m->geomean_speedup);
		ks_json_add_num(o, "fast_1", m->fast_1);
		ks_json_add_num(o, "fast_2", m->fast_2);
		ks_json_add_num(o, "roofline_fraction", m->roofline_fraction);
	}
	cJSON_AddNumberToObject(o, "suspicious", (double)m->suspicious);
}

cJSON *ks_report_record(const ks_report *rep)
{
	cJSON *o = cJSON_CreateObject(), *x, *a, *sum, *pk;
	const ks_submission *s = rep->submission;
	ks_file_metrics fm;
	ks_passk *passk = ks_calloc(rep->nks + 1, sizeof(*passk));
	char ts[64], seed[32];
	size_t i;

	cJSON_AddStringToObject(o, "schema", "kscore.score/1");
	x = cJSON_AddObjectToObject(o, "scorer");
	cJSON_AddStringToObject(x, "name", "kscore");
	cJSON_AddStringToObject(x, "version", KS_VERSION);
	ks_json_add_str(o, "team", rep->team);
	stamp(ts, sizeof(ts), rep->started, "%Y-%m-%dT%H:%M:%SZ");
	cJSON_AddStringToObject(o, "created", ts);
	ks_json_add_num(o, "wall_seconds", rep->wall_s);
	x = cJSON_AddObjectToObject(o, "submission");
	cJSON_AddStringToObject(x, "path", s->path);
	cJSON_AddStringToObject(x, "sha256", s->sha256);
	a = cJSON_AddArrayToObject(x, "passes");
	for (i = 0; i < s->npasses; i++) {
		cJSON *p = cJSON_CreateObject();
		cJSON_AddNumberToObject(p, "pass", (double)i);
		cJSON_AddStringToObject(p, "file", s->passes[i].name);
		cJSON_AddStringToObject(p, "sha256", s->passes[i].sha256);
		cJSON_AddNumberToObject(p, "entries", (double)s->passes[i].nentries);
		ks_json_add_str(p, "error", s->passes[i].error);
		cJSON_AddItemToArray(a, p);
	}
	cJSON_AddStringToObject(o, "mode", rep->gpu ? "gpu" : "compile-only");
	if (!rep->gpu)
		ks_json_add_str(o, "no_gpu_reason", rep->no_gpu_reason);
	cJSON_AddItemToObject(o, "device", device_json(rep));
	cJSON_AddItemToObject(o, "devices", lanes_json(rep));
	cJSON_AddItemToObject(o, "start", rep->start ? cJSON_Duplicate(rep->start, 1) : cJSON_CreateNull());
	x = cJSON_AddObjectToObject(o, "toolchain");
	ks_json_add_str(x, "nvrtc_version", rep->nvrtc_version);
	ks_json_add_str(x, "compat_sha256", rep->compat_sha256);
	ks_json_add_str(x, "compile_options", rep->compile_options);
	ks_json_add_str(x, "arch", rep->arch);
	snprintf(seed, sizeof(seed), "%llu", (unsigned long long)rep->seed);
	cJSON_AddStringToObject(o, "seed", seed);
	/* which baseline the speedups and the score are over (timed runs only) */
	if (rep->baseline)
		cJSON_AddItemToObject(o, "baseline", cJSON_Duplicate(rep->baseline, 1));
	else if (rep->golden_source) {
		x = cJSON_AddObjectToObject(o, "baseline");
		cJSON_AddStringToObject(x, "kind", "golden");
		cJSON_AddStringToObject(x, "text", rep->golden_source);
	} else
		cJSON_AddNullToObject(o, "baseline");

	sum = cJSON_AddObjectToObject(o, "summary");
	ks_metrics_file(&fm, rep->results, rep->nresults);
	cJSON_AddNumberToObject(sum, "kernels", (double)fm.entries);
	cJSON_AddNumberToObject(sum, "duplicates", (double)fm.duplicates);
	cJSON_AddNumberToObject(sum, "not_cuda", (double)fm.not_cuda);
	if (ks_metrics_not_cuda_warning(&fm))
		cJSON_AddStringToObject(sum, "warning", ks_metrics_not_cuda_warning(&fm));
	cJSON_AddNumberToObject(sum, "problems", (double)fm.problems);
	ks_json_add_num(sum, "compile_accuracy", fm.compile_accuracy);
	ks_json_add_num(sum, "call_accuracy", fm.call_accuracy);
	ks_json_add_num(sum, "exec_accuracy", fm.exec_accuracy);
	add_timing_summary(sum, &fm);
	{
		int shared = 0;
		for (i = 0; i < rep->nlanes; i++)
			shared |= rep->lanes[i].shared;
		/* timings from lanes that shared a GPU are never clean: a leaderboard must say so */
		cJSON_AddBoolToObject(sum, "shared_gpu", shared);
	}
	a = cJSON_AddArrayToObject(sum, "passes");
	for (i = 0; i < s->npasses; i++) {
		size_t first = 0, n = 0, k;
		cJSON *p = cJSON_CreateObject();
		ks_file_metrics pm;
		for (k = 0; k < rep->nresults; k++)
			if (rep->results[k].pass == i) {
				if (!n)
					first = k;
				n++;
			}
		ks_metrics_file(&pm, rep->results + first, n);
		cJSON_AddNumberToObject(p, "pass", (double)i);
		cJSON_AddNumberToObject(p, "duplicates", (double)pm.duplicates);
		ks_json_add_num(p, "call_accuracy", pm.call_accuracy);
		ks_json_add_num(p, "exec_accuracy", pm.exec_accuracy);
		ks_json_add_num(p, "compile_accuracy", pm.compile_accuracy);
		add_timing_summary(p, &pm);
		cJSON_AddItemToArray(a, p);
	}
	ks_metrics_passk(passk, rep->ks, rep->nks, rep->results, rep->nresults);
	pk = cJSON_AddArrayToObject(sum, "pass_at_k");
	for (i = 0; i < rep->nks; i++) {
		cJSON *p = cJSON_CreateObject();
		cJSON_AddNumberToObject(p, "k", passk[i].k);
		if (passk[i].valid && rep->gpu) {
			ks_json_add_num(p, "call", passk[i].call);
			ks_json_add_num(p, "exec", passk[i].exec);
		} else {
			cJSON_AddNullToObject(p, "call");
			cJSON_AddNullToObject(p, "exec");
		}
		cJSON_AddNumberToObject(p, "problems", (double)passk[i].problems);
		cJSON_AddNumberToObject(p, "skipped_problems", (double)passk[i].skipped);
		cJSON_AddItemToArray(pk, p);
	}
	a = cJSON_AddArrayToObject(o, "kernels");
	for (i = 0; i < rep->nresults; i++) {
		cJSON *k = ks_kernel_result_json(&rep->results[i]);
		cJSON_AddItemToObject(k, "gpu", kernel_gpu_json(rep, i));
		cJSON_AddBoolToObject(k, "shared_gpu", kernel_shared(rep, i));
		cJSON_AddItemToArray(a, k);
	}
	a = cJSON_AddArrayToObject(o, "suspicious");
	for (i = 0; i < rep->nresults; i++) {
		const ks_kernel_result *r = &rep->results[i];
		cJSON *q;
		if (!r->suspicious)
			continue;
		q = cJSON_CreateObject();
		ks_json_add_str(q, "problem", r->problem);
		ks_json_add_str(q, "file", r->file);
		cJSON_AddNumberToObject(q, "pass", (double)r->pass);
		cJSON_AddNumberToObject(q, "index", (double)r->index);
		ks_json_add_num(q, "speedup", r->speedup);
		ks_json_add_str(q, "why", r->suspicious_why);
		cJSON_AddItemToArray(a, q);
	}
	if (rep->nvtools)
		cJSON_AddItemToObject(o, "nvtools", cJSON_Duplicate(rep->nvtools, 1));
	if (rep->ceilings)
		cJSON_AddItemToObject(o, "ceilings", ks_ceilings_json(rep->ceilings));
	else
		cJSON_AddNullToObject(o, "ceilings");
	x = cJSON_AddObjectToObject(o, "timing");
	if (rep->config) {
		const ks_config *c = rep->config;
		cJSON *t = cJSON_AddObjectToObject(x, "protocol");
		cJSON_AddNumberToObject(t, "input_sets", c->input_sets);
		cJSON_AddNumberToObject(t, "warmup_runs", c->warmup_runs);
		cJSON_AddNumberToObject(t, "min_runs", c->min_runs);
		cJSON_AddNumberToObject(t, "max_runs", c->max_runs);
		cJSON_AddNumberToObject(t, "target_rel_error", c->target_rel_error);
		cJSON_AddNumberToObject(t, "max_seconds_per_case", c->max_seconds_per_case);
		cJSON_AddNumberToObject(t, "verify_runs", c->verify_runs);
		cJSON_AddNumberToObject(t, "check_fraction", c->check_fraction);
		cJSON_AddNumberToObject(t, "input_change", c->input_change);
		cJSON_AddStringToObject(t, "inputs", c->input_change > 0
							     ? "a part input_change of every random input redrawn "
							       "before every timed run, outside the timed window: no "
							       "run sees the inputs of an earlier one"
							     : "unchanged between the timed runs on one input set");
		cJSON_AddStringToObject(t, "outputs", "poisoned before every timed run, outside the timed window");
		cJSON_AddStringToObject(t, "l2", "flushed before every timed run, after the output fills (2x L2 "
					"written); persisting L2 size 0 and reset");
		t = cJSON_AddObjectToObject(x, "roofline");
		cJSON_AddNumberToObject(t, "margin", c->roofline_margin);
		cJSON_AddNumberToObject(t, "timer_floor_us", c->timer_floor_us);
		cJSON_AddNumberToObject(t, "max_speedup", c->max_speedup);
	}
	if (rep->golden_source)
		cJSON_AddStringToObject(x, "golden_times", rep->golden_source);
	cJSON_AddItemToObject(x, "device_status_start",
			      rep->status_start ? cJSON_Duplicate(rep->status_start, 1) : cJSON_CreateNull());
	cJSON_AddItemToObject(x, "device_status_end",
			      rep->status_end ? cJSON_Duplicate(rep->status_end, 1) : cJSON_CreateNull());
	if (rep->problems) {
		x = cJSON_AddObjectToObject(o, "problems");
		for (i = 0; i < rep->nresults; i++) {
			const ks_problem *p = ks_problem_set_find(rep->problems, rep->results[i].problem);
			if (p && !cJSON_GetObjectItemCaseSensitive(x, p->name))
				cJSON_AddStringToObject(x, p->name, p->sha256);
		}
	}
	ks_free(passk);
	return o;
}

/* Text files quote input (file names, details, logs): written as valid UTF-8 whatever it held. */
static int write_text(const char *dir, const char *name, const char *text)
{
	char *path = ks_path_join(dir, name);
	size_t n;
	char *clean = ks_utf8_sanitize(text, strlen(text), &n);
	int rc = ks_fs_write_atomic(path, clean, n);
	ks_free(clean);
	ks_free(path);
	return rc;
}

static int write_json(const char *dir, const char *name, const cJSON *v)
{
	char *path = ks_path_join(dir, name);
	int rc = ks_json_write_file(path, v, 1);
	ks_free(path);
	return rc;
}

static const char *verdict(const ks_kernel_result *r)
{
	if (r->reason == KS_REASON_DUPLICATE)
		return "duplicate, not counted";
	if (!r->exec)
		return "incorrect";
	if (!r->timed)
		return "not timed";
	return r->suspicious ? "SUSPICIOUS" : "ok";
}

/* What the kernel printed, quoted line by line under "   | " (the text is already safe to show:
 * ks_proto_output_text), with how much of it there was. */
/* The extended cases' line and each failed one: run and reported, never counted. */
static void extended_text(ks_buf *txt, const ks_kernel_result *r)
{
	char line[96];
	size_t c;
	ks_kernel_result_extended_text(line, sizeof(line), r);
	ks_buf_printf(txt, "   %s (beyond the problem's domain: not counted)\n", line);
	for (c = 0; c < r->ncases; c++)
		if (r->cases[c].extended && !r->cases[c].passed)
			ks_buf_printf(txt, "     case %s: %s: %s\n", r->cases[c].label, ks_reason_name(r->cases[c].reason),
				      r->cases[c].detail ? r->cases[c].detail : "");
}

static void device_output_text(ks_buf *txt, const ks_kernel_result *r)
{
	const char *p = r->device_output ? r->device_output : "";
	ks_buf_printf(txt, "   device output: %llu bytes%s\n", (unsigned long long)r->device_output_bytes,
		      r->device_output_bytes > r->device_output_raw ? ", the first ones shown" : "");
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		ks_buf_printf(txt, "   | %.*s\n", (int)n, p);
		p += n + (nl ? 1 : 0);
	}
}

/* out.json_perf_<pass>.json, exec/gen_perf/<op>.json and exec/performance_analysis.txt. */
static int write_perf_files(const ks_report *rep, const char *dir)
{
	const ks_submission *s = rep->submission;
	char *gp = ks_asprintf("%s/exec/gen_perf", dir), name[300];
	ks_buf txt = KS_BUF_INIT(64u << 20);
	size_t i, k, c;
	int rc;

	if ((rc = ks_fs_mkdir_p(gp, 0755)) < 0)
		goto done;
	ks_buf_printf(&txt, "Performance analysis (kscore %s)\n", KS_VERSION);
	{
		ks_file_metrics fm;
		ks_metrics_file(&fm, rep->results, rep->nresults);
		if (ks_metrics_not_cuda_warning(&fm))
			ks_buf_printf(&txt, "WARNING: %s\n", ks_metrics_not_cuda_warning(&fm));
	}
	if (rep->device)
		ks_buf_printf(&txt, "device: %s, %s\n", rep->device->name, rep->arch ? rep->arch : "");
	for (k = 0; rep->nlanes > 1 && k < rep->nlanes; k++)
		ks_buf_printf(&txt, "lane %zu: GPU %d%s%s%s\n", k, rep->lanes[k].ordinal,
			      rep->lanes[k].shared ? " (shared with another lane: timings not clean)" : "",
			      rep->lanes[k].out ? ", taken out of the rotation: " : "",
			      rep->lanes[k].out ? rep->lanes[k].out : "");
	if (rep->ceilings)
		ks_buf_printf(&txt, "measured ceilings: %.0f GB/s, FP32 %.1f TFLOP/s, FP16 tensor %.0f TFLOP/s, "
			      "BF16 tensor %.0f TFLOP/s\n", rep->ceilings->bandwidth_gbps,
			      rep->ceilings->fp32_tflops, rep->ceilings->f16_tc_tflops,
			      rep->ceilings->bf16_tc_tflops);
	else
		ks_buf_printf(&txt, "no measured ceilings: no roofline verdicts\n");
	ks_buf_printf(&txt, "suspicious when faster than the roofline floor by more than %.0f%%, faster than "
		      "%.3g us, or a speedup above %.3gx over the golden kernel\n", 100 * rep->config->roofline_margin,
		      rep->config->timer_floor_us, rep->config->max_speedup);
	if (rep->baseline) {
		const char *what = NULL;
		if (ks_json_str(&what, rep->baseline, "text", 1) != 0)
			what = "the reference implementations";
		ks_buf_printf(&txt, "speedups and score over %s (the golden kernel's beside them)\n\n", what);
	}
	else
		ks_buf_printf(&txt, "speedups and score over the golden kernel\n\n");
	for (i = 0; i < s->npasses && rc == 0; i++) {
		cJSON *o = cJSON_CreateObject(), *sp = cJSON_AddArrayToObject(o, "speed_up"),
		      *ef = cJSON_AddArrayToObject(o, "efficiency"), *kn = cJSON_AddArrayToObject(o, "kernels"),
		      *sus = cJSON_AddArrayToObject(o, "suspicious"), *prof = NULL;
		for (k = 0; k < rep->nresults; k++) {
			const ks_kernel_result *r = &rep->results[k];
			cJSON *cases;
			if (r->pass != i)
				continue;
			ks_buf_printf(&txt, "== %s (pass %zu, entry %zu): %s", r->problem ? r->problem : "?", r->pass,
				      r->index, verdict(r));
			if (r->timed)
				ks_buf_printf(&txt, ", speedup %.3fx (geomean %.3fx), %.1f%% of roofline, score %.3f",
					      r->speedup, r->speedup_geomean, 100 * r->roofline_fraction, r->score);
			if (r->timed && r->over_reference)
				ks_buf_printf(&txt, " (over the reference; %.3fx over the golden kernel)", r->speedup_golden);
			ks_buf_printf(&txt, "\n");
			if (r->reference_note)
				ks_buf_printf(&txt, "   baseline: %s\n", r->reference_note);
			if (r->reason != KS_REASON_OK)
				ks_buf_printf(&txt, "   %s: %s\n", ks_reason_name(r->reason), r->detail ? r->detail : "");
			if (r->timing_error)
				ks_buf_printf(&txt, "   not timed: %s\n", r->timing_error);
			if (r->suspicious)
				ks_buf_printf(&txt, "   SUSPICIOUS: %s\n", r->suspicious_why);
			if (r->extended)
				extended_text(&txt, r);
			if (rep->nlanes > 1 && rep->kernel_lane && rep->kernel_lane[k] >= 0)
				ks_buf_printf(&txt, "   ran on lane %d (GPU %d)%s\n", rep->kernel_lane[k],
					      rep->lanes[rep->kernel_lane[k]].ordinal,
					      kernel_shared(rep, k) ? ", a GPU shared with another lane: timings not clean" : "");
			if (r->device_output_bytes)
				device_output_text(&txt, r);
			for (c = 0; c < r->nkernels; c++)
				ks_buf_printf(&txt, "   kernel %s: %d registers, %d B static shared, %d B local "
					      "(spills)\n", r->kernels[c].name, r->kernels[c].info.registers,
					      r->kernels[c].info.shared_static, r->kernels[c].info.local_bytes);
			ks_nvtool_text(&txt, r);
			if (r->nperf)
				ks_buf_printf(&txt, "   %-34s %10s %10s %8s %9s %9s %10s %7s %s\n", "case", "ms",
					      r->over_reference ? "ref ms" : "golden ms", "speedup", "GB/s", "TFLOP/s",
					      "floor ms", "roof%", "runs / verified / checked");
			cases = cJSON_CreateArray();
			for (c = 0; c < r->nperf; c++) {
				const ks_perf_result *pc = &r->perf[c];
				cJSON *e = cJSON_CreateObject();
				ks_buf_printf(&txt, "   %-34.34s %10.4f %10.4f %8.3f %9.1f %9.2f %10.4f %7.1f %zu+%zu/%d/%d%s%s\n",
					      pc->label, pc->ms, r->over_reference ? pc->reference_ms : pc->golden_ms,
					      pc->speedup, pc->gbps, pc->tflops,
					      pc->floor_ms, 100 * pc->roofline_fraction, pc->runs, pc->golden_runs,
					      pc->verified, pc->checked, pc->suspicious ? "  SUSPICIOUS: " : "",
					      pc->suspicious ? pc->why : "");
				cJSON_AddStringToObject(e, "input_size", pc->label);
				ks_json_add_num(e, "ms", pc->ms);
				ks_json_add_num(e, "golden_ms", pc->golden_ms);
				ks_json_add_num(e, "speedup", pc->speedup);
				if (r->over_reference) {
					ks_json_add_num(e, "reference_ms", pc->reference_ms > 0 ? pc->reference_ms : NAN);
					ks_json_add_num(e, "speedup_golden", pc->speedup_golden);
				}
				ks_json_add_num(e, "GB/s", pc->gbps);
				ks_json_add_num(e, "TFLOPS", pc->tflops);
				ks_json_add_num(e, "floor_ms", pc->floor_ms);
				ks_json_add_num(e, "roofline_fraction", pc->roofline_fraction);
				cJSON_AddBoolToObject(e, "suspicious", pc->suspicious);
				cJSON_AddItemToArray(cases, e);
			}
			ks_buf_printf(&txt, "\n");
			if (r->nperf && r->problem) {
				char *path;
				if (s->npasses == 1)
					snprintf(name, sizeof(name), "%s.json", r->problem);
				else
					snprintf(name, sizeof(name), "%s_pass%zu.json", r->problem, r->pass);
				path = ks_path_join(gp, name);
				if (rc == 0)
					rc = ks_json_write_file(path, cases, 1);
				ks_free(path);
			}
			cJSON_Delete(cases);
			/* GEAK-eval's lists hold the kernels that count for the score, named here */
			if (r->timed && r->exec && !r->suspicious) {
				cJSON_AddItemToArray(sp, cJSON_CreateNumber(round(r->speedup * 1e4) / 1e4));
				cJSON_AddItemToArray(ef, cJSON_CreateNumber(round(r->roofline_fraction * 1e6) / 1e4));
				cJSON_AddItemToArray(kn, cJSON_CreateString(r->problem ? r->problem : "?"));
			} else if (r->suspicious)
				cJSON_AddItemToArray(sus, cJSON_CreateString(r->problem ? r->problem : "?"));
			/* kscore's own key beside GEAK-eval's: Nsight Compute's diagnosis per kernel */
			if (r->profile && r->problem) {
				if (!prof)
					prof = cJSON_AddObjectToObject(o, "profiles");
				if (!cJSON_GetObjectItemCaseSensitive(prof, r->problem))
					cJSON_AddItemToObject(prof, r->problem, cJSON_Duplicate(r->profile, 1));
			}
		}
		snprintf(name, sizeof(name), "out.json_perf_%zu.json", i);
		if (rc == 0)
			rc = write_json(dir, name, o);
		cJSON_Delete(o);
	}
	if (rc == 0)
		rc = write_text(dir, "exec/performance_analysis.txt", txt.ptr ? txt.ptr : "");
done:
	ks_buf_free(&txt);
	ks_free(gp);
	return rc;
}

static int write_files(const ks_report *rep, const char *dir, cJSON *record)
{
	const ks_submission *s = rep->submission;
	ks_buf log = KS_BUF_INIT(256u << 20), pk = KS_BUF_INIT(1u << 20);
	cJSON *all = cJSON_CreateArray();
	char ts[64], name[128];
	size_t i, k;
	int rc = 0;

	stamp(ts, sizeof(ts), rep->started, "%Y-%m-%d_%H-%M-%S");
	for (i = 0; i < s->npasses && rc == 0; i++) {
		cJSON *list = cJSON_CreateArray();
		size_t first = 0, n = 0;
		ks_file_metrics fm;
		if (s->passes[i].error)
			ks_buf_printf(&log, "%s => File: %s, Error: %s\n", ts, s->passes[i].path,
				      s->passes[i].error);
		for (k = 0; k < rep->nresults; k++) {
			const ks_kernel_result *r = &rep->results[k];
			char *err;
			if (r->pass != i)
				continue;
			if (!n)
				first = k;
			n++;
			err = stderr_text(r);
			if (rep->gpu)
				ks_buf_printf(&log, "%s => File: %s, Call Status: %s, Exec Status: %s, "
					      "difficulty: %d, stderr: %s\n", ts, r->file ? r->file : "?",
					      tf(r->call), tf(r->exec), r->difficulty, err);
			else
				ks_buf_printf(&log, "%s => File: %s, Compile Status: %s, difficulty: %d, "
					      "stderr: %s\n", ts, r->file ? r->file : "?", tf(r->compiled),
					      r->difficulty, err);
			ks_free(err);
			cJSON_AddItemToArray(list, geak_record(r, rep->gpu));
			cJSON_AddItemToArray(all, geak_record(r, rep->gpu));
		}
		ks_metrics_file(&fm, rep->results + first, n);
		if (rep->gpu)
			ks_buf_printf(&log, "%s => File: %s, Call Accuracy: %.4g, Exec Accuracy: %.4g\n", ts,
				      s->passes[i].path, acc(fm.call_accuracy), acc(fm.exec_accuracy));
		else
			ks_buf_printf(&log, "%s => File: %s, Compile Accuracy: %.4g (compile-only: no kernel "
				      "was run)\n", ts, s->passes[i].path, fm.compile_accuracy);
		snprintf(name, sizeof(name), "out.json_results_%zu.json", i);
		rc = write_json(dir, name, list);
		cJSON_Delete(list);
	}
	if (rc == 0)
		rc = write_text(dir, "out.json", log.ptr ? log.ptr : "");
	if (rc == 0)
		rc = write_json(dir, "out.json_all_passes.json", all);

	/* out.jsonpassk.txt, in GEAK-eval's words: percentages. */
	{
		const cJSON *sum = cJSON_GetObjectItemCaseSensitive(record, "summary");
		const cJSON *pka = cJSON_GetObjectItemCaseSensitive(sum, "pass_at_k"), *p;
		double ca = 0, ea = 0;
		if (!rep->gpu) {
			ks_buf_printf(&pk, "Compile-only: no kernel was run, so there are no call or exec "
				      "results.\n");
		} else if (s->npasses == 1 || rep->nks == 0) {
			ks_json_num(&ca, sum, "call_accuracy", 0);
			ks_json_num(&ea, sum, "exec_accuracy", 0);
			ks_buf_printf(&pk, "Call Accuracy: %.1f\nExec Accuracy: %.1f\n", 100 * ca, 100 * ea);
		}
		if (rep->gpu && s->npasses > 1) {
			cJSON_ArrayForEach(p, pka)
			{
				double kk = 0, c = 0, e = 0, sk = 0;
				ks_json_num(&kk, p, "k", 0);
				ks_json_num(&sk, p, "skipped_problems", 0);
				if (ks_json_num(&c, p, "call", 0) != 0 || ks_json_num(&e, p, "exec", 0) != 0) {
					ks_buf_printf(&pk, "Note: pass@%d skipped: no problem has %d or more "
						      "samples\n", (int)kk, (int)kk);
					continue;
				}
				ks_buf_printf(&pk, "Call Accuracy for k=%d: %.1f\nExec Accuracy for k=%d: %.1f\n",
					      (int)kk, 100 * c, (int)kk, 100 * e);
				if (sk > 0)
					ks_buf_printf(&pk, "Note: pass@%d left out %d problems with fewer than "
						      "%d samples\n", (int)kk, (int)sk, (int)kk);
			}
		}
		if (rc == 0)
			rc = write_text(dir, "out.jsonpassk.txt", pk.ptr ? pk.ptr : "");
	}
	if (rc == 0 && rep->config)
		rc = write_perf_files(rep, dir);
	if (rc == 0)
		rc = write_json(dir, "score.json", record);
	cJSON_Delete(all);
	ks_buf_free(&log);
	ks_buf_free(&pk);
	return rc;
}

int ks_report_write(const ks_report *rep, cJSON **summary)
{
	ks_outdir_options oo = KS_OUTDIR_OPTIONS_INIT;
	const ks_submission *s = rep->submission;
	const char **inputs = ks_calloc(s->npasses + 2, sizeof(*inputs));
	cJSON *record = ks_report_record(rep);
	char *tmp = NULL;
	size_t i;
	int rc;

	if (summary)
		*summary = NULL;
	/* the submission must survive its own result folder (a batch's "repo@commit:file" is no path
	 * and is skipped); the caller checked the other inputs before scoring */
	inputs[0] = s->path;
	for (i = 0; i < s->npasses; i++)
		inputs[i + 1] = s->passes[i].path;
	oo.inputs = inputs;
	oo.ninputs = s->npasses + 1;
	if ((rc = ks_outdir_begin(&tmp, rep->out_dir, &oo)) < 0 || (rc = write_files(rep, tmp, record)) < 0 ||
	    (rc = ks_outdir_commit(tmp, rep->out_dir, &oo)) < 0)
		goto done;
	if (summary)
		*summary = cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(record, "summary"), 1);
done:
	if (rc < 0)
		ks_outdir_abort(tmp);
	cJSON_Delete(record);
	ks_free(tmp);
	ks_free(inputs);
	return rc;
}
