/* trace: the Triton front-end's record of an answer (docs/triton-protocol.md). The helper
 * kscore-triton runs the answer's Python entry on every case of its problem, once to warm up and
 * once recorded, and answers with what the recorded call launched: the CUBINs Triton compiled, and
 * per case the buffers (the problem's tensors, and the scratch the wrapper allocated), the launches
 * with their grids and arguments, and the fills and copies the wrapper made between them.
 *
 * This module builds the helper's request from a problem, reads its response as untrusted input
 * (every count, size, index and offset is checked; the CUBINs' digests are checked), and turns a
 * case of a read trace into a launch plan (load/plan.h) that the run stage replays exactly like a
 * CUDA answer's plan: fresh inputs, poisoned outputs and scratch, guard bands. It never runs
 * anything itself; the helper process is tracer.h's. */
#ifndef KS_TRACE_H
#define KS_TRACE_H

#include <stddef.h>
#include <stdint.h>
#include <cJSON.h>
#include "load/plan.h"
#include "load/problem.h"

typedef enum {
	KS_TRACE_OK = 0,
	KS_TRACE_REFUSED,     /* the static check refused the source (before anything ran) */
	KS_TRACE_HOST_OP,     /* the wrapper computed with torch instead of launching its kernels */
	KS_TRACE_UNTRACEABLE, /* what it launched cannot be replayed faithfully (the reason says why) */
	KS_TRACE_ERROR,       /* the answer raised, or its Triton code did not compile */
	KS_TRACE_TIMEOUT,     /* the trace ran past its wall-clock limit */
	KS_TRACE_UNAVAILABLE, /* no usable Python, torch, triton or GPU for the helper */
	KS_TRACE_BROKEN       /* the helper's response is not a valid trace */
} ks_trace_status;

const char *ks_trace_status_name(ks_trace_status s);

/* Caps on what a response may hold. */
#define KS_TRACE_MAX_KERNELS KS_PLAN_MAX_FUNCS  /* distinct CUBINs over all cases */
#define KS_TRACE_MAX_CUBIN_BYTES (32u << 20)    /* all CUBINs together, decoded */
#define KS_TRACE_MAX_BUFS 16                    /* buffers of one case: tensors and scratch */
#define KS_TRACE_MAX_SCRATCH 8                  /* scratch buffers of one case */
#define KS_TRACE_MAX_TEXT 4096                  /* a message, the answer's output */

typedef struct {
	char *name;             /* the kernel's entry symbol in its CUBIN */
	unsigned char *cubin;
	size_t len;
	uint32_t num_warps;     /* the block is 32 * num_warps threads */
	uint32_t shared;        /* dynamic shared memory, bytes */
	char **params;          /* Triton signature types of the parameters, "*fp32", "i32", ... */
	size_t nparams;
} ks_trace_kernel;

/* One case as recorded. Buffers are the case's own list: a problem tensor (name set) or a scratch
 * buffer (name NULL, bytes). kernels' and steps' buffer indices refer to this list and their func
 * to ks_trace.kernels; ks_trace_plan maps them onto a plan's buffers. */
typedef struct {
	char **buf_names;
	uint64_t *buf_bytes;
	size_t nbufs;
	ks_plan_kernel *kernels;
	size_t nkernels;
	ks_plan_step *steps;
	size_t nsteps;
	int recorded;           /* the response held this case */
} ks_trace_case;

typedef struct {
	ks_trace_status status;
	char *message;          /* not OK: why, as the helper said it (line included) */
	int line;               /* the answer's line the reason concerns; 0: none */
	ks_trace_kernel *kernels;
	size_t nkernels;
	ks_trace_case *correctness, *perf; /* parallel to the problem's cases */
	size_t ncorrectness, nperf;
	char *versions;         /* "python 3.12.3, torch 2.11.0, triton 3.6.0" */
	char *output;           /* what the answer printed while traced (capped) */
	char *confinement;      /* how the helper was confined ("landlock, seccomp") */
	double seconds;         /* the helper's own time for the trace */
	int cached;             /* read back from the trusted references' cache (tracer.h) */
} ks_trace;

/* The longest a whole trace may be given (the helper's own cap on a request, limits.py). */
#define KS_TRACE_MAX_TOTAL_S 3600.0

/* The trace request of an answer (its Python source) for every case of problem p, correctness
 * cases first: the shapes, dtypes and value ranges of the tensors, the scalars' values, and entry,
 * the problem's Python entry (ks_problem_python_json; copied). Each case has case_timeout_s
 * ("case_timeout_s": the helper starts the limit again as each case ends), the whole trace that
 * times the cases, at most KS_TRACE_MAX_TOTAL_S ("timeout_s"). Fails (KS_EINVALID, message) when a
 * case does not evaluate. Caller frees with cJSON_Delete. */
int ks_trace_request(cJSON **out, const ks_problem *p, const cJSON *entry, const char *source, int device,
		     double case_timeout_s, uint64_t id, const ks_plan_limits *lim);

/* Reads the helper's response to a trace request for problem p. Returns 0 with *out filled, its
 * status saying whether the answer was traced (KS_TRACE_OK) or the verdict and message; a response
 * that breaks the protocol or a cap gives status KS_TRACE_BROKEN with the message. Every case of
 * p must be present in an OK trace. Caller clears. */
int ks_trace_read(ks_trace *out, const cJSON *response, const ks_problem *p, const ks_plan_limits *lim);

void ks_trace_clear(ks_trace *t);

/* The image of an OK trace: its CUBINs as a bundle (lang/image.h; one CUBIN stays a CUBIN) and
 * their entry names, one per CUBIN, in the order plans index them. Caller frees *blob with ks_free
 * and *names with ks_free_strv. */
int ks_trace_image(void **blob, size_t *len, char ***names, size_t *nnames, const ks_trace *t);

/* The plan of case ci (perf or correctness) of an OK trace, for the given input seed and poison
 * variant: the problem's tensors first, in spec order and filled as ks_plan_build fills them (so a
 * golden run on the same seed sees the same inputs), then the case's scratch buffers (poisoned),
 * its kernels and its steps. Fails (KS_EINVALID, KS_ELIMIT; message) when the recorded case does
 * not fit the problem's buffers or the limits. Caller clears. */
int ks_trace_plan(ks_plan *out, const ks_trace *t, const ks_problem *p, int perf, size_t ci, const ks_env *env,
		  uint64_t seed, int poison, const ks_plan_limits *lim);

#endif
