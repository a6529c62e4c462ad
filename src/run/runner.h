/* runner: one GPU's scoring session. It owns the two workers of DESIGN §4.4 — a golden worker that
 * runs only golden kernels, and a candidate worker that runs submissions and is replaced whenever a
 * submission kills it — plus the harness kernels and a cache of golden results, so every candidate
 * of a problem is checked against golden outputs computed once, in another process. */
#ifndef KS_RUNNER_H
#define KS_RUNNER_H

#include <stddef.h>
#include <stdint.h>
#include "lang/cuda/compile.h"
#include "load/plan.h"
#include "load/problem.h"
#include "run/result.h"
#include "run/worker.h"
#include "lang/triton/trace.h"
#include "lang/triton/tracer.h"

typedef struct ks_runner ks_runner;

/* Elements compared per output of a perf-size verification run (sampled, DESIGN §4.5: every
 * element of every correctness case is compared; timed runs at perf sizes are checked on this many
 * positions chosen after the run, plus the first and last elements). A kernel wrong on a fraction
 * f of its output escapes with probability (1 - f)^k: e^-26 for f = 1e-4, so no cheat that skips
 * enough work to matter passes; more samples would only cost transfer and comparison time. */
#define KS_VERIFY_SAMPLES (1ull << 18)

typedef struct {
	int device;
	int own_device;               /* its workers see only this GPU (ks_worker_options) */
	const char *worker_exe;       /* NULL: found with ks_fs_find_helper */
	ks_compile_options compile;   /* compiles the harness kernels */
	double kernel_timeout_s;      /* per run, past which the worker is killed */
	double trace_timeout_s;       /* a Triton answer's trace (--trace-timeout; lang/triton/tracer.h) */
	ks_plan_limits limits;
	int golden_only;              /* no candidate worker is started with the runner (it still is on
				       * first use); for tools that run golden kernels only */
	const ks_worker_gate *gate;   /* shared with the other runners of one GPU (lanes.h); NULL: none */
	struct ks_goldcache *goldens; /* golden results shared with the other runners of one GPU
				       * (ks_runner_goldcache_new; it must outlive the runner); NULL: the
				       * runner keeps its own, unbounded */
} ks_runner_options;

/* The default per-run kernel timeout (--kernel-timeout), seconds. */
#define KS_RUNNER_DEFAULT_KERNEL_TIMEOUT_S 10.0

#define KS_RUNNER_OPTIONS_INIT                                                                   \
	{ .compile = KS_COMPILE_OPTIONS_INIT, .kernel_timeout_s = KS_RUNNER_DEFAULT_KERNEL_TIMEOUT_S, \
	  .trace_timeout_s = KS_TRACER_DEFAULT_TIMEOUT,                                           \
	  .limits = KS_PLAN_LIMITS_INIT }

/* Traces a Triton answer on the runner's GPU with the runner's own kscore-triton server
 * (trusted: the problem set's own reference, whose trace is kept in the compile cache folder across
 * runs, ks_tracer_trace_cached; never an answer's)
 * (lang/triton/tracer.h), started on first use, which sees that GPU alone, as its device 0. The
 * trace runs behind the lane's gate: alone on the GPU, as a timed request, when the answer
 * autotunes (ks_tracer_measures: what it picks is scored), as untimed work otherwise. Always fills
 * *out (caller clears); a server that cannot start gives KS_TRACE_UNAVAILABLE, for this answer and
 * every later one of the runner. */
void ks_runner_trace(ks_runner *r, ks_trace *out, const ks_problem *p, const cJSON *entry, const char *source,
		     const ks_plan_limits *lim, int trusted);

/* Starts the golden worker on the device (probing it), compiles the harness for the device's own
 * architecture and loads it. Fails with KS_EUNSUPPORTED (message says why) where there is no GPU. */
int ks_runner_start(ks_runner **out, const ks_runner_options *opts);

