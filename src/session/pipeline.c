#include "session/pipeline.h"
#include "time/baseline.h"
#include "time/calibrate.h"
#include "run/check.h"
#include "lang/cuda/compile.h"
#include "time/config.h"
#include "util/errors.h"
#include "util/fsutil.h"
#include "session/lanes.h"
#include "util/mem.h"
#include "report/report.h"
#include "judge/roofline.h"
#include "run/runner.h"
#include "time/timing.h"
#include "run/worker.h"
#include "nvtool/nvtool.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

_Static_assert(KS_PIPELINE_MAX_LANES == KS_LANES_MAX, "one limit on lanes");

/* Runners per lane. One checks while another times: the lane's gate keeps every timed request
 * alone on the GPU, so the checks of the next kernels fill the time the timing protocol spends
 * outside its timed runs (setting up input sets, golden runs behind verified runs, round trips)
 * without touching a measurement. */
#define LANE_THREADS 2

/* KSCORE_TEST_FAIL_LANE=L[:N] (tests only): lane L's GPU "fails" once the lane has finished N
 * items (0: at once, its workers never start). Failing means what a GPU that fell off the bus
 * does: the lane's workers are gone and a fresh one cannot start (it is started on an ordinal no
 * machine has). */
#define TEST_BAD_DEVICE 1023

enum { ITEM_CHECK = 0, ITEM_TIME = 1 };

/* One physical GPU (by uuid): its ceilings and stored golden times, for every lane on it. */
typedef struct {
	ks_device_info dev;
	int ordinal;
	ks_ceilings ceil;
	int have_ceil;
	char *ceil_error;
	ks_baseline *baseline;
	char *golden_source;
	const ks_pipeline_options *opts; /* the session's (cache, --recalibrate) */
} gpu_rec;

typedef struct {
	ks_pipeline *p;
	size_t index;
	int ordinal;
	ks_runner *run[LANE_THREADS];   /* each created, used and freed by its own lane thread */
	ks_worker_gate gate;
	ks_device_info dev;
	int started;
	int shared;                     /* another lane runs on the same GPU */
	gpu_rec *g;
	size_t items;                   /* items finished (under the pipeline's lock) */
} lane;

struct ks_pipeline {
	ks_pipeline_options opts;
	ks_problem_set *problems;
	ks_lanes *lanes;
	lane lane[KS_PIPELINE_MAX_LANES];
	size_t nlanes;
	gpu_rec gpus[KS_PIPELINE_MAX_LANES];
	size_t ngpus;
	lane *first;                    /* the first lane that started: the run's device */
	char *arch;
	char *no_gpu;
	char *nvrtc;
	ks_config cfg;
	char *config_path;
	ks_golden_store *goldens;
	unsigned char *golden_ok;       /* per problem: its golden kernel ran on a GPU of this run */
	int calibrated;
	int fail_lane, fail_after;
	pthread_mutex_t mu;
	ks_nvtool *nvtool;            /* the sanitizer and profiler stages; NULL when neither is asked */
	cJSON *nvtool_json;
};

/* ---- lanes: start, stop, the gate */

static void gate_enter(void *ud, int exclusive)
{
	lane *L = ud;
	ks_lanes_gate_enter(L->p->lanes, L->index, exclusive);
}

static void gate_leave(void *ud, int exclusive)
{
	lane *L = ud;
	ks_lanes_gate_leave(L->p->lanes, L->index, exclusive);
}

static int start_runner(ks_pipeline *p, lane *L, size_t t, int device)
{
	ks_runner_options ro = p->opts.runner;
	ro.device = device;
	ro.gate = &L->gate;
	return ks_runner_start(&L->run[t], &ro);
}

static int lane_start(void *ud, size_t li, size_t t, char **why)
{
	ks_pipeline *p = ud;
	lane *L = &p->lane[li];
	int test = p->fail_lane == (int)li && p->fail_after == 0;
	if (start_runner(p, L, t, test ? TEST_BAD_DEVICE : L->ordinal) < 0) {
		*why = ks_asprintf("%s%s", test ? "KSCORE_TEST_FAIL_LANE: " : "", ks_error_msg());
		return -1;
	}
	if (t == 0) {
		L->dev = *ks_runner_device(L->run[0]);
		L->started = 1;
	}
	return 0;
}

static void lane_stop(void *ud, size_t li, size_t t)
{
	ks_pipeline *p = ud;
	ks_runner_free(p->lane[li].run[t]);
	p->lane[li].run[t] = NULL;
}

