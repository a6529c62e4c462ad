/* tracer: the Triton front-end's helper process, kscore-triton (src/lang/triton/kscore_triton/,
 * docs/triton-protocol.md), run with the scoring host's own Python.
 *
 * One server per GPU lane thread and run, started when the first Triton answer comes: it imports
 * torch and triton once (seconds), then traces answer after answer, each in a child of its own
 * that confines itself before the answer's code runs. kscore starts it the way it starts its other
 * helpers (util/sandbox.h): its own process group, killed with kscore, an environment of its own
 * (nothing of kscore's but CUDA_VISIBLE_DEVICES, one hardware queue per CUDA context, and what
 * KSCORE_TRITON_ENV names), a private temporary folder that holds its Triton cache, and a
 * wall-clock limit on every answer: a server that misses it is killed and started again for the
 * next answer.
 *
 * Python is $KSCORE_PYTHON, else python3 on PATH; it must have torch and triton for traces. The
 * static check alone (ks_tracer_check) needs only Python. Nothing here runs an answer's code in
 * the scoring process, and nothing an answer prints reaches kscore's output but the capped, cleaned
 * text the trace records. */
#ifndef KS_TRACER_H
#define KS_TRACER_H

#include <stdint.h>
#include <cJSON.h>
#include "lang/triton/trace.h"

typedef struct ks_tracer ks_tracer;

#define KS_TRACER_DEFAULT_START_TIMEOUT 180.0 /* importing torch and triton on a busy node */
/* One case of an answer's trace: its two calls with their compiles and autotuning (the first case
 * also imports the answer). The limit starts again at each case, so a problem of many cases is
 * not cut short, while a wrapper that stalls holds its lane this long only. The slowest honest
 * answer measured, the hackathon's int4_matmul reference (36 autotuned configs, 14 cases), took
 * 280 s in all, about 20 s a case (docs/benchmarks.md). */
#define KS_TRACER_DEFAULT_TIMEOUT 120.0
/* The whole trace has the per-case limit times the cases, at most KS_TRACE_MAX_TOTAL_S (trace.h). */
#define KS_TRACER_DEFAULT_GRACE 30.0          /* past the helper's own limit, before kscore kills it */
#define KS_TRACER_MAX_RESPONSE (64u << 20)    /* one response line: base64 CUBINs and the record */
#define KS_TRACER_MAX_SOURCE (1u << 20)       /* an answer's source */

typedef struct {
	const char *python;       /* NULL: $KSCORE_PYTHON, else python3 on PATH */
	const char *helper;       /* NULL: kscore-triton, found like kscore's other helpers */
	int device;               /* the GPU ordinal the answers run on, as the helper sees them */
	/* The helper's CUDA_VISIBLE_DEVICES (copied); NULL: the run's own, if any. A lane gives its own
	 * GPU's entry, with device 0: an answer's Python then sees that one GPU, never the GPUs where
	 * other lanes time other kernels. */
	const char *visible_devices;
	double start_timeout_s;
	double timeout_s;         /* one case of an answer's trace (the helper's own limit on its child) */
	double grace_s;           /* how much longer kscore waits for the helper to say so */
} ks_tracer_options;

#define KS_TRACER_OPTIONS_INIT                                                                   \
	{ .device = 0, .start_timeout_s = KS_TRACER_DEFAULT_START_TIMEOUT,                        \
	  .timeout_s = KS_TRACER_DEFAULT_TIMEOUT, .grace_s = KS_TRACER_DEFAULT_GRACE }

/* The Python kscore runs: $KSCORE_PYTHON, else python3 found on PATH. Returns its path (caller
 * frees), or NULL with KS_ENOTFOUND and a message saying what to set. */
char *ks_tracer_find_python(const char *given);

/* Starts a server. Returns 0, or an error with a message (no Python, no helper, fork failed). The
 * server's first answer says whether torch, triton and a GPU are there (KS_TRACE_UNAVAILABLE). */
int ks_tracer_start(ks_tracer **out, const ks_tracer_options *o);

/* 1 when the answer may time its own kernels while it is traced (Triton's autotuner, do_bench: it
 * names either): what it picks then is what is scored, so its trace needs the GPU alone. A name
 * hidden from this test only exposes the answer to its own noisy choice. */
int ks_tracer_measures(const char *source);

/* Waits until the server is up, its torch and triton imported (seconds: started again if it is
 * not running), so that a caller can hold the GPU for the trace alone, not for the imports. 0, or
 * an error with a message after start_timeout_s (the server is stopped; the next trace says why
 * it cannot run). Cheap once the server has answered. */
int ks_tracer_ready(ks_tracer *t);

/* Traces one answer (its Python source) on every case of problem p, entry being the problem's
 * Python entry (ks_problem_python_json). Always fills *out (caller clears): the trace, or its
 * verdict and message; a server that dies or misses the deadline gives KS_TRACE_BROKEN or
 * KS_TRACE_TIMEOUT and is started again on the next call. Returns 0, or an error when the request
 * could not be built (message set; *out then says so as KS_TRACE_BROKEN). */
int ks_tracer_trace(ks_tracer *t, ks_trace *out, const ks_problem *p, const cJSON *entry, const char *source,
		    const ks_plan_limits *lim);

/* ks_tracer_trace for trusted code only (the problem set's references of --baseline reference):
 * a trace that succeeded is kept in cache_dir/traces/, keyed by everything it is a function of
 * (the request but its id, the helper's Python, torch and Triton versions, kscore's version, and
 * salt: the GPU model, on which an autotuner's pick depends), and a later run reads it back
 * instead of tracing (*hit = 1). An answer's trace is never cached: what it does when traced is
 * its own. cache_dir NULL: ks_tracer_trace. A damaged or stale entry is traced again and
 * replaced; a cache that cannot be written leaves the trace as it is. */
int ks_tracer_trace_cached(ks_tracer *t, ks_trace *out, int *hit, const ks_problem *p, const cJSON *entry,
			   const char *source, const ks_plan_limits *lim, const char *cache_dir, const char *salt);

/* Stops the server and removes its temporary folder. */
void ks_tracer_free(ks_tracer *t);

/* The static check alone, in a one-shot `kscore-triton check` under the same discipline. Sets *ok
 * (1: the source may be traced), and when refused *reason (caller frees) and *line (0: none).
 * Returns 0, or KS_ENOTFOUND / another error (message set) when the check could not run. */
int ks_tracer_check(int *ok, char **reason, int *line, const ks_tracer_options *o, const char *source);

#endif
