/* pipeline: see include/pipeline.h; the session's insides are in include/pipeline_int.h, its GPUs in
 * pipeline_gpu.c. */
#include "session/pipeline_int.h"
#include "lang/cuda/compile.h"
#include "util/errors.h"
#include "util/mem.h"
#include "util/tracelog.h"
#include "nvtool/nvtool.h"
#include "report/report.h"
#include "judge/roofline.h"
#include "run/runner.h"
#include "time/timing.h"
#include "run/worker.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

_Static_assert(KS_PIPELINE_MAX_LANES == KS_LANES_MAX, "one limit on lanes");

/* The stages of an entry on a lane, in the order a lane takes them within one job (lanes.h: the
 * lower kind first). A stage that needs a GPU before the check (the trace of a Triton answer)
 * would come first. */
enum { ITEM_CHECK = 0, ITEM_TIME = 1 };

/* One submission in the run's queue. */
typedef struct {
	ks_pipeline *p;
	const ks_submission *sub;
	char *team, *out_dir;
	const ks_entry **entries;
	size_t *pass, n;
	ks_kernel_result *results;
	int *kernel_lane;
	ks_runq_job *rq;
	ks_prepare_set *set;
	size_t checked, timed;
	cJSON *status_start, *status_end; /* the device's clocks before and after its timings */
	double t0;
	time_t started;
	ks_pipeline_done_fn done;
	void *ud;
	int trusted;                      /* the references of --baseline reference (refbase.h) */
} job;

static int score_references(ks_pipeline *p, const char *const *only, size_t nonly);

/* ---- the progress line (a terminal): the whole run's */

static void progress_locked(ks_pipeline *p, const char *what)
{
	if (!p->opts.progress)
		return;
	/* without a GPU, compiling is the whole run: its count is the progress */
	if (!p->first)
		fprintf(stderr, "\r\033[K[%zu of %zu files] %zu of %zu kernels compiled (compile-only) %s", p->ndone,
			p->njobs, p->prepared, p->nentries, what ? what : "");
	else
		fprintf(stderr, "\r\033[K[%zu of %zu files] %zu compiled, %zu checked, %zu timed, of %zu kernels %s",
			p->ndone, p->njobs, p->prepared, p->checked, p->timed, p->nentries, what ? what : "");
	fflush(stderr);
}

/* A slow stage of one item (the tools' runs take seconds): on the progress line. */
static void item_progress(ks_pipeline *p, const char *stage, const char *problem)
{
	char *what;
	if (!p->opts.progress)
		return;
	what = ks_asprintf("%s: %s", stage, problem ? problem : "?");
	pthread_mutex_lock(&p->mu);
	progress_locked(p, what);
	pthread_mutex_unlock(&p->mu);
	ks_free(what);
}

/* ---- the stages of one entry on a lane */

static int worker_died(ks_reason r)
{
	return r == KS_REASON_FAULT || r == KS_REASON_TIMEOUT || r == KS_REASON_CRASH || r == KS_REASON_LOAD_ERROR;
}

/* What a kernel had printed before a stage (device_output), so that a stage undone on a lost lane
 * leaves what it collected out. */
typedef struct {
	char *text;
	uint64_t bytes;
	size_t raw;
} output_mark;

static void output_keep(output_mark *m, const ks_kernel_result *r)
{
	m->text = r->device_output ? ks_strdup(r->device_output) : NULL;
	m->bytes = r->device_output_bytes;
	m->raw = r->device_output_raw;
}

static void output_clear(output_mark *m)
{
	ks_free(m->text);
	m->text = NULL;
}

/* Undoes ks_time_kernel, for timing again on another lane: back to the checked kernel (with what
 * it printed then, *m, which this takes). */
static void reset_timing(ks_kernel_result *r, output_mark *m)
{
	size_t i;
	ks_free(r->device_output);
	r->device_output = m->text;
	r->device_output_bytes = m->bytes;
	r->device_output_raw = m->raw;
	m->text = NULL;
	for (i = 0; i < r->nperf; i++) {
		ks_free(r->perf[i].label);
		ks_free(r->perf[i].why);
	}
	ks_free(r->perf);
	r->perf = NULL;
	r->nperf = 0;
	ks_free(r->timing_error);
	r->timing_error = NULL;
	r->timed = 0;
	r->timing_s = r->timing_gpu_ms = r->timing_busy_ms = 0;
	if (!r->exec) {
		/* the failure charged during timing was the GPU's */
		ks_free(r->detail);
		r->detail = NULL;
		r->reason = KS_REASON_OK;
		r->exec = 1;
	}
}

