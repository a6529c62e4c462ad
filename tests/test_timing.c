#include "ktest.h"
#include "time/config.h"
#include "time/timing.h"

#include <string.h>

static void test_stop_rule(void)
{
	ks_config c = KS_CONFIG_INIT;
	ks_stats st;
	double quiet[10], noisy[10];
	int i;
	for (i = 0; i < 10; i++) {
		quiet[i] = 1.0 + 1e-4 * i;
		noisy[i] = i % 2 ? 1.0 : 2.0;
	}
	ks_stats_compute(&st, quiet, 9);
	KT_ASSERT(!ks_timing_done(&st, 9, &c)); /* quiet but under min_runs (10) */
	ks_stats_compute(&st, quiet, 10);
	KT_ASSERT(ks_timing_done(&st, 10, &c));
	ks_stats_compute(&st, noisy, 10);
	KT_ASSERT(!ks_timing_done(&st, 15, &c));                       /* too noisy */
	KT_ASSERT(ks_timing_done(&st, c.max_seconds_per_case * 1e3, &c)); /* time cap reached */
	st.n = (size_t)c.max_runs;
	KT_ASSERT(ks_timing_done(&st, 1, &c)); /* run cap reached */
}

static void test_config_file(void)
{
	ks_config c = KS_CONFIG_INIT, d = KS_CONFIG_INIT;
	const char *p;
	KT_EQ_INT(ks_config_load(&c, "scoring/scoring.json"), 0);
	KT_EQ_INT(c.input_sets, 3);
	p = kt_write("c.json", "{\"timing\": {\"min_runs\": 20}, \"roofline\": {\"margin\": 0.3}}", 58);
	KT_EQ_INT(ks_config_load(&c, p), 0);
	KT_EQ_INT(c.min_runs, 20);
	KT_NEAR(c.roofline_margin, 0.3, 0);
	KT_EQ_INT(c.verify_runs, 2); /* untouched keys keep their values */
	p = kt_write("bad.json", "{\"roofline\": {\"margin\": 2}}", 27);
	KT_ASSERT(ks_config_load(&c, p) < 0);
	KT_CONTAINS(ks_error_msg(), "margin must be between");
	p = kt_write("bad2.json", "{\"timing\": {\"min_runs\": 50, \"max_runs\": 10}}", 45);
	KT_ASSERT(ks_config_load(&c, p) < 0);
	KT_CONTAINS(ks_error_msg(), "max_runs is below min_runs");
	/* counts are integers: 2.5 runs is an error, not 2 */
	p = kt_write("bad3.json", "{\"timing\": {\"warmup_runs\": 2.5}}", 32);
	KT_ASSERT(ks_config_load(&c, p) < 0);
	KT_CONTAINS(ks_error_msg(), "bad3.json: field \"warmup_runs\" must be an integer");
	KT_NEAR(c.check_fraction, 0.125, 0); /* a part of every batch is checked by default */
	p = kt_write("bad5.json", "{\"timing\": {\"check_fraction\": 1.5}}", 35);
	KT_ASSERT(ks_config_load(&c, p) < 0);
	KT_CONTAINS(ks_error_msg(), "check_fraction must be between 0 and 1");
	/* a part of every input is redrawn before each timed run by default (issue 23.1); 0 turns it off */
	KT_NEAR(c.input_change, 0.0625, 0);
	p = kt_write("off.json", "{\"timing\": {\"input_change\": 0}}", 31);
	KT_EQ_INT(ks_config_load(&d, p), 0);
	KT_NEAR(d.input_change, 0, 0);
	p = kt_write("bad6.json", "{\"timing\": {\"input_change\": -0.5}}", 34);
	KT_ASSERT(ks_config_load(&d, p) < 0);
	KT_CONTAINS(ks_error_msg(), "input_change must be between 0 and 1");
	p = kt_write("bad4.json", "{\"timing\": {\"max_runs\": 1e40}}", 30);
	KT_ASSERT(ks_config_load(&c, p) < 0);
	KT_CONTAINS(ks_error_msg(), "field \"max_runs\" must be an integer");
}

/* The device-dependent settings: twice the L2 with a 64 MiB floor, three kernel timeouts plus 30 s,
 * the default plan limits, and nothing left over from what *o held before. */
static void test_options_for_device(void)
{
	ks_device_info dev;
	ks_timing_options o;
	ks_plan_limits lim = KS_PLAN_LIMITS_INIT;
	memset(&dev, 0, sizeof(dev));
	memset(&o, 0xff, sizeof(o));
	dev.l2_bytes = 50 << 20; /* an H100's L2 */
	ks_timing_options_for(&o, &dev, 10.0);
	KT_ASSERT(o.flush_bytes == (100ull << 20));
	KT_ASSERT(o.timeout_s == 60.0);
	KT_ASSERT(o.baseline == NULL && o.seed == 0);
	KT_ASSERT(o.limits.max_scratch_bytes == lim.max_scratch_bytes);
	dev.l2_bytes = 4 << 20; /* a small L2: the floor */
	ks_timing_options_for(&o, &dev, 2.0);
	KT_ASSERT(o.flush_bytes == KS_TIMING_MIN_FLUSH_BYTES);
	KT_ASSERT(o.timeout_s == 36.0);
	dev.l2_bytes = -1; /* not reported */
	ks_timing_options_for(&o, &dev, 2.0);
	KT_ASSERT(o.flush_bytes == KS_TIMING_MIN_FLUSH_BYTES);
}

static const kt_test tests[] = { KT(test_stop_rule), KT(test_config_file), KT(test_options_for_device), { 0 } };
KT_MAIN("timing", tests)
