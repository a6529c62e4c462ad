#include "pipeline.h"
#include "check.h"
#include "compile.h"
#include "errors.h"
#include "mem.h"
#include "report.h"
#include "runner.h"
#include "baseline.h"
#include "calibrate.h"
#include "config.h"
#include "roofline.h"
#include "timing.h"
#include "worker.h"
#include "nvtool.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

struct ks_pipeline {
	ks_pipeline_options opts;
	ks_problem_set *problems;
	ks_runner *runner;
	char *no_gpu;
	char *nvrtc;
	ks_config cfg;
	char *config_path;
	ks_ceilings ceil;
	int have_ceil, tried_ceil;
	char *ceil_error;
	ks_baseline *baseline;
	char *golden_source;
	ks_nvtool *nvtool;            /* the sanitizer and profiler stages; NULL when neither is asked */
	cJSON *nvtool_json;
};

int ks_pipeline_new(ks_pipeline **out, const ks_pipeline_options *o)
{
	ks_pipeline *p = ks_calloc(1, sizeof(*p));
	ks_compile_options vo = KS_COMPILE_OPTIONS_INIT;
	size_t i;
	int rc;

	*out = NULL;
	p->opts = *o;
	{
		ks_config dc = KS_CONFIG_INIT;
		p->cfg = dc;
	}
	p->config_path = o->config ? ks_strdup(o->config) : ks_config_find(o->refs);
	if (p->config_path && (rc = ks_config_load(&p->cfg, p->config_path)) < 0)
		goto fail;
	if ((rc = ks_problem_set_load(&p->problems, o->refs, o->suite)) < 0) {
		ks_error_wrap(rc, "cannot load the reference problems from %s", o->refs);
		goto fail;
	}
	for (i = 0; i < p->problems->nerrors; i++)
		fprintf(stderr, "score: error: invalid problem: %s\n", p->problems->errors[i]);
	if (p->problems->n == 0) {
		rc = ks_error_set(KS_EINVALID, "no valid problem in %s", o->refs);
		goto fail;
	}
	if (!o->compile_only) {
		ks_runner_options ro = KS_RUNNER_OPTIONS_INIT;
		ro.device = o->device;
		ro.kernel_timeout_s = o->kernel_timeout_s;
		ro.compile.cache_dir = o->cache_dir;
		ro.compile.jobs = o->jobs;
		if (o->max_scratch_bytes)
			ro.limits.max_scratch_bytes = o->max_scratch_bytes;
		if (ks_runner_start(&p->runner, &ro) < 0) {
			if (o->require_gpu) {
				rc = ks_error_wrap(KS_EUNSUPPORTED, "no usable GPU");
				goto fail;
			}
			p->no_gpu = ks_strdup(ks_error_msg());
		}
	}
	if (p->runner)
		ks_problem_set_sm_count(p->problems, ks_runner_device(p->runner)->sm_count);
	if (p->runner && (o->sanitize || o->profile)) {
		ks_nvtool_options no = KS_NVTOOL_OPTIONS_INIT;
		no.sanitize = o->sanitize;
		no.profile = (ks_profile_when)o->profile;
		no.seed = o->seed;
		no.kernel_timeout_s = o->kernel_timeout_s;
		ks_nvtool_new(&p->nvtool, &no);
	}
	p->nvrtc = ks_compile_nvrtc_version(&vo);
	p->golden_source = ks_strdup("live: timed in the same session, interleaved with each candidate");
	if (p->runner && o->use_baseline) {
		char *path = o->baseline ? ks_strdup(o->baseline)
					 : ks_baseline_default_path(o->cache_dir ? o->cache_dir : ".",
								    ks_runner_device(p->runner));
		if (ks_baseline_load(&p->baseline, path) < 0)
			fprintf(stderr, "score: warning: no stored baseline (%s): the golden kernel is timed live\n",
				ks_error_msg());
		else if (!ks_baseline_matches(p->baseline, ks_runner_device(p->runner))) {
			fprintf(stderr, "score: warning: %s was measured on another GPU or driver: the golden kernel is "
				"timed live\n", path);
			ks_baseline_free(p->baseline);
			p->baseline = NULL;
		} else {
			ks_free(p->golden_source);
			p->golden_source = ks_strdup(ks_baseline_describe(p->baseline));
		}
		ks_free(path);
	}
	*out = p;
	return 0;
fail:
	ks_pipeline_free(p);
	return rc;
}

