/* pipeline: one scoring session, load -> compile -> run and check -> report, for any number of
 * submissions. It owns the reference problems and the GPU runner, so every submission scored in the
 * session shares the golden results, the compile cache and the workers. Used by `score` for the
 * files on its command line and by batch scoring for teams' repositories. */
#ifndef KS_PIPELINE_H
#define KS_PIPELINE_H

#include <stddef.h>
#include <stdint.h>
#include <cJSON.h>
#include "problem.h"
#include "result.h"
#include "runner.h"
#include "submission.h"

#define KS_PIPELINE_MAX_LANES 64      /* lanes of one run (lanes.h) */

typedef struct {
	const char *refs;             /* reference problems folder (required) */
	const char *suite;            /* NULL: every suite */
	int compile_only;             /* never start a GPU worker */
	int require_gpu;              /* fail instead of falling back to compile-only */
	const char *arch;             /* NVRTC target when no GPU decides it */
	int device;
	int jobs;                     /* parallel compiles */
	const char *cache_dir;        /* NULL: no compile cache */
	double kernel_timeout_s, compile_timeout_s;
	size_t compile_memory_mb;
	uint64_t seed;                /* base seed of the session */
	const int *ks;                /* pass@k values */
	size_t nks;
	int progress;                 /* progress lines on stderr (callers pass isatty(2)) */
	int no_timing;                /* check only: no timing, no speedups */
	const char *config;           /* scoring/scoring.json; NULL: found beside refs, else defaults */
	int recalibrate;              /* measure the ceilings even if cached */
	int use_baseline;             /* golden times from a stored baseline (score baseline) */
	const char *baseline;         /* its file; NULL: the device's default file in the cache */
	uint64_t max_scratch_bytes;   /* scratch per launch plan (--max-scratch); 0: the default */
	const int *devices;           /* --devices: one lane per ordinal (repeats allowed); NULL: one
				       * lane on `device` */
	size_t ndevices;
	int devices_all;              /* one lane per GPU the driver sees */
	int mixed_gpus;               /* allow GPUs of different models (same architecture) */
	unsigned sanitize;            /* compute-sanitizer tools run on each correct kernel (sanitize.h);
				       * 0: no sanitizer stage */
	int profile;                  /* ks_profile_when (nvtool.h): which kernels ncu profiles */
} ks_pipeline_options;

#define KS_PIPELINE_OPTIONS_INIT                                                                 \
	{ .arch = KS_COMPILE_DEFAULT_ARCH, .jobs = 4, .kernel_timeout_s = KS_RUNNER_DEFAULT_KERNEL_TIMEOUT_S, \
	  .compile_timeout_s = KS_COMPILE_DEFAULT_TIMEOUT_S, .compile_memory_mb = KS_COMPILE_DEFAULT_MEMORY_MB }

typedef struct ks_pipeline ks_pipeline;

/* Loads the problems (invalid ones are reported on stderr and skipped) and starts the GPU runner
 * unless compile_only. Fails with KS_EINVALID when no valid problem loads, KS_EUNSUPPORTED when
 * require_gpu is set and there is no usable GPU. Without a GPU (and without require_gpu) it
 * succeeds in compile-only mode; ks_pipeline_no_gpu_reason says why. */
int ks_pipeline_new(ks_pipeline **out, const ks_pipeline_options *opts);

int ks_pipeline_has_gpu(const ks_pipeline *p);
/* Why there is no GPU (NULL when there is one or compile-only was asked for). */
const char *ks_pipeline_no_gpu_reason(const ks_pipeline *p);
const ks_problem_set *ks_pipeline_problems(const ks_pipeline *p);



/* What scoring one submission produced. */
typedef struct {
	char *out_dir;
	ks_kernel_result *results;
	size_t nresults;
	size_t correct;               /* exec-correct kernels (compiled ones in compile-only mode) */
	int bad_input;                /* some pass of the submission could not be read */
	cJSON *summary;               /* the "summary" object of score.json */
} ks_scored;

/* Scores a loaded submission and writes its result folder to out_dir (replacing it, under the rule
 * of outdir.h). Fails only when the folder cannot be written (KS_EIO) or is refused by that rule
 * (KS_EINVALID); everything else is in the results. */
int ks_pipeline_score(ks_pipeline *p, ks_scored *out, const ks_submission *sub, const char *team,
		      const char *out_dir);

void ks_scored_clear(ks_scored *s);
void ks_pipeline_free(ks_pipeline *p);

#endif
