/* stats: the statistics of a series of timed runs, as the timing protocol (timing.c) and the
 * stored golden times (baseline.c) keep them. Plain data and one function: both sides include it
 * without depending on each other. */
#ifndef KS_STATS_H
#define KS_STATS_H

#include <stddef.h>

typedef struct {
	double median, mean, min, max, stdev;
	double rel_error;  /* stdev / sqrt(n) / mean: the relative noise of the estimate */
	size_t n;
} ks_stats;

/* Statistics of x[0..n) (n >= 1; n == 0 gives all zeros). rel_error is infinite for one sample:
 * it says nothing about noise. */
void ks_stats_compute(ks_stats *st, const double *x, size_t n);

#endif
