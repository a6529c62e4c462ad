/* catalog: see src/refs/catalog.h. */
#include "refs/catalog.h"
#include "util/errors.h"
#include "util/fsutil.h"
#include "util/jsonutil.h"
#include "util/mem.h"
#include "load/plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

cJSON *ks_catalog_prompts(const ks_problem_set *set, ks_prompt_lang lang)
{
	cJSON *a = cJSON_CreateArray();
	size_t i;
	for (i = 0; i < set->n; i++) {
		const ks_problem *p = set->problems[i];
		char *text = ks_prompt_text(p, lang), *file;
		cJSON *o;
		if (!text)
			continue; /* a Triton export of a problem without a Python entry */
		/* GEAK-eval's names keep their .py suffix; a Triton answer is Python whatever its suite */
		file = ks_asprintf("%s.%s", p->name,
				   lang == KS_PROMPT_TRITON || !strcmp(p->suite, "hackathon") ? "py" : "cu");
		o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "instruction", text);
		cJSON_AddStringToObject(o, "file", file);
		cJSON_AddNumberToObject(o, "difficulty", p->difficulty);
		cJSON_AddStringToObject(o, "suite", p->suite);
		cJSON_AddStringToObject(o, "language", lang == KS_PROMPT_TRITON ? "triton" : "cuda");
		cJSON_AddItemToArray(a, o);
		ks_free(text);
		ks_free(file);
	}
	return a;
}

static char *case_text(const ks_problem *p, const ks_case *c)
{
	return ks_strdup(c->label ? c->label : p->name);
}

cJSON *ks_catalog_list(const ks_problem_set *set)
{
	cJSON *a = cJSON_CreateArray();
	size_t i, k;
	for (i = 0; i < set->n; i++) {
		const ks_problem *p = set->problems[i];
		cJSON *o = cJSON_CreateObject(), *d, *t, *pf;
		cJSON_AddStringToObject(o, "name", p->name);
		cJSON_AddStringToObject(o, "suite", p->suite);
		cJSON_AddNumberToObject(o, "difficulty", p->difficulty);
		cJSON_AddStringToObject(o, "description", p->description ? p->description : "");
		d = cJSON_AddArrayToObject(o, "dims");
		for (k = 0; k < p->ndims; k++)
			cJSON_AddItemToArray(d, cJSON_CreateString(p->dims[k]));
		t = cJSON_AddArrayToObject(o, "tensors");
		for (k = 0; k < p->nargs; k++) {
			const ks_arg *a2 = &p->args[k];
			char *s;
			if (a2->role == KS_ROLE_SCALAR)
				continue;
			s = ks_asprintf("%s %s %s", a2->name, ks_dtype_name(a2->dtype),
					a2->role == KS_ROLE_IN ? "in" : a2->role == KS_ROLE_OUT ? "out" : "inout");
			cJSON_AddItemToArray(t, cJSON_CreateString(s));
			ks_free(s);
		}
		cJSON_AddNumberToObject(o, "correctness_cases", (double)p->ncorrectness);
		cJSON_AddNumberToObject(o, "extended_cases", (double)p->nextended);
		t = cJSON_AddArrayToObject(o, "domain");
		for (k = 0; k < p->domain.n; k++) {
			cJSON *rule = cJSON_CreateObject();
			cJSON_AddStringToObject(rule, "rule", p->domain.rules[k].rule);
			cJSON_AddStringToObject(rule, "message", p->domain.rules[k].message);
			cJSON_AddItemToArray(t, rule);
		}
		pf = cJSON_AddArrayToObject(o, "perf_cases");
		for (k = 0; k < p->nperf; k++) {
			char *s = case_text(p, &p->perf[k]);
			cJSON_AddItemToArray(pf, cJSON_CreateString(s));
			ks_free(s);
		}
		{
			/* the Python entry's call, as the Triton prompt shows it; null without one */
			char *call = ks_pyentry_call_text(&p->python);
			char *line = call && p->python.returns ? ks_asprintf("%s = %s", p->python.returns, call)
							       : NULL;
			ks_json_add_str(o, "python", line ? line : call);
			ks_free(line);
			ks_free(call);
		}
		cJSON_AddStringToObject(o, "peak", p->peak);
		cJSON_AddStringToObject(o, "bytes", p->bytes);
		cJSON_AddStringToObject(o, "flops", p->flops ? p->flops : "0");
		cJSON_AddItemToArray(a, o);
	}
	return a;
}

