/* refcheck: see src/refs/refcheck.h. */
#include "refs/refcheck.h"
#include "time/calibrate.h"
#include "run/compare.h"
#include "lang/cuda/compile.h"
#include "time/config.h"
#include "util/errors.h"
#include "util/fsutil.h"
#include "util/jsonutil.h"
#include "util/mem.h"
#include "load/problem.h"
#include "judge/roofline.h"
#include "run/runner.h"
#include "time/timing.h"

#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ks_refcheck_fail(ks_refcheck_row *r, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	if (r->fail)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	r->fail = ks_strdup(buf);
}

static const unsigned char *data(const ks_run_result *res, const ks_plan *plan, size_t i)
{
	return res->blob + res->bufs[i].off + plan->guard;
}

static int run_plan(ks_runner *run, ks_run_result *res, const ks_problem *p, const ks_case *c, uint64_t seed,
		    int poison, int no_kernels, ks_plan *plan, ks_refcheck_row *r)
{
	ks_env env = KS_ENV_INIT;
	ks_fetch_mode fetch[KS_LAUNCH_MAX_SCRATCH + 72];
	size_t i;
	int rc = -1;
	memset(res, 0, sizeof(*res));
	if (ks_problem_env(&env, p, c) < 0 ||
	    ks_plan_build(plan, p, &p->golden_launch, c, &env, seed, poison, NULL) < 0) {
		ks_refcheck_fail(r, "case %s: %s", c->label, ks_error_msg());
		goto done;
	}
	if (no_kernels)
		plan->nkernels = 0; /* fill only: what the inputs look like before any kernel ran */
	for (i = 0; i < plan->nbufs; i++)
		fetch[i] = plan->bufs[i].scratch ? KS_FETCH_GUARDS : KS_FETCH_FULL;
	ks_runner_golden_plan(run, res, p, plan, fetch);
	if (res->status != KS_RUN_OK) {
		ks_refcheck_fail(r, "case %s: the golden kernel failed: %s", c->label, res->message ? res->message : "?");
		goto done;
	}
	rc = 0;
done:
	ks_env_free(&env);
	return rc;
}

/* The golden kernel on one correctness case: A (seed 0), B (seed 0, other poison), Z (no kernel),
 * C (seed 1). */
static void check_case(ks_runner *run, const ks_problem *p, size_t ci, uint64_t base, ks_refcheck_row *r)
{
	const ks_case *c = &p->correctness[ci];
	ks_run_result a, b, z, cc;
	ks_plan pa, pb, pz, pc;
	size_t i;
	uint64_t s0 = ks_seed_derive(base, p->name, 0, ci, 0), s1 = ks_seed_derive(base, p->name, 0, ci, 1);
	uint64_t changed = 0, total = 0;
	int ok = 1;

	memset(&pa, 0, sizeof(pa));
	memset(&pb, 0, sizeof(pb));
	memset(&pz, 0, sizeof(pz));
	memset(&pc, 0, sizeof(pc));
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	memset(&z, 0, sizeof(z));
	memset(&cc, 0, sizeof(cc));
	r->cases++;
	if (run_plan(run, &a, p, c, s0, 0, 0, &pa, r) < 0 || run_plan(run, &b, p, c, s0, 1, 0, &pb, r) < 0 ||
	    run_plan(run, &z, p, c, s0, 0, 1, &pz, r) < 0 || run_plan(run, &cc, p, c, s1, 0, 0, &pc, r) < 0)
		goto done;
	for (i = 0; i < pa.nbufs; i++) {
		const ks_plan_buf *bf = &pa.bufs[i];
		const unsigned char *base_a = a.blob + a.bufs[i].off;
		uint64_t g = pa.guard, back = a.bufs[i].total - g - bf->bytes, unwritten, first;
		ks_cmp_stats st;
		if (bf->scratch)
			continue;
		if (ks_compare_guard(base_a, g, 0) >= 0 ||
		    ks_compare_guard(base_a + g + bf->bytes, back, (g + bf->bytes) % 8) >= 0) {
			ks_refcheck_fail(r, "case %s: the golden kernel writes outside %s", c->label, bf->name);
			ok = 0;
			continue;
		}
		if (bf->role == KS_ROLE_IN) {
			if (memcmp(data(&a, &pa, i), data(&z, &pz, i), bf->bytes)) {
				ks_refcheck_fail(r, "case %s: the golden kernel modifies its input %s", c->label, bf->name);
				ok = 0;
			}
			continue;
		}
		if ((unwritten = ks_compare_count_poison(&first, bf->dtype, data(&a, &pa, i), bf->count, pa.poison))) {
			ks_refcheck_fail(r, "case %s: the golden kernel leaves %llu elements of %s unwritten (first at index %llu)",
			     c->label, (unsigned long long)unwritten, bf->name, (unsigned long long)first);
			ok = 0;
			continue;
		}
		if (memcmp(data(&a, &pa, i), data(&b, &pb, i), bf->bytes)) {
			ks_refcheck_fail(r, "case %s: %s differs between two runs on the same inputs (not deterministic, or "
			     "it reads its output before writing it)", c->label, bf->name);
			ok = 0;
			continue;
		}
		/* signal: how much of the output changes when the inputs change */
		{
			const ks_arg *arg = &p->args[bf->stream];
			ks_compare_tensor(&st, bf->dtype, data(&cc, &pc, i), data(&a, &pa, i), bf->count, arg->atol,
					  arg->rtol, 0);
			changed += st.bad;
			total += bf->count;
		}
	}
	if (ok && total) {
		double frac = (double)changed / (double)total;
		if (ci + 1 == p->ncorrectness || frac > r->signal)
			r->signal = frac > r->signal ? frac : r->signal;
	}
	if (ok)
		r->cases_ok++;
done:
	ks_run_result_clear(&a);
	ks_run_result_clear(&b);
	ks_run_result_clear(&z);
	ks_run_result_clear(&cc);
	ks_plan_clear(&pa);
	ks_plan_clear(&pb);
	ks_plan_clear(&pz);
	ks_plan_clear(&pc);
}

