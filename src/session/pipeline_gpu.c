/* pipeline_gpu: the GPUs of a scoring session (pipeline_int.h): lanes started in parallel, each
 * GPU's ceilings taken while its lanes are held, and the probe that tells a failing GPU from a
 * failing kernel. */
#include "session/pipeline_int.h"
#include "util/errors.h"
#include "util/mem.h"
#include "util/fsutil.h"
#include "util/tracelog.h"
#include "run/runner.h"
#include "run/worker.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* KSCORE_TEST_FAIL_LANE=L[:N] (tests only): lane L's GPU "fails" once the lane has finished N
 * items (0: at once, its workers never start). Failing means what a GPU that fell off the bus
 * does: the lane's workers are gone and a fresh one cannot start (it is started on an ordinal no
 * machine has). */
#define TEST_BAD_DEVICE 1023

double pl_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

/* ---- lanes: start, stop, the gate */

static void gate_enter(void *ud, int exclusive)
{
	pl_lane *L = ud;
	ks_lanes_gate_enter(L->p->lanes, L->index, exclusive);
}

static void gate_leave(void *ud, int exclusive)
{
	pl_lane *L = ud;
	ks_lanes_gate_leave(L->p->lanes, L->index, exclusive);
}

static int start_runner(ks_pipeline *p, pl_lane *L, size_t t, int device)
{
	ks_runner_options ro = p->opts.runner;
	ro.device = device;
	/* Each worker initialises only its lane's GPU: a driver that initialises every GPU of the host
	 * in every worker made the lanes' start grow with the GPUs. With --devices all, the first lane
	 * is how the run learns how many GPUs there are, so its workers see them all. */
	ro.own_device = !(p->opts.devices_all && L->index == 0);
	ro.gate = &L->gate;
	/* a fresh runner after a failure shares the GPU's golden results; the first ones cannot know
	 * the GPU yet (pl_share_goldens) */
	pthread_mutex_lock(&p->mu); /* a lane's later threads start while the run sets up its GPUs */
	ro.goldens = L->g ? L->g->goldens : NULL;
	pthread_mutex_unlock(&p->mu);
	L->shares[t] = ro.goldens != NULL;
	return ks_runner_begin(&L->run[t], &ro);
}

void pl_share_goldens(pl_lane *L, size_t t)
{
	if (L->shares[t] || !L->g || !L->run[t])
		return;
	ks_runner_share_goldens(L->run[t], L->g->goldens);
	L->shares[t] = 1;
}

/* A lane thread's start, first half: its GPU is known (ks_runner_begin), the run can go on. */
static int lane_start(void *ud, size_t li, size_t t, char **why)
{
	ks_pipeline *p = ud;
	pl_lane *L = &p->lane[li];
	int test = p->fail_lane == (int)li && p->fail_after == 0;
	L->t_begin[t] = pl_now();
	if (start_runner(p, L, t, test ? TEST_BAD_DEVICE : L->ordinal) < 0) {
		*why = ks_asprintf("%s%s", test ? "KSCORE_TEST_FAIL_LANE: " : "", ks_error_msg());
		return -1;
	}
	if (t == 0) {
		pthread_mutex_lock(&p->mu);
		if (!L->started) /* a parked thread's comeback: the reports may be reading it */
			L->dev = *ks_runner_device(L->run[0]);
		L->started = 1;
		pthread_mutex_unlock(&p->mu);
	}
	return 0;
}

