/* worker: the scoring process's side of a GPU worker (src/worker/worker_main.c). Starts the worker with
 * a minimal environment in its own process group, sends requests, and enforces a deadline on every
 * reply. When a run hangs, the worker crashes, or a kernel leaves a sticky CUDA error, the worker is
 * gone: the call reports it in the result and the caller starts a fresh worker for the next kernel
 * (DESIGN §4.3). */
#ifndef KS_WORKER_H
#define KS_WORKER_H

#include <stddef.h>
#include <stdint.h>
#include <cJSON.h>
#include "run/device.h"
#include "load/plan.h"
#include "run/proto.h"

typedef enum {
	KS_RUN_OK = 0,
	KS_RUN_ERROR,            /* the request failed without harming the worker (launch config,
				  * parameter mismatch, out of memory, module load error) */
	KS_RUN_FAULT,            /* sticky CUDA error: the worker has exited */
	KS_RUN_TIMEOUT,          /* no reply in time: the worker was killed */
	KS_RUN_CRASH             /* the worker died or broke the protocol: killed */
} ks_run_status;

const char *ks_run_status_name(ks_run_status s);

typedef struct {
	uint64_t off;            /* where this buffer's bytes start in the blob */
	uint64_t total;          /* allocation size: guard + data + slack + guard */
	uint64_t checksum;
	int has_checksum;
	ks_fetch_mode mode;      /* how it was actually fetched */
	uint64_t sampled;        /* SAMPLE: elements sampled */
} ks_fetched;

typedef struct {
	ks_run_status status;
	char *stage;             /* "launch", "sync", "load", ... for messages */
	char *message;           /* why it failed */
	int cuda_code;
	double ms;               /* event time of the launch sequence */
	unsigned char *blob;
	uint64_t blob_len;
	ks_fetched *bufs;
	size_t nbufs;
} ks_run_result;

typedef struct ks_worker ks_worker;

/* Lets several workers share one GPU without disturbing a measurement (lanes.h): every request
 * is bracketed by enter/leave, with exclusive = 1 for a timed one (time runs, verified runs,
 * calibration), which then runs alone on the GPU. */
typedef struct {
	void (*enter)(void *ud, int exclusive);
	void (*leave)(void *ud, int exclusive);
	void *ud;
} ks_worker_gate;

typedef struct {
	const char *exe;         /* path of kscore-worker */
	int device;
	/* 1: the worker sees only GPU `device` (its CUDA_VISIBLE_DEVICES names that one GPU, the
	 * run's own entry for it when the run has one), so its driver initialises one GPU, not every
	 * GPU of the host; its device_count is then 1. */
	int own_device;
	const char *role;        /* "golden" or "candidate": names the worker in messages */
	double start_timeout_s;
	uint64_t max_reply;      /* cap on reply blobs */
	/* Running the worker under an NVIDIA tool (ncu, compute-sanitizer): wrapper is the tool's argv
	 * (NULL-terminated; the worker's own argv is appended), wrapper_env more "NAME=value" entries
	 * for the tool (NULL-terminated), wrapper_output the file that takes the tool's stdout and
	 * stderr (NULL: /dev/null). A wrapped worker may write files (up to 1 GiB: the tool's log) and
	 * is given exit_grace_s to exit on its own after a fault or QUIT, so the tool can finish its
	 * log; only a timeout kills it at once. NULL wrapper: a plain worker. exe and the three wrapper
 * fields are read only while the worker starts: the caller may free them once the start returns. */
	const char *const *wrapper;
	const char *const *wrapper_env;
	const char *wrapper_output;
	double exit_grace_s;
	const ks_worker_gate *gate; /* NULL: the worker has the GPU to itself */
	int alone;               /* every request counts as timed at the gate (a profiler: its counters
				  * see the whole GPU) */
} ks_worker_options;

/* The defaults: two minutes for a worker to start (CUDA initialisation on a busy node), 16 GiB
 * per reply blob, one minute for a wrapped worker to finish its tool's log. */
