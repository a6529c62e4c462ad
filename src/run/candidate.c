#include "run/candidate.h"
#include "util/errors.h"
#include "util/mem.h"

#include <string.h>

void ks_candidate_image_clear(ks_candidate_image *img)
{
	if (img->owned) {
		ks_free(img->cubin);
		ks_free_strv(img->lowered, img->nlowered);
	}
	if (img->trace) {
		ks_trace_clear(img->trace);
		ks_free(img->trace);
	}
	memset(img, 0, sizeof(*img));
}

int ks_candidate_plan(ks_plan *out, const ks_candidate_image *img, int perf, size_t ci, const ks_env *env,
		      uint64_t seed, int poison, const ks_plan_limits *lim)
{
	const ks_problem *p = img->problem;
	if (img->language == KS_LANG_TRITON) {
		if (!img->trace) {
			memset(out, 0, sizeof(*out));
			return ks_error_set(KS_EINVALID, "the Triton answer was not traced");
		}
		if (perf == KS_CASE_EXTENDED) {
			memset(out, 0, sizeof(*out));
			return ks_error_set(KS_EINVALID, "extended cases are not traced: a trace covers the scored "
					    "cases");
		}
		return ks_trace_plan(out, img->trace, p, perf, ci, env, seed, poison, lim);
	}
	if (!ks_problem_case(p, perf, ci)) {
		memset(out, 0, sizeof(*out));
		return ks_error_set(KS_EINVALID, "no %s case %zu",
				    perf == KS_CASE_EXTENDED ? "extended" : perf ? "perf" : "correctness", ci + 1);
	}
	return ks_plan_build(out, p, &img->launch, ks_problem_case(p, perf, ci), env, seed, poison, lim);
}

static ks_reason reason_of(ks_trace_status s)
{
	switch (s) {
	case KS_TRACE_OK:
		return KS_REASON_OK;
	case KS_TRACE_REFUSED:
		return KS_REASON_REFUSED;
	case KS_TRACE_HOST_OP:
		return KS_REASON_HOST_OP;
	case KS_TRACE_UNTRACEABLE:
		return KS_REASON_UNTRACEABLE;
	case KS_TRACE_TIMEOUT:
		return KS_REASON_TIMEOUT;
	case KS_TRACE_UNAVAILABLE:
		return KS_REASON_NOT_RUN;
	case KS_TRACE_ERROR:
	case KS_TRACE_BROKEN:
	default:
		return KS_REASON_TRACE_ERROR;
	}
}

ks_reason ks_candidate_trace(char **detail, ks_candidate_image *img, ks_runner *runner, const cJSON *entry,
			     const ks_plan_limits *lim, ks_kernel_result *r)
{
	ks_trace *t;
	ks_reason why;
	*detail = NULL;
	if (img->language != KS_LANG_TRITON || img->trace)
		return KS_REASON_OK;
	if (!entry) {
		*detail = ks_asprintf("problem %s has no Python entry for Triton answers (its problem.json has no "
				      "\"python\" section)", img->problem->name);
		return KS_REASON_NOT_RUN;
	}
	t = ks_calloc(1, sizeof(*t));
	ks_runner_trace(runner, t, img->problem, entry, img->source, lim, img->trusted);
	why = reason_of(t->status);
	r->compile_s = t->seconds;
	if (t->versions || t->confinement)
		r->compile_log = ks_asprintf("%straced with %s%s%s; %zu compiled kernel%s",
					     t->cached ? "the reference's trace from the cache (an earlier run): " : "",
					     t->versions ? t->versions : "", t->confinement ? "; confinement: " : "",
					     t->confinement ? t->confinement : "", t->nkernels, t->nkernels == 1 ? "" : "s");
	if (why == KS_REASON_OK &&
	    ks_trace_image(&img->cubin, &img->len, &img->lowered, &img->nlowered, t) < 0) {
		why = KS_REASON_TRACE_ERROR;
		*detail = ks_strdup(ks_error_msg());
	} else if (why != KS_REASON_OK) {
		const char *m = t->message ? t->message : ks_trace_status_name(t->status);
		*detail = why == KS_REASON_NOT_RUN ? ks_asprintf("a Triton answer, not traced: %s", m)
			  : t->line > 0 && !strstr(m, "line ") ? ks_asprintf("line %d: %s", t->line, m)
								  : ks_strdup(m);
	}
	if (why != KS_REASON_OK) {
		ks_trace_clear(t);
		ks_free(t);
		return why;
	}
	img->owned = 1;
	img->trace = t;
	return KS_REASON_OK;
}
