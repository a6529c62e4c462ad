/* nvtool: running a kernel once more under an NVIDIA tool, after the numbers that count are
 * taken: compute-sanitizer on one correctness case of every kernel that passed its checks (issue
 * 11.3; the first with several blocks and a partial tail, issue 23.2), and Nsight Compute (ncu) on the largest perf case of selected kernels and of their
 * golden kernels, after timing (issue 17). Each run is a fresh GPU worker of its own started under
 * the tool (worker.h's wrapper), with the same empty environment, the same protocol and the same
 * rule as every candidate worker: it gets inputs, never expected outputs. The tool's log goes to a
 * private temporary folder, is read back with a cap and parsed by sanitize.c or profile.c. A tool
 * that is missing, or cannot work on this machine, is reported once and the stage is skipped: the
 * scoring goes on as without it. */
#ifndef KS_NVTOOL_H
#define KS_NVTOOL_H

#include <stdint.h>
#include <stdio.h>
#include <cJSON.h>
#include "util/buf.h"
#include "run/check.h"
#include "load/plan.h"
#include "run/result.h"
#include "run/runner.h"

typedef enum { KS_PROFILE_NEVER = 0, KS_PROFILE_SLOW, KS_PROFILE_ALL } ks_profile_when;

/* Parses --profile's value ("slow", "all", "never"; NULL means slow). KS_EINVALID otherwise. */
int ks_profile_when_parse(ks_profile_when *out, const char *s);
const char *ks_profile_when_name(ks_profile_when w);

/* Finds an NVIDIA tool ("ncu", "compute-sanitizer"): the program named by $KSCORE_NCU or
 * $KSCORE_COMPUTE_SANITIZER when set (for a non-standard install), else $CUDA_HOME/bin,
 * /usr/local/cuda/bin, then $PATH. Caller frees; NULL with a message saying where it looked. */
char *ks_nvtool_find(const char *name);

typedef struct {
	unsigned sanitize;           /* compute-sanitizer tools to run (sanitize.h mask); 0: none */
	ks_profile_when profile;
	uint64_t seed;               /* the session's base seed (the runs use the checks' inputs) */
	ks_plan_limits limits;
	double kernel_timeout_s;     /* the session's; a tool's run gets a multiple of it */
	const char *prog;            /* "score" or "score batch", for the warnings */
	FILE *warn;                  /* where ks_nvtool_new warns of a missing tool; NULL: stderr */
} ks_nvtool_options;

#define KS_NVTOOL_OPTIONS_INIT                                                                   \
	{ .profile = KS_PROFILE_NEVER, .limits = KS_PLAN_LIMITS_INIT,                             \
	  .kernel_timeout_s = KS_RUNNER_DEFAULT_KERNEL_TIMEOUT_S, .prog = "score" }

typedef struct ks_nvtool ks_nvtool;

/* Looks for the tools the options ask for; a missing one is said once on stderr and its stage is
 * off. Never fails. Caller frees. */
void ks_nvtool_new(ks_nvtool **out, const ks_nvtool_options *o);
void ks_nvtool_free(ks_nvtool *t);

/* What the session did with the tools, for score.json ("nvtools"). Caller frees. */
cJSON *ks_nvtool_json(const ks_nvtool *t);

/* The sanitizer stage for one kernel that passed its checks (r->exec): runs each selected tool on
 * the correctness case ks_sanitize_pick_case picks for img's launch plan (at most
 * KS_SANITIZE_MAX_CASE_BYTES), with the inputs of its first checked run; the first error found
 * makes the kernel fail with reason `sanitizer` (exec cleared) and the finding as its detail. Sets
 * r->sanitizer to the stage's record (the case, its index and why it was picked). A tool failure that is not the kernel's (the tool could not start) is recorded and
 * charged to nobody. */
void ks_nvtool_sanitize(ks_nvtool *t, ks_kernel_result *r, const ks_candidate_image *img, ks_runner *run);

/* 1 when the profile stage wants r (timed, exec-correct, and slower than its golden kernel under
 * --profile=slow). */
int ks_nvtool_wants_profile(const ks_nvtool *t, const ks_kernel_result *r);

/* The profile stage for one timed kernel: it and its golden kernel (profiled once per problem
 * and session) run under ncu on the largest perf case; sets r->profile (metrics of both, the
 * diagnosis, or why there is none). Never changes any timed number or verdict. */
void ks_nvtool_profile(ks_nvtool *t, ks_kernel_result *r, const ks_candidate_image *img, ks_runner *run);

/* The sanitizer and profile records of r (if any) as lines of exec/performance_analysis.txt,
 * indented by three spaces. */
void ks_nvtool_text(ks_buf *out, const ks_kernel_result *r);

#endif