static const char *dist_name(ks_dist_kind k)
{
	switch (k) {
	case KS_DIST_NORMAL: return "normal";
	case KS_DIST_UNIFORM: return "uniform";
	case KS_DIST_INT: return "int";
	case KS_DIST_BITS: return "bits";
	case KS_DIST_DATA: return "data";
	default: return "default";
	}
}

static const char *fill_name(ks_fill f)
{
	return f == KS_FILL_RANDOM ? "random" : f == KS_FILL_ZERO ? "zero" : "poison";
}

static const char *role_name(ks_role r)
{
	return r == KS_ROLE_IN ? "in" : r == KS_ROLE_OUT ? "out" : r == KS_ROLE_INOUT ? "inout" : "scalar";
}

/* A buffer of a resolved plan, with its shape (tensors) and how its contents are made. */
static cJSON *buf_json(const ks_plan_buf *b, const ks_problem *p, const ks_env *env)
{
	cJSON *o = cJSON_CreateObject(), *d;
	int ai = ks_problem_arg_index(p, b->name);
	cJSON_AddStringToObject(o, "name", b->name);
	cJSON_AddStringToObject(o, "dtype", ks_dtype_name(b->dtype));
	cJSON_AddStringToObject(o, "role", b->scratch ? "scratch" : role_name(b->role));
	cJSON_AddNumberToObject(o, "count", (double)b->count);
	cJSON_AddNumberToObject(o, "bytes", (double)b->bytes);
	if (!b->scratch && ai >= 0) {
		const ks_arg *a = &p->args[ai];
		cJSON *sh = cJSON_AddArrayToObject(o, "shape");
		size_t k;
		for (k = 0; k < a->ndim; k++) {
			int64_t v = 0;
			ks_expr_eval(&v, a->shape[k], env); /* validated with the case at load */
			cJSON_AddItemToArray(sh, cJSON_CreateNumber((double)v));
		}
		if (a->role != KS_ROLE_IN) {
			ks_json_add_num(o, "atol", a->atol);
			ks_json_add_num(o, "rtol", a->rtol);
		}
	}
	cJSON_AddStringToObject(o, "fill", fill_name(b->fill));
	if (b->fill == KS_FILL_RANDOM) {
		d = cJSON_AddObjectToObject(o, "dist");
		cJSON_AddStringToObject(d, "kind", dist_name(b->dist));
		if (b->dist == KS_DIST_NORMAL) {
			ks_json_add_num(d, "mean", b->a);
			ks_json_add_num(d, "std", b->b);
		} else if (b->dist == KS_DIST_UNIFORM || b->dist == KS_DIST_INT) {
			ks_json_add_num(d, "lo", b->a);
			ks_json_add_num(d, "hi", b->b);
		}
	}
	return o;
}

/* One launch of a resolved plan: the kernel, its geometry, and its arguments in order, each a
 * buffer ({"buf": name}) or a typed value ({"i32": 7}). */