#define KS_WORKER_DEFAULT_START_TIMEOUT_S 120.0
#define KS_WORKER_DEFAULT_MAX_REPLY (16ull << 30)
#define KS_WORKER_DEFAULT_EXIT_GRACE_S 60.0

#define KS_WORKER_OPTIONS_INIT                                                                   \
	{ .role = "worker", .start_timeout_s = KS_WORKER_DEFAULT_START_TIMEOUT_S,                 \
	  .max_reply = KS_WORKER_DEFAULT_MAX_REPLY, .exit_grace_s = KS_WORKER_DEFAULT_EXIT_GRACE_S }

/* Starts a worker and initialises CUDA in it. On success *info describes the device. Fails with
 * KS_EUNSUPPORTED when the machine has no usable driver or device (message says which), or
 * another error when the worker cannot be started. With opts->gate, only the context's creation
 * holds it (shared): the process's start and cuInit, which touch no GPU and are most of a start
 * under a sanitizer, go on while a sibling is timed. Caller frees with ks_worker_free. */
int ks_worker_start(ks_worker **out, ks_device_info *info, const ks_worker_options *opts);

/* ks_worker_start in two halves, so that several workers create their CUDA contexts at the same
 * time (a context takes 0.1-0.2 s): ks_worker_spawn starts the process and asks it to initialise
 * without waiting; ks_worker_ready waits for the answer (failures as ks_worker_start; the caller
 * still frees w). */
int ks_worker_spawn(ks_worker **out, const ks_worker_options *opts);
int ks_worker_ready(ks_worker *w, ks_device_info *info);

/* After ks_worker_spawn, waits only for the worker's first reply: its driver is up. A worker of
 * this build describes its device there, before its context exists: then *info is that
 * description and the result 1, so the caller can compile for the GPU while the context is made
 * (ks_worker_ready, which then skips the first reply, finishes the start). 0: no description
 * (ks_worker_ready gives it). Fails as ks_worker_start (the caller still frees w). Once. */
int ks_worker_init(ks_worker *w, ks_device_info *info);

/* Loads the harness kernels (lowered names in ks_harness_kernels order). */
int ks_worker_harness(ks_worker *w, const void *cubin, size_t len, char *const *lowered);

/* Loads a module and resolves its kernels. res->status says what happened (OK, ERROR with the
 * driver's reason, or FAULT/CRASH/TIMEOUT); on OK *module identifies it and funcs[0..n) are
 * filled. */
void ks_worker_load(ks_worker *w, ks_run_result *res, int *module, ks_func_info *funcs,
		    const void *cubin, size_t len, char *const *lowered, size_t n, double timeout_s);

void ks_worker_unload(ks_worker *w, int module);

/* Runs a plan on a loaded module: fills the buffers, launches, and returns the buffers per fetch
 * (one mode per plan buffer). Never returns an error code: everything is in *res. */
void ks_worker_run(ks_worker *w, ks_run_result *res, int module, const ks_plan *plan,
		   const ks_fetch_mode *fetch, uint64_t sample_k, uint64_t sample_seed, double timeout_s);

/* The first bytes of a worker's standard output and error (device printf) kept per kernel; the
 * rest is counted and dropped (proto.h, ks_proto_capture). */
#define KS_WORKER_OUTPUT_KEEP 4096

/* Timing (DESIGN §4.6). time_start allocates nsets input sets of the plan, each filled from its
 * seed (version 0 of its inputs, plan.h), and an L2 flush buffer of flush_bytes; time_run runs the
 * plan once per entry of sets[] (a set index each), before each run and outside the timed window
 * redrawing its set's inputs to version versions[i] (when versions is not NULL and the plan's
 * change is above 0: a part of every random input redrawn, so that the run's inputs are those of
 * ks_plan version versions[i] of the set's seed), poisoning its outputs (and restoring inout
 * tensors, resetting scratch), then flushing L2, and writes one event time per run to ms[] and,
 * when span_ms is not NULL, the GPU time of the whole batch (every run with what precedes and
 * follows it: fills, flushes, kept samples) to *span_ms; time_verify refills a set from a new seed
 * (version 0), runs it once (timed) and returns its buffers like ks_worker_run; time_end frees the
 * session. */
