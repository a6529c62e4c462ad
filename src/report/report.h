/* report: writes the result folder of one submission (DESIGN §6): the GEAK-eval file names that
 * organizers' scripts read, with kernel names beside every number, and score.json, the complete
 * machine-readable record. The folder is built beside the target, marked as kscore's and renamed
 * into place (outdir.h), so a re-run replaces it whole (no stale files), a kill never leaves half
 * of one, and nothing that is not kscore's, nor an input, is ever replaced. */
#ifndef KS_REPORT_H
#define KS_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <cJSON.h>
#include "load/problem.h"
#include "run/result.h"
#include "load/submission.h"
#include "time/calibrate.h"
#include "time/config.h"
#include "run/device.h"

/* One lane of --devices, as score.json records it. */
typedef struct {
	int ordinal;
	const ks_device_info *device;     /* NULL: it never started */
	int shared;                       /* another lane ran on the same GPU: its timings are not clean */
	const char *out;                  /* why it was taken out of the rotation; NULL: it was not */
	const ks_ceilings *ceilings;      /* its GPU's (NULL: not timed or not measured) */
	const char *golden_source;
	/* its GPU's golden results in the run so far (goldcache.h): run on the GPU, and served again
	 * from the GPU's cache; have_goldens 0: not known */
	int have_goldens;
	uint64_t goldens_computed, goldens_reused;
} ks_report_lane;

typedef struct {
	const char *out_dir;
	const char *team;                 /* may be NULL */
	const ks_submission *submission;
	const ks_kernel_result *results;  /* every entry of every pass, in pass order */
	size_t nresults;
	const int *ks;                    /* pass@k values asked for */
	size_t nks;
	int gpu;                          /* 0: compile-only */
	const char *no_gpu_reason;        /* why there was no GPU (compile-only fallback) */
	const ks_device_info *device;     /* NULL without a GPU */
	const char *arch;
	const char *nvrtc_version;
	const char *compat_sha256;        /* kscore's compatibility headers (NULL: not used) */
	const char *compile_options;      /* the NVRTC options (ks_compile_toolchain) */
	uint64_t seed;
	const ks_problem_set *problems;
	time_t started;
	double wall_s;
	const ks_ceilings *ceilings;      /* NULL when not timed or not measured */
	const ks_config *config;          /* the timing and roofline settings used (NULL: not timed) */
	cJSON *status_start, *status_end; /* device clocks/temperature before and after timing */
	const char *golden_source;        /* live co-run, or the stored baseline used */
	/* what the speedups are over, when not the golden kernel: the "baseline" record
	 * (session/refbase.h's ks_refbase_json); NULL: the golden kernel (golden_source) */
	const cJSON *baseline;
	const ks_report_lane *lanes;      /* the run's lanes (none without a GPU) */
	size_t nlanes;
	const int *kernel_lane;           /* per result: the lane that timed it, else the one that checked
					   * it; -1: it ran on none */
	const cJSON *nvtools;             /* the sanitizer and profiler stages' settings (NULL: none) */
	const cJSON *start;               /* what starting the run's lanes cost (NULL: no GPU) */
} ks_report;

/* Writes every file of the folder. On success, *summary (if not NULL) receives the summary object
 * also stored in score.json (caller frees). */
int ks_report_write(const ks_report *rep, cJSON **summary);

/* The score.json record alone (for tests and uploads). Caller frees. */
cJSON *ks_report_record(const ks_report *rep);

#endif
