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
} ks_config;

#define KS_CONFIG_INIT { 3, 3, 10, 400, 0.005, 1.5, 40.0, 2, 0.15, 2.0, 25.0, 0.125 }

/* Reads path over the defaults in *cfg. KS_ENOTFOUND if the file is absent (cfg unchanged),
 * KS_EINVALID naming the key for a bad value. */
int ks_config_load(ks_config *cfg, const char *path);

/* The default location: scoring/scoring.json beside the reference tests' parent, or the installed
 * share folder. Caller frees; NULL when none exists. */
char *ks_config_find(const char *refs_dir);

#endif