static void add_lane(ks_pipeline *p, int ordinal)
{
	lane *L = &p->lane[p->nlanes];
	L->p = p;
	L->index = p->nlanes;
	L->ordinal = ordinal;
	L->gate.enter = gate_enter;
	L->gate.leave = gate_leave;
	L->gate.ud = L;
	if (ks_lanes_add(p->lanes, LANE_THREADS) >= 0)
		p->nlanes++;
}

static void read_test_hook(ks_pipeline *p)
{
	const char *e = getenv("KSCORE_TEST_FAIL_LANE");
	char *end = NULL;
	long l, n = 0;
	p->fail_lane = -1;
	if (!e || !*e)
		return;
	l = strtol(e, &end, 10);
	if (*end == ':')
		n = strtol(end + 1, &end, 10);
	if (*end || l < 0 || n < 0) {
		fprintf(stderr, "score: warning: KSCORE_TEST_FAIL_LANE=%s is not LANE[:ITEMS]: ignored\n", e);
		return;
	}
	p->fail_lane = (int)l;
	p->fail_after = (int)n;
}

/* Starts every lane (all at once: each creates its CUDA contexts in its own threads), then checks
 * that they can be used together. Returns 0 (p->first is NULL when no lane started: no GPU), or
 * KS_EUNSUPPORTED when GPUs of different models were listed without --mixed-gpus. */
static int start_lanes(ks_pipeline *p)
{
	ks_lane_setup setup = { lane_start, lane_stop, NULL };
	size_t i, j, n;
	setup.ud = p;
	read_test_hook(p);
	ks_lanes_new(&p->lanes, &setup);
	if (p->opts.devices_all) {
		/* how many there are, the first worker tells (score never initialises CUDA itself) */
		add_lane(p, 0);
		ks_lanes_wait_started(p->lanes);
		n = p->lane[0].started ? (size_t)p->lane[0].dev.device_count : 0;
		for (i = 1; i < n && i < KS_PIPELINE_MAX_LANES; i++)
			add_lane(p, (int)i);
	} else if (p->opts.ndevices) {
		for (i = 0; i < p->opts.ndevices; i++)
			add_lane(p, p->opts.devices[i]);
	} else
		add_lane(p, p->opts.device);
	ks_lanes_wait_started(p->lanes);
	for (i = 0; i < p->nlanes; i++)
		if (ks_lanes_alive(p->lanes, i) && !p->first)
			p->first = &p->lane[i];
	if (!p->first) {
		p->no_gpu = ks_strdup(p->nlanes && ks_lanes_why(p->lanes, 0) ? ks_lanes_why(p->lanes, 0)
									   : "no GPU lane could start");
		return 0;
	}
	for (i = 0; i < p->nlanes; i++) {
		lane *L = &p->lane[i];
		if (!ks_lanes_alive(p->lanes, i)) {
			fprintf(stderr, "score: warning: lane %zu (GPU %d) could not start: %s; the run goes on "
				"without it\n", i, L->ordinal, ks_lanes_why(p->lanes, i));
			continue;
		}
		if (strcmp(L->dev.name, p->first->dev.name) && !p->opts.mixed_gpus)
			return ks_error_set(KS_EUNSUPPORTED, "--devices: GPU %d is an %s but GPU %d is an %s: a "
					    "run's timings must come from one GPU model, since its speedups are "
					    "compared across kernels and teams (give --mixed-gpus to score on both "
					    "anyway)", p->first->ordinal, p->first->dev.name, L->ordinal,
					    L->dev.name);
		if (L->dev.cc_major != p->first->dev.cc_major || L->dev.cc_minor != p->first->dev.cc_minor)
			return ks_error_set(KS_EUNSUPPORTED, "--devices: GPU %d (compute capability %d.%d) and "
					    "GPU %d (%d.%d) need different kernel binaries; one run compiles for one "
					    "architecture, --mixed-gpus or not", p->first->ordinal,
					    p->first->dev.cc_major, p->first->dev.cc_minor, L->ordinal,
					    L->dev.cc_major, L->dev.cc_minor);
		for (j = 0; j < p->ngpus; j++)
			if (!strcmp(p->gpus[j].dev.uuid, L->dev.uuid) &&
			    (L->dev.uuid[0] || p->gpus[j].ordinal == L->ordinal))
				break;
		if (j == p->ngpus) {
			p->gpus[j].dev = L->dev;
			p->gpus[j].ordinal = L->ordinal;
			p->ngpus++;
		} else {
			/* a GPU listed twice: lanes that share it never time alone */
			for (n = 0; n < i; n++)
				if (p->lane[n].g == &p->gpus[j])
					p->lane[n].shared = 1;
			L->shared = 1;
		}
		L->g = &p->gpus[j];
	}
	return 0;
}