/* The device's status (clocks, temperature, throttling) from the lane thread's own runner: the
 * first before a job's first timing, the last after its last. */
static void note_status(job *j, ks_runner *run, int start)
{
	cJSON *st;
	pthread_mutex_lock(&j->p->mu);
	st = start ? j->status_start : NULL;
	pthread_mutex_unlock(&j->p->mu);
	if (st)
		return;
	st = ks_runner_status(run);
	pthread_mutex_lock(&j->p->mu);
	if (start && !j->status_start) {
		j->status_start = st;
		st = NULL;
	} else if (!start) {
		cJSON_Delete(j->status_end);
		j->status_end = st;
		st = NULL;
	}
	pthread_mutex_unlock(&j->p->mu);
	cJSON_Delete(st);
}

static ks_lane_outcome stage_check(ks_pipeline *p, pl_lane *L, size_t t, job *j, size_t i, int *next, char **why)
{
	ks_runner *run = L->run[t];
	ks_kernel_result *r = &j->results[i];
	ks_candidate_image *img = ks_prepare_image(j->set, i);
	const ks_problem *q = img->problem;

	img->trusted = j->trusted; /* a reference's trace may come from the cache */
	ks_check_entry(r, img, run, p->goldens, &p->co);
	if ((!ks_runner_candidate_worker(run) || worker_died(r->reason) ||
	     (r->reason == KS_REASON_PROBLEM_INVALID && r->ran)) &&
	    pl_probe(p, run, q, why) < 0) {
		ks_check_reset(r);
		return KS_LANE_LOST;
	}
	if (r->ncases && r->cases[0].reason != KS_REASON_PROBLEM_INVALID)
		pl_mark_golden_ok(p, q);
	/* after the checks, before timing: a kernel the sanitizer fails is not timed */
	if (r->exec && p->nvtool) {
		item_progress(p, "sanitizer", r->problem);
		ks_nvtool_sanitize(p->nvtool, r, img, run);
	}
	*next = r->exec && p->timing ? ITEM_TIME : KS_RUNQ_DONE;
	return KS_LANE_DONE;
}

static ks_lane_outcome stage_time(ks_pipeline *p, pl_lane *L, size_t t, job *j, size_t i, char **why)
{
	ks_runner *run = L->run[t];
	ks_kernel_result *r = &j->results[i];
	ks_candidate_image *img = ks_prepare_image(j->set, i);
	const ks_problem *q = img->problem;
	output_mark out = { NULL, 0, 0 };
	ks_timing_options to;

	/* the device-dependent settings of this lane's GPU (timing.h), the session's for the rest */
	ks_timing_options_for(&to, &L->dev, p->opts.runner.kernel_timeout_s);
	to.cfg = p->to.cfg;
	to.seed = p->to.seed;
	to.limits = p->to.limits;
	to.baseline = L->g->baseline;
	note_status(j, run, 1);
	output_keep(&out, r);
	if (ks_golden_store_register(p->goldens, run, q) < 0)
		r->timing_error = ks_strdup(ks_error_msg());
	else
		ks_time_kernel(r, img, run, &to);
	if ((r->timing_error || !ks_runner_candidate_worker(run) || (!r->exec && worker_died(r->reason))) &&
	    pl_probe(p, run, q, why) < 0) {
		reset_timing(r, &out);
		return KS_LANE_LOST;
	}
	output_clear(&out);
	note_status(j, run, 0);
	if (p->refbase)
		ks_refbase_apply(p->refbase, r);
	ks_judge_kernel(r, q, L->g->have_ceil ? &L->g->ceil : NULL, &p->cfg);
	/* after every timed number is taken: profiling changes none of them */
	if (p->nvtool && ks_nvtool_wants_profile(p->nvtool, r)) {
		item_progress(p, "profiling", r->problem);
		ks_nvtool_profile(p->nvtool, r, img, run);
	}
	return KS_LANE_DONE;
}

