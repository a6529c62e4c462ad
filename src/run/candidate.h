/* candidate: an answer as the run stage holds it, whatever its language (lang/): the image a
 * worker loads (a CUBIN, or a bundle of CUBINs: lang/image.h), its kernels' names, and how to get
 * the plan of each case. A CUDA answer's plans are resolved from its launch plan (load/plan.h); a
 * Triton answer's come from its trace (lang/triton/trace.h), which ks_candidate_trace makes on
 * the lane that first checks it and keeps for every later stage (timing, sanitizer, profile).
 * Every stage asks ks_candidate_plan, so no stage needs to know the language. */
#ifndef KS_CANDIDATE_H
#define KS_CANDIDATE_H

#include <stddef.h>
#include <stdint.h>
#include "lang/triton/trace.h"
#include "load/extract.h"
#include "load/launch.h"
#include "load/plan.h"
#include "load/problem.h"
#include "run/result.h"
#include "run/runner.h"

typedef struct {
	void *cubin;                  /* NULL: a Triton answer not traced yet */
	size_t len;
	char **lowered;
	size_t nlowered;
	ks_launch launch;             /* CUDA: the plan the candidate uses */
	const ks_problem *problem;
	ks_language language;
	const char *source;           /* Triton: the answer's Python (the entry's code) */
	ks_trace *trace;              /* Triton: its trace once made (owned: ks_candidate_image_clear) */
	int owned;                    /* cubin and lowered are the image's own (a trace's bundle) */
	int trusted;                  /* the problem set's own reference (--baseline reference): its
				       * trace may come from the cache (ks_runner_trace) */
} ks_candidate_image;

/* Frees what the image owns: a trace and its bundle. A CUDA image of a batch or a store is a view
 * (owned 0): only the fields are reset. */
void ks_candidate_image_clear(ks_candidate_image *img);

/* The plan of case ci of kind `perf` (ks_case_kind: correctness, perf or extended) of the
 * candidate, for the input seed and poison variant: the launch plan resolved (CUDA) or the traced
 * case (Triton; a trace covers the scored cases only, so an extended case is KS_EINVALID). Same
 * contract as ks_plan_build. */
int ks_candidate_plan(ks_plan *out, const ks_candidate_image *img, int perf, size_t ci, const ks_env *env,
		      uint64_t seed, int poison, const ks_plan_limits *lim);

/* For a Triton answer not traced yet: traces it on runner's GPU (the runner's tracer, behind its
 * lane's gate as untimed work) with entry, the problem's Python entry, and on success makes the
 * image from the trace. Returns KS_REASON_OK, or the verdict with *detail (caller frees): refused,
 * host_op, untraceable, trace_error, timeout, or not_run when the host cannot trace (no Python,
 * torch, triton). r gets the trace's summary (compile_log, compile_s). A CUDA image, or one traced
 * already, returns OK at once. */
ks_reason ks_candidate_trace(char **detail, ks_candidate_image *img, ks_runner *runner, const cJSON *entry,
			     const ks_plan_limits *lim, ks_kernel_result *r);

#endif