static cJSON *launch_json(const ks_plan_kernel *k, const ks_plan *plan)
{
	static const char *const types[] = { "buf", "i32", "u32", "i64", "f32", "f64" };
	cJSON *o = cJSON_CreateObject(), *a;
	size_t i;
	cJSON_AddStringToObject(o, "kernel", k->name);
	cJSON_AddItemToObject(o, "grid", cJSON_CreateIntArray((const int[]){ (int)k->grid[0],
		(int)k->grid[1], (int)k->grid[2] }, 3));
	cJSON_AddItemToObject(o, "block", cJSON_CreateIntArray((const int[]){ (int)k->block[0],
		(int)k->block[1], (int)k->block[2] }, 3));
	cJSON_AddNumberToObject(o, "shared", k->shared);
	a = cJSON_AddArrayToObject(o, "args");
	for (i = 0; i < k->nparams; i++) {
		const ks_plan_param *pp = &k->params[i];
		cJSON *v = cJSON_CreateObject();
		if (pp->kind == KS_PARAM_BUF)
			cJSON_AddStringToObject(v, "buf", plan->bufs[pp->buf].name);
		else if (pp->kind == KS_PARAM_F32 || pp->kind == KS_PARAM_F64)
			ks_json_add_num(v, types[pp->kind], pp->f);
		else
			cJSON_AddNumberToObject(v, types[pp->kind], (double)pp->i);
		cJSON_AddItemToArray(a, v);
	}
	return o;
}

/* One case: its environment, scalars ({"type", "value"}), the golden plan resolved, bytes and
 * flops. */
static cJSON *case_json(const ks_problem *p, const ks_case *c, const char *kind, size_t idx)
{
	cJSON *o = cJSON_CreateObject(), *e, *sc, *bufs, *ls;
	ks_env env = KS_ENV_INIT;
	ks_plan plan;
	int64_t v;
	size_t i;

	memset(&plan, 0, sizeof(plan));
	cJSON_AddStringToObject(o, "kind", kind);
	cJSON_AddNumberToObject(o, "index", (double)idx);
	cJSON_AddStringToObject(o, "label", c->label ? c->label : "");
	cJSON_AddNumberToObject(o, "seeds", c->seeds);
	if (ks_problem_env(&env, p, c) < 0 ||
	    ks_plan_build(&plan, p, &p->golden_launch, c, &env, 0, 0, NULL) < 0) {
		cJSON_AddStringToObject(o, "error", ks_error_msg());
		goto done;
	}
	e = cJSON_AddObjectToObject(o, "env");
	for (i = 0; i < env.n; i++)
		cJSON_AddNumberToObject(e, env.names[i], (double)env.values[i]);
	sc = cJSON_AddObjectToObject(o, "scalars");
	for (i = 0; i < p->nargs; i++) {
		const ks_arg *a = &p->args[i];
		if (a->role != KS_ROLE_SCALAR)
			continue;
		cJSON *one = cJSON_AddObjectToObject(sc, a->name);
		cJSON_AddStringToObject(one, "type", ks_dtype_name(a->dtype));
		if (ks_dtype_is_float(a->dtype))
			ks_json_add_num(one, "value", a->fvalue);
		else if (ks_expr_eval(&v, a->value, &env) == 0)
			cJSON_AddNumberToObject(one, "value", (double)v);
	}
	bufs = cJSON_AddArrayToObject(o, "bufs");
	for (i = 0; i < plan.nbufs; i++)
		cJSON_AddItemToArray(bufs, buf_json(&plan.bufs[i], p, &env));
	ls = cJSON_AddArrayToObject(o, "launches");
	for (i = 0; i < plan.nkernels; i++)
		cJSON_AddItemToArray(ls, launch_json(&plan.kernels[i], &plan));
	if (ks_expr_eval(&v, p->bytes, &env) == 0)
		cJSON_AddNumberToObject(o, "bytes", (double)v);
	if (p->flops && ks_expr_eval(&v, p->flops, &env) == 0)
		cJSON_AddNumberToObject(o, "flops", (double)v);
done:
	ks_plan_clear(&plan);
	ks_env_free(&env);
	return o;
}

