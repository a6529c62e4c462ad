#include "time/timing.h"
#include "time/baseline.h"
#include "util/errors.h"
#include "util/mem.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void ks_timing_options_for(ks_timing_options *o, const ks_device_info *dev, double kernel_timeout_s)
{
	ks_plan_limits lim = KS_PLAN_LIMITS_INIT;
	memset(o, 0, sizeof(*o));
	o->limits = lim;
	o->flush_bytes = 2ull * (uint64_t)(dev->l2_bytes > 0 ? dev->l2_bytes : 0);
	if (o->flush_bytes < KS_TIMING_MIN_FLUSH_BYTES)
		o->flush_bytes = KS_TIMING_MIN_FLUSH_BYTES;
	o->timeout_s = kernel_timeout_s * 3 + 30;
}

int ks_timing_done(const ks_stats *st, double gpu_ms, const ks_config *cfg)
{
	if (st->n >= (size_t)cfg->max_runs)
		return 1;
	if (gpu_ms >= cfg->max_seconds_per_case * 1e3 && st->n >= 3)
		return 1;
	return st->n >= (size_t)cfg->min_runs && st->rel_error <= cfg->target_rel_error;
}

typedef struct {
	double *x;
	size_t n, cap;
	double gpu_ms;
	double span_ms;  /* GPU time of its timed batches as a whole (worker.h, time_run) */
	ks_stats st;
	int done;
} series;

static void push(series *s, const double *x, size_t n)
{
	size_t i;
	s->x = ks_grow(s->x, sizeof(double), &s->cap, s->n + n);
	for (i = 0; i < n; i++) {
		s->x[s->n++] = x[i];
		s->gpu_ms += x[i];
	}
}

