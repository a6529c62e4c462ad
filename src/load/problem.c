#include "load/problem.h"
#include "util/errors.h"
#include "util/fsutil.h"
#include "util/hash.h"
#include "util/jsonutil.h"
#include "util/mem.h"
#include "load/prelude.h"

#include <ctype.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define MAX_SPEC_BYTES (1u << 20)
#define MAX_SOURCE_BYTES (4u << 20)
#define MAX_ARGS 64
#define MAX_CASES 256

static int valid_ident(const char *s)
{
	if (!s || !*s || strlen(s) > 64 || !(isalpha((unsigned char)*s) || *s == '_'))
		return 0;
	for (; *s; s++)
		if (!(isalnum((unsigned char)*s) || *s == '_'))
			return 0;
	return 1;
}

/* An expression given as a string or an integral number within +-2^53 (larger ones are not held
 * exactly: write them as expressions); NULL otherwise. */
static char *expr_text(const cJSON *v)
{
	int64_t i;
	if (cJSON_IsString(v))
		return ks_strdup(v->valuestring);
	if (cJSON_IsNumber(v) && ks_json_d2i(&i, v->valuedouble, INT64_MIN, INT64_MAX) == 0)
		return ks_asprintf("%lld", (long long)i);
	return NULL;
}

/* All names an expression of the spec may use: the device's `sm_count`, dims, then lets. */
static const char **scope_names(const ks_problem *p, size_t *n)
{
	const char **v = ks_calloc(p->ndims + p->nlets + 2, sizeof(*v));
	size_t i, k = 0;
	v[k++] = "sm_count";
	for (i = 0; i < p->ndims; i++)
		v[k++] = p->dims[i];
	for (i = 0; i < p->nlets; i++)
		v[k++] = p->let_names[i];
	*n = k;
	return v;
}

static int check_expr(const ks_problem *p, const char *e, const char *what)
{
	size_t n;
	const char **names = scope_names(p, &n);
	int rc = ks_expr_check(e, names, n);
	ks_free(names);
	if (rc < 0)
		return ks_error_wrap(rc, "%s", what);
	return 0;
}

static int parse_dist(ks_dist *d, const cJSON *v, const char *what)
{
	const char *kind = NULL;
	memset(d, 0, sizeof(*d));
	if (!cJSON_IsObject(v))
		return ks_error_set(KS_EINVALID, "%s: dist must be an object", what);
	if (ks_json_str(&kind, v, "kind", 1) < 0)
		return ks_error_wrap(KS_EINVALID, "%s: dist", what);
	if (!strcmp(kind, "normal")) {
		d->kind = KS_DIST_NORMAL;
		d->a = 0;
		d->b = 1;
		if (ks_json_num(&d->a, v, "mean", 0) < 0 || ks_json_num(&d->b, v, "std", 0) < 0)
			return ks_error_wrap(KS_EINVALID, "%s: dist", what);
		if (!isfinite(d->a) || !isfinite(d->b))
			return ks_error_set(KS_EINVALID, "%s: normal dist needs a finite mean and std", what);
		if (!(d->b > 0))
			return ks_error_set(KS_EINVALID, "%s: normal dist needs std > 0", what);
	} else if (!strcmp(kind, "uniform")) {
		d->kind = KS_DIST_UNIFORM;
		if (ks_json_num(&d->a, v, "lo", 1) < 0 || ks_json_num(&d->b, v, "hi", 1) < 0)
			return ks_error_wrap(KS_EINVALID, "%s: dist", what);
		/* 1e400 reads as infinity, which no input can be drawn from and no plan can carry (JSON
		 * has no infinity: the worker would get null) */
		if (!isfinite(d->a) || !isfinite(d->b))
			return ks_error_set(KS_EINVALID, "%s: uniform dist needs finite lo and hi", what);
		if (!(d->b > d->a))
			return ks_error_set(KS_EINVALID, "%s: uniform dist needs lo < hi", what);
	} else if (!strcmp(kind, "int")) {
		d->kind = KS_DIST_INT;
		d->lo = expr_text(cJSON_GetObjectItemCaseSensitive(v, "lo"));
		d->hi = expr_text(cJSON_GetObjectItemCaseSensitive(v, "hi"));
		if (!d->lo || !d->hi)
			return ks_error_set(KS_EINVALID, "%s: int dist needs integer lo and hi", what);
	} else if (!strcmp(kind, "bits")) {
		d->kind = KS_DIST_BITS;
	} else
		return ks_error_set(KS_EINVALID, "%s: unknown dist kind \"%s\"", what, kind);
	return 0;
}

static void dist_clear(ks_dist *d)
{
	ks_free(d->lo);
	ks_free(d->hi);
	ks_free(d->file);
	memset(d, 0, sizeof(*d));
}

