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

typedef enum {
	KS_PARAM_BUF = 0, KS_PARAM_I32, KS_PARAM_U32, KS_PARAM_I64, KS_PARAM_F32, KS_PARAM_F64
} ks_param_kind;

typedef struct {
	ks_param_kind kind;
	uint32_t buf;         /* BUF: index into bufs */
	int64_t i;
	double f;
} ks_plan_param;

typedef struct {
	uint32_t func;        /* index into the module's kernel names (ks_plan_kernel_names) */
	char *name;           /* for messages */
	uint32_t grid[3], block[3];
	uint32_t shared;
	ks_plan_param *params;
	size_t nparams;
} ks_plan_kernel;

typedef struct {
	ks_plan_buf *bufs;
	size_t nbufs;
	ks_plan_kernel *kernels;
	size_t nkernels;
	uint64_t seed;        /* input seed of this run */
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
