/* pipeline: one scoring session, load -> compile -> run and check -> report, for any number of
 * submissions. It owns the reference problems, the GPU lanes and their runners, so every submission
 * scored in the session shares the golden kernels and results, the compile cache and the workers.
 * Submissions go into one queue for the whole run (runq.h): their entries are compiled ahead on
 * every core (prepare.h) and every lane pulls from the queue, an earlier submission's entries
 * first; each submission's result folder is written as soon as its own last entry is done. Used by
 * `score` for the files on its command line and by batch scoring for teams' repositories. */
#ifndef KS_PIPELINE_H
#define KS_PIPELINE_H

#include <stddef.h>
#include <stdint.h>
#include <cJSON.h>
#include "load/problem.h"
#include "run/result.h"
#include "nvtool/nvtool.h"
#include "run/runner.h"
#include "load/submission.h"

#define KS_PIPELINE_MAX_LANES 64      /* lanes of one run (lanes.h) */
#define KS_PIPELINE_MAX_KS 32         /* pass@k values of one run */
#define KS_PIPELINE_DEFAULT_K 1       /* pass@1 */
#define KS_PIPELINE_DEFAULT_DEVICE 0  /* one lane, on GPU 0 */

/* The one options tree of a scoring session. Each setting lives in exactly one place: the stage
 * option structs the pipeline feeds are nested here, initialised by their own INIT macros (as
 * libgit2 nests GIT_FETCH_OPTIONS_INIT in GIT_CLONE_OPTIONS_INIT), and scoreopts.c parses the
 * command line straight into them. The pipeline hands each stage its own sub-struct, completed
 * only with what the session decides at run time (a lane's device, the GPU's architecture). */
typedef struct {
	const char *refs;             /* reference problems folder (required) */
	const char *suite;            /* NULL: every suite */
	int compile_only;             /* never start a GPU worker */
	int require_gpu;              /* fail instead of falling back to compile-only */
	/* The compiles of candidates and golden kernels (check.h): arch is the NVRTC target when no
	 * GPU decides it (a GPU's own architecture wins), jobs the parallel compiles, cache_dir the
	 * compile cache (NULL: none), timeout_s and memory_mb each compile's limits. */
	ks_compile_options compile;
	/* Every lane's runners (runner.h): kernel_timeout_s and limits (max_scratch_bytes) are the
	 * session's, shared by the check, timing and tool stages. device and gate are set per lane;
	 * the harness compile takes compile's cache_dir and jobs. */
	ks_runner_options runner;
	/* The tool stages (nvtool.h): sanitize (tool mask; 0: no sanitizer stage) and profile. Its
	 * seed, limits and kernel_timeout_s are taken from the session's settings above. */
	ks_nvtool_options nvtool;
	uint64_t seed;                /* base seed of the session */
	int ks[KS_PIPELINE_MAX_KS];   /* pass@k values */
	size_t nks;
	int progress;                 /* progress lines on stderr (callers pass isatty(2)) */
	int no_timing;                /* check only: no timing, no speedups */
	const char *config;           /* scoring/scoring.json; NULL: found beside refs, else defaults */
	int recalibrate;              /* measure the ceilings even if cached */
	int use_baseline;             /* golden times from a stored baseline (score baseline) */
	const char *baseline;         /* its file; NULL: the device's default file in the cache */
	/* --baseline reference=DIR: speedups and the score over the problems' reference
	 * implementations in DIR, scored first in the session (refbase.h); NULL: over the golden
	 * kernel */
	const char *reference_dir;
	int device;                   /* the one lane's GPU when ndevices is 0 */
	int devices[KS_PIPELINE_MAX_LANES]; /* --devices: one lane per ordinal (repeats allowed) */
	size_t ndevices;
	int devices_all;              /* one lane per GPU the driver sees */
	int mixed_gpus;               /* allow GPUs of different models (same architecture) */
} ks_pipeline_options;

