/* plan: a launch plan resolved for one concrete run: every buffer with its size, dtype and how it
 * is filled, and every kernel launch with numeric geometry and typed parameters. The scoring
 * process builds plans (all expressions are evaluated here, on the CPU, where errors can be named);
 * GPU workers only execute them. Plans travel to workers as JSON. */
#ifndef KS_PLAN_H
#define KS_PLAN_H

#include <stddef.h>
#include <stdint.h>
#include <cJSON.h>
#include "load/problem.h"

typedef enum { KS_FILL_RANDOM = 0, KS_FILL_POISON, KS_FILL_ZERO } ks_fill;

typedef struct {
	char *name;
	ks_dtype dtype;
	uint64_t count;       /* elements */
	uint64_t bytes;
	ks_role role;         /* tensors: IN/OUT/INOUT; scratch buffers are OUT */
	int scratch;
	ks_fill fill;
	ks_dist_kind dist;    /* RANDOM only; DEFAULT already resolved */
	double a, b;          /* dist parameters; INT bounds evaluated */
	uint32_t stream;      /* RNG stream: the arg's index in the problem, so golden and candidate
			       * plans fill the same tensor identically */
} ks_plan_buf;

/* A kernel parameter. The kinds after F64 serve replayed Triton launches (lang/triton/): U64, raw
 * 16- and 8-bit values (half, bfloat16, bool and byte scalars, their bits in i) and the null
 * pointer Triton passes for a scratch area of size 0. */
typedef enum {
	KS_PARAM_BUF = 0, KS_PARAM_I32, KS_PARAM_U32, KS_PARAM_I64, KS_PARAM_F32, KS_PARAM_F64,
	KS_PARAM_U64, KS_PARAM_B16, KS_PARAM_B8, KS_PARAM_NULL, KS_PARAM_KIND_COUNT
} ks_param_kind;

typedef struct {
	ks_param_kind kind;
	uint32_t buf;         /* BUF: index into bufs */
	uint64_t off;         /* BUF: bytes from the buffer's start (a view), at most its size */
	int64_t i;
	double f;
} ks_plan_param;

/* Bytes the kind occupies in a kernel's parameter list. */
size_t ks_plan_param_size(ks_param_kind k);

/* Kernels one plan may launch, and distinct functions one image may hold (a CUDA module's
 * kernels, or the CUBINs of a Triton answer's bundle, lang/image.h). */
#define KS_PLAN_MAX_KERNELS 32
#define KS_PLAN_MAX_FUNCS 32

/* Steps: a plan without steps launches its kernels in order. A plan with steps does what they say
 * in order: launch kernel k, fill a (strided) region of a buffer with one value, or copy a strided
 * region between buffers: the data movement a Triton wrapper does with torch between its launches
 * (a `.zero_()`, the `.copy_` of the part of the output its kernel leaves alone). Regions are
 * rank-r views in elements of `width` bytes, row-major (the last dimension is the fastest), with
 * non-negative strides, checked to stay inside their buffers. */
typedef enum { KS_STEP_LAUNCH = 0, KS_STEP_FILL, KS_STEP_COPY } ks_step_kind;

#define KS_PLAN_MAX_RANK 8
#define KS_PLAN_MAX_STEPS 64

typedef struct {
	ks_step_kind kind;
	uint32_t kernel;      /* LAUNCH: index into kernels */
	uint32_t buf;         /* FILL and COPY: the buffer written */
	uint32_t src;         /* COPY: the buffer read */
	uint64_t off, src_off; /* byte offsets of the regions' first elements */
	uint32_t width;       /* element bytes: 1, 2, 4 or 8 */
	uint64_t value;       /* FILL: the element's bits */
	uint32_t rank;
	uint64_t sizes[KS_PLAN_MAX_RANK];
	uint64_t dstride[KS_PLAN_MAX_RANK], sstride[KS_PLAN_MAX_RANK]; /* in elements */
} ks_plan_step;

