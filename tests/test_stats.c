/* Tests of stats: the statistics of timed runs. */
#include "ktest.h"
#include "time/stats.h"

static void test_stats(void)
{
	double x[5] = { 3, 1, 2, 5, 4 }, y[4] = { 1, 2, 3, 10 };
	ks_stats st;
	ks_stats_compute(&st, x, 5);
	KT_NEAR(st.median, 3, 0);
	KT_NEAR(st.mean, 3, 0);
	KT_NEAR(st.min, 1, 0);
	KT_NEAR(st.max, 5, 0);
	KT_NEAR(st.stdev, sqrt(2.5), 1e-12);
	KT_NEAR(st.rel_error, sqrt(2.5) / sqrt(5.0) / 3.0, 1e-12);
	ks_stats_compute(&st, y, 4);
	KT_NEAR(st.median, 2.5, 0); /* even count: midpoint */
	ks_stats_compute(&st, y, 1);
	KT_ASSERT(isinf(st.rel_error)); /* one sample says nothing about noise */
}

static const kt_test tests[] = {
	KT(test_stats),
	{ NULL, NULL }
};

KT_MAIN("stats", tests)