static int parse_arg(ks_problem *p, ks_arg *a, const cJSON *v)
{
	const char *name = NULL, *type = NULL, *role = NULL;
	char what[256], tname[32];
	size_t tl;
	const cJSON *it;

	if (!cJSON_IsObject(v))
		return ks_error_set(KS_EINVALID, "every arg must be an object");
	if (ks_json_str(&name, v, "name", 1) < 0 || ks_json_str(&type, v, "type", 1) < 0)
		return ks_error_wrap(KS_EINVALID, "arg");
	if (!valid_ident(name))
		return ks_error_set(KS_EINVALID, "arg name \"%s\" is not a valid identifier", name);
	a->name = ks_strdup(name);
	snprintf(what, sizeof(what), "arg %s", name);
	tl = strlen(type);
	if (tl >= sizeof(tname))
		return ks_error_set(KS_EINVALID, "%s: bad type", what);
	memcpy(tname, type, tl + 1);
	if (tl > 1 && tname[tl - 1] == '*') {
		tname[tl - 1] = '\0';
		if (ks_dtype_parse(&a->dtype, tname) < 0)
			return ks_error_wrap(KS_EINVALID, "%s", what);
		if (ks_json_str(&role, v, "role", 1) < 0)
			return ks_error_wrap(KS_EINVALID, "%s", what);
		if (!strcmp(role, "in"))
			a->role = KS_ROLE_IN;
		else if (!strcmp(role, "out"))
			a->role = KS_ROLE_OUT;
		else if (!strcmp(role, "inout"))
			a->role = KS_ROLE_INOUT;
		else
			return ks_error_set(KS_EINVALID, "%s: role must be in, out or inout", what);
		it = cJSON_GetObjectItemCaseSensitive(v, "shape");
		if (!cJSON_IsArray(it) || cJSON_GetArraySize(it) > 8)
			return ks_error_set(KS_EINVALID, "%s: shape must be a list of at most 8 expressions",
					    what);
		a->shape = ks_calloc((size_t)cJSON_GetArraySize(it) + 1, sizeof(char *));
		{
			const cJSON *d;
			cJSON_ArrayForEach(d, it)
			{
				char *e = expr_text(d);
				if (!e)
					return ks_error_set(KS_EINVALID, "%s: shape entries are expressions",
							    what);
				a->shape[a->ndim++] = e;
			}
		}
		it = cJSON_GetObjectItemCaseSensitive(v, "dist");
		if (it) {
			if (a->role == KS_ROLE_OUT)
				return ks_error_set(KS_EINVALID, "%s: an output has no dist", what);
			if (parse_dist(&a->dist, it, what) < 0)
				return KS_EINVALID;
		}
		a->atol = p->atol;
		a->rtol = p->rtol;
		if (ks_json_num(&a->atol, v, "atol", 0) < 0 || ks_json_num(&a->rtol, v, "rtol", 0) < 0)
			return ks_error_wrap(KS_EINVALID, "%s", what);
		if (a->atol < 0 || a->rtol < 0)
			return ks_error_set(KS_EINVALID, "%s: tolerances must be >= 0", what);
		return 0;
	}
	if (ks_dtype_parse(&a->dtype, type) < 0)
		return ks_error_wrap(KS_EINVALID, "%s", what);
	a->role = KS_ROLE_SCALAR;
	if (a->dtype != KS_DT_I32 && a->dtype != KS_DT_U32 && a->dtype != KS_DT_I64 &&
	    a->dtype != KS_DT_F32 && a->dtype != KS_DT_F64)
		return ks_error_set(KS_EINVALID, "%s: scalars are i32, u32, i64, f32 or f64", what);
	it = cJSON_GetObjectItemCaseSensitive(v, "value");
	if (!it)
		return ks_error_set(KS_EINVALID, "%s: a scalar needs a \"value\"", what);
	if (ks_dtype_is_float(a->dtype)) {
		if (!cJSON_IsNumber(it))
			return ks_error_set(KS_EINVALID, "%s: a float scalar's value is a number", what);
		a->fvalue = it->valuedouble;
		if (!isfinite(a->fvalue) || (a->dtype == KS_DT_F32 && fabs(a->fvalue) > FLT_MAX))
			return ks_error_set(KS_EINVALID, "%s: a float scalar's value must be finite (and within "
					    "f32's range for an f32)", what);
	} else if (!(a->value = expr_text(it)))
		return ks_error_set(KS_EINVALID, "%s: an integer scalar's value is an expression", what);
	return 0;
}