/* ks_runner_start in two halves. Begin starts both workers and returns once the golden worker's
 * driver is up and its GPU known (ks_runner_device, ks_runner_arch): with a worker of this build,
 * before either context exists, so that a caller can compile for the GPU meanwhile (contexts are
 * made one at a time for the whole host). Finish compiles and loads the harness and waits for
 * both contexts; nothing else may be asked of the runner before it returned 0. A failed begin
 * leaves *out NULL; after a failed finish the caller frees r. */
int ks_runner_begin(ks_runner **out, const ks_runner_options *opts);
int ks_runner_finish(ks_runner *r);

const ks_device_info *ks_runner_device(const ks_runner *r);
/* The NVRTC target of this device ("sm_90a" for compute capability 9.0). */
const char *ks_runner_arch(const ks_runner *r);
/* Maps a compute capability to the NVRTC target kscore uses for it. Caller frees. */
char *ks_arch_for(int cc_major, int cc_minor);

/* Registers the compiled golden kernels of a problem (lowered names in the order of
 * ks_plan_kernel_names(&p->golden_launch)). The runner copies the image. */
void ks_runner_add_golden(ks_runner *r, const ks_problem *p, const void *cubin, size_t len,
			  char *const *lowered, size_t n);

/* 1 when the golden kernels of p were registered. */
int ks_runner_has_golden(const ks_runner *r, const ks_problem *p);

/* Compiles the golden kernels of every problem of set in one parallel batch (co->arch is used as
 * given), registers those that compiled with r when r is not NULL, and reports each problem's
 * status and NVRTC log in status[i] and logs[i] (caller frees with ks_free_strv(logs, set->n)).
 * Returns nonzero only if the compiler cannot run at all. */
int ks_runner_compile_goldens(ks_runner *r, const ks_problem_set *set, const ks_compile_options *co,
			      ks_compile_status *status, char **logs);

/* Fills *job to compile p's golden kernel the way ks_runner_compile_goldens does (its source with
 * the shared prelude, the golden plan's kernel names, the problem's name as label). The names are
 * returned in *names / *nn, which job borrows: the caller frees them with ks_free_strv after the
 * compile, and the job with ks_compile_job_clear. */
void ks_runner_golden_job(ks_compile_job *job, char ***names, size_t *nn, const ks_problem *p);

typedef struct {
	ks_plan plan;          /* the golden plan (its bufs describe the blob) */
	ks_run_result res;     /* outputs in full; inputs in full (correctness) or as checksums (perf) */
	ks_fetch_mode *fetch;  /* how each buffer was fetched */
} ks_golden_run;

/* A cache of golden results for the runners of one GPU (goldcache.h), of at most max_bytes (0: no
 * bound). Caller frees with ks_goldcache_free after the runners. */
struct ks_goldcache *ks_runner_goldcache_new(uint64_t max_bytes);

/* From now on the runner keeps its golden results in c (shared with the other runners of its GPU,
 * which must outlive the runner), letting go of those it held. */
void ks_runner_share_goldens(ks_runner *r, struct ks_goldcache *c);

/* The golden result for (problem, case of kind `perf` (ks_case_kind: correctness, perf or
 * extended; an extended case's outputs come back whole, as a correctness case's), seed), computed
 * on first use, unless
 * the GPU's cache (options' goldens) holds it already, and kept until forgotten. The golden run is
 * validated (it ran, wrote every output, kept its guard bands); on failure returns KS_ERROR with a
 * message, and the problem should be treated as invalid. */
int ks_runner_golden(ks_runner *r, const ks_golden_run **out, const ks_problem *p, int perf,
		     size_t case_index, uint64_t seed);

/* The golden result for perf case case_index on version `version` of seed's inputs with a part
 * `change` redrawn (plan.h: the inputs of one timed run), computed now into *out and not cached,
 * since no two timed runs share their inputs: the caller clears it with ks_golden_run_clear.
 * Fails like ks_runner_golden. */
