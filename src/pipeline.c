#include "pipeline.h"
#include "check.h"
#include "compile.h"
#include "errors.h"
#include "mem.h"
#include "report.h"
#include "runner.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

struct ks_pipeline {
	ks_pipeline_options opts;
	ks_problem_set *problems;
	ks_runner *runner;
	char *no_gpu;
	char *nvrtc;
};

int ks_pipeline_new(ks_pipeline **out, const ks_pipeline_options *o)
{
	ks_pipeline *p = ks_calloc(1, sizeof(*p));
	ks_compile_options vo = KS_COMPILE_OPTIONS_INIT;
	size_t i;
	int rc;

	*out = NULL;
	p->opts = *o;
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
		if (ks_runner_start(&p->runner, &ro) < 0) {
			if (o->require_gpu) {
				rc = ks_error_wrap(KS_EUNSUPPORTED, "no usable GPU");
				goto fail;
			}
			p->no_gpu = ks_strdup(ks_error_msg());
		}
	}
	p->nvrtc = ks_compile_nvrtc_version(&vo);
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
	size_t *pass = NULL, n = 0, i, j;
	progress_state pst = { p->opts.progress, sub->path };
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
	co.progress = progress;
	co.progress_ud = &pst;
	ks_check_entries(out->results, NULL, entries, pass, n, p->runner, &co);

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
	rep.seed = p->opts.seed;
	rep.problems = p->problems;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	rep.wall_s = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9;
	for (i = 0; i < n; i++)
		out->correct += p->runner ? (size_t)out->results[i].exec : (size_t)out->results[i].compiled;
	out->out_dir = ks_strdup(out_dir);
	rc = ks_report_write(&rep, &out->summary);
	if (rc < 0)
		ks_error_wrap(rc, "writing results");
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
	ks_free(p);
}