static int parse_case(ks_problem *p, ks_case *c, const cJSON *v, int perf, size_t idx)
{
	const cJSON *it;
	char what[128];
	size_t i;
	int64_t seeds = 2;
	const char *label = NULL;

	snprintf(what, sizeof(what), "%s case %zu", perf ? "perf" : "correctness", idx);
	c->perf = perf;
	c->index = idx;
	c->outside = -1;
	if (!cJSON_IsObject(v))
		return ks_error_set(KS_EINVALID, "%s must be an object", what);
	c->dims = ks_calloc(p->ndims + 1, sizeof(char *));
	c->dist = ks_calloc(p->nargs + 1, sizeof(ks_dist));
	cJSON_ArrayForEach(it, v)
	{
		if (!strcmp(it->string, "seeds") || !strcmp(it->string, "label") ||
		    !strcmp(it->string, "dist") || !strcmp(it->string, "extended"))
			continue;
		for (i = 0; i < p->ndims; i++)
			if (!strcmp(p->dims[i], it->string))
				break;
		if (i == p->ndims)
			return ks_error_set(KS_EINVALID, "%s: \"%s\" is not a dim of the problem", what,
					    it->string);
		/* JSON allows a key twice; a case that sets a dim twice is ambiguous, not "the last wins" */
		if (c->dims[i])
			return ks_error_set(KS_EINVALID, "%s: dim %s is given twice", what, it->string);
		if (!(c->dims[i] = expr_text(it)))
			return ks_error_set(KS_EINVALID, "%s: dim %s must be an integer or expression",
					    what, it->string);
	}
	for (i = 0; i < p->ndims; i++)
		if (!c->dims[i])
			return ks_error_set(KS_EINVALID, "%s: no value for dim \"%s\"", what, p->dims[i]);
	if (ks_json_int(&seeds, v, "seeds", 0) < 0)
		return ks_error_wrap(KS_EINVALID, "%s", what);
	if (seeds < 2)
		seeds = 2;
	if (seeds > KS_PROBLEM_MAX_SEEDS)
		return ks_error_set(KS_ELIMIT, "%s: at most %d seeds", what, KS_PROBLEM_MAX_SEEDS);
	c->seeds = (int)seeds;
	it = cJSON_GetObjectItemCaseSensitive(v, "dist");
	if (it) {
		const cJSON *d;
		if (!cJSON_IsObject(it))
			return ks_error_set(KS_EINVALID, "%s: dist must map arg names to dists", what);
		cJSON_ArrayForEach(d, it)
		{
			int ai = ks_problem_arg_index(p, d->string);
			char w2[200];
			if (ai < 0 || (p->args[ai].role != KS_ROLE_IN && p->args[ai].role != KS_ROLE_INOUT))
				return ks_error_set(KS_EINVALID, "%s: dist for \"%s\", which is not an input",
						    what, d->string);
			snprintf(w2, sizeof(w2), "%s, arg %s", what, d->string);
			if (parse_dist(&c->dist[ai], d, w2) < 0)
				return KS_EINVALID;
		}
	}
	if (ks_json_str(&label, v, "label", 0) == 0)
		c->label = ks_strdup(label);
	else {
		char buf[256] = "";
		size_t off = 0;
		for (i = 0; i < p->ndims && off < sizeof(buf) - 1; i++)
			off += (size_t)snprintf(buf + off, sizeof(buf) - off, "%s%s=%s", i ? " " : "",
						p->dims[i], c->dims[i]);
		c->label = ks_strdup(buf);
	}
	return 0;
}

static void case_clear(ks_problem *p, ks_case *c)
{
	size_t i;
	ks_free(c->label);
	if (c->dims)
		ks_free_strv(c->dims, p->ndims);
	if (c->dist) {
		for (i = 0; i < p->nargs; i++)
			dist_clear(&c->dist[i]);
		ks_free(c->dist);
	}
}

int ks_problem_arg_index(const ks_problem *p, const char *name)
{
	size_t i;
	for (i = 0; i < p->nargs; i++)
		if (!strcmp(p->args[i].name, name))
			return (int)i;
	return -1;
}

static int in_scope(const ks_problem *p, const char *name)
{
	size_t i;
	if (!strcmp(name, "sm_count"))
		return 1;
	for (i = 0; i < p->ndims; i++)
		if (!strcmp(p->dims[i], name))
			return 1;
	for (i = 0; i < p->nlets; i++)
		if (!strcmp(p->let_names[i], name))
			return 1;
	return 0;
}

int ks_problem_check_launch(const ks_problem *p, const ks_launch *l, const char *what)
{
	size_t i, j, d;
	char w[512];
	for (i = 0; i < l->nscratch; i++) {
		if (ks_problem_arg_index(p, l->scratch[i].name) >= 0 || in_scope(p, l->scratch[i].name))
			return ks_error_set(KS_EINVALID, "%s: scratch \"%s\" shadows a name of the problem",
					    what, l->scratch[i].name);
		snprintf(w, sizeof(w), "%s: scratch %s count", what, l->scratch[i].name);
		if (check_expr(p, l->scratch[i].count, w) < 0)
			return KS_EINVALID;
	}
	for (i = 0; i < l->nkernels; i++) {
		const ks_kernel_launch *k = &l->kernels[i];
		snprintf(w, sizeof(w), "%s, kernel %s", what, k->name);
		for (d = 0; d < 3; d++) {
			if (k->grid[d] && check_expr(p, k->grid[d], w) < 0)
				return KS_EINVALID;
			if (k->block[d] && check_expr(p, k->block[d], w) < 0)
				return KS_EINVALID;
		}
		if (k->shared && check_expr(p, k->shared, w) < 0)
			return KS_EINVALID;
		for (j = 0; j < k->nargs; j++) {
			const ks_launch_arg *a = &k->args[j];
			if (a->kind == KS_LARG_INT) {
				if (check_expr(p, a->expr, w) < 0)
					return KS_EINVALID;
			} else if (a->kind == KS_LARG_NAME) {
				size_t s;
				int found = ks_problem_arg_index(p, a->name) >= 0 || in_scope(p, a->name);
				for (s = 0; !found && s < l->nscratch; s++)
					found = !strcmp(l->scratch[s].name, a->name);
				if (!found)
					return ks_error_set(KS_EINVALID,
							    "%s: argument %zu \"%s\" is not a tensor, scratch, "
							    "scalar, dim or let of the problem",
							    w, j + 1, a->name);
			}
		}
	}
	return 0;
}