int ks_pipeline_has_gpu(const ks_pipeline *p)
{
	return p->runner != NULL;
}

const char *ks_pipeline_no_gpu_reason(const ks_pipeline *p)
{
	return p->no_gpu;
}

const ks_problem_set *ks_pipeline_problems(const ks_pipeline *p)
{
	return p->problems;
}

/* The ceilings, measured once per session (or read from the cache). */
static const ks_ceilings *ceilings(ks_pipeline *p)
{
	ks_compile_options co = KS_COMPILE_OPTIONS_INIT;
	char *exe;
	if (p->tried_ceil)
		return p->have_ceil ? &p->ceil : NULL;
	p->tried_ceil = 1;
	co.cache_dir = p->opts.cache_dir;
	exe = ks_find_helper("kscore-worker");
	if (exe && ks_ceilings_get(&p->ceil, p->opts.cache_dir, exe, p->opts.device, ks_runner_device(p->runner),
				   &co, p->opts.recalibrate) == 0)
		p->have_ceil = 1;
	else {
		p->ceil_error = ks_strdup(ks_error_msg());
		fprintf(stderr, "score: warning: could not measure the device's ceilings: %s; no roofline "
			"verdicts\n", p->ceil_error);
	}
	ks_free(exe);
	return p->have_ceil ? &p->ceil : NULL;
}

typedef struct {
	int tty;
	const char *label;
} progress_state;

static void progress(void *ud, size_t done, size_t total, const char *what)
{
	progress_state *ps = ud;
	if (!ps->tty)
		return;
	if (done >= total)
		fprintf(stderr, "\r\033[K");
	else
		fprintf(stderr, "\r\033[K%s: [%zu/%zu] %s", ps->label, done, total, what ? what : "");
	fflush(stderr);
}