static ks_lane_outcome stage_run(void *ud, size_t li, size_t t, int stage, void *jp, size_t i, int *next,
				 char **why)
{
	ks_pipeline *p = ud;
	pl_lane *L = &p->lane[li];
	job *j = jp;
	ks_lane_outcome out;
	double t0 = ks_tracelog_ms();

	*next = KS_RUNQ_DONE;
	if (pl_test_failure(p, L, t, why))
		return KS_LANE_LOST;
	pl_share_goldens(L, t);
	if (stage == ITEM_CHECK)
		out = stage_check(p, L, t, j, i, next, why);
	else
		out = stage_time(p, L, t, j, i, why);
	ks_tracelog_span(stage == ITEM_CHECK ? "check" : "time", j->results[i].problem, t0);
	if (out == KS_LANE_LOST)
		return out;
	pthread_mutex_lock(&p->mu);
	L->items++;
	j->kernel_lane[i] = (int)li;
	if (stage == ITEM_TIME) {
		j->timed++;
		p->timed++;
	} else {
		j->checked++;
		p->checked++;
	}
	progress_locked(p, j->results[i].problem);
	pthread_mutex_unlock(&p->mu);
	return KS_LANE_DONE;
}

static void stage_orphan(void *ud, int stage, void *jp, size_t i, const char *why)
{
	job *j = jp;
	ks_kernel_result *r = &j->results[i];
	(void)ud;
	if (stage == ITEM_CHECK)
		ks_kernel_result_fail(r, KS_REASON_NOT_RUN, "compiled; not run: %s", why);
	else if (!r->timing_error)
		r->timing_error = ks_asprintf("not timed: %s", why);
}

static void lane_lost(void *ud, size_t li, const char *why)
{
	ks_pipeline *p = ud;
	pl_lane *L = &p->lane[li];
	if (p->opts.progress)
		fprintf(stderr, "\r\033[K");
	fprintf(stderr, "score: warning: lane %zu (GPU %d, %s) is out of the rotation: %s; its work goes to the "
		"other lanes\n", li, L->ordinal, L->dev.uuid[0] ? L->dev.uuid : "no uuid", why);
}

/* The prepare step of an entry is over (prepare.h): the one place an entry enters the lanes. */
static void entry_prepared(void *ud, void *jp, size_t i, const ks_candidate_image *img)
{
	ks_pipeline *p = ud;
	job *j = jp;
	if (p->opts.progress) {
		pthread_mutex_lock(&p->mu);
		p->prepared++;
		progress_locked(p, j->results[i].problem);
		pthread_mutex_unlock(&p->mu);
	}
	ks_runq_ready(p->runq, j->rq, i, img && p->first ? ITEM_CHECK : KS_RUNQ_DONE);
}

/* ---- a job's result folder, as soon as its last entry is done */

static void job_free(job *j)
{
	ks_prepare_set_free(j->set);
	cJSON_Delete(j->status_start);
	cJSON_Delete(j->status_end);
	ks_free(j->kernel_lane);
	ks_free(j->entries);
	ks_free(j->pass);
	ks_free(j->team);
	ks_free(j->out_dir);
	ks_free(j);
}