const ks_case *ks_problem_case(const ks_problem *p, int kind, size_t ci)
{
	if (kind == KS_CASE_EXTENDED)
		return ci < p->nextended ? &p->extended[ci] : NULL;
	if (kind == KS_CASE_PERF)
		return ci < p->nperf ? &p->perf[ci] : NULL;
	return ci < p->ncorrectness ? &p->correctness[ci] : NULL;
}

void ks_problem_set_sm_count(ks_problem_set *set, int64_t sm_count)
{
	size_t i;
	if (sm_count <= 0)
		return;
	for (i = 0; set && i < set->n; i++)
		set->problems[i]->sm_count = sm_count;
}

int ks_problem_env(ks_env *env, const ks_problem *p, const ks_case *c)
{
	size_t i;
	ks_env_set(env, "sm_count", p->sm_count > 0 ? p->sm_count : KS_PROBLEM_DEFAULT_SM_COUNT);
	for (i = 0; i < p->ndims; i++) {
		int64_t v;
		if (ks_expr_eval(&v, c->dims[i], env) < 0)
			return ks_error_wrap(KS_EINVALID, "case %s, dim %s", c->label, p->dims[i]);
		if (v < 0)
			return ks_error_set(KS_EINVALID, "case %s: dim %s is negative", c->label, p->dims[i]);
		ks_env_set(env, p->dims[i], v);
	}
	for (i = 0; i < p->nlets; i++) {
		int64_t v;
		if (ks_expr_eval(&v, p->let_exprs[i], env) < 0)
			return ks_error_wrap(KS_EINVALID, "case %s, let %s", c->label, p->let_names[i]);
		ks_env_set(env, p->let_names[i], v);
	}
	return 0;
}

int ks_problem_arg_count(uint64_t *out, const ks_problem *p, const ks_arg *a, const ks_env *env)
{
	uint64_t n = 1;
	size_t i;
	(void)p;
	for (i = 0; i < a->ndim; i++) {
		int64_t d;
		if (ks_expr_eval(&d, a->shape[i], env) < 0)
			return ks_error_wrap(KS_EINVALID, "shape of %s", a->name);
		if (d < 0)
			return ks_error_set(KS_EINVALID, "shape of %s: dimension %zu is negative (%lld)",
					    a->name, i, (long long)d);
		if (__builtin_mul_overflow(n, (uint64_t)d, &n))
			return ks_error_set(KS_ELIMIT, "shape of %s overflows", a->name);
	}
	*out = n;
	return 0;
}

