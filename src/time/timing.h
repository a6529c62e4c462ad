/* timing: the "time" stage (DESIGN §4.6). For every perf case of a kernel that passed its checks,
 * the candidate and the golden kernel are timed in the same session on the same device, in
 * alternating batches (so clock or thermal drift hits both alike), each run bracketed by CUDA
 * events on the worker's own stream, with outputs poisoned and then L2 flushed (and persisting
 * lines reset) outside the timed window before every run, rotating among several input sets. Runs
 * continue until the noise of the mean is small (or a cap is reached). A few timed runs, at random
 * points, are made on freshly generated inputs at addresses used before, and their outputs are
 * checked like a correctness case: a kernel that skips work at perf sizes, or replays an earlier
 * result, fails there. Of the ordinary runs, a random part, picked after each batch has run, is
 * checked against the golden outputs of its set's inputs: a kernel that cuts corners when it sees
 * inputs again fails there. */
#ifndef KS_TIMING_H
#define KS_TIMING_H

#include <stddef.h>
#include "run/check.h"
#include "time/config.h"
#include "run/result.h"
#include "run/runner.h"
#include "time/stats.h"

/* Ordinary timed runs checked after each candidate batch at the least (all of a shorter batch),
 * whatever timing.check_fraction says (when it is not 0): docs/timing.md, "Checked timed runs". */
#define KS_TIMING_MIN_CHECKS 4

/* The stop rule: 1 once there are at least min_runs samples and the relative error is at most the
 * target, or max_runs samples, or gpu_ms has reached the time cap. */
int ks_timing_done(const ks_stats *st, double gpu_ms, const ks_config *cfg);

typedef struct {
	ks_config cfg;
	uint64_t seed;               /* the session's base seed */
	ks_plan_limits limits;
	uint64_t flush_bytes;        /* size of the L2 flush buffer (twice the L2) */
	double timeout_s;            /* per worker request */
	const struct ks_baseline *baseline; /* stored golden times to use instead of timing the golden
					     * kernel live (score baseline); NULL: live */
} ks_timing_options;

/* The smallest L2 flush buffer: a small L2 would otherwise get a buffer that fits in other caches
 * and flushes little. */
#define KS_TIMING_MIN_FLUSH_BYTES (64ull << 20)

/* The one timing policy that depends on the device and the kernel timeout (docs/timing.md, "The
 * timing protocol"): zeroes *o, then sets flush_bytes to twice dev's L2 with
 * KS_TIMING_MIN_FLUSH_BYTES as a floor, timeout_s to 3 kernel timeouts plus 30 s (a timing request
 * runs a batch of runs, not one), and limits to KS_PLAN_LIMITS_INIT. cfg, seed and baseline are
 * left for the caller. Every command that times kernels (score, score batch, score baseline) goes
 * through here, so stored baselines and live golden times are measured alike. */
void ks_timing_options_for(ks_timing_options *o, const ks_device_info *dev, double kernel_timeout_s);

/* Times the golden kernel alone on perf case ci with the same protocol (for score baseline). */
int ks_time_golden(ks_stats *out, ks_runner *run, const ks_problem *p, size_t ci, const ks_timing_options *o);

/* Times every perf case of the candidate in img against its golden kernel and fills r->perf
 * (medians, spreads, speedups). A failure of the candidate during timing (fault, hang, or a
 * verified run that is wrong) clears r->exec and sets the reason; a failure that is not the
 * candidate's (the golden worker) sets r->timing_error. */
void ks_time_kernel(ks_kernel_result *r, const ks_candidate_image *img, ks_runner *run,
		    const ks_timing_options *o);

#endif