/* ---- session */

int ks_pipeline_new(ks_pipeline **out, const ks_pipeline_options *o)
{
	ks_pipeline *p = ks_calloc(1, sizeof(*p));
	ks_compile_options vo = KS_COMPILE_OPTIONS_INIT;
	size_t i;
	int rc;

	*out = NULL;
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
		if ((rc = start_lanes(p)) < 0)
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
		gpu_rec *g = &p->gpus[i];
		char *path;
		g->opts = &p->opts;
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

const char *ks_pipeline_no_gpu_reason(const ks_pipeline *p)
{
	return p->no_gpu;
}

const ks_problem_set *ks_pipeline_problems(const ks_pipeline *p)
{
	return p->problems;
}

/* ---- ceilings: each GPU's own, measured (or read from the cache) once per session, before any
 * lane uses the GPU, so no measurement shares it; GPUs are calibrated in parallel */

static void *calibrate_main(void *ud)
{
	gpu_rec *g = ud;
	const ks_compile_options *co = &g->opts->runner.compile;
	char *exe = ks_fs_find_helper("kscore-worker");
	if (exe && ks_ceilings_get(&g->ceil, co->cache_dir, exe, g->ordinal, &g->dev, co, g->opts->recalibrate) == 0)
		g->have_ceil = 1;
	else {
		g->ceil_error = ks_strdup(ks_error_msg());
		fprintf(stderr, "score: warning: could not measure the ceilings of GPU %d: %s; no roofline "
			"verdicts for its kernels\n", g->ordinal, g->ceil_error);
	}
	ks_free(exe);
	return NULL;
}

static void calibrate_all(ks_pipeline *p)
{
	pthread_t th[KS_PIPELINE_MAX_LANES];
	int made[KS_PIPELINE_MAX_LANES] = { 0 };
	size_t i;
	if (p->calibrated)
		return;
	p->calibrated = 1;
	for (i = 0; i < p->ngpus; i++)
		made[i] = pthread_create(&th[i], NULL, calibrate_main, &p->gpus[i]) == 0;
	for (i = 0; i < p->ngpus; i++) {
		if (made[i])
			pthread_join(th[i], NULL);
		else
			calibrate_main(&p->gpus[i]);
	}
}

/* ---- one submission over the lanes */

typedef struct {
	ks_pipeline *p;
	ks_kernel_result *results;
	ks_check_batch *batch;
	ks_check_options co;
	ks_timing_options to;
	int timing;
	int *kernel_lane;
	const char *label;
	size_t n, checked, timed;
} session;

static void progress(session *s, const char *what)
{
	if (!s->p->opts.progress)
		return;
	fprintf(stderr, "\r\033[K%s: [%zu checked, %zu timed, of %zu] %s", s->label, s->checked, s->timed, s->n,
		what ? what : "");
	fflush(stderr);
}

/* A slow stage of one item (the tools' runs take seconds): on the progress line. */
static void item_progress(session *s, const char *stage, const char *problem)
{
	char *what;
	if (!s->p->opts.progress)
		return;
	what = ks_asprintf("%s: %s", stage, problem ? problem : "?");
	pthread_mutex_lock(&s->p->mu);
	progress(s, what);
	pthread_mutex_unlock(&s->p->mu);
	ks_free(what);
}

static void ready(void *ud, size_t i)
{
	session *s = ud;
	ks_lanes_push(s->p->lanes, ITEM_CHECK, i, 0);
}

static size_t problem_index(const ks_pipeline *p, const ks_problem *q)
{
	size_t k;
	for (k = 0; k < p->problems->n; k++)
		if (p->problems->problems[k] == q)
			break;
	return k;
}

/* A golden kernel that ran on this session's GPUs before: the reference for telling a failing GPU
 * from a failing kernel. */
static const ks_problem *known_good(ks_pipeline *p, const ks_problem *hint)
{
	const ks_problem *q = NULL;
	size_t k;
	pthread_mutex_lock(&p->mu);
	if (p->golden_ok[problem_index(p, hint)])
		q = hint;
	for (k = 0; !q && k < p->problems->n; k++)
		if (p->golden_ok[k])
			q = p->problems->problems[k];
	pthread_mutex_unlock(&p->mu);
	return q;
}

/* After a worker died or a golden kernel failed: is it the GPU? A fresh candidate worker must
 * start and load a golden module, and a golden kernel that ran before must run again (DESIGN §4.3:
 * only the kernel that caused a failure is charged, and a GPU is not a kernel). Returns 0 when the
 * lane is fine, -1 with *why when its GPU is failing. */
static int probe(ks_pipeline *p, ks_runner *run, const ks_problem *hint, char **why)
{
	const ks_problem *q = known_good(p, hint);
	ks_candidate_image gi;
	ks_func_info fi[KS_PLAN_MAX_FUNCS];
	ks_run_result res;
	int module = -1, rc = 0;

	if (ks_golden_store_image(&gi, p->goldens, q ? q : hint) < 0)
		return 0; /* nothing known to run: no verdict on the GPU */
	ks_runner_load(run, &res, &module, fi, gi.cubin, gi.len, gi.lowered, gi.nlowered);
	if (res.status != KS_RUN_OK) {
		*why = ks_asprintf("a fresh worker cannot load a golden kernel: %s", res.message ? res.message : "?");
		ks_run_result_clear(&res);
		return -1;
	}
	ks_run_result_clear(&res);
	ks_runner_unload(run, module);
	if (q && ks_golden_store_register(p->goldens, run, q) == 0) {
		const ks_case *c = &q->correctness[0];
		ks_fetch_mode fetch[KS_LAUNCH_MAX_SCRATCH + 72];
		ks_env env = KS_ENV_INIT;
		ks_plan plan;
		size_t i;
		const ks_plan_limits *lim = &p->opts.runner.limits;
		if (q->ncorrectness && ks_problem_env(&env, q, c) == 0 &&
		    ks_plan_build(&plan, q, &q->golden_launch, c, &env, ks_seed_derive(p->opts.seed, q->name, 0, 0, 0), 0,
				  lim) == 0) {
			for (i = 0; i < plan.nbufs; i++)
				fetch[i] = KS_FETCH_CHECKSUM;
			ks_runner_golden_plan(run, &res, q, &plan, fetch);
			if (res.status != KS_RUN_OK) {
				*why = ks_asprintf("the golden kernel of %s, which ran before, fails on this GPU now: %s",
						   q->name, res.message ? res.message : "?");
				rc = -1;
			}
			ks_run_result_clear(&res);
			ks_plan_clear(&plan);
		}
		ks_env_free(&env);
	}
	return rc;
}

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

/* KSCORE_TEST_FAIL_LANE: this lane's GPU goes away now. */
static int test_failure(ks_pipeline *p, lane *L, size_t t, char **why)
{
	size_t done;
	if (p->fail_lane != (int)L->index || p->fail_after == 0)
		return 0;
	pthread_mutex_lock(&p->mu);
	done = L->items;
	pthread_mutex_unlock(&p->mu);
	if (done < (size_t)p->fail_after)
		return 0;
	ks_runner_free(L->run[t]);
	L->run[t] = NULL;
	if (start_runner(p, L, t, TEST_BAD_DEVICE) < 0)
		*why = ks_asprintf("KSCORE_TEST_FAIL_LANE: a fresh worker cannot start: %s", ks_error_msg());
	else
		*why = ks_strdup("KSCORE_TEST_FAIL_LANE");
	return 1;
}

static void mark_golden_ok(ks_pipeline *p, const ks_problem *q)
{
	pthread_mutex_lock(&p->mu);
	p->golden_ok[problem_index(p, q)] = 1;
	pthread_mutex_unlock(&p->mu);
}

static ks_lane_outcome item_run(void *ud, size_t li, size_t t, int kind, size_t i, char **why)
{
	session *s = ud;
	ks_pipeline *p = s->p;
	lane *L = &p->lane[li];
	ks_runner *run = L->run[t];
	ks_kernel_result *r = &s->results[i];
	ks_candidate_image *img = ks_check_batch_image(s->batch, i);
	const ks_problem *q = img->problem;
	output_mark out = { NULL, 0, 0 };

	if (test_failure(p, L, t, why))
		return KS_LANE_LOST;
	if (kind == ITEM_CHECK) {
		ks_check_entry(r, img, run, p->goldens, &s->co);
		if ((!ks_runner_candidate_worker(run) || worker_died(r->reason) ||
		     (r->reason == KS_REASON_PROBLEM_INVALID && r->ran)) &&
		    probe(p, run, q, why) < 0) {
			ks_check_reset(r);
			return KS_LANE_LOST;
		}
		if (r->ncases && r->cases[0].reason != KS_REASON_PROBLEM_INVALID)
			mark_golden_ok(p, q);
		/* after the checks, before timing: a kernel the sanitizer fails is not timed */
		if (r->exec && p->nvtool) {
			item_progress(s, "sanitizer", r->problem);
			ks_nvtool_sanitize(p->nvtool, r, img, run);
		}
	} else {
		ks_timing_options to;
		/* the device-dependent settings of this lane's GPU (timing.h), the session's for the rest */
		ks_timing_options_for(&to, &L->dev, p->opts.runner.kernel_timeout_s);
		to.cfg = s->to.cfg;
		to.seed = s->to.seed;
		to.limits = s->to.limits;
		to.baseline = L->g->baseline;
		output_keep(&out, r);
		if (ks_golden_store_register(p->goldens, run, q) < 0)
			r->timing_error = ks_strdup(ks_error_msg());
		else
			ks_time_kernel(r, img, run, &to);
		if ((r->timing_error || !ks_runner_candidate_worker(run) || (!r->exec && worker_died(r->reason))) &&
		    probe(p, run, q, why) < 0) {
			reset_timing(r, &out);
			return KS_LANE_LOST;
		}
		output_clear(&out);
		ks_judge_kernel(r, q, L->g->have_ceil ? &L->g->ceil : NULL, &p->cfg);
		/* after every timed number is taken: profiling changes none of them */
		if (p->nvtool && ks_nvtool_wants_profile(p->nvtool, r)) {
			item_progress(s, "profiling", r->problem);
			ks_nvtool_profile(p->nvtool, r, img, run);
		}
	}
	pthread_mutex_lock(&p->mu);
	L->items++;
	s->kernel_lane[i] = (int)li;
	if (kind == ITEM_TIME)
		s->timed++;
	else
		s->checked++;
	progress(s, r->problem);
	pthread_mutex_unlock(&p->mu);
	if (kind == ITEM_CHECK && r->exec && s->timing)
		ks_lanes_push(p->lanes, ITEM_TIME, i, 0);
	return KS_LANE_DONE;
}

static void item_orphan(void *ud, int kind, size_t i, const char *why)
{
	session *s = ud;
	ks_kernel_result *r = &s->results[i];
	if (kind == ITEM_CHECK)
		ks_kernel_result_fail(r, KS_REASON_NOT_RUN, "compiled; not run: %s", why);
	else if (!r->timing_error)
		r->timing_error = ks_asprintf("not timed: %s", why);
}

static void lane_lost(void *ud, size_t li, const char *why)
{
	session *s = ud;
	lane *L = &s->p->lane[li];
	if (s->p->opts.progress)
		fprintf(stderr, "\r\033[K");
	fprintf(stderr, "score: warning: lane %zu (GPU %d, %s) is out of the rotation: %s; its work goes to the "
		"other lanes\n", li, L->ordinal, L->dev.uuid[0] ? L->dev.uuid : "no uuid", why);
}

/* The first lane still in the rotation (its runners are idle between rounds). */
static ks_runner *idle_runner(ks_pipeline *p)
{
	size_t i;
	for (i = 0; i < p->nlanes; i++)
		if (ks_lanes_alive(p->lanes, i) && p->lane[i].run[0])
			return p->lane[i].run[0];
	return NULL;
}

int ks_pipeline_score(ks_pipeline *p, ks_scored *out, const ks_submission *sub, const char *team,
		      const char *out_dir)
{
	session s;
	const ks_entry **entries = NULL;
	ks_report_lane *rl = NULL;
	size_t *pass = NULL, n = 0, i, j;
	ks_compile_toolchain tc = { NULL, NULL };
	struct timespec t0, t1;
	ks_report rep;
	ks_runner *idle;
	int rc, gpu = p->first != NULL;

	memset(out, 0, sizeof(*out));
	memset(&rep, 0, sizeof(rep));
	memset(&s, 0, sizeof(s));
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
	s.p = p;
	s.results = out->results;
	s.n = n;
	s.label = sub->path;
	s.kernel_lane = ks_calloc(n + 1, sizeof(int));
	for (i = 0; i < n; i++)
		s.kernel_lane[i] = -1;
	{
		ks_check_options ci = KS_CHECK_OPTIONS_INIT;
		s.co = ci;
	}
	s.co.problems = p->problems;
	s.co.compile = p->opts.compile;
	if (p->arch)
		s.co.compile.arch = p->arch; /* the GPU's own architecture wins over --arch */
	s.co.seed = p->opts.seed;
	s.co.compile_only = p->opts.compile_only;
	s.co.limits = p->opts.runner.limits;
	s.timing = gpu && !p->opts.no_timing;
	if (s.timing) {
		calibrate_all(p);
		s.to.cfg = p->cfg;
		s.to.seed = p->opts.seed;
		s.to.limits = s.co.limits;
		if ((idle = idle_runner(p)))
			rep.status_start = ks_runner_status(idle);
	}
	if (gpu) {
		ks_lane_work w = { item_run, item_orphan, lane_lost, NULL, 0 };
		w.ud = &s;
		ks_lanes_begin(p->lanes, &w);
	}
	ks_check_batch_start(&s.batch, out->results, entries, pass, n, p->goldens, gpu, &s.co, ready, &s);
	ks_check_batch_wait(s.batch);
	if (gpu)
		ks_lanes_end(p->lanes);
	if (p->opts.progress)
		fprintf(stderr, "\r\033[K");
	if (s.timing) {
		if ((idle = idle_runner(p)))
			rep.status_end = ks_runner_status(idle);
		rep.ceilings = p->first->g->have_ceil ? &p->first->g->ceil : NULL;
		rep.config = &p->cfg;
		rep.golden_source = p->first->g->golden_source;
	}
	if (gpu) {
		rl = ks_calloc(p->nlanes + 1, sizeof(*rl));
		for (i = 0; i < p->nlanes; i++) {
			const lane *L = &p->lane[i];
			rl[i].ordinal = L->ordinal;
			rl[i].device = L->started ? &L->dev : NULL;
			rl[i].shared = L->shared;
			rl[i].out = ks_lanes_why(p->lanes, i);
			rl[i].ceilings = L->g && L->g->have_ceil && s.timing ? &L->g->ceil : NULL;
			rl[i].golden_source = L->g && s.timing ? L->g->golden_source : NULL;
		}
		rep.lanes = rl;
		rep.nlanes = p->nlanes;
		rep.kernel_lane = s.kernel_lane;
	}
	rep.out_dir = out_dir;
	rep.team = team;
	rep.submission = sub;
	rep.results = out->results;
	rep.nresults = n;
	rep.ks = p->opts.ks;
	rep.nks = p->opts.nks;
	rep.gpu = gpu;
	rep.no_gpu_reason = p->no_gpu;
	rep.device = gpu ? &p->first->dev : NULL;
	rep.arch = p->arch ? p->arch : p->opts.compile.arch;
	rep.nvrtc_version = p->nvrtc;
	{
		ks_compile_options tco = s.co.compile;
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
	rep.nvtools = gpu ? p->nvtool_json : NULL;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	rep.wall_s = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9;
	for (i = 0; i < n; i++)
		out->correct += gpu ? (size_t)out->results[i].exec : (size_t)out->results[i].compiled;
	out->out_dir = ks_strdup(out_dir);
	rc = ks_report_write(&rep, &out->summary);
	if (rc < 0)
		ks_error_wrap(rc, "writing results");
	ks_check_batch_free(s.batch);
	cJSON_Delete(rep.status_start);
	cJSON_Delete(rep.status_end);
	ks_free(rl);
	ks_free(s.kernel_lane);
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
	size_t i;
	if (!p)
		return;
	ks_lanes_free(p->lanes);
	for (i = 0; i < p->ngpus; i++) {
		ks_free(p->gpus[i].ceil_error);
		ks_baseline_free(p->gpus[i].baseline);
		ks_free(p->gpus[i].golden_source);
	}
	ks_golden_store_free(p->goldens);
	ks_problem_set_free(p->problems);
	ks_free(p->golden_ok);
	ks_free(p->arch);
	ks_free(p->no_gpu);
	ks_free(p->nvrtc);
	ks_free(p->config_path);
	ks_nvtool_free(p->nvtool);
	cJSON_Delete(p->nvtool_json);
	pthread_mutex_destroy(&p->mu);
	ks_free(p);
}