struct ks_plan;

/* Checks a step against the plan's buffers and kernels: indices, widths, ranks, and that every
 * element it touches lies inside its buffer (checked arithmetic). 0, or KS_EINVALID with a message
 * naming the step. */
int ks_plan_step_check(const ks_plan_step *s, size_t index, const struct ks_plan *plan);

/* Elements a step moves (the product of its sizes; 0 for a launch). */
uint64_t ks_plan_step_count(const ks_plan_step *s);

typedef struct {
	uint32_t func;        /* index into the image's kernel names (ks_plan_kernel_names; for a
			       * bundle, counted across its CUBINs in order) */
	char *name;           /* for messages */
	uint32_t grid[3], block[3];
	uint32_t shared;
	ks_plan_param *params;
	size_t nparams;
} ks_plan_kernel;

typedef struct ks_plan {
	ks_plan_buf *bufs;
	size_t nbufs;
	ks_plan_kernel *kernels;
	size_t nkernels;
	ks_plan_step *steps;  /* NULL: launch the kernels in order */
	size_t nsteps;
	uint64_t seed;        /* input seed of this run */
	uint64_t version;     /* 0: the inputs the seed draws; v > 0: those inputs with a part `change`
			       * of every random input's elements redrawn from a seed of version v's
			       * own (the timed runs' inputs, docs/timing.md) */
	double change;        /* that part, 0 to 1 */
	int poison;           /* poison variant (0 or 1) for outputs and scratch */
	uint32_t guard;       /* guard-band bytes before and after every buffer */
} ks_plan;

typedef struct {
	uint64_t max_scratch_bytes;  /* all scratch buffers of one plan together (--max-scratch) */
	uint32_t max_shared;         /* dynamic shared memory per block */
	uint32_t guard;
	uint64_t max_tensor_bytes;   /* all tensors of one case together */
} ks_plan_limits;

#define KS_PLAN_DEFAULT_MAX_SCRATCH (4ull << 30)
#define KS_PLAN_DEFAULT_MAX_SHARED (227u * 1024u)   /* an H100's opt-in dynamic shared memory */
#define KS_PLAN_DEFAULT_GUARD 4096u

#define KS_PLAN_LIMITS_INIT                                                                      \
	{ .max_scratch_bytes = KS_PLAN_DEFAULT_MAX_SCRATCH, .max_shared = KS_PLAN_DEFAULT_MAX_SHARED, \
	  .guard = KS_PLAN_DEFAULT_GUARD, .max_tensor_bytes = KS_PROBLEM_MAX_CASE_BYTES }

/* The distinct kernel names of a launch plan, in first-use order: what the compiler must resolve
 * and what ks_plan_kernel.func indexes. Caller frees with ks_free_strv(*names, *n). */
void ks_plan_kernel_names(char ***names, size_t *n, const ks_launch *l);

/* Resolves launch plan l of problem p for case c (env from ks_problem_env) with the given input
 * seed and poison variant. Buffers are the problem's tensors in spec order, then the plan's scratch
 * buffers. Fails with KS_EINVALID/KS_ELIMIT and a message naming the kernel, tensor or scratch
 * buffer and the reason (bad geometry, a value that does not fit its type, sizes over the limits,
 * computed with checked arithmetic so nothing wraps). Caller clears. */
int ks_plan_build(ks_plan *out, const ks_problem *p, const ks_launch *l, const ks_case *c,
		  const ks_env *env, uint64_t seed, int poison, const ks_plan_limits *lim);

cJSON *ks_plan_to_json(const ks_plan *plan);
/* Parses a plan sent by the scoring process (worker side); validates indices and sizes. */
int ks_plan_from_json(ks_plan *out, const cJSON *j);
void ks_plan_clear(ks_plan *plan);

/* Total bytes of the plan's buffers, guard bands excluded. */
uint64_t ks_plan_bytes(const ks_plan *plan);

#endif