static int write_job(ks_pipeline *p, job *j, ks_scored *sc)
{
	ks_report rep;
	ks_report_lane *rl = NULL;
	ks_compile_toolchain tc = { NULL, NULL };
	cJSON *nvjson = NULL;
	int gpu = p->first != NULL, rc;
	size_t i;

	memset(&rep, 0, sizeof(rep));
	rep.started = j->started;
	if (p->timing) {
		pl_wait_calibrated(p); /* the ceilings are in the record */
		rep.status_start = j->status_start;
		rep.status_end = j->status_end;
		rep.ceilings = p->first->g->have_ceil ? &p->first->g->ceil : NULL;
		rep.config = &p->cfg;
		rep.golden_source = p->first->g->golden_source;
		rep.baseline = p->refbase_json;
	}
	if (gpu) {
		rl = ks_calloc(p->nlanes + 1, sizeof(*rl));
		for (i = 0; i < p->nlanes; i++) {
			const pl_lane *L = &p->lane[i];
			rl[i].ordinal = L->ordinal;
			rl[i].device = L->started ? &L->dev : NULL;
			rl[i].shared = L->shared;
			rl[i].out = ks_lanes_why(p->lanes, i);
			rl[i].ceilings = L->g && L->g->have_ceil && p->timing ? &L->g->ceil : NULL;
			rl[i].golden_source = L->g && p->timing ? L->g->golden_source : NULL;
			if (L->g) {
				ks_goldcache_stats st;
				ks_goldcache_stats_get(&st, L->g->goldens);
				rl[i].have_goldens = 1;
				rl[i].goldens_computed = st.computed;
				rl[i].goldens_reused = st.hits;
			}
		}
		rep.lanes = rl;
		rep.nlanes = p->nlanes;
		rep.kernel_lane = j->kernel_lane;
		pthread_mutex_lock(&p->mu);
		if (!p->start_json && p->calibrating == 0)
			p->start_json = pl_start_json(p);
		rep.start = p->start_json;
		pthread_mutex_unlock(&p->mu);
	}
	rep.out_dir = j->out_dir;
	rep.team = j->team;
	rep.submission = j->sub;
	rep.results = j->results;
	rep.nresults = j->n;
	rep.ks = p->opts.ks;
	rep.nks = p->opts.nks;
	rep.gpu = gpu;
	rep.no_gpu_reason = p->no_gpu;
	rep.device = gpu ? &p->first->dev : NULL;
	rep.arch = p->arch ? p->arch : p->opts.compile.arch;
	rep.nvrtc_version = p->nvrtc;
	{
		ks_compile_options tco = p->co.compile;
		tco.arch = rep.arch;
		if (ks_compile_toolchain_get(&tc, &tco) < 0)
			ks_error_clear(); /* the compiles failed the same way and say so per kernel */
	}
	rep.compat_sha256 = tc.compat_sha256;
	rep.compile_options = tc.options;
	rep.seed = p->opts.seed;
	rep.problems = p->problems;
	/* a stage a tool failed in stops for the session: say so in each record */
	if (gpu && p->nvtool)
		nvjson = ks_nvtool_json(p->nvtool);
	rep.nvtools = nvjson;
	rep.wall_s = pl_now() - j->t0;
	sc->results = j->results;
	sc->nresults = j->n;
	j->results = NULL;
	for (i = 0; i < j->n; i++)
		sc->correct += gpu ? (size_t)sc->results[i].exec : (size_t)sc->results[i].compiled;
	for (i = 0; i < j->sub->npasses; i++)
		if (j->sub->passes[i].error)
			sc->bad_input = 1;
	sc->out_dir = j->out_dir ? ks_strdup(j->out_dir) : NULL;
	rep.results = sc->results;
	/* the references of --baseline reference are scored for their times alone: no folder */
	rc = j->out_dir ? ks_report_write(&rep, &sc->summary) : 0;
	if (rc < 0)
		ks_error_wrap(rc, "writing results");
	cJSON_Delete(nvjson);
	ks_free(rl);
	ks_compile_toolchain_clear(&tc);
	return rc;
}

static void job_complete(void *ud, void *jp)
{
	ks_pipeline *p = ud;
	job *j = jp;
	ks_scored sc;
	int rc;
	memset(&sc, 0, sizeof(sc));
	rc = write_job(p, j, &sc);
	pthread_mutex_lock(&p->mu);
	p->ndone++;
	if (p->opts.progress)
		fprintf(stderr, "\r\033[K");
	pthread_mutex_unlock(&p->mu);
	if (j->done)
		j->done(j->ud, &sc, rc, rc < 0 ? ks_error_msg() : NULL);
	ks_error_clear();
	ks_scored_clear(&sc);
	job_free(j);
	pthread_mutex_lock(&p->mu);
	p->open--;
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
}