/* The second half, before the thread takes work: harness and contexts (ks_runner_finish). */
static int lane_ready(void *ud, size_t li, size_t t, char **why)
{
	ks_pipeline *p = ud;
	pl_lane *L = &p->lane[li];
	double took;
	if (ks_runner_finish(L->run[t]) < 0) {
		*why = ks_strdup(ks_error_msg());
		return -1;
	}
	took = pl_now() - L->t_begin[t];
	pthread_mutex_lock(&p->mu);
	if (took > L->start_s && !L->was_ready[t])
		L->start_s = took; /* the run's start, not a parked thread's comeback (lanes.h) */
	L->was_ready[t] = 1;
	pthread_mutex_unlock(&p->mu);
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
	pl_lane *L = &p->lane[p->nlanes];
	L->p = p;
	L->index = p->nlanes;
	L->ordinal = ordinal;
	L->gate.enter = gate_enter;
	L->gate.leave = gate_leave;
	L->gate.ud = L;
	if (ks_lanes_add(p->lanes, PL_LANE_THREADS) >= 0)
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

int pl_start_lanes(ks_pipeline *p)
{
	ks_lane_setup setup = { lane_start, lane_stop, NULL, lane_ready };
	size_t i, j, n;
	double t0 = pl_now(), t_tr = ks_tracelog_ms();
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
	p->lanes_s = pl_now() - t0;
	ks_tracelog_span("lanes", NULL, t_tr);
	for (i = 0; i < p->nlanes; i++)
		if (ks_lanes_alive(p->lanes, i) && !p->first)
			p->first = &p->lane[i];
	if (!p->first) {
		p->no_gpu = ks_strdup(p->nlanes && ks_lanes_why(p->lanes, 0) ? ks_lanes_why(p->lanes, 0)
									   : "no GPU lane could start");
		return 0;
	}
	for (i = 0; i < p->nlanes; i++) {
		pl_lane *L = &p->lane[i];
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
			p->gpus[j].p = p;
			p->gpus[j].goldens = ks_runner_goldcache_new(KS_GOLDCACHE_DEFAULT_MAX_BYTES);
			p->ngpus++;
		} else {
			/* a GPU listed twice: lanes that share it never time alone */
			for (n = 0; n < i; n++)
				if (p->lane[n].g == &p->gpus[j])
					p->lane[n].shared = 1;
			L->shared = 1;
		}
		pthread_mutex_lock(&p->mu);
		L->g = &p->gpus[j];
		pthread_mutex_unlock(&p->mu);
	}
	return 0;
}

/* ---- ceilings: each GPU's own, read from the cache or measured once per session, while its lanes
 * are held (no measurement shares its GPU); GPUs in parallel, and beside the compiles */

static void release_gpu(pl_gpu *g)
{
	ks_pipeline *p = g->p;
	size_t i;
	for (i = 0; i < p->nlanes; i++)
		if (p->lane[i].g == g)
			ks_lanes_release(p->lanes, i);
	pthread_mutex_lock(&p->mu);
	if (--p->calibrating == 0)
		p->ready_s = pl_now() - p->t_new;
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
}

static void *calibrate_main(void *ud)
{
	pl_gpu *g = ud;
	const ks_compile_options *co = &g->p->opts.runner.compile;
	char *exe = NULL;
	double t0;
	size_t i;
	/* a measurement has its GPU alone: not while the lanes' first workers still make their
	 * contexts and load the harness; and the GPU's start (score.json) ends when they are ready */
	for (i = 0; i < g->p->nlanes; i++)
		if (g->p->lane[i].g == g)
			ks_lanes_wait_ready(g->p->lanes, i);
	if (!g->p->timing) {
		release_gpu(g); /* nothing is timed: no roofline, no ceilings */
		return NULL;
	}
	exe = ks_fs_find_helper("kscore-worker");
	t0 = pl_now();
	if (exe && ks_ceilings_get(&g->ceil, co->cache_dir, exe, g->ordinal, &g->dev, co, g->p->opts.recalibrate) == 0)
		g->have_ceil = 1;
	else {
		g->ceil_error = ks_strdup(ks_error_msg());
		fprintf(stderr, "score: warning: could not measure the ceilings of GPU %d: %s; no roofline "
			"verdicts for its kernels\n", g->ordinal, g->ceil_error);
	}
	ks_free(exe);
	g->cal_s = pl_now() - t0;
	release_gpu(g);
	return NULL;
}

