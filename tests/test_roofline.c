#include "ktest.h"
#include "util/mem.h"
#include "judge/metrics.h"
#include "load/problem.h"
#include "judge/roofline.h"

static ks_problem *load_vadd(void)
{
	ks_problem *p = NULL;
	KT_EQ_INT(ks_problem_load(&p, "tests/fixtures/problems/demo/vadd", "demo"), 0);
	return p;
}

static void perf_case(ks_kernel_result *r, double ms, double golden_ms, double bytes, double flops)
{
	ks_perf_result *pc;
	r->perf = ks_realloc(r->perf, (r->nperf + 1) * sizeof(*r->perf));
	pc = &r->perf[r->nperf++];
	memset(pc, 0, sizeof(*pc));
	pc->label = ks_asprintf("case %zu", r->nperf);
	pc->ms = ms;
	pc->golden_ms = golden_ms;
	pc->bytes = bytes;
	pc->flops = flops;
}

static ks_ceilings ceil3000(void)
{
	ks_ceilings c;
	memset(&c, 0, sizeof(c));
	c.bandwidth_gbps = 3000;
	c.fp32_tflops = 50;
	c.f16_tc_tflops = 700;
	return c;
}

static void test_floor_arithmetic(void)
{
	/* 3 GB at 3000 GB/s = 1 ms; 100 TFLOP at 50 TFLOP/s = 2000 ms: the larger term wins */
	KT_NEAR(ks_roofline_floor_ms(3e9, 0, 3000, 50), 1.0, 1e-12);
	KT_NEAR(ks_roofline_floor_ms(3e9, 100e12, 3000, 50), 2000.0, 1e-9);
	KT_NEAR(ks_roofline_floor_ms(3e9, 100e12, 3000, 0), 1.0, 1e-12); /* peak "none" */
}

static void test_speedup_score_and_fraction(void)
{
	ks_problem *p = load_vadd();
	ks_kernel_result r;
	ks_ceilings c = ceil3000();
	ks_config cfg = KS_CONFIG_INIT;
	memset(&r, 0, sizeof(r));
	r.exec = r.timed = 1;
	perf_case(&r, 1.0, 2.0, 1.5e9, 0);  /* floor 0.5 ms: 50% of roofline */
	perf_case(&r, 3.0, 3.0, 3e9, 0);    /* floor 1 ms */
	ks_judge_kernel(&r, p, &c, &cfg);
	KT_NEAR(r.speedup, 5.0 / 4.0, 1e-12);                /* sum ratio, GEAK's rule */
	KT_NEAR(r.speedup_geomean, sqrt(2.0 * 1.0), 1e-12);  /* per-case ratios */
	KT_NEAR(r.perf[0].gbps, 1500, 1e-9);
	KT_NEAR(r.perf[0].roofline_fraction, 0.5, 1e-12);
	KT_NEAR(r.roofline_fraction, 1.5 / 4.0, 1e-12);
	KT_ASSERT(!r.suspicious);
	KT_NEAR(r.score, 1.25, 1e-12);
	ks_kernel_result_clear(&r);
	ks_problem_free(p);
}

static void test_beating_the_roofline_is_suspicious(void)
{
	ks_problem *p = load_vadd();
	ks_kernel_result r;
	ks_ceilings c = ceil3000();
	ks_config cfg = KS_CONFIG_INIT;
	memset(&r, 0, sizeof(r));
	r.exec = r.timed = 1;
	perf_case(&r, 0.80, 1.0, 3e9, 0); /* floor 1 ms; 0.8 < 0.85: beyond the 15% margin */
	ks_judge_kernel(&r, p, &c, &cfg);
	KT_ASSERT(r.perf[0].suspicious);
	KT_ASSERT(r.suspicious);
	KT_CONTAINS(r.suspicious_why, "below the roofline floor");
	KT_NEAR(r.score, 0, 0);
	KT_ASSERT(r.speedup > 1.2); /* the evidence stays */
	ks_kernel_result_clear(&r);
	memset(&r, 0, sizeof(r));
	r.exec = r.timed = 1;
	perf_case(&r, 0.90, 1.0, 3e9, 0); /* within the margin: not flagged */
	ks_judge_kernel(&r, p, &c, &cfg);
	KT_ASSERT(!r.suspicious);
	ks_kernel_result_clear(&r);
	ks_problem_free(p);
}

static void test_timer_floor_and_absurd_speedups(void)
{
	ks_problem *p = load_vadd();
	ks_kernel_result r;
	ks_config cfg = KS_CONFIG_INIT;
	memset(&r, 0, sizeof(r));
	r.exec = r.timed = 1;
	perf_case(&r, 0.0005, 0.1, 0, 0); /* 0.5 us, and 200x */
	ks_judge_kernel(&r, p, NULL, &cfg);
	KT_ASSERT(r.suspicious);
	KT_CONTAINS(r.suspicious_why, "event-timer floor");
	KT_CONTAINS(r.suspicious_why, "above the bound");
	ks_kernel_result_clear(&r);
	ks_problem_free(p);
}

static void test_file_metrics_with_scores(void)
{
	ks_kernel_result r[3];
	ks_file_metrics m;
	int i;
	memset(r, 0, sizeof(r));
	for (i = 0; i < 3; i++) {
		r[i].problem = ks_asprintf("p%d", i);
		r[i].ran = r[i].compiled = r[i].call = r[i].exec = r[i].timed = 1;
	}
	r[0].speedup = r[0].score = 2.5;
	r[1].speedup = r[1].score = 0.5;
	r[2].speedup = 40;
	r[2].suspicious = 1; /* scores 0 and is left out of the geomean */
	ks_metrics_file(&m, r, 3);
	KT_NEAR(m.score, 3.0, 1e-12);
	KT_NEAR(m.geomean_speedup, sqrt(2.5 * 0.5), 1e-12);
	KT_NEAR(m.fast_1, 1.0 / 3.0, 1e-12);
	KT_NEAR(m.fast_2, 1.0 / 3.0, 1e-12);
	KT_EQ_INT(m.suspicious, 1);
	for (i = 0; i < 3; i++)
		ks_kernel_result_clear(&r[i]);
}

static const kt_test tests[] = {
	KT(test_floor_arithmetic), KT(test_speedup_score_and_fraction),
	KT(test_beating_the_roofline_is_suspicious), KT(test_timer_floor_and_absurd_speedups),
	KT(test_file_metrics_with_scores), { 0 }
};
KT_MAIN("roofline", tests)
