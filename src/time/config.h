/* config: the organizer-tunable numbers of timing and judging (scoring/scoring.json, documented in
 * docs/timing.md). Defaults are compiled in, so a missing file changes nothing; a present file with
 * a bad value is an error, never silently ignored. */
#ifndef KS_CONFIG_H
#define KS_CONFIG_H

typedef struct {
	int input_sets;              /* input sets the timed runs rotate among */
	int warmup_runs;
	int min_runs, max_runs;      /* per kernel and perf case */
	double target_rel_error;     /* stop once stdev/sqrt(n)/mean is below this */
	double max_seconds_per_case; /* GPU time cap per kernel and case */
	double batch_ms;             /* GPU time per timing request, so drift hits both kernels alike */
	int verify_runs;             /* timed runs per case whose outputs are checked */
	double roofline_margin;      /* suspicious when time < floor * (1 - margin) */
	double timer_floor_us;       /* suspicious when the median is below this */
	double max_speedup;          /* suspicious when a case's speedup is above this */
	double check_fraction;       /* of the ordinary timed runs, checked after the fact (at least
				      * one per batch; 0: none) */
	double input_change;         /* part of every random input redrawn before each timed run, so
				      * that no run sees the inputs of an earlier one (0: none) */
} ks_config;

#define KS_CONFIG_DEFAULT_INPUT_SETS 3
#define KS_CONFIG_DEFAULT_WARMUP_RUNS 3
#define KS_CONFIG_DEFAULT_MIN_RUNS 10
#define KS_CONFIG_DEFAULT_MAX_RUNS 400
#define KS_CONFIG_DEFAULT_TARGET_REL_ERROR 0.005
#define KS_CONFIG_DEFAULT_MAX_SECONDS_PER_CASE 1.5
#define KS_CONFIG_DEFAULT_BATCH_MS 40.0
#define KS_CONFIG_DEFAULT_VERIFY_RUNS 2
#define KS_CONFIG_DEFAULT_ROOFLINE_MARGIN 0.15
#define KS_CONFIG_DEFAULT_TIMER_FLOOR_US 2.0
#define KS_CONFIG_DEFAULT_MAX_SPEEDUP 25.0
#define KS_CONFIG_DEFAULT_CHECK_FRACTION 0.125
#define KS_CONFIG_DEFAULT_INPUT_CHANGE 0.0625

#define KS_CONFIG_INIT                                                                           \
	{ .input_sets = KS_CONFIG_DEFAULT_INPUT_SETS, .warmup_runs = KS_CONFIG_DEFAULT_WARMUP_RUNS, \
	  .min_runs = KS_CONFIG_DEFAULT_MIN_RUNS, .max_runs = KS_CONFIG_DEFAULT_MAX_RUNS,           \
	  .target_rel_error = KS_CONFIG_DEFAULT_TARGET_REL_ERROR,                                 \
	  .max_seconds_per_case = KS_CONFIG_DEFAULT_MAX_SECONDS_PER_CASE,                         \
	  .batch_ms = KS_CONFIG_DEFAULT_BATCH_MS, .verify_runs = KS_CONFIG_DEFAULT_VERIFY_RUNS,     \
	  .roofline_margin = KS_CONFIG_DEFAULT_ROOFLINE_MARGIN,                                   \
	  .timer_floor_us = KS_CONFIG_DEFAULT_TIMER_FLOOR_US,                                     \
	  .max_speedup = KS_CONFIG_DEFAULT_MAX_SPEEDUP, .check_fraction = KS_CONFIG_DEFAULT_CHECK_FRACTION, \
	  .input_change = KS_CONFIG_DEFAULT_INPUT_CHANGE }

/* Reads path over the defaults in *cfg. KS_ENOTFOUND if the file is absent (cfg unchanged),
 * KS_EINVALID naming the key for a bad value. */
int ks_config_load(ks_config *cfg, const char *path);

/* The default location: scoring/scoring.json beside the reference tests' parent, or the installed
 * share folder. Caller frees; NULL when none exists. */
char *ks_config_find(const char *refs_dir);

#endif