void pl_calibrate_start(ks_pipeline *p)
{
	size_t i;
	for (i = 0; i < p->nlanes; i++)
		ks_lanes_hold(p->lanes, i);
	pthread_mutex_lock(&p->mu);
	p->calibrating = p->ngpus;
	p->ready_s = p->ngpus ? -1 : p->lanes_s;
	pthread_mutex_unlock(&p->mu);
	for (i = 0; i < p->ngpus; i++) {
		pl_gpu *g = &p->gpus[i];
		g->cal_started = pthread_create(&g->cal_th, NULL, calibrate_main, g) == 0;
		if (!g->cal_started)
			calibrate_main(g);
	}
}

void pl_wait_calibrated(ks_pipeline *p)
{
	pthread_mutex_lock(&p->mu);
	while (p->calibrating)
		pthread_cond_wait(&p->cv, &p->mu);
	pthread_mutex_unlock(&p->mu);
}

cJSON *pl_start_json(ks_pipeline *p)
{
	cJSON *o = cJSON_CreateObject(), *a;
	double cal = 0;
	size_t i, k;
	for (i = 0; i < p->ngpus; i++)
		if (p->gpus[i].cal_s > cal)
			cal = p->gpus[i].cal_s;
	cJSON_AddNumberToObject(o, "seconds", p->ready_s >= 0 ? p->ready_s : p->lanes_s);
	cJSON_AddNumberToObject(o, "lanes_seconds", p->lanes_s);
	cJSON_AddNumberToObject(o, "calibration_seconds", cal);
	a = cJSON_AddArrayToObject(o, "gpus");
	for (i = 0; i < p->ngpus; i++) {
		pl_gpu *g = &p->gpus[i];
		cJSON *x = cJSON_CreateObject();
		double st = 0;
		size_t nl = 0;
		for (k = 0; k < p->nlanes; k++)
			if (p->lane[k].g == g) {
				nl++;
				if (p->lane[k].start_s > st)
					st = p->lane[k].start_s;
			}
		cJSON_AddNumberToObject(x, "ordinal", g->ordinal);
		cJSON_AddStringToObject(x, "uuid", g->dev.uuid);
		cJSON_AddNumberToObject(x, "lanes", (double)nl);
		cJSON_AddNumberToObject(x, "start_seconds", st);
		cJSON_AddNumberToObject(x, "calibration_seconds", g->cal_s);
		cJSON_AddStringToObject(x, "ceilings", !p->timing ? "not_needed" : !g->have_ceil ? "failed" :
					g->ceil.cached ? "cached" : "measured");
		cJSON_AddItemToArray(a, x);
	}
	return o;
}

/* ---- is it the GPU or the kernel? */

static size_t problem_index(const ks_pipeline *p, const ks_problem *q)
{
	size_t k;
	for (k = 0; k < p->problems->n; k++)
		if (p->problems->problems[k] == q)
			break;
	return k;
}

void pl_mark_golden_ok(ks_pipeline *p, const ks_problem *q)
{
	pthread_mutex_lock(&p->mu);
	p->golden_ok[problem_index(p, q)] = 1;
	pthread_mutex_unlock(&p->mu);
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

/* A fresh candidate worker must start and load a golden module, and a golden kernel that ran
 * before must run again (DESIGN §4.3: only the kernel that caused a failure is charged, and a GPU
 * is not a kernel). */
int pl_probe(ks_pipeline *p, ks_runner *run, const ks_problem *hint, char **why)
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

int pl_test_failure(ks_pipeline *p, pl_lane *L, size_t t, char **why)
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

void pl_gpus_free(ks_pipeline *p)
{
	size_t i;
	pl_wait_calibrated(p);
	ks_lanes_free(p->lanes); /* the runners, which hold golden results */
	p->lanes = NULL;
	for (i = 0; i < p->ngpus; i++) {
		if (p->gpus[i].cal_started)
			pthread_join(p->gpus[i].cal_th, NULL);
		ks_free(p->gpus[i].ceil_error);
		ks_baseline_free(p->gpus[i].baseline);
		ks_free(p->gpus[i].golden_source);
		ks_goldcache_free(p->gpus[i].goldens);
	}
}
