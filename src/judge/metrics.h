/* metrics: the numbers a leaderboard shows (DESIGN §5), computed from kernel results only.
 *
 * Within one pass only the first entry naming a problem counts: later ones (reason `duplicate`, or
 * simply later) count nowhere, not in accuracies, score, fast_p or pass@k, so copies of a kernel
 * cannot multiply its score. Accuracies, fast_p and the score are per problem, averaged over the
 * problem's samples (one per pass): a folder of N passes of the same kernel scores as one pass.
 * pass@k is the unbiased estimator over all passes. */
#ifndef KS_METRICS_H
#define KS_METRICS_H

#include <stddef.h>
#include "run/result.h"
#include "util/buf.h"

typedef struct {
	size_t entries;             /* every result given, duplicates included */
	size_t duplicates;          /* results that do not count (later entries for a problem) */
	size_t problems;            /* distinct problem keys among the results that count */
	double compile_accuracy;
	double call_accuracy;       /* NaN when nothing ran (compile-only) */
	double exec_accuracy;
	size_t called, executed, compiled;  /* among the results that count */
	/* timing (when kernels were timed) */
	int timed;                  /* at least one kernel was timed */
	double score;               /* sum over problems of their kernels' score (mean over passes) */
	double geomean_speedup;     /* over exec-correct, non-suspicious, timed kernels */
	double fast_1, fast_2;      /* fraction of problems correct, not suspicious, speedup > 1 (> 2) */
	double roofline_fraction;   /* mean over timed kernels */
	size_t suspicious;
	size_t not_cuda;            /* counted results whose answer is Python/Triton (reason not_cuda) */
} ks_file_metrics;

/* The warning a file deserves when most of its counted entries are not CUDA (an organizer must not
 * publish a leaderboard of zeros without noticing), or NULL. Static string. */
const char *ks_metrics_not_cuda_warning(const ks_file_metrics *m);

/* The summary lines `score` prints under a file's table (each ends with '\n'), from m over
 * nkernels results: call and exec accuracy when kernels ran on a GPU, then the score, or why there
 * is none: compile-only (nothing ran), --no-timing (run and checked, not timed: `timing` 0), or no
 * kernel timed. */
void ks_metrics_summary_lines(ks_buf *out, const ks_file_metrics *m, size_t nkernels, int gpu, int timing);

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
 * its counted entries, one per pass. */
void ks_metrics_passk(ks_passk *out, const int *ks, size_t nk, const ks_kernel_result *r, size_t n);

#endif