static void check_perf(ks_runner *run, const ks_problem *p, uint64_t base, const ks_ceilings *ceil,
		       const ks_config *cfg, ks_refcheck_row *r)
{
	size_t ci;
	r->min_perf_ms = INFINITY;
	for (ci = 0; ci < p->nperf; ci++) {
		const ks_case *c = &p->perf[ci];
		ks_env env = KS_ENV_INIT;
		ks_plan plan;
		ks_run_result res;
		uint64_t seeds[2] = { ks_seed_derive(base, p->name, 1, ci, 100), ks_seed_derive(base, p->name, 1, ci, 101) };
		int sets[24], i, module = -1;
		double ms[24], floor_ms = 0;
		int64_t v;
		ks_stats st;
		ks_worker *w;

		memset(&res, 0, sizeof(res));
		memset(&plan, 0, sizeof(plan));
		if (ks_problem_env(&env, p, c) < 0 || ks_plan_build(&plan, p, &p->golden_launch, c, &env, seeds[0], 0,
								     NULL) < 0) {
			ks_refcheck_fail(r, "perf case %s: %s", c->label, ks_error_msg());
			ks_env_free(&env);
			return;
		}
		w = ks_runner_golden_worker(run, p, &module);
		if (!w) {
			ks_refcheck_fail(r, "%s", ks_error_msg());
			goto next;
		}
		ks_worker_time_start(w, &res, module, &plan, seeds, 2, 128ull << 20, 120);
		if (res.status == KS_RUN_OK) {
			ks_run_result_clear(&res);
			for (i = 0; i < 24; i++)
				sets[i] = i % 2;
			ks_worker_time_run(w, &res, sets, NULL, 24, ms, NULL, 120);
		}
		if (res.status != KS_RUN_OK) {
			ks_refcheck_fail(r, "perf case %s: the golden kernel failed: %s", c->label, res.message ? res.message : "?");
			goto next;
		}
		ks_worker_time_end(w);
		ks_stats_compute(&st, ms + 4, 20); /* the first 4 are warm-up */
		if (st.median < r->min_perf_ms)
			r->min_perf_ms = st.median;
		if (st.median < KS_REFCHECK_MIN_PERF_MS)
			ks_refcheck_fail(r, "perf case %s: the golden kernel takes %.4f ms, under %.1f ms: too short to time "
			     "well", c->label, st.median, KS_REFCHECK_MIN_PERF_MS);
		if (ceil) {
			double bytes = 0, flops = 0;
			if (ks_expr_eval(&v, p->bytes, &env) == 0)
				bytes = (double)v;
			if (p->flops && ks_expr_eval(&v, p->flops, &env) == 0)
				flops = (double)v;
			floor_ms = ks_roofline_floor_ms(bytes, flops, ceil->bandwidth_gbps, ks_ceilings_peak(ceil, p->peak));
			if (floor_ms / st.median > r->max_roofline)
				r->max_roofline = floor_ms / st.median;
			if (st.median < floor_ms * (1 - cfg->roofline_margin))
				ks_refcheck_fail(r, "perf case %s: the golden kernel (%.4f ms) beats the roofline floor (%.4f ms): the "
				     "spec's bytes or flops are too high", c->label, st.median, floor_ms);
		}
	next:
		ks_run_result_clear(&res);
		ks_plan_clear(&plan);
		ks_env_free(&env);
	}
}

void ks_refcheck_problem(ks_refcheck_row *r, ks_runner *run, const ks_ceilings *ceil,
			 const ks_config *cfg)
{
	size_t ci;
	for (ci = 0; ci < r->p->ncorrectness && !r->fail; ci++)
		check_case(run, r->p, ci, KS_REFCHECK_SEED, r);
	if (!r->fail && r->signal < 0.01)
		ks_refcheck_fail(r, "outputs carry no signal: only %.2f%% of output elements change when "
				 "the inputs do",
				 100 * r->signal);
	if (!r->fail)
		check_perf(run, r->p, KS_REFCHECK_SEED, ceil, cfg, r);
}

cJSON *ks_refcheck_row_json(const ks_refcheck_row *r, int ran)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "suite", r->p->suite);
	cJSON_AddStringToObject(o, "problem", r->p->name);
	cJSON_AddBoolToObject(o, "compiled", r->compiled);
	cJSON_AddBoolToObject(o, "ran", ran);
	cJSON_AddNumberToObject(o, "cases_ok", r->cases_ok);
	cJSON_AddNumberToObject(o, "cases", r->cases);
	ks_json_add_num(o, "signal", r->signal);
	ks_json_add_num(o, "min_perf_ms", isfinite(r->min_perf_ms) ? r->min_perf_ms : NAN);
	ks_json_add_num(o, "max_roofline_fraction", r->max_roofline);
	if (r->fail)
		cJSON_AddStringToObject(o, "failure", r->fail);
	else
		cJSON_AddNullToObject(o, "failure");
	return o;
}

void ks_refcheck_row_clear(ks_refcheck_row *r)
{
	ks_free(r->fail);
	r->fail = NULL;
}