static int submit(ks_pipeline *p, const ks_submission *sub, const char *team, const char *out_dir,
		  ks_pipeline_done_fn done, void *ud, int trusted)
{
	job *j = ks_calloc(1, sizeof(*j));
	size_t i, k, n = 0;

	j->p = p;
	j->trusted = trusted;
	j->sub = sub;
	j->team = team ? ks_strdup(team) : NULL;
	j->out_dir = out_dir ? ks_strdup(out_dir) : NULL;
	j->done = done;
	j->ud = ud;
	j->t0 = pl_now();
	j->started = time(NULL);
	for (i = 0; i < sub->npasses; i++)
		n += sub->passes[i].nentries;
	j->entries = ks_calloc(n + 1, sizeof(*j->entries));
	j->pass = ks_calloc(n + 1, sizeof(*j->pass));
	j->results = ks_calloc(n + 1, sizeof(*j->results));
	j->kernel_lane = ks_calloc(n + 1, sizeof(int));
	n = 0;
	for (i = 0; i < sub->npasses; i++)
		for (k = 0; k < sub->passes[i].nentries; k++) {
			j->entries[n] = &sub->passes[i].entries[k];
			j->kernel_lane[n] = -1;
			j->pass[n++] = i;
		}
	j->n = n;
	pthread_mutex_lock(&p->mu);
	p->open++;
	p->njobs++;
	p->nentries += n;
	pthread_mutex_unlock(&p->mu);
	/* from here on the job may complete (and be freed) in other threads: nothing touches it after */
	ks_runq_add(&j->rq, p->runq, j, n);
	if (n)
		ks_prepare_add(&j->set, p->prep, j->results, j->entries, j->pass, n, j);
	return 0;
}

int ks_pipeline_submit(ks_pipeline *p, const ks_submission *sub, const char *team, const char *out_dir,
		       ks_pipeline_done_fn done, void *ud)
{
	/* --baseline reference: every loaded problem's reference, unless the caller named the ones
	 * its answers need (ks_pipeline_score_references) */
	if (p->opts.reference_dir && score_references(p, NULL, 0) < 0) {
		fprintf(stderr, "score: warning: --baseline reference: %s; the speedups are over the golden "
			"kernel\n", ks_error_msg());
		ks_error_clear();
	}
	return submit(p, sub, team, out_dir, done, ud, 0);
}

int ks_pipeline_score_references(ks_pipeline *p, const char *const *problems, size_t n)
{
	return p->opts.reference_dir ? score_references(p, problems, n) : 0;
}

void ks_pipeline_hold_compiles(ks_pipeline *p, int held)
{
	if (p->prep)
		ks_prepare_hold(p->prep, held);
}

void ks_pipeline_end_input(ks_pipeline *p)
{
	if (p->runq)
		ks_runq_end_input(p->runq);
}

void ks_pipeline_wait(ks_pipeline *p)
{
	pthread_mutex_lock(&p->mu);
	while (p->open)
		pthread_cond_wait(&p->cv, &p->mu);
	pthread_mutex_unlock(&p->mu);
}

/* ks_pipeline_score: one submission, waited for. */
typedef struct {
	ks_pipeline *p;
	ks_scored *out;
	int rc, finished;
	char *err;
} one_wait;

static void one_done(void *ud, ks_scored *sc, int rc, const char *err)
{
	one_wait *w = ud;
	*w->out = *sc;
	memset(sc, 0, sizeof(*sc));
	pthread_mutex_lock(&w->p->mu);
	w->rc = rc;
	w->err = err ? ks_strdup(err) : NULL;
	w->finished = 1;
	pthread_cond_broadcast(&w->p->cv);
	pthread_mutex_unlock(&w->p->mu);
}

static int score_one(ks_pipeline *p, ks_scored *out, const ks_submission *sub, const char *team,
		     const char *out_dir, int trusted)
{
	one_wait w;
	memset(out, 0, sizeof(*out));
	memset(&w, 0, sizeof(w));
	w.p = p;
	w.out = out;
	submit(p, sub, team, out_dir, one_done, &w, trusted);
	pthread_mutex_lock(&p->mu);
	while (!w.finished)
		pthread_cond_wait(&p->cv, &p->mu);
	pthread_mutex_unlock(&p->mu);
	if (w.rc < 0)
		ks_error_set(w.rc, "%s", w.err ? w.err : "writing results");
	ks_free(w.err);
	return w.rc;
}