/* The defaults: pass@1 on GPU 0, the compile, runner and tool defaults of compile.h, runner.h, nvtool.h. */
#define KS_PIPELINE_OPTIONS_INIT                                                                 \
	{ .compile = KS_COMPILE_OPTIONS_INIT, .runner = KS_RUNNER_OPTIONS_INIT,                   \
	  .nvtool = KS_NVTOOL_OPTIONS_INIT, .ks = { KS_PIPELINE_DEFAULT_K }, .nks = 1,             \
	  .device = KS_PIPELINE_DEFAULT_DEVICE }

typedef struct ks_pipeline ks_pipeline;

/* Loads the problems (invalid ones are reported on stderr and skipped) and starts the GPU lanes
 * unless compile_only, all at once; each GPU's ceilings are then taken in the background (its lanes
 * take no work until they are in) while the first compiles run. Fails with KS_EINVALID when no
 * valid problem loads, KS_EUNSUPPORTED when require_gpu is set and there is no usable GPU. Without
 * a GPU (and without require_gpu) it succeeds in compile-only mode; ks_pipeline_no_gpu_reason says
 * why. */
int ks_pipeline_new(ks_pipeline **out, const ks_pipeline_options *opts);

int ks_pipeline_has_gpu(const ks_pipeline *p);
/* The lanes of the session (0 without a GPU). */
size_t ks_pipeline_lanes(const ks_pipeline *p);
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

/* Called once per submission when its result folder is written (rc 0) or could not be (rc < 0:
 * KS_EIO, or KS_EINVALID when the folder is refused by the rule of outdir.h; error says why). Runs
 * in the session's finisher thread, one submission at a time, in the order they complete; sc is
 * the session's and valid during the call only (a callee that keeps its results moves them out and
 * zeroes *sc). */
typedef void (*ks_pipeline_done_fn)(void *ud, ks_scored *sc, int rc, const char *error);

/* Queues a loaded submission, to be written to out_dir (replacing it, under the rule of outdir.h);
 * returns at once. sub is borrowed until done is called; team and out_dir are copied. Everything
 * that goes wrong is in the results or the done call. */
int ks_pipeline_submit(ks_pipeline *p, const ks_submission *sub, const char *team, const char *out_dir,
		       ks_pipeline_done_fn done, void *ud);

/* With --baseline reference (reference_dir): scores the references of the named problems (all
 * loaded ones when n is 0) as the baseline, and waits for them; call it before the first answer is
 * submitted, with the problems the answers name, so that no other reference is scored. Without
 * it, the first ks_pipeline_submit scores every loaded problem's reference. Once a session; later
 * calls return 0 at once. Fails only when the folder cannot be read (message set). */
int ks_pipeline_score_references(ks_pipeline *p, const char *const *problems, size_t n);

/* Holds the compiles of what is queued (ks_prepare_hold) until the call with held = 0: around
 * the submission of several inputs at once, so that they are compiled in one wave. */
void ks_pipeline_hold_compiles(ks_pipeline *p, int held);

/* No submission follows (optional; nothing may be submitted after it). Once the queued ones are
 * compiled, a lane thread that finds nothing left to take closes its GPU workers while the other
 * lanes finish, instead of holding them to the end of the session (runq.h). */
void ks_pipeline_end_input(ks_pipeline *p);

/* Returns once every submission queued so far is done (its done call returned). */
void ks_pipeline_wait(ks_pipeline *p);

/* Queues one submission and waits for it (ks_pipeline_submit): *out receives its results. Fails
 * only when the folder cannot be written (KS_EIO) or is refused (KS_EINVALID). */
int ks_pipeline_score(ks_pipeline *p, ks_scored *out, const ks_submission *sub, const char *team,
		      const char *out_dir);

void ks_scored_clear(ks_scored *s);

/* Waits for every submission queued (ks_pipeline_wait), then stops the lanes and frees the
 * session. NULL is fine. */
void ks_pipeline_free(ks_pipeline *p);

#endif