void ks_worker_time_start(ks_worker *w, ks_run_result *res, int module, const ks_plan *plan,
			  const uint64_t *seeds, size_t nsets, uint64_t flush_bytes, double timeout_s);
void ks_worker_time_run(ks_worker *w, ks_run_result *res, const int *sets, const uint64_t *versions, size_t n,
			double *ms, double *span_ms, double timeout_s);
void ks_worker_time_verify(ks_worker *w, ks_run_result *res, const ks_plan *plan, int set, uint64_t seed,
			   const ks_fetch_mode *fetch, uint64_t sample_k, double timeout_s);
void ks_worker_time_end(ks_worker *w);

/* ks_worker_time_start for a session whose ordinary timed runs can be checked after the fact: after
 * each run of a time_run call (outside the timed window) the worker keeps check_k sampled elements
 * of every output (ks_sample_index with the set's seed: the positions of the golden run of that
 * seed), or the whole output when it is not larger, for up to *runs runs; *runs comes back as the
 * number that fits in KS_PROTO_MAX_SNAPSHOT bytes (at least 1), and a time_run call may have no
 * more runs than that. ks_worker_time_check then returns run `run` (an index into the last
 * time_run call's runs) like ks_worker_run: its kept outputs, its set's guard bands as they are now
 * and its inputs' checksums (as the run left them when the plan's change is above 0: kept after it
 * too; else as they are now). A verify or a new time_run forgets the kept runs. */
void ks_worker_time_start_checked(ks_worker *w, ks_run_result *res, int module, const ks_plan *plan,
				  const uint64_t *seeds, size_t nsets, uint64_t flush_bytes, uint64_t check_k,
				  int *runs, double timeout_s);
void ks_worker_time_check(ks_worker *w, ks_run_result *res, const ks_plan *plan, int run,
			  const ks_fetch_mode *fetch, double timeout_s);

/* Runs the calibration kernels (names in ks_cal_kernel order, proto.h; "" or NULL for one that did
 * not compile). *out receives the measured figures. */
void ks_worker_calibrate(ks_worker *w, ks_run_result *res, cJSON **out, const void *cubin, size_t len,
			 char *const *names, size_t n, double timeout_s);

/* Clocks, temperature, power and throttle reasons as JSON (NVML); NULL if the worker is gone. */
cJSON *ks_worker_status(ks_worker *w);

/* What the worker wrote on its standard output and error since the last call: the first
 * KS_WORKER_OUTPUT_KEEP bytes (NUL-terminated, raw; caller frees) with their length in *len, and
 * the count of every byte in *total. Works on a worker that has died, until ks_worker_free. */
char *ks_worker_take_output(ks_worker *w, size_t *len, uint64_t *total);

/* 1 while the worker process is running and usable. */
int ks_worker_alive(const ks_worker *w);

/* Asks the worker to quit and waits for its process to exit (up to exit_grace_s for a wrapped
 * worker, whose tool writes its log as the worker ends), then kills what is left. Returns the
 * wait status of the process kscore started (the tool, for a wrapped worker), or -1 when it had to
 * be killed or was never reaped. w stays valid (not alive) until ks_worker_free. */
int ks_worker_close(ks_worker *w);

/* From now on, a wrapped worker's tool gets s seconds (instead of its options' exit_grace_s) to
 * answer QUIT and to exit: for a close whose log nobody will read (a kept worker at the end of its
 * lane thread, whose kernels were all judged already). */
void ks_worker_set_exit_grace(ks_worker *w, double s);

/* Asks the worker to quit, then kills and reaps it. NULL is fine. */
void ks_worker_free(ks_worker *w);

void ks_run_result_clear(ks_run_result *res);

/* Finds the worker executable: $KSCORE_LIBEXEC, the score binary's own folder, then
 * <its folder>/../libexec/kscore. Caller frees; NULL when not found (message set). */

#endif