int ks_pipeline_score(ks_pipeline *p, ks_scored *out, const ks_submission *sub, const char *team,
		      const char *out_dir)
{
	return score_one(p, out, sub, team, out_dir, 0);
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

/* ---- session */

/* --baseline reference=DIR: the references, scored before any answer in this session (same
 * lanes, same protocol), give each answer's baseline times. Without timing there is nothing to
 * take: a warning, and the golden kernel stays the baseline of the checks' records. */
static int score_references(ks_pipeline *p, const char *const *only, size_t nonly)
{
	ks_submission *sub = NULL;
	ks_scored sc;
	char *missing = NULL;
	int rc;

	memset(&sc, 0, sizeof(sc));
	/* once a session; a caller that comes while another scores them waits for the times (batch
	 * submits from several threads), so that no answer is judged before its baseline is in */
	pthread_mutex_lock(&p->mu);
	rc = p->refbase_state;
	if (rc == 0)
		p->refbase_state = 1;
	while (p->refbase_state == 1 && rc != 0)
		pthread_cond_wait(&p->cv, &p->mu);
	pthread_mutex_unlock(&p->mu);
	if (rc)
		return 0;
	if ((rc = ks_refbase_submission(&sub, &missing, p->problems, p->opts.reference_dir, only, nonly)) < 0)
		goto done;
	if (!p->timing) {
		fprintf(stderr, "score: warning: --baseline reference: nothing is timed in this run (%s): the "
			"references are not scored\n", p->first ? "--no-timing" : "no GPU");
		goto done;
	}
	if (p->opts.progress)
		fprintf(stderr, "score: scoring the reference implementations in %s first (the baseline)\n",
			p->opts.reference_dir);
	if ((rc = score_one(p, &sc, sub, "reference", NULL, 1)) < 0)
		goto done;
	p->refbase = ks_refbase_new(p->opts.reference_dir, sc.results, sc.nresults, missing);
	p->refbase_json = ks_refbase_json(p->refbase);
	fprintf(stderr, "score: baseline: %s\n", ks_refbase_describe(p->refbase));
done:
	pthread_mutex_lock(&p->mu);
	p->refbase_state = 2;
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
	ks_scored_clear(&sc);
	ks_submission_free(sub);
	ks_free(missing);
	return rc;
}

int ks_pipeline_new(ks_pipeline **out, const ks_pipeline_options *o)
{
	ks_pipeline *p = ks_calloc(1, sizeof(*p));
	ks_compile_options vo = KS_COMPILE_OPTIONS_INIT;
	ks_runq_ops ops = { stage_run, stage_orphan, lane_lost, job_complete, NULL };
	size_t i;
	int rc;

	*out = NULL;
	p->t_new = pl_now();
	p->opts = *o;
	/* the harness and calibration kernels share the session's compile cache and parallelism, not
	 * its compile limits: they are kscore's own kernels, never a team's */
	p->opts.runner.compile.cache_dir = o->compile.cache_dir;
	p->opts.runner.compile.jobs = o->compile.jobs;
	if (o->ndevices > KS_PIPELINE_MAX_LANES)
		p->opts.ndevices = KS_PIPELINE_MAX_LANES;
	if (o->nks > KS_PIPELINE_MAX_KS)
		p->opts.nks = KS_PIPELINE_MAX_KS;
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->cv, NULL);
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
	p->golden_ok = ks_calloc(p->problems->n + 1, 1);
	p->goldens = ks_golden_store_new();
	if (!o->compile_only) {
		if ((rc = pl_start_lanes(p)) < 0)
			goto fail;
		if (!p->first && o->require_gpu) {
			rc = ks_error_set(KS_EUNSUPPORTED, "no usable GPU: %s", p->no_gpu);
			goto fail;
		}
	}
	if (p->first) {
		ks_problem_set_sm_count(p->problems, p->first->dev.sm_count);
		p->arch = ks_arch_for(p->first->dev.cc_major, p->first->dev.cc_minor);
	}
	if (p->first && (o->nvtool.sanitize || o->nvtool.profile)) {
		ks_nvtool_options no = o->nvtool;
		/* the session's, kept in one place (runner) */
		no.seed = o->seed;
		no.kernel_timeout_s = o->runner.kernel_timeout_s;
		no.limits = o->runner.limits;
		ks_nvtool_new(&p->nvtool, &no);
	}
	p->nvrtc = ks_compile_nvrtc_version(&vo);
	for (i = 0; i < p->ngpus; i++) {
		pl_gpu *g = &p->gpus[i];
		char *path;
		g->golden_source = ks_strdup("live: timed in the same session, interleaved with each candidate");
		if (!o->use_baseline)
			continue;
		path = o->baseline ? ks_strdup(o->baseline)
				   : ks_baseline_default_path(o->compile.cache_dir ? o->compile.cache_dir : ".", &g->dev);
		if (ks_baseline_load(&g->baseline, path) < 0)
			fprintf(stderr, "score: warning: no stored baseline (%s): the golden kernel is timed live\n",
				ks_error_msg());
		else if (!ks_baseline_matches(g->baseline, &g->dev)) {
			fprintf(stderr, "score: warning: %s was measured on another GPU or driver: the golden kernel is "
				"timed live\n", path);
			ks_baseline_free(g->baseline);
			g->baseline = NULL;
		} else {
			ks_free(g->golden_source);
			g->golden_source = ks_strdup(ks_baseline_describe(g->baseline));
		}
		ks_free(path);
	}
	/* the run's queue: the check and timing settings of every entry, the prepare step (compiles
	 * on every core), the lanes (held until their GPU's ceilings are in) */
	{
		ks_check_options ci = KS_CHECK_OPTIONS_INIT;
		p->co = ci;
	}
	p->co.problems = p->problems;
	p->co.compile = p->opts.compile;
	if (p->arch)
		p->co.compile.arch = p->arch; /* the GPU's own architecture wins over --arch */
	p->co.seed = p->opts.seed;
	p->co.compile_only = p->opts.compile_only;
	p->co.limits = p->opts.runner.limits;
	p->timing = p->first && !o->no_timing;
	p->to.cfg = p->cfg;
	p->to.seed = p->opts.seed;
	p->to.limits = p->co.limits;
	if (p->first)
		pl_calibrate_start(p);
	ops.ud = p;
	if ((rc = ks_runq_new(&p->runq, p->first ? p->lanes : NULL, &ops)) < 0 ||
	    (rc = ks_prepare_new(&p->prep, p->goldens, p->first != NULL, &p->co, entry_prepared, p)) < 0)
		goto fail;
	if (o->reference_dir) {
		/* the folder is checked now; its references are scored before the first answer
		 * (ks_pipeline_score_references) */
		ks_submission *sub = NULL;
		char *missing = NULL;
		rc = ks_refbase_submission(&sub, &missing, p->problems, o->reference_dir, NULL, 0);
		ks_submission_free(sub);
		ks_free(missing);
		if (rc < 0)
			goto fail;
	}
	*out = p;
	return 0;
fail:
	ks_pipeline_free(p);
	return rc;
}