int ks_runner_golden_version(ks_runner *r, ks_golden_run *out, const ks_problem *p, size_t case_index, uint64_t seed,
			     uint64_t version, double change);
void ks_golden_run_clear(ks_golden_run *g);

/* The golden worker with p's golden module loaded in it (started or reloaded as needed), for
 * timing. Returns NULL with a message when that fails. */
ks_worker *ks_runner_golden_worker(ks_runner *r, const ks_problem *p, int *module);

/* Runs an arbitrary plan on p's golden module in the golden worker (for check-refs, which
 * probes the golden kernel: repeat runs, fill-only plans). Failures are in *res. */
void ks_runner_golden_plan(ks_runner *r, ks_run_result *res, const ks_problem *p, const ks_plan *plan,
			   const ks_fetch_mode *fetch);

/* The candidate worker (after ks_runner_load), for timing; NULL when it is not running. */
ks_worker *ks_runner_candidate_worker(ks_runner *r);

/* A worker of its own (neither the golden nor the candidate worker) with the runner's executable,
 * device, gate and harness kernels, started under the wrapper of *wo (a profiler or a sanitizer;
 * exe, device, gate and role are filled in here), for running one kernel once more. Caller frees. */
int ks_runner_start_wrapped(ks_runner *r, ks_worker **out, const char *role, const ks_worker_options *wo);

/* The golden kernels' image of p, borrowed from the runner; -1 when p has none. */
int ks_runner_golden_image(ks_runner *r, const ks_problem *p, const void **cubin, size_t *len,
			   char *const **lowered, size_t *n);

/* Clocks, temperature, power and throttle reasons of the device now (NULL when unknown). */
cJSON *ks_runner_status(ks_runner *r);

/* Lets go of the golden results of a problem the runner holds: the GPU's cache keeps them within
 * its budget for the next candidate of the problem. */
void ks_runner_forget(ks_runner *r, const ks_problem *p);
/* The same for its perf-case golden results only (large; held while one candidate is timed). */
void ks_runner_forget_perf(ks_runner *r, const ks_problem *p);

/* Candidate side: load a module in the candidate worker, starting a fresh worker first if the last
 * one died. */
void ks_runner_load(ks_runner *r, ks_run_result *res, int *module, ks_func_info *funcs,
		    const void *cubin, size_t len, char *const *lowered, size_t n);
void ks_runner_run(ks_runner *r, ks_run_result *res, int module, const ks_plan *plan,
		   const ks_fetch_mode *fetch);
void ks_runner_unload(ks_runner *r, int module);
/* Adds what the candidate worker printed since the kernel was loaded (device printf: its stdout and
 * stderr, never the scorer's) to kr: kr->device_output keeps the first KS_WORKER_OUTPUT_KEEP bytes
 * over all calls for one kernel, made safe to show; kr->device_output_bytes counts them all. Call
 * after the kernel's last request of a stage (its unload), also when the worker died. */
void ks_runner_collect_output(ks_runner *r, ks_kernel_result *kr);

/* How many candidate workers were started (the first one included). */
int ks_runner_candidate_starts(const ks_runner *r);

/* Something a later stage keeps with the runner between kernels (nvtool's kept sanitizer worker),
 * since a worker belongs to the thread that started it: the runner owns it from now on and calls
 * release(data) first thing in ks_runner_free, in the runner's thread, while its GPU's gate still
 * stands. One slot: attaching again (NULL included) releases what was there first. */
void ks_runner_attach(ks_runner *r, void *data, void (*release)(void *data));
void *ks_runner_attached(const ks_runner *r);

void ks_runner_free(ks_runner *r);

/* The seed of seed_index for a case: a hash of the session's base seed, the problem's name and the
 * case, so runs are reproducible from the base seed recorded in score.json. */
uint64_t ks_seed_derive(uint64_t base, const char *problem, int perf, size_t case_index, int seed_index);

#endif