int ks_pipeline_score(ks_pipeline *p, ks_scored *out, const ks_submission *sub, const char *team,
		      const char *out_dir)
{
	ks_check_options co = KS_CHECK_OPTIONS_INIT;
	const ks_entry **entries = NULL;
	ks_candidate_image *images = NULL;
	size_t *pass = NULL, n = 0, i, j;
	progress_state pst = { p->opts.progress, sub->path };
	ks_compile_toolchain tc = { NULL, NULL };
	struct timespec t0, t1;
	ks_report rep;
	int rc;

	memset(out, 0, sizeof(*out));
	memset(&rep, 0, sizeof(rep));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	rep.started = time(NULL);
	for (i = 0; i < sub->npasses; i++) {
		if (sub->passes[i].error)
			out->bad_input = 1;
		n += sub->passes[i].nentries;
	}
	entries = ks_calloc(n + 1, sizeof(*entries));
	pass = ks_calloc(n + 1, sizeof(*pass));
	out->results = ks_calloc(n + 1, sizeof(*out->results));
	n = 0;
	for (i = 0; i < sub->npasses; i++)
		for (j = 0; j < sub->passes[i].nentries; j++) {
			entries[n] = &sub->passes[i].entries[j];
			pass[n++] = i;
		}
	out->nresults = n;
	co.problems = p->problems;
	co.compile.arch = p->opts.arch;
	co.compile.cache_dir = p->opts.cache_dir;
	co.compile.jobs = p->opts.jobs;
	co.compile.timeout_s = p->opts.compile_timeout_s;
	co.compile.memory_mb = p->opts.compile_memory_mb;
	co.seed = p->opts.seed;
	if (p->opts.max_scratch_bytes)
		co.limits.max_scratch_bytes = p->opts.max_scratch_bytes;
	co.progress = progress;
	co.progress_ud = &pst;
	co.compile_only = p->opts.compile_only;
	images = ks_calloc(n + 1, sizeof(*images));
	ks_check_entries(out->results, images, entries, pass, n, p->runner, &co);
	if (p->runner && p->nvtool) {
		/* after the checks, before timing: a kernel the sanitizer fails is not timed */
		for (i = 0; i < n; i++)
			if (out->results[i].exec && images[i].cubin) {
				progress(&pst, i, n, "sanitizer");
				ks_nvtool_sanitize(p->nvtool, &out->results[i], &images[i], p->runner);
			}
		progress(&pst, n, n, NULL);
	}
	if (p->runner && !p->opts.no_timing) {
		const ks_ceilings *ceil = ceilings(p);
		ks_timing_options to;
		size_t done = 0, todo = 0;
		ks_timing_options_for(&to, ks_runner_device(p->runner), p->opts.kernel_timeout_s);
		to.cfg = p->cfg;
		to.seed = p->opts.seed;
		to.limits = co.limits;
		to.baseline = p->baseline;
		rep.golden_source = p->golden_source;
		rep.status_start = ks_runner_status(p->runner);
		for (i = 0; i < n; i++)
			todo += out->results[i].exec && images[i].cubin;
		for (i = 0; i < n; i++) {
			ks_kernel_result *r = &out->results[i];
			const ks_problem *prob;
			if (!r->exec || !images[i].cubin)
				continue;
			prob = images[i].problem;
			progress(&pst, done++, todo, r->problem ? r->problem : "timing");
			ks_time_kernel(r, &images[i], p->runner, &to);
			ks_judge_kernel(r, prob, ceil, &p->cfg);
		}
		progress(&pst, todo, todo, NULL);
		rep.status_end = ks_runner_status(p->runner);
		rep.ceilings = ceil;
		rep.config = &p->cfg;
		/* after every timed number is taken: profiling changes none of them */
		for (i = 0; p->nvtool && i < n; i++)
			if (images[i].cubin && ks_nvtool_wants_profile(p->nvtool, &out->results[i])) {
				progress(&pst, i, n, "profiling");
				ks_nvtool_profile(p->nvtool, &out->results[i], &images[i], p->runner);
			}
		progress(&pst, n, n, NULL);
	}
	for (i = 0; i < n; i++)
		ks_candidate_image_clear(&images[i]);
	ks_free(images);

	rep.out_dir = out_dir;
	rep.team = team;
	rep.submission = sub;
	rep.results = out->results;
	rep.nresults = n;
	rep.ks = p->opts.ks;
	rep.nks = p->opts.nks;
	rep.gpu = p->runner != NULL;
	rep.no_gpu_reason = p->no_gpu;
	rep.device = p->runner ? ks_runner_device(p->runner) : NULL;
	rep.arch = p->runner ? ks_runner_arch(p->runner) : p->opts.arch;
	rep.nvrtc_version = p->nvrtc;
	{
		ks_compile_options tco = co.compile;
		tco.arch = rep.arch;
		if (ks_compile_toolchain_get(&tc, &tco) < 0)
			ks_error_clear(); /* the compiles failed the same way and say so per kernel */
	}
	rep.compat_sha256 = tc.compat_sha256;
	rep.compile_options = tc.options;
	rep.seed = p->opts.seed;
	rep.problems = p->problems;
	if (p->nvtool) {
		/* a stage a tool failed in stops for the session: say so in each record */
		cJSON_Delete(p->nvtool_json);
		p->nvtool_json = ks_nvtool_json(p->nvtool);
	}
	rep.nvtools = p->runner ? p->nvtool_json : NULL;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	rep.wall_s = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9;
	for (i = 0; i < n; i++)
		out->correct += p->runner ? (size_t)out->results[i].exec : (size_t)out->results[i].compiled;
	out->out_dir = ks_strdup(out_dir);
	rc = ks_report_write(&rep, &out->summary);
	if (rc < 0)
		ks_error_wrap(rc, "writing results");
	cJSON_Delete(rep.status_start);
	cJSON_Delete(rep.status_end);
	ks_compile_toolchain_clear(&tc);
	ks_free(entries);
	ks_free(pass);
	return rc;
}

void ks_scored_clear(ks_scored *s)
{
	size_t i;
	for (i = 0; i < s->nresults; i++)
		ks_kernel_result_clear(&s->results[i]);
	ks_free(s->results);
	ks_free(s->out_dir);
	cJSON_Delete(s->summary);
	memset(s, 0, sizeof(*s));
}

void ks_pipeline_free(ks_pipeline *p)
{
	if (!p)
		return;
	ks_runner_free(p->runner);
	ks_problem_set_free(p->problems);
	ks_free(p->no_gpu);
	ks_free(p->nvrtc);
	ks_free(p->config_path);
	ks_free(p->ceil_error);
	ks_baseline_free(p->baseline);
	ks_free(p->golden_source);
	ks_nvtool_free(p->nvtool);
	cJSON_Delete(p->nvtool_json);
	ks_free(p);
}

