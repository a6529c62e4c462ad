/* profile: why a kernel is slow, from Nsight Compute (issue 17). A small fixed set of ncu metrics
 * (throughput as % of peak, occupancy and its limiter, cache hit rates, sectors per global
 * request, warp stalls, tensor-pipe use) is collected for a kernel and its golden kernel on the same
 * perf case (nvtool.c runs ncu); this module parses ncu's CSV output into numbers and turns the two
 * sets into a few sentences in plain words. Pure: no process, no GPU, so CI tests it on recorded
 * output. */
#ifndef KS_PROFILE_H
#define KS_PROFILE_H

#include <stddef.h>
#include <cJSON.h>

/* The metrics, in the order of the ncu --metrics list. */
typedef enum {
	KS_PM_DURATION = 0,       /* gpu__time_duration.sum, ns */
	KS_PM_DRAM_PCT,           /* DRAM throughput, % of peak */
	KS_PM_SM_PCT,             /* SM throughput, % of peak */
	KS_PM_MEM_PCT,            /* memory (DRAM, L1, L2: the busiest) throughput, % of peak */
	KS_PM_ISSUE_PCT,          /* issue slots used, % of peak (active cycles) */
	KS_PM_OCC_ACHIEVED,       /* achieved occupancy, % of the SM's warp slots */
	KS_PM_OCC_THEORETICAL,    /* theoretical occupancy, % */
	KS_PM_LIMIT_REGISTERS,    /* blocks per SM allowed by registers */
	KS_PM_LIMIT_SHARED,       /* ... by shared memory */
	KS_PM_LIMIT_WARPS,        /* ... by warps (the block size) */
	KS_PM_LIMIT_BLOCKS,       /* ... by the blocks-per-SM cap */
	KS_PM_REGISTERS,          /* registers per thread */
	KS_PM_BLOCK_SIZE,
	KS_PM_GRID_SIZE,
	KS_PM_SHARED_STATIC,      /* bytes per block */
	KS_PM_SHARED_DYNAMIC,
	KS_PM_WAVES,              /* waves per SM */
	KS_PM_L1_HIT,             /* L1 sector hit rate, % */
	KS_PM_L2_HIT,             /* L2 sector hit rate, % */
	KS_PM_LD_SECTORS,         /* global load sectors / requests (L1) */
	KS_PM_LD_REQUESTS,
	KS_PM_ST_SECTORS,
	KS_PM_ST_REQUESTS,
	KS_PM_LD_SECTOR_USE,      /* % of each fetched 32-byte sector that global loads use */
	KS_PM_ST_SECTOR_USE,
	KS_PM_TENSOR_PCT,         /* tensor pipe busy, % of peak (active cycles) */
	KS_PM_STALL_FIRST,        /* warp stalls: cycles per issued instruction, one per reason */
	KS_PM_COUNT = KS_PM_STALL_FIRST + 18
} ks_profile_metric;

#define KS_PM_NSTALLS (KS_PM_COUNT - KS_PM_STALL_FIRST)

/* ncu's name of metric m ("dram__throughput.avg.pct_of_peak_sustained_elapsed"), the key kscore
 * writes it under in score.json ("dram_pct", "stall_long_scoreboard"), and, for stalls, what the
 * reason means in plain words. NULL for m out of range (or no words). */
const char *ks_profile_ncu_name(int m);
const char *ks_profile_key(int m);
const char *ks_profile_stall_words(int m);

/* Every metric name, comma-separated, for ncu --metrics; skip[m] != 0 leaves metric m out (NULL:
 * none). Caller frees. */
char *ks_profile_metric_list(const unsigned char *skip);

/* One profiled kernel launch. v[m] is NAN where ncu gave no number. */
typedef struct {
	char name[256];          /* kernel name as ncu printed it: sanitised to printable ASCII, capped */
	double v[KS_PM_COUNT];
} ks_profile_launch;

typedef struct {
	ks_profile_launch *launches;
	size_t n;
	int format;              /* 1: ncu --page raw (one row per launch); 2: the details page (one row
				  * per metric); 0: no table found */
} ks_profile_data;

#define KS_PROFILE_MAX_LAUNCHES 64
#define KS_PROFILE_MAX_LINE 65536

/* Parses ncu's --csv output (the raw page or the details page, as ncu prints it, with "==PROF=="
 * and other lines around the table) into launches. Units are normalised: durations to ns, sizes
 * to bytes, percentages as they are. Input is untrusted: lines, fields and launches are capped
 * (longer lines are skipped, launches past KS_PROFILE_MAX_LAUNCHES dropped). Returns 0 (out->n may
 * be 0: out->format says whether a table was found), never fails on bad input. Caller clears. */
int ks_profile_parse(ks_profile_data *out, const char *text, size_t len);
void ks_profile_data_clear(ks_profile_data *d);

/* The launch to diagnose: the longest one whose name is one of names[0..n) (exact match; NULL
 * names: any launch). NULL when none matches. */
const ks_profile_launch *ks_profile_pick(const ks_profile_data *d, char *const *names, size_t n);

/* The metrics ncu named in an error line of its output ("==ERROR== ... metric ..."): skip[m] is
 * set for each one of ours, so that a retry can leave them out. Returns how many were set. */
int ks_profile_failed_metrics(unsigned char *skip, const char *text, size_t len);

/* The diagnosis: up to KS_PROFILE_MAX_LINES sentences comparing kernel k with golden kernel g (g
 * may be NULL), most important first (what bounds it, coalescing, occupancy and its limiter, warp
 * stalls, caches, tensor cores when tensor_peak). *lines is NULL-terminated; caller frees with
 * ks_free_strv(*lines, *n). Never fails; an empty list when k has too few numbers. */
#define KS_PROFILE_MAX_LINES 8
void ks_profile_diagnose(char ***lines, size_t *n, const ks_profile_launch *k, const ks_profile_launch *g,
			 int tensor_peak);

/* {"name": ..., "metrics": {key: number or null, ...}} for score.json. */
cJSON *ks_profile_launch_json(const ks_profile_launch *l);

#endif
