#include "lang/triton/glue.h"
#include "util/mem.h"

#include <string.h>

/* 1 when a launch among steps (from, c->nsteps) takes buffer b as an argument. */
static int launched_later(const ks_glue_case *c, size_t from, uint32_t b)
{
	size_t i, j;
	for (i = from + 1; i < c->nsteps; i++) {
		const ks_plan_kernel *k;
		if (c->steps[i].kind != KS_STEP_LAUNCH || c->steps[i].kernel >= c->nkernels)
			continue;
		k = &c->kernels[c->steps[i].kernel];
		for (j = 0; j < k->nparams; j++)
			if (k->params[j].kind == KS_PARAM_BUF && k->params[j].buf == b)
				return 1;
	}
	return 0;
}

int ks_trace_glue_check(char **why, const ks_glue_case *c, const ks_problem *p, size_t index)
{
	size_t i;
	*why = NULL;
	for (i = 0; i < c->nsteps; i++) {
		const ks_plan_step *s = &c->steps[i];
		const char *name;
		int ai;
		if (s->kind == KS_STEP_LAUNCH || s->buf >= c->nbufs || !(name = c->buf_names[s->buf]))
			continue; /* scratch: what reaches an output from there is a later step's */
		ai = ks_problem_arg_index(p, name);
		if (ai < 0 || p->args[ai].role == KS_ROLE_IN || launched_later(c, i, s->buf))
			continue;
		*why = ks_asprintf("case %zu, step %zu: the wrapper's %s writes the output %s and none of the "
				   "answer's kernels reads or writes %s after it: fills and copies are glue, the "
				   "answer's kernels must compute its outputs", index, i + 1,
				   s->kind == KS_STEP_COPY ? "copy (a torch copy_ or contiguous())" : "fill",
				   name, name);
		return 1;
	}
	return 0;
}