cJSON *ks_catalog_plans(const ks_problem_set *set)
{
	cJSON *root = cJSON_CreateObject(), *arr;
	size_t i, k;
	cJSON_AddStringToObject(root, "schema", "kscore.plans/1");
	cJSON_AddStringToObject(root, "refs", set->root ? set->root : "");
	arr = cJSON_AddArrayToObject(root, "problems");
	for (i = 0; i < set->n; i++) {
		const ks_problem *p = set->problems[i];
		cJSON *o = cJSON_CreateObject(), *ks, *cs;
		char **names = NULL;
		size_t nn = 0;
		cJSON_AddStringToObject(o, "name", p->name);
		cJSON_AddStringToObject(o, "suite", p->suite);
		cJSON_AddStringToObject(o, "dir", p->dir);
		cJSON_AddStringToObject(o, "sha256", p->sha256);
		cJSON_AddNumberToObject(o, "sm_count", (double)p->sm_count);
		ks_json_add_num(o, "atol", p->atol);
		ks_json_add_num(o, "rtol", p->rtol);
		ks = cJSON_AddArrayToObject(o, "dims");
		for (k = 0; k < p->ndims; k++)
			cJSON_AddItemToArray(ks, cJSON_CreateString(p->dims[k]));
		cJSON_AddStringToObject(o, "golden_source", p->golden_src);
		ks_plan_kernel_names(&names, &nn, &p->golden_launch);
		ks = cJSON_AddArrayToObject(o, "kernels");
		for (k = 0; k < nn; k++)
			cJSON_AddItemToArray(ks, cJSON_CreateString(names[k]));
		ks_free_strv(names, nn);
		cs = cJSON_AddArrayToObject(o, "cases");
		for (k = 0; k < p->ncorrectness; k++)
			cJSON_AddItemToArray(cs, case_json(p, &p->correctness[k], "correctness", k));
		for (k = 0; k < p->nperf; k++)
			cJSON_AddItemToArray(cs, case_json(p, &p->perf[k], "perf", k));
		for (k = 0; k < p->nextended; k++)
			cJSON_AddItemToArray(cs, case_json(p, &p->extended[k], "extended", k));
		cJSON_AddItemToArray(arr, o);
	}
	return root;
}

static cJSON *strv(char *const *v, size_t n)
{
	cJSON *a = cJSON_CreateArray();
	size_t i;
	for (i = 0; i < n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(v[i]));
	return a;
}

cJSON *ks_catalog_source(const ks_problem_source *src)
{
	cJSON *o = cJSON_CreateObject(), *ps, *sk;
	size_t i;
	ks_json_add_str(o, "schema", "kscore.problem-source/1");
	ks_json_add_str(o, "format", ks_set_format_name(src->format));
	ks_json_add_str(o, "root", src->root);
	ps = cJSON_AddArrayToObject(o, "problems");
	for (i = 0; i < src->n; i++) {
		const ks_set_problem *p = &src->problems[i];
		cJSON *e = cJSON_CreateObject();
		ks_json_add_str(e, "name", p->name);
		ks_json_add_str(e, "suite", p->suite);
		ks_json_add_str(e, "file", p->path);
		if (p->perf_path)
			ks_json_add_str(e, "perf_script", p->perf_path);
		else
			cJSON_AddNullToObject(e, "perf_script");
		if (src->format == KS_SET_KERNELBENCH) {
			ks_json_add_num(e, "level", p->level);
			ks_json_add_num(e, "number", p->number);
		}
		cJSON_AddItemToObject(e, "kernels", strv(p->kernels, p->nkernels));
		cJSON_AddItemToObject(e, "entries", strv(p->entries, p->nentries));
		if (p->test_fn)
			ks_json_add_str(e, "test_function", p->test_fn);
		cJSON_AddItemToObject(e, "imports", strv(p->imports, p->nimports));
		cJSON_AddItemToArray(ps, e);
	}
	sk = cJSON_AddArrayToObject(o, "skipped");
	for (i = 0; i < src->nskipped; i++) {
		cJSON *e = cJSON_CreateObject();
		ks_json_add_str(e, "file", src->skipped[i].path);
		ks_json_add_str(e, "reason", src->skipped[i].reason);
		cJSON_AddItemToArray(sk, e);
	}
	return o;
}
