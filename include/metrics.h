/* metrics: the numbers a leaderboard shows (DESIGN §5), computed from kernel results only.
 * Accuracies are over the problems of one file (an entry whose problem appears twice counts as one
 * problem, averaged over its entries); pass@k is the unbiased estimator over all passes. */
#ifndef KS_METRICS_H
#define KS_METRICS_H

#include <stddef.h>
#include "result.h"

typedef struct {
	size_t entries;
	size_t problems;            /* distinct problem keys in the file */
	double compile_accuracy;
	double call_accuracy;       /* NaN when nothing ran (compile-only) */
	double exec_accuracy;
	size_t called, executed, compiled;
	/* timing (when kernels were timed) */
	int timed;                  /* at least one kernel was timed */
	double score;               /* sum of the scores of the file's kernels */
	double geomean_speedup;     /* over exec-correct, non-suspicious, timed kernels */
	double fast_1, fast_2;      /* fraction of problems correct with speedup > 1 (> 2) */
	double roofline_fraction;   /* mean over timed kernels */
	size_t suspicious;
} ks_file_metrics;

/* Metrics of one file's results (all r[i] of the same pass). */
void ks_metrics_file(ks_file_metrics *m, const ks_kernel_result *r, size_t n);

/* The unbiased pass@k estimator 1 - C(n-c, k) / C(n, k), as the stable product
 * 1 - prod_{i=n-c+1}^{n} (1 - k/i). Requires 0 <= c <= n and 1 <= k <= n. */
double ks_pass_at_k(int n, int c, int k);

typedef struct {
	int k;
	int valid;                  /* 0 when no problem has k or more samples */
	size_t problems;            /* problems averaged (those with n >= k) */
	size_t skipped;             /* problems with fewer than k samples */
	double call, exec;          /* averaged pass@k, in [0, 1] */
} ks_passk;

/* pass@k for each k over results of every pass, grouped by problem key; samples of a problem are
 * all its entries in all passes. */
void ks_metrics_passk(ks_passk *out, const int *ks, size_t nk, const ks_kernel_result *r, size_t n);

#endif