static uint64_t xorshift(uint64_t *s)
{
	uint64_t x = *s ? *s : 0x9e3779b97f4a7c15ull;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

/* Which inputs a side's timed runs get: the sets in turn, and on each run a version of its set's
 * inputs no earlier run of the side had (plan.h; redrawn only when the plan's change is above 0). */
typedef struct {
	int nsets;
	int next;          /* the set of the next run, modulo nsets */
	uint64_t version;  /* the version of the next run */
} rotation;

#define ROTATION_INIT(n) { (n), 0, 1 }

/* Runs `count` timed runs on the next sets and versions of *rot; the set and version of each run
 * go to sets[] and vers[] (KS_PROTO_MAX_RUNS entries) when not NULL. Returns the number of runs,
 * or -1. */
static int batch_sets(ks_worker *w, ks_run_result *res, series *s, int count, rotation *rot, double timeout,
		      int *sets, uint64_t *vers)
{
	int own[KS_PROTO_MAX_RUNS], i;
	uint64_t own_v[KS_PROTO_MAX_RUNS];
	double ms[KS_PROTO_MAX_RUNS], span = 0;
	if (!sets)
		sets = own;
	if (!vers)
		vers = own_v;
	if (count > KS_PROTO_MAX_RUNS)
		count = KS_PROTO_MAX_RUNS;
	for (i = 0; i < count; i++) {
		sets[i] = rot->next++ % rot->nsets;
		vers[i] = rot->version++;
	}
	ks_worker_time_run(w, res, sets, vers, (size_t)count, ms, &span, timeout);
	if (res->status != KS_RUN_OK)
		return -1;
	push(s, ms, (size_t)count);
	s->span_ms += span;
	ks_run_result_clear(res);
	return count;
}

static int batch(ks_worker *w, ks_run_result *res, series *s, int count, rotation *rot, double timeout)
{
	return batch_sets(w, res, s, count, rot, timeout, NULL, NULL) < 0 ? -1 : 0;
}

/* The candidate failed during timing: it is not correct after all. */
static void candidate_failed(ks_kernel_result *r, ks_reason why, const char *label, const char *detail)
{
	r->exec = 0;
	r->reason = KS_REASON_OK;
	ks_kernel_result_fail(r, why, "perf case %s, during timing: %s", label, detail ? detail : "?");
}

/* What one check of a timed run needs: the case, the candidate's plan and fetch modes. */
typedef struct {
	ks_kernel_result *r;
	ks_runner *run;
	const ks_problem *p;
	size_t ci;
	ks_plan *cplan;
	const ks_fetch_mode *fetch;
	double timeout;
} checker;

/* Checks run `idx` of the candidate batch just timed, made on set `set` whose inputs come from
 * `seed` at `version`, against the golden outputs of those inputs. Returns 0 when right; -1 when
 * wrong or failing (r failed, "during timing"), or when the golden kernel failed
 * (r->timing_error). */
static int check_kept_run(const checker *k, ks_worker *cw, int idx, int set, uint64_t seed, uint64_t version,
			  int nruns, int round)
{
	ks_golden_run own;
	const ks_golden_run *g = NULL;
	ks_run_result res;
	char *detail = NULL;
	ks_reason why;
	int redrawn = k->cplan->change > 0, rc;
	/* redrawn inputs are the run's own: their golden run is made for this check and not kept; else
	 * every run of a set has its seed's inputs, whose golden run is cached */
	rc = redrawn ? ks_runner_golden_version(k->run, &own, k->p, k->ci, seed, version, k->cplan->change)
		     : ks_runner_golden(k->run, &g, k->p, 1, k->ci, seed);
	if (rc < 0) {
		k->r->timing_error = ks_strdup(ks_error_msg());
		return -1;
	}
	if (redrawn)
		g = &own;
	ks_worker_time_check(cw, &res, k->cplan, idx, k->fetch, k->timeout);
	if (res.status != KS_RUN_OK) {
		candidate_failed(k->r, ks_check_run_failure(&res), k->p->perf[k->ci].label, res.message);
		ks_run_result_clear(&res);
		if (redrawn)
			ks_golden_run_clear(&own);
		return -1;
	}
	k->cplan->seed = seed; /* the inputs (and sample positions) of this run */
	why = ks_check_run(&detail, &res, k->cplan, k->fetch, g, k->p);
	ks_run_result_clear(&res);
	if (redrawn)
		ks_golden_run_clear(&own);
	if (why != KS_REASON_OK) {
		char *d = redrawn
				  ? ks_asprintf("a timed run (set %d, its inputs redrawn in part for this run, run %d of a "
						"batch of %d, round %d), checked after the batch, was wrong: %s", set,
						idx + 1, nruns, round, detail)
				  : ks_asprintf("a timed run on unchanged inputs (set %d, run %d of a batch of %d, round "
						"%d), checked after the batch, was wrong: %s", set, idx + 1, nruns, round,
						detail);
		candidate_failed(k->r, why, k->p->perf[k->ci].label, d);
		ks_free(d);
		ks_free(detail);
		return -1;
	}
	return 0;
}

/* After a candidate batch of n runs: ceil(n * fraction) of them, and at least KS_TIMING_MIN_CHECKS
 * (all of a shorter batch), picked at random now that they have run, are checked. Returns the number
 * checked, or -1 (see check_kept_run). */
static int check_batch(const checker *k, ks_worker *cw, const int *sets, const uint64_t *vers, int n,
		       const uint64_t *set_seed, double fraction, uint64_t *rng, int round)
{
	int order[KS_PROTO_MAX_RUNS], want = (int)ceil(n * fraction), i;
	if (want < KS_TIMING_MIN_CHECKS)
		want = KS_TIMING_MIN_CHECKS;
	if (want > n)
		want = n;
	for (i = 0; i < n; i++)
		order[i] = i;
	for (i = 0; i < want; i++) {
		int j = i + (int)(xorshift(rng) % (uint64_t)(n - i)), t = order[i];
		order[i] = order[j];
		order[j] = t;
		if (check_kept_run(k, cw, order[i], sets[order[i]], set_seed[sets[order[i]]], vers[order[i]], n,
				   round) < 0)
			return -1;
	}
	return want;
}

static int time_case(ks_kernel_result *r, ks_perf_result *pc, const ks_candidate_image *img, ks_runner *run,
		     size_t ci, const ks_timing_options *o, int cmod)
{
	const ks_problem *p = img->problem;
	const ks_case *c = &p->perf[ci];
	ks_worker *cw = ks_runner_candidate_worker(run), *gw;
	ks_env env = KS_ENV_INIT;
	ks_plan cplan, gplan;
	ks_run_result res;
	uint64_t seeds[KS_PROTO_MAX_SETS], set_seed[KS_PROTO_MAX_SETS];
	uint64_t rng = o->seed ^ (uint64_t)ci * 0x2545f4914f6cdd1dull;
	ks_fetch_mode *fetch = NULL;
	series cs, gs;
	int gmod = -1, nsets = o->cfg.input_sets, i, verified = 0, rc = 0, round = 0;
	int checking = o->cfg.check_fraction > 0, kept_runs = 64, csets[KS_PROTO_MAX_RUNS];
	uint64_t cvers[KS_PROTO_MAX_RUNS];
	rotation crot, grot;
	checker chk;
	int64_t v;
	double tc, tg, t_out = o->timeout_s;
	const ks_stats *base = o->baseline ? ks_baseline_find(o->baseline, p, ci) : NULL;

	memset(&cs, 0, sizeof(cs));
	memset(&gs, 0, sizeof(gs));
	memset(&cplan, 0, sizeof(cplan));
	memset(&gplan, 0, sizeof(gplan));
	memset(&res, 0, sizeof(res));
	pc->label = ks_strdup(c->label);
	pc->case_index = ci;
	if (nsets > KS_PROTO_MAX_SETS)
		nsets = KS_PROTO_MAX_SETS;
	crot = (rotation)ROTATION_INIT(nsets);
	grot = (rotation)ROTATION_INIT(nsets);
	for (i = 0; i < nsets; i++)
		set_seed[i] = seeds[i] = ks_seed_derive(o->seed, p->name, 1, ci, 100 + i);
	if (ks_problem_env(&env, p, c) < 0 ||
	    ks_candidate_plan(&cplan, img, 1, ci, &env, seeds[0], 0, &o->limits) < 0) {
		candidate_failed(r, KS_REASON_BAD_LAUNCH, c->label, ks_error_msg());
		rc = -1;
		goto done;
	}
	if (ks_plan_build(&gplan, p, &p->golden_launch, c, &env, seeds[0], 0, &o->limits) < 0) {
		r->timing_error = ks_asprintf("the golden plan of %s does not build for %s: %s", p->name,
					      c->label, ks_error_msg());
		rc = -1;
		goto done;
	}
	/* both sides' timed runs see inputs redrawn in part, run by run (the golden's for fairness) */
	cplan.change = gplan.change = o->cfg.input_change;
	if (p->flops && ks_expr_eval(&v, p->flops, &env) == 0)
		pc->flops = (double)v;
	if (ks_expr_eval(&v, p->bytes, &env) == 0)
		pc->bytes = (double)v;
	if (!cw) {
		candidate_failed(r, KS_REASON_CRASH, c->label, "the candidate worker is not running");
		rc = -1;
		goto done;
	}
	gw = ks_runner_golden_worker(run, p, &gmod);
	if (!gw) {
		r->timing_error = ks_strdup(ks_error_msg());
		rc = -1;
		goto done;
	}
	/* the candidate's runs are kept sampled after each run, for checks decided after its batch */
	ks_worker_time_start_checked(cw, &res, cmod, &cplan, seeds, (size_t)nsets, o->flush_bytes, KS_VERIFY_SAMPLES,
				     checking ? &kept_runs : NULL, t_out);
	if (res.status != KS_RUN_OK) {
		candidate_failed(r, res.status == KS_RUN_ERROR ? KS_REASON_LAUNCH_ERROR : ks_check_run_failure(&res),
				 c->label, res.message);
		rc = -1;
		goto done;
	}
	ks_run_result_clear(&res);
	if (base) {
		/* the golden time comes from a stored baseline (score baseline): not timed again */
		gs.done = 1;
	} else {
		ks_worker_time_start(gw, &res, gmod, &gplan, seeds, (size_t)nsets, o->flush_bytes, t_out);
		if (res.status != KS_RUN_OK) {
			r->timing_error = ks_asprintf("the golden kernel could not be timed on %s: %s", c->label,
						      res.message ? res.message : "?");
			rc = -1;
			goto done;
		}
		ks_run_result_clear(&res);
	}

	/* warm-up (discarded), which also tells how long one run takes */
	{
		series wc, wg;
		memset(&wc, 0, sizeof(wc));
		memset(&wg, 0, sizeof(wg));
		if (batch(cw, &res, &wc, checking && o->cfg.warmup_runs > kept_runs ? kept_runs : o->cfg.warmup_runs,
			  &crot, t_out) < 0) {
			candidate_failed(r, ks_check_run_failure(&res), c->label, res.message);
			ks_free(wc.x);
			rc = -1;
			goto done;
		}
		if (!base && batch(gw, &res, &wg, o->cfg.warmup_runs, &grot, t_out) < 0) {
			r->timing_error = ks_asprintf("the golden kernel failed while being timed on %s: %s",
						      c->label, res.message ? res.message : "?");
			ks_free(wc.x);
			ks_free(wg.x);
			rc = -1;
			goto done;
		}
		ks_stats_compute(&wc.st, wc.x, wc.n);
		ks_stats_compute(&wg.st, wg.x, wg.n);
		if (base)
			wg.st = *base;
		tc = wc.st.median > 1e-4 ? wc.st.median : 1e-4;
		tg = wg.st.median > 1e-4 ? wg.st.median : 1e-4;
		/* warm-up runs count as GPU time spent, not towards the per-case cap */
		r->timing_gpu_ms += wc.gpu_ms + wg.gpu_ms;
		r->timing_busy_ms += wc.span_ms + wg.span_ms;
		ks_free(wc.x);
		ks_free(wg.x);
	}
	fetch = ks_calloc(cplan.nbufs + 1, sizeof(*fetch));
	for (i = 0; i < (int)cplan.nbufs; i++)
		fetch[i] = cplan.bufs[i].scratch || cplan.bufs[i].role == KS_ROLE_IN ? KS_FETCH_GUARDS
										       : KS_FETCH_SAMPLE;
	chk.r = r;
	chk.run = run;
	chk.p = p;
	chk.ci = ci;
	chk.cplan = &cplan;
	chk.fetch = fetch;
	chk.timeout = t_out;
	while (!cs.done || !gs.done || verified < o->cfg.verify_runs) {
		int bc = (int)(o->cfg.batch_ms / tc), bg = (int)(o->cfg.batch_ms / tg), k;
		int cand_first = (int)(xorshift(&rng) & 1);
		bc = bc < 1 ? 1 : bc > 64 ? 64 : bc;
		bg = bg < 1 ? 1 : bg > 64 ? 64 : bg;
		if (checking && bc > kept_runs)
			bc = kept_runs;
		for (k = 0; k < 2; k++) {
			int cand = k == 0 ? cand_first : !cand_first;
			if (cand && !cs.done) {
				int n = batch_sets(cw, &res, &cs, bc, &crot, t_out, csets, cvers), m = 0;
				if (n < 0) {
					candidate_failed(r, ks_check_run_failure(&res), c->label, res.message);
					rc = -1;
					goto done;
				}
				if (checking &&
				    (m = check_batch(&chk, cw, csets, cvers, n, set_seed, o->cfg.check_fraction, &rng,
						     round + 1)) < 0) {
					rc = -1;
					goto done;
				}
				pc->checked += m;
				ks_stats_compute(&cs.st, cs.x, cs.n);
				cs.done = ks_timing_done(&cs.st, cs.gpu_ms, &o->cfg);
			} else if (!cand && !gs.done) {
				if (batch(gw, &res, &gs, bg, &grot, t_out) < 0) {
					r->timing_error = ks_asprintf("the golden kernel failed while being timed "
								      "on %s: %s", c->label,
								      res.message ? res.message : "?");
					rc = -1;
					goto done;
				}
				ks_stats_compute(&gs.st, gs.x, gs.n);
				gs.done = ks_timing_done(&gs.st, gs.gpu_ms, &o->cfg);
			}
		}
		round++;
		/* a verified run after a random number of rounds, on a set refilled with new inputs;
		 * always before the timing ends */
		if (verified < o->cfg.verify_runs && ((xorshift(&rng) % 3) == 0 || (cs.done && gs.done))) {
			uint64_t vseed = ks_seed_derive(o->seed, p->name, 1, ci, 1000 + verified);
			/* the set the candidate ran last: any cache of results by address holds it */
			int set = (crot.next + nsets - 1) % nsets;
			const ks_golden_run *g = NULL;
			char *detail = NULL;
			ks_reason why;
			if (ks_runner_golden(run, &g, p, 1, ci, vseed) < 0) {
				r->timing_error = ks_strdup(ks_error_msg());
				rc = -1;
				goto done;
			}
			ks_worker_time_verify(cw, &res, &cplan, set, vseed, fetch, KS_VERIFY_SAMPLES, t_out);
			cplan.seed = vseed; /* the inputs (and sample positions) of this run */
			set_seed[set] = vseed; /* and of the set's later runs */
			if (res.status != KS_RUN_OK) {
				candidate_failed(r, ks_check_run_failure(&res), c->label, res.message);
				rc = -1;
				goto done;
			}
			why = ks_check_run(&detail, &res, &cplan, fetch, g, p);
			if (why != KS_REASON_OK) {
				char *d = ks_asprintf("a timed run on fresh inputs (set %d, round %d) was wrong: %s",
						      set, round, detail);
				candidate_failed(r, why, c->label, d);
				ks_free(d);
				ks_free(detail);
				rc = -1;
				goto done;
			}
			push(&cs, &res.ms, 1);
			cs.span_ms += res.ms; /* its fills and fetch are not bracketed: a lower bound */
			ks_run_result_clear(&res);
			verified++;
			pc->verified = verified;
		}
	}
	ks_stats_compute(&cs.st, cs.x, cs.n);
	if (base)
		gs.st = *base;
	else
		ks_stats_compute(&gs.st, gs.x, gs.n);
	pc->ms = cs.st.median;
	pc->ms_min = cs.st.min;
	pc->ms_max = cs.st.max;
	pc->ms_stdev = cs.st.stdev;
	pc->runs = cs.st.n;
	pc->rel_error = cs.st.rel_error;
	pc->golden_ms = gs.st.median;
	pc->golden_min = gs.st.min;
	pc->golden_max = gs.st.max;
	pc->golden_stdev = gs.st.stdev;
	pc->golden_runs = gs.st.n;
	pc->golden_rel_error = gs.st.rel_error;
done:
	r->timing_gpu_ms += cs.gpu_ms + gs.gpu_ms;
	r->timing_busy_ms += cs.span_ms + gs.span_ms;
	if (ks_runner_candidate_worker(run))
		ks_worker_time_end(ks_runner_candidate_worker(run));
	{
		int m;
		ks_worker *g2 = base ? NULL : ks_runner_golden_worker(run, p, &m);
		if (g2)
			ks_worker_time_end(g2);
	}
	ks_run_result_clear(&res);
	ks_free(fetch);
	ks_free(cs.x);
	ks_free(gs.x);
	ks_plan_clear(&cplan);
	ks_plan_clear(&gplan);
	ks_env_free(&env);
	return rc;
}

int ks_time_golden(ks_stats *out, ks_runner *run, const ks_problem *p, size_t ci, const ks_timing_options *o)
{
	const ks_case *c = &p->perf[ci];
	ks_env env = KS_ENV_INIT;
	ks_plan plan;
	ks_run_result res;
	uint64_t seeds[KS_PROTO_MAX_SETS];
	series s;
	ks_worker *w;
	int module = -1, nsets = o->cfg.input_sets, i, rc = 0;
	rotation rot;
	double t;

	memset(&s, 0, sizeof(s));
	memset(&res, 0, sizeof(res));
	memset(&plan, 0, sizeof(plan));
	if (nsets > KS_PROTO_MAX_SETS)
		nsets = KS_PROTO_MAX_SETS;
	rot = (rotation)ROTATION_INIT(nsets);
	for (i = 0; i < nsets; i++)
		seeds[i] = ks_seed_derive(o->seed, p->name, 1, ci, 100 + i);
	if (ks_problem_env(&env, p, c) < 0 ||
	    ks_plan_build(&plan, p, &p->golden_launch, c, &env, seeds[0], 0, &o->limits) < 0) {
		rc = ks_error_wrap(KS_EINVALID, "%s, perf case %s", p->name, c->label);
		goto done;
	}
	plan.change = o->cfg.input_change; /* timed as in a live co-run */
	if (!(w = ks_runner_golden_worker(run, p, &module))) {
		rc = KS_ERROR;
		goto done;
	}
	ks_worker_time_start(w, &res, module, &plan, seeds, (size_t)nsets, o->flush_bytes, o->timeout_s);
	if (res.status != KS_RUN_OK || batch(w, &res, &s, o->cfg.warmup_runs, &rot, o->timeout_s) < 0) {
		rc = ks_error_set(KS_ERROR, "the golden kernel of %s failed on %s: %s", p->name, c->label,
				  res.message ? res.message : "?");
		goto done;
	}
	ks_stats_compute(&s.st, s.x, s.n);
	t = s.st.median > 1e-4 ? s.st.median : 1e-4;
	s.n = 0;
	s.gpu_ms = 0;
	while (!s.done) {
		int b = (int)(o->cfg.batch_ms / t);
		if (batch(w, &res, &s, b < 1 ? 1 : b > 64 ? 64 : b, &rot, o->timeout_s) < 0) {
			rc = ks_error_set(KS_ERROR, "the golden kernel of %s failed on %s: %s", p->name, c->label,
					  res.message ? res.message : "?");
			goto done;
		}
		ks_stats_compute(&s.st, s.x, s.n);
		s.done = ks_timing_done(&s.st, s.gpu_ms, &o->cfg);
	}
	*out = s.st;
	ks_worker_time_end(w);
done:
	ks_run_result_clear(&res);
	ks_plan_clear(&plan);
	ks_env_free(&env);
	ks_free(s.x);
	return rc;
}

void ks_time_kernel(ks_kernel_result *r, const ks_candidate_image *img, ks_runner *run,
		    const ks_timing_options *o)
{
	const ks_problem *p = img->problem;
	ks_func_info fi[KS_PLAN_MAX_FUNCS];
	ks_run_result res;
	double t0 = now_s();
	int module = -1;
	size_t ci;

	if (!p->nperf)
		return;
	ks_runner_load(run, &res, &module, fi, img->cubin, img->len, img->lowered, img->nlowered);
	if (res.status != KS_RUN_OK) {
		candidate_failed(r, ks_check_run_failure(&res), "(loading)", res.message);
		ks_run_result_clear(&res);
		ks_runner_collect_output(run, r);
		return;
	}
	ks_run_result_clear(&res);
	r->perf = ks_calloc(p->nperf, sizeof(ks_perf_result));
	for (ci = 0; ci < p->nperf; ci++) {
		r->nperf++;
		if (time_case(r, &r->perf[ci], img, run, ci, o, module) < 0)
			break;
	}
	r->timed = r->exec && !r->timing_error && r->nperf == p->nperf;
	ks_runner_unload(run, module);
	ks_runner_collect_output(run, r);
	ks_runner_forget_perf(run, p);
	r->timing_s = now_s() - t0;
}