/* Evaluates every case: shapes, sizes, the golden plan's geometry, flops and bytes. */
static int check_cases(const ks_problem *p, ks_case *cases, size_t n)
{
	size_t ci, i;
	for (ci = 0; ci < n; ci++) {
		ks_env env = KS_ENV_INIT;
		uint64_t total = 0, cnt, bytes;
		int64_t v;
		int rc = 0;
		if ((rc = ks_problem_env(&env, p, &cases[ci])) < 0)
			goto next;
		for (i = 0; i < p->nargs && rc == 0; i++) {
			const ks_arg *a = &p->args[i];
			if (a->role == KS_ROLE_SCALAR) {
				if (a->value && (rc = ks_expr_eval(&v, a->value, &env)) < 0)
					ks_error_wrap(rc, "case %s, scalar %s", cases[ci].label, a->name);
				continue;
			}
			if ((rc = ks_problem_arg_count(&cnt, p, a, &env)) < 0) {
				ks_error_wrap(rc, "case %s", cases[ci].label);
				break;
			}
			if (__builtin_mul_overflow(cnt, (uint64_t)ks_dtype_size(a->dtype), &bytes) ||
			    __builtin_add_overflow(total, bytes, &total)) {
				rc = ks_error_set(KS_ELIMIT, "case %s, arg %s: %llu elements of %s: the byte "
						  "count overflows 64 bits", cases[ci].label, a->name,
						  (unsigned long long)cnt, ks_dtype_name(a->dtype));
				break;
			}
		}
		if (rc == 0 && total > KS_PROBLEM_MAX_CASE_BYTES)
			rc = ks_error_set(KS_ELIMIT, "case %s needs %llu bytes of tensors (limit %llu)",
					  cases[ci].label, (unsigned long long)total,
					  (unsigned long long)KS_PROBLEM_MAX_CASE_BYTES);
		if (rc == 0 && p->flops && (rc = ks_expr_eval(&v, p->flops, &env)) < 0)
			ks_error_wrap(rc, "case %s, flops", cases[ci].label);
		if (rc == 0 && p->bytes && (rc = ks_expr_eval(&v, p->bytes, &env)) < 0)
			ks_error_wrap(rc, "case %s, bytes", cases[ci].label);
	next:
		ks_env_free(&env);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* Every case against the domain: a scored case that breaks a rule is an error naming the case
 * (its list and index in problem.json, its label), the rule, its message and the values; an
 * extended case records the rule it breaks (reports say why it is extended). */
static int check_domain(ks_problem *p, ks_case *cases, size_t n)
{
	size_t ci;
	for (ci = 0; ci < n; ci++) {
		ks_case *c = &cases[ci];
		ks_env env = KS_ENV_INIT;
		int broken = -1, rc;
		if ((rc = ks_problem_env(&env, p, c)) == 0 &&
		    (rc = ks_domain_first_broken(&broken, &p->domain, &env)) < 0)
			ks_error_wrap(rc, "%s case %zu (%s)", c->perf ? "perf" : "correctness", c->index, c->label);
		if (rc == 0 && broken >= 0 && cases != p->extended) {
			const ks_domain_rule *r = &p->domain.rules[broken];
			char *vals = ks_domain_values(r, &env);
			rc = ks_error_set(KS_EINVALID, "%s case %zu (%s) is outside the domain: rule \"%s\" does "
					  "not hold (%s): %s; mark it \"extended\": true to run it unscored",
					  c->perf ? "perf" : "correctness", c->index, c->label, r->rule, vals,
					  r->message);
			ks_free(vals);
		}
		c->outside = broken;
		ks_env_free(&env);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* The Python entry against the spec (the section's syntax is pyentry's): every name it passes is
 * an argument of the spec, passed once; every input tensor is passed or made by the entry; every
 * output tensor is returned or passed, so the trace can identify each buffer it sees. */
static int check_python(const ks_problem *p)
{
	const ks_python_entry *e = &p->python;
	int *used = ks_calloc(p->nargs + 1, sizeof(int)), ai;
	size_t i;
	int rc = 0;
	for (i = 0; i < e->nargs + e->nkwargs && rc == 0; i++) {
		const ks_pyarg *a = i < e->nargs ? &e->args[i] : &e->kwargs[i - e->nargs];
		char what[96];
		if (a->key)
			snprintf(what, sizeof(what), "python.kwargs.%s", a->key);
		else
			snprintf(what, sizeof(what), "python.args[%zu]", i);
		if (a->kind != KS_PYARG_NAME)
			continue;
		if ((ai = ks_problem_arg_index(p, a->ref)) < 0)
			rc = ks_error_set(KS_EINVALID, "%s: \"%s\" is not an argument of the spec", what, a->ref);
		else if (used[ai]++)
			rc = ks_error_set(KS_EINVALID, "%s: %s is passed twice", what, a->ref);
	}
	if (rc == 0 && e->returns) {
		if ((ai = ks_problem_arg_index(p, e->returns)) < 0 || p->args[ai].role != KS_ROLE_OUT)
			rc = ks_error_set(KS_EINVALID, "python.returns: \"%s\" is not an out tensor of the spec",
					  e->returns);
		else if (used[ai]++)
			rc = ks_error_set(KS_EINVALID, "python.returns: %s is returned, so it is not passed too",
					  e->returns);
	}
	for (i = 0; i < e->nmade && rc == 0; i++) {
		if ((ai = ks_problem_arg_index(p, e->made_by_entry[i])) < 0 || p->args[ai].role != KS_ROLE_IN)
			rc = ks_error_set(KS_EINVALID, "python.made_by_entry: \"%s\" is not an in tensor of the "
					  "spec", e->made_by_entry[i]);
		else if (used[ai]++)
			rc = ks_error_set(KS_EINVALID, "python.made_by_entry: %s is made by the entry, so it is "
					  "not passed too", e->made_by_entry[i]);
	}
	for (i = 0; i < p->nargs && rc == 0; i++) {
		const ks_arg *a = &p->args[i];
		if (used[i] || a->role == KS_ROLE_SCALAR)
			continue;
		if (a->role == KS_ROLE_OUT)
			rc = ks_error_set(KS_EINVALID, "python: output %s is neither returned nor passed to %s",
					  a->name, e->entry);
		else
			rc = ks_error_set(KS_EINVALID, "python: input %s is neither passed to %s nor in "
					  "made_by_entry", a->name, e->entry);
	}
	ks_free(used);
	return rc;
}

cJSON *ks_problem_python_json(const ks_problem *p)
{
	return ks_pyentry_json(&p->python);
}

static int load_launch(ks_problem *p, ks_launch *l, const cJSON *v, const char *field)
{
	char what[256];
	snprintf(what, sizeof(what), "%s", field);
	if (ks_launch_parse(l, v, what) < 0)
		return KS_EINVALID;
	return ks_problem_check_launch(p, l, what);
}

static int load_spec(ks_problem *p, const cJSON *j)
{
	const char *s = NULL;
	const cJSON *it, *cases;
	int64_t diff = -1;
	size_t i, k;
	int rc;

	if (!cJSON_IsObject(j))
		return ks_error_set(KS_EINVALID, "problem.json must hold an object");
	if (ks_json_str(&s, j, "name", 1) < 0)
		return KS_EINVALID;
	if (strcmp(s, p->name))
		return ks_error_set(KS_EINVALID, "\"name\" is \"%s\" but the folder is \"%s\"", s, p->name);
	if (ks_json_str(&s, j, "description", 0) == 0)
		p->description = ks_strdup(s);
	if (ks_json_int_in(&diff, j, "difficulty", 0, INT32_MIN, INT32_MAX) < 0)
		return KS_EINVALID;
	p->difficulty = (int)diff;

	it = cJSON_GetObjectItemCaseSensitive(j, "dims");
	if (!cJSON_IsArray(it) || cJSON_GetArraySize(it) > 16)
		return ks_error_set(KS_EINVALID, "\"dims\" must be a list of at most 16 names");
	p->dims = ks_calloc((size_t)cJSON_GetArraySize(it) + 1, sizeof(char *));
	{
		const cJSON *d;
		cJSON_ArrayForEach(d, it)
		{
			if (!cJSON_IsString(d) || !valid_ident(d->valuestring))
				return ks_error_set(KS_EINVALID, "dims must be identifiers");
			if (!strcmp(d->valuestring, "sm_count"))
				return ks_error_set(KS_EINVALID, "dim \"sm_count\" is reserved (the device's "
							     "multiprocessor count)");
			p->dims[p->ndims++] = ks_strdup(d->valuestring);
		}
	}
	it = cJSON_GetObjectItemCaseSensitive(j, "let");
	if (it) {
		const cJSON *d;
		if (!cJSON_IsObject(it) || cJSON_GetArraySize(it) > 32)
			return ks_error_set(KS_EINVALID, "\"let\" must be an object of at most 32 names");
		p->let_names = ks_calloc((size_t)cJSON_GetArraySize(it) + 1, sizeof(char *));
		p->let_exprs = ks_calloc((size_t)cJSON_GetArraySize(it) + 1, sizeof(char *));
		cJSON_ArrayForEach(d, it)
		{
			size_t n;
			const char **names;
			char *e = expr_text(d);
			if (!valid_ident(d->string) || !e) {
				ks_free(e);
				return ks_error_set(KS_EINVALID, "let \"%s\" must name an expression",
						    d->string);
			}
			if (in_scope(p, d->string)) {
				ks_free(e);
				return ks_error_set(KS_EINVALID, "let \"%s\" is defined twice", d->string);
			}
			names = scope_names(p, &n); /* only earlier names are visible */
			rc = ks_expr_check(e, names, n);
			ks_free(names);
			p->let_names[p->nlets] = ks_strdup(d->string);
			p->let_exprs[p->nlets++] = e;
			if (rc < 0)
				return ks_error_wrap(rc, "let %s", d->string);
		}
	}

	p->atol = 0;
	p->rtol = 0;
	it = cJSON_GetObjectItemCaseSensitive(j, "tolerance");
	if (!cJSON_IsObject(it) || ks_json_num(&p->atol, it, "atol", 1) < 0 ||
	    ks_json_num(&p->rtol, it, "rtol", 1) < 0)
		return ks_error_wrap(KS_EINVALID, "\"tolerance\" needs atol and rtol");
	if (p->atol < 0 || p->rtol < 0 || isnan(p->atol) || isnan(p->rtol))
		return ks_error_set(KS_EINVALID, "tolerances must be >= 0");

	it = cJSON_GetObjectItemCaseSensitive(j, "args");
	if (!cJSON_IsArray(it) || cJSON_GetArraySize(it) == 0 || cJSON_GetArraySize(it) > MAX_ARGS)
		return ks_error_set(KS_EINVALID, "\"args\" must be a list of 1 to %d args", MAX_ARGS);
	p->args = ks_calloc((size_t)cJSON_GetArraySize(it), sizeof(ks_arg));
	{
		const cJSON *a;
		int outputs = 0;
		cJSON_ArrayForEach(a, it)
		{
			ks_arg *arg = &p->args[p->nargs++];
			if ((rc = parse_arg(p, arg, a)) < 0)
				return rc;
			/* a scalar may share its name with the dim it passes (n = "n") */
			if (ks_problem_arg_index(p, arg->name) != (int)p->nargs - 1 ||
			    (arg->role != KS_ROLE_SCALAR && in_scope(p, arg->name)))
				return ks_error_set(KS_EINVALID, "name \"%s\" is used twice", arg->name);
			for (k = 0; k < arg->ndim; k++) {
				char w[128];
				snprintf(w, sizeof(w), "arg %s, shape", arg->name);
				if (check_expr(p, arg->shape[k], w) < 0)
					return KS_EINVALID;
			}
			if (arg->value && check_expr(p, arg->value, arg->name) < 0)
				return KS_EINVALID;
			if (arg->dist.kind == KS_DIST_INT &&
			    (check_expr(p, arg->dist.lo, arg->name) < 0 ||
			     check_expr(p, arg->dist.hi, arg->name) < 0))
				return KS_EINVALID;
			if (arg->role == KS_ROLE_OUT || arg->role == KS_ROLE_INOUT)
				outputs++;
		}
		if (!outputs)
			return ks_error_set(KS_EINVALID, "the problem has no out or inout tensor");
	}
	it = cJSON_GetObjectItemCaseSensitive(j, "domain");
	if (it) {
		size_t n;
		const char **names = scope_names(p, &n);
		rc = ks_domain_parse(&p->domain, it, names, n);
		ks_free(names);
		if (rc < 0)
			return rc;
	}
	it = cJSON_GetObjectItemCaseSensitive(j, "python");
	if (it && !cJSON_IsNull(it) &&
	    ((rc = ks_pyentry_parse(&p->python, it)) < 0 || (rc = check_python(p)) < 0))
		return rc;

	it = cJSON_GetObjectItemCaseSensitive(j, "launch");
	if (!it)
		return ks_error_set(KS_EINVALID, "missing \"launch\"");
	if ((rc = load_launch(p, &p->launch, it, "launch")) < 0)
		return rc;
	it = cJSON_GetObjectItemCaseSensitive(j, "golden_launch");
	if (it) {
		if ((rc = load_launch(p, &p->golden_launch, it, "golden_launch")) < 0)
			return rc;
	} else
		ks_launch_copy(&p->golden_launch, &p->launch);

	if (ks_json_str(&s, j, "flops", 0) == 0)
		p->flops = ks_strdup(s);
	else if ((it = cJSON_GetObjectItemCaseSensitive(j, "flops")))
		p->flops = expr_text(it);
	if (ks_json_str(&s, j, "bytes", 0) == 0)
		p->bytes = ks_strdup(s);
	else if ((it = cJSON_GetObjectItemCaseSensitive(j, "bytes")))
		p->bytes = expr_text(it);
	if (!p->bytes)
		return ks_error_set(KS_EINVALID, "missing \"bytes\" (minimum bytes moved, an expression)");
	if (check_expr(p, p->bytes, "bytes") < 0 || (p->flops && check_expr(p, p->flops, "flops") < 0))
		return KS_EINVALID;
	s = "none";
	if (ks_json_str(&s, j, "peak", 0) < 0)
		return KS_EINVALID;
	if (strcmp(s, "f32") && strcmp(s, "f16_tc") && strcmp(s, "bf16_tc") && strcmp(s, "none"))
		return ks_error_set(KS_EINVALID, "\"peak\" must be f32, f16_tc, bf16_tc or none");
	p->peak = ks_strdup(s);
	if (strcmp(s, "none") && !p->flops)
		return ks_error_set(KS_EINVALID, "\"peak\" is %s but there is no \"flops\"", s);

	cases = cJSON_GetObjectItemCaseSensitive(j, "cases");
	if (!cJSON_IsObject(cases))
		return ks_error_set(KS_EINVALID, "missing \"cases\"");
	for (k = 0; k < 2; k++) {
		const char *key = k ? "perf" : "correctness";
		ks_case **dst = k ? &p->perf : &p->correctness;
		size_t *ndst = k ? &p->nperf : &p->ncorrectness;
		const cJSON *c;
		it = cJSON_GetObjectItemCaseSensitive(cases, key);
		if (!it) {
			if (k == 0)
				return ks_error_set(KS_EINVALID, "no correctness cases");
			continue;
		}
		if (!cJSON_IsArray(it) || cJSON_GetArraySize(it) > MAX_CASES)
			return ks_error_set(KS_EINVALID, "cases.%s must be a list of at most %d cases", key,
					    MAX_CASES);
		if (k == 0 && cJSON_GetArraySize(it) == 0)
			return ks_error_set(KS_EINVALID, "no correctness cases");
		*dst = ks_calloc((size_t)cJSON_GetArraySize(it) + 1, sizeof(ks_case));
		p->extended = ks_realloc(p->extended, (p->nextended + (size_t)cJSON_GetArraySize(it) + 1) *
					 sizeof(ks_case));
		i = 0;
		cJSON_ArrayForEach(c, it)
		{
			int ext = 0;
			ks_case *to;
			if (cJSON_IsObject(c) && ks_json_bool(&ext, c, "extended", 0) < 0)
				return ks_error_wrap(KS_EINVALID, "%s case %zu", key, i);
			to = ext ? &p->extended[p->nextended++] : &(*dst)[(*ndst)++];
			memset(to, 0, sizeof(*to));
			if ((rc = parse_case(p, to, c, (int)k, i)) < 0)
				return rc;
			i++;
		}
		if (k == 0 && *ndst == 0)
			return ks_error_set(KS_EINVALID, "no scored correctness cases (every one is extended)");
		if ((rc = check_cases(p, *dst, *ndst)) < 0 || (rc = check_domain(p, *dst, *ndst)) < 0)
			return rc;
	}
	if (p->nextended &&
	    ((rc = check_cases(p, p->extended, p->nextended)) < 0 ||
	     (rc = check_domain(p, p->extended, p->nextended)) < 0))
		return rc;
	return 0;
}

int ks_problem_load(ks_problem **out, const char *dir, const char *suite)
{
	ks_problem *p = ks_calloc(1, sizeof(*p));
	char *path = NULL, *text = NULL, *gpath = NULL, *ipath = NULL;
	const char *gname = "golden.cu", *iname = "instruction.md";
	size_t len = 0, glen = 0;
	cJSON *j = NULL;
	ks_sha256 *h;
	int rc;

	*out = NULL;
	p->sm_count = KS_PROBLEM_DEFAULT_SM_COUNT;
	p->dir = ks_strdup(dir);
	{
		/* the folder name itself is the problem's key */
		const char *b = strrchr(dir, '/');
		p->name = ks_strdup(b ? b + 1 : dir);
		if (!*p->name) {
			rc = ks_error_set(KS_EINVALID, "%s: bad folder name", dir);
			goto done;
		}
	}
	p->suite = ks_strdup(suite ? suite : "");
	path = ks_path_join(dir, "problem.json");
	if ((rc = ks_fs_read(&text, &len, path, MAX_SPEC_BYTES)) < 0)
		goto done;
	if ((rc = ks_json_parse(&j, text, len, 32, path)) < 0)
		goto done;
	if ((rc = load_spec(p, j)) < 0) {
		ks_error_wrap(rc, "%s", path);
		goto done;
	}
	if (ks_json_str(&gname, j, "golden", 0) < 0 || ks_json_str(&iname, j, "instruction", 0) < 0 ||
	    strchr(gname, '/') || strchr(iname, '/')) {
		rc = ks_error_set(KS_EINVALID, "%s: golden and instruction must be file names in the folder",
				  path);
		goto done;
	}
	gpath = ks_path_join(dir, gname);
	if ((rc = ks_fs_read(&p->golden_src, &glen, gpath, MAX_SOURCE_BYTES)) < 0 ||
	    (rc = ks_prelude_apply(&p->golden_src, &glen, j, dir, gname, path)) < 0)
		goto done;
	ipath = ks_path_join(dir, iname);
	if ((rc = ks_fs_read(&p->instruction, NULL, ipath, MAX_SOURCE_BYTES)) < 0)
		goto done;
	h = ks_sha256_new();
	ks_sha256_update(h, text, len);
	ks_sha256_update(h, p->golden_src, glen);
	ks_sha256_final(h, p->sha256);
done:
	cJSON_Delete(j);
	ks_free(text);
	ks_free(path);
	ks_free(gpath);
	ks_free(ipath);
	if (rc < 0)
		ks_problem_free(p);
	else
		*out = p;
	return rc;
}

void ks_problem_free(ks_problem *p)
{
	size_t i;
	if (!p)
		return;
	for (i = 0; i < p->ncorrectness; i++)
		case_clear(p, &p->correctness[i]);
	for (i = 0; i < p->nperf; i++)
		case_clear(p, &p->perf[i]);
	for (i = 0; i < p->nextended; i++)
		case_clear(p, &p->extended[i]);
	ks_free(p->correctness);
	ks_free(p->perf);
	ks_free(p->extended);
	ks_domain_clear(&p->domain);
	for (i = 0; i < p->nargs; i++) {
		ks_free(p->args[i].name);
		ks_free_strv(p->args[i].shape, p->args[i].ndim);
		ks_free(p->args[i].value);
		dist_clear(&p->args[i].dist);
	}
	ks_free(p->args);
	ks_free_strv(p->dims, p->ndims);
	ks_free_strv(p->let_names, p->nlets);
	ks_free_strv(p->let_exprs, p->nlets);
	ks_launch_clear(&p->launch);
	ks_launch_clear(&p->golden_launch);
	ks_pyentry_clear(&p->python);
	ks_free(p->name);
	ks_free(p->suite);
	ks_free(p->dir);
	ks_free(p->description);
	ks_free(p->flops);
	ks_free(p->bytes);
	ks_free(p->peak);
	ks_free(p->golden_src);
	ks_free(p->instruction);
	ks_free(p->data_dir);
	ks_free(p);
}

static void add_error(ks_problem_set *s, size_t *cap, const char *msg)
{
	s->errors = ks_grow(s->errors, sizeof(char *), cap, s->nerrors + 1);
	s->errors[s->nerrors++] = ks_strdup(msg);
}

int ks_problem_set_load(ks_problem_set **out, const char *root, const char *suite)
{
	ks_problem_set *s = ks_calloc(1, sizeof(*s));
	char **suites = NULL;
	size_t nsuites = 0, si, pcap = 0, ecap = 0;
	int rc;

	*out = NULL;
	s->root = ks_strdup(root);
	if ((rc = ks_fs_list(&suites, &nsuites, root, 1)) < 0) {
		ks_error_wrap(rc, "reference tests");
		ks_problem_set_free(s);
		return rc;
	}
	for (si = 0; si < nsuites; si++) {
		char *sdir = ks_path_join(root, suites[si]), **names = NULL;
		size_t nnames = 0, ni;
		if (!ks_fs_is_dir(sdir) || (suite && strcmp(suite, suites[si]))) {
			ks_free(sdir);
			continue;
		}
		if (ks_fs_list(&names, &nnames, sdir, 1) < 0) {
			add_error(s, &ecap, ks_error_msg());
			ks_free(sdir);
			continue;
		}
		for (ni = 0; ni < nnames; ni++) {
			char *pdir = ks_path_join(sdir, names[ni]);
			ks_problem *p = NULL;
			if (!ks_fs_is_dir(pdir)) {
				ks_free(pdir);
				continue;
			}
			if (ks_problem_load(&p, pdir, suites[si]) < 0)
				add_error(s, &ecap, ks_error_msg());
			else if (ks_problem_set_find(s, p->name)) {
				char *m = ks_asprintf("%s: problem name \"%s\" is already used by another suite",
						      pdir, p->name);
				add_error(s, &ecap, m);
				ks_free(m);
				ks_problem_free(p);
			} else {
				s->problems = ks_grow(s->problems, sizeof(*s->problems), &pcap, s->n + 1);
				s->problems[s->n++] = p;
			}
			ks_free(pdir);
		}
		ks_free_strv(names, nnames);
		ks_free(sdir);
	}
	ks_free_strv(suites, nsuites);
	*out = s;
	return 0;
}

const ks_problem *ks_problem_set_find(const ks_problem_set *set, const char *name)
{
	size_t i;
	for (i = 0; set && name && i < set->n; i++)
		if (!strcmp(set->problems[i]->name, name))
			return set->problems[i];
	return NULL;
}

void ks_problem_set_free(ks_problem_set *set)
{
	size_t i;
	if (!set)
		return;
	for (i = 0; i < set->n; i++)
		ks_problem_free(set->problems[i]);
	ks_free(set->problems);
	ks_free_strv(set->errors, set->nerrors);
	ks_free(set->root);
	ks_free(set);
}