int ks_pipeline_has_gpu(const ks_pipeline *p)
{
	return p->first != NULL;
}

size_t ks_pipeline_lanes(const ks_pipeline *p)
{
	return p->first ? p->nlanes : 0;
}

const char *ks_pipeline_no_gpu_reason(const ks_pipeline *p)
{
	return p->no_gpu;
}

const ks_problem_set *ks_pipeline_problems(const ks_pipeline *p)
{
	return p->problems;
}

void ks_pipeline_free(ks_pipeline *p)
{
	if (!p)
		return;
	if (p->runq)
		ks_pipeline_wait(p);
	ks_prepare_free(p->prep);
	ks_runq_free(p->runq);
	pl_gpus_free(p);
	ks_golden_store_free(p->goldens);
	ks_problem_set_free(p->problems);
	ks_free(p->golden_ok);
	ks_free(p->arch);
	ks_free(p->no_gpu);
	ks_free(p->nvrtc);
	ks_free(p->config_path);
	ks_nvtool_free(p->nvtool);
	cJSON_Delete(p->start_json);
	ks_refbase_free(p->refbase);
	cJSON_Delete(p->refbase_json);
	pthread_mutex_destroy(&p->mu);
	pthread_cond_destroy(&p->cv);
	ks_free(p);
}
