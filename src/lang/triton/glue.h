/* glue: the rule that a Triton answer's own kernels compute its outputs (docs/triton-protocol.md,
 * "Glue is not the answer"). The trace records the fills and copies a wrapper makes with torch
 * between its launches, and kscore replays them with its own kernels inside the timed window: they
 * are there for glue (a .contiguous(), a zeroed accumulator, a copy of a part the kernel leaves
 * alone before it runs), not for the computation. A wrapper whose only launch is a no-op on a
 * scratch element, with out.copy_(matrix.t()) beside it, would otherwise score kscore's strided
 * copy. The rule: a fill or copy may write an output tensor only when a later launch of the case
 * takes that tensor as an argument (an answer kernel then reads or writes it). */
#ifndef KS_TRITON_GLUE_H
#define KS_TRITON_GLUE_H

#include <stddef.h>
#include "load/plan.h"
#include "load/problem.h"

/* One recorded case as the rule sees it: its steps, the kernels they launch, and the names of its
 * buffers (a problem tensor's name, NULL for a scratch buffer) that the steps index. */
typedef struct {
	const ks_plan_step *steps;
	size_t nsteps;
	const ks_plan_kernel *kernels;
	size_t nkernels;
	char *const *buf_names;
	size_t nbufs;
} ks_glue_case;

/* 0 when every fill and copy of case c (the response's case `index`) that writes an output tensor
 * of p is followed by a launch taking that tensor; else 1, with *why (caller frees) naming the
 * case, the step and the tensor. */
int ks_trace_glue_check(char **why, const ks_glue_case *c, const ks_problem *p, size_t index);

#endif
