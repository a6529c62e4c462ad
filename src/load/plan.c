#include "load/plan.h"
#include "util/errors.h"
#include "util/jsonutil.h"
#include "util/mem.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

void ks_plan_kernel_names(char ***names, size_t *n, const ks_launch *l)
{
	char **v = ks_calloc(l->nkernels + 1, sizeof(char *));
	size_t i, j, k = 0;
	for (i = 0; i < l->nkernels; i++) {
		for (j = 0; j < k; j++)
			if (!strcmp(v[j], l->kernels[i].name))
				break;
		if (j == k)
			v[k++] = ks_strdup(l->kernels[i].name);
	}
	*names = v;
	*n = k;
}

static uint32_t func_index(const ks_launch *l, size_t ki)
{
	size_t i;
	uint32_t idx = 0;
	for (i = 0; i < ki; i++) {
		size_t j;
		int seen = 0;
		for (j = 0; j < i; j++)
			if (!strcmp(l->kernels[j].name, l->kernels[i].name))
				seen = 1;
		if (!seen) {
			if (!strcmp(l->kernels[i].name, l->kernels[ki].name))
				return idx;
			idx++;
		}
	}
	return idx;
}

static int fit(ks_param_kind kind, int64_t v, const char *what)
{
	if (kind == KS_PARAM_I32 && (v < INT32_MIN || v > INT32_MAX))
		return ks_error_set(KS_EINVALID, "%s: value %lld does not fit in i32 (pass it as {\"i64\": ...})",
				    what, (long long)v);
	if (kind == KS_PARAM_U32 && (v < 0 || v > (int64_t)UINT32_MAX))
		return ks_error_set(KS_EINVALID, "%s: value %lld does not fit in u32", what, (long long)v);
	return 0;
}

/* A float scalar must be finite (and an f32 one within float's range): JSON has no infinity, so
 * the plan would reach the worker with null for it and every run would be refused. */
static int fit_float(ks_param_kind kind, double f, const char *what)
{
	if (!isfinite(f) || (kind == KS_PARAM_F32 && fabs(f) > FLT_MAX))
		return ks_error_set(KS_EINVALID, "%s: value %g is not a finite %s", what, f,
				    kind == KS_PARAM_F32 ? "f32" : "f64");
	return 0;
}

static ks_param_kind kind_of(ks_dtype t)
{
	switch (t) {
	case KS_DT_U32:
		return KS_PARAM_U32;
	case KS_DT_I64:
		return KS_PARAM_I64;
	case KS_DT_F32:
		return KS_PARAM_F32;
	case KS_DT_F64:
		return KS_PARAM_F64;
	default:
		return KS_PARAM_I32;
	}
}

static int resolve_param(ks_plan_param *out, const ks_plan *plan, const ks_problem *p,
			 const ks_launch_arg *a, const ks_env *env, const char *what)
{
	int64_t v;
	size_t b;
	int ai;

	memset(out, 0, sizeof(*out));
	if (a->kind == KS_LARG_FLOAT) {
		out->kind = kind_of(a->type);
		out->f = a->value;
		return fit_float(out->kind, out->f, what);
	}
	if (a->kind == KS_LARG_INT) {
		out->kind = kind_of(a->type);
		if (ks_expr_eval(&v, a->expr, env) < 0)
			return ks_error_wrap(KS_EINVALID, "%s", what);
		out->i = v;
		return fit(out->kind, v, what);
	}
	for (b = 0; b < plan->nbufs; b++) {
		if (!strcmp(plan->bufs[b].name, a->name)) {
			out->kind = KS_PARAM_BUF;
			out->buf = (uint32_t)b;
			return 0;
		}
	}
	ai = ks_problem_arg_index(p, a->name);
	if (ai >= 0) {
		const ks_arg *arg = &p->args[ai];
		out->kind = kind_of(arg->dtype);
		if (ks_dtype_is_float(arg->dtype)) {
			char *w;
			int rc;
			out->f = arg->fvalue;
			if (isfinite(out->f) && (out->kind != KS_PARAM_F32 || fabs(out->f) <= FLT_MAX))
				return 0;
			w = ks_asprintf("%s, scalar %s", what, a->name);
			rc = fit_float(out->kind, out->f, w);
			ks_free(w);
			return rc;
		}
		if (ks_expr_eval(&v, arg->value, env) < 0)
			return ks_error_wrap(KS_EINVALID, "%s, scalar %s", what, a->name);
		out->i = v;
		return fit(out->kind, v, what);
	}
	if (ks_env_get(env, a->name, &v)) {
		out->kind = KS_PARAM_I32;
		out->i = v;
		return fit(out->kind, v, what);
	}
	return ks_error_set(KS_EINVALID, "%s: unknown argument \"%s\"", what, a->name);
}

static int eval_dims(uint32_t dst[3], char *const src[3], const ks_env *env, const char *what,
		     const char *field)
{
	int d;
	for (d = 0; d < 3; d++) {
		int64_t v = 1;
		if (src[d] && ks_expr_eval(&v, src[d], env) < 0)
			return ks_error_wrap(KS_EINVALID, "%s, %s", what, field);
		if (v < 0 || v > (int64_t)UINT32_MAX)
			return ks_error_set(KS_EINVALID, "%s: %s.%c is %lld", what, field, "xyz"[d],
					    (long long)v);
		dst[d] = (uint32_t)v;
	}
	return 0;
}

int ks_plan_build(ks_plan *out, const ks_problem *p, const ks_launch *l, const ks_case *c,
		  const ks_env *env, uint64_t seed, int poison, const ks_plan_limits *lim)
{
	ks_plan_limits dl = KS_PLAN_LIMITS_INIT;
	uint64_t scratch_total = 0, tensor_total = 0;
	size_t i, j, nt = 0;
	char what[600];
	int rc = 0;

	if (!lim)
		lim = &dl;
	memset(out, 0, sizeof(*out));
	out->seed = seed;
	out->poison = poison;
	out->guard = lim->guard;
	out->bufs = ks_calloc(p->nargs + l->nscratch + 1, sizeof(ks_plan_buf));
	for (i = 0; i < p->nargs; i++) {
		const ks_arg *a = &p->args[i];
		ks_plan_buf *b;
		const ks_dist *d;
		if (a->role == KS_ROLE_SCALAR)
			continue;
		b = &out->bufs[out->nbufs++];
		nt++;
		b->name = ks_strdup(a->name);
		b->dtype = a->dtype;
		b->role = a->role;
		b->stream = (uint32_t)i;
		if ((rc = ks_problem_arg_count(&b->count, p, a, env)) < 0)
			goto done;
		/* sizes can change after the spec was validated (the device's sm_count) */
		if (__builtin_mul_overflow(b->count, (uint64_t)ks_dtype_size(a->dtype), &b->bytes) ||
		    __builtin_add_overflow(tensor_total, b->bytes, &tensor_total) ||
		    tensor_total > lim->max_tensor_bytes) {
			rc = ks_error_set(KS_ELIMIT, "tensor %s: %llu elements of %s take the tensors of the case "
					  "past the limit of %llu bytes", a->name, (unsigned long long)b->count,
					  ks_dtype_name(a->dtype), (unsigned long long)lim->max_tensor_bytes);
			goto done;
		}
		if (a->role == KS_ROLE_OUT) {
			b->fill = KS_FILL_POISON;
			continue;
		}
		b->fill = KS_FILL_RANDOM;
		d = (c && c->dist && c->dist[i].kind != KS_DIST_DEFAULT) ? &c->dist[i] : &a->dist;
		/* an imported set's input holds the oracle's values: no stage fills a buffer from its
		 * file yet, and a random fill in its place would check an answer against other inputs
		 * than the expected outputs were made from */
		if (d->kind == KS_DIST_DATA) {
			rc = ks_error_set(KS_EUNSUPPORTED, "%s holds the values of the oracle's file (an imported "
					  "set's case): no stage fills a buffer from it yet", a->name);
			goto done;
		}
		b->dist = d->kind;
		b->a = d->a;
		b->b = d->b;
		if (d->kind == KS_DIST_DEFAULT) {
			if (ks_dtype_is_float(a->dtype)) {
				b->dist = KS_DIST_NORMAL;
				b->a = 0;
				b->b = 1;
			} else {
				b->dist = KS_DIST_INT;
				b->a = a->dtype == KS_DT_U8 || a->dtype == KS_DT_U32 ? 0 : -100;
				b->b = 100;
			}
		} else if (d->kind == KS_DIST_INT) {
			int64_t lo, hi;
			if (ks_expr_eval(&lo, d->lo, env) < 0 || ks_expr_eval(&hi, d->hi, env) < 0) {
				rc = ks_error_wrap(KS_EINVALID, "dist of %s", a->name);
				goto done;
			}
			if (hi < lo) {
				rc = ks_error_set(KS_EINVALID, "dist of %s: hi %lld < lo %lld", a->name,
						  (long long)hi, (long long)lo);
				goto done;
			}
			b->a = (double)lo;
			b->b = (double)hi;
		}
	}
	for (i = 0; i < l->nscratch; i++) {
		ks_plan_buf *b = &out->bufs[out->nbufs++];
		int64_t cnt;
		b->name = ks_strdup(l->scratch[i].name);
		b->dtype = l->scratch[i].dtype;
		b->role = KS_ROLE_OUT;
		b->scratch = 1;
		b->fill = l->scratch[i].zero ? KS_FILL_ZERO : KS_FILL_POISON;
		b->stream = (uint32_t)(p->nargs + i);
		if (ks_expr_eval(&cnt, l->scratch[i].count, env) < 0) {
			rc = ks_error_wrap(KS_EINVALID, "scratch %s", b->name);
			goto done;
		}
		if (cnt < 0) {
			rc = ks_error_set(KS_EINVALID, "scratch %s: count is negative", b->name);
			goto done;
		}
		b->count = (uint64_t)cnt;
		if (__builtin_mul_overflow(b->count, (uint64_t)ks_dtype_size(b->dtype), &b->bytes) ||
		    __builtin_add_overflow(scratch_total, b->bytes, &scratch_total) ||
		    scratch_total > lim->max_scratch_bytes) {
			rc = ks_error_set(KS_ELIMIT, "scratch %s: %llu elements of %s take the plan's scratch "
					  "buffers past the limit of %llu bytes (--max-scratch)", b->name,
					  (unsigned long long)b->count, ks_dtype_name(b->dtype),
					  (unsigned long long)lim->max_scratch_bytes);
			goto done;
		}
	}
	(void)nt;
	out->kernels = ks_calloc(l->nkernels + 1, sizeof(ks_plan_kernel));
	for (i = 0; i < l->nkernels; i++) {
		const ks_kernel_launch *k = &l->kernels[i];
		ks_plan_kernel *pk = &out->kernels[out->nkernels++];
		int64_t shared = 0;
		uint64_t threads;
		snprintf(what, sizeof(what), "kernel %s (launch %zu)", k->name, i + 1);
		pk->name = ks_strdup(k->name);
		pk->func = func_index(l, i);
		if ((rc = eval_dims(pk->grid, k->grid, env, what, "grid")) < 0 ||
		    (rc = eval_dims(pk->block, k->block, env, what, "block")) < 0)
			goto done;
		if (k->shared && (rc = ks_expr_eval(&shared, k->shared, env)) < 0) {
			ks_error_wrap(rc, "%s, shared", what);
			goto done;
		}
		threads = (uint64_t)pk->block[0] * pk->block[1] * pk->block[2];
		if (threads == 0 || threads > 1024 || pk->block[2] > 64) {
			rc = ks_error_set(KS_EINVALID, "%s: block %ux%ux%u is not a valid block (1 to 1024 "
					  "threads, z <= 64)", what, pk->block[0], pk->block[1], pk->block[2]);
			goto done;
		}
		if (pk->grid[0] > 2147483647u || pk->grid[1] > 65535 || pk->grid[2] > 65535) {
			rc = ks_error_set(KS_EINVALID, "%s: grid %ux%ux%u exceeds the hardware limits "
					  "(x < 2^31, y and z <= 65535)", what, pk->grid[0], pk->grid[1],
					  pk->grid[2]);
			goto done;
		}
		if (shared < 0 || shared > (int64_t)lim->max_shared) {
			rc = ks_error_set(KS_EINVALID, "%s: %lld bytes of dynamic shared memory (limit %u)",
					  what, (long long)shared, lim->max_shared);
			goto done;
		}
		pk->shared = (uint32_t)shared;
		if (k->default_args) {
			pk->params = ks_calloc(p->nargs + 1, sizeof(ks_plan_param));
			for (j = 0; j < p->nargs; j++) {
				ks_launch_arg a = { KS_LARG_NAME, p->args[j].name, KS_DT_I32, NULL, 0 };
				if ((rc = resolve_param(&pk->params[j], out, p, &a, env, what)) < 0)
					goto done;
				pk->nparams++;
			}
		} else {
			pk->params = ks_calloc(k->nargs + 1, sizeof(ks_plan_param));
			for (j = 0; j < k->nargs; j++) {
				if ((rc = resolve_param(&pk->params[j], out, p, &k->args[j], env, what)) < 0)
					goto done;
				pk->nparams++;
			}
		}
	}
done:
	if (rc < 0)
		ks_plan_clear(out);
	return rc;
}

uint64_t ks_plan_bytes(const ks_plan *plan)
{
	uint64_t t = 0;
	size_t i;
	for (i = 0; i < plan->nbufs; i++)
		t += plan->bufs[i].bytes;
	return t;
}

void ks_plan_clear(ks_plan *plan)
{
	size_t i;
	for (i = 0; i < plan->nbufs; i++)
		ks_free(plan->bufs[i].name);
	ks_free(plan->bufs);
	for (i = 0; i < plan->nkernels; i++) {
		ks_free(plan->kernels[i].name);
		ks_free(plan->kernels[i].params);
	}
	ks_free(plan->kernels);
	ks_free(plan->steps);
	memset(plan, 0, sizeof(*plan));
}

size_t ks_plan_param_size(ks_param_kind k)
{
	switch (k) {
	case KS_PARAM_I32:
	case KS_PARAM_U32:
	case KS_PARAM_F32:
		return 4;
	case KS_PARAM_B16:
		return 2;
	case KS_PARAM_B8:
		return 1;
	default:
		return 8;
	}
}

uint64_t ks_plan_step_count(const ks_plan_step *s)
{
	uint64_t n = 1;
	uint32_t d;
	if (s->kind == KS_STEP_LAUNCH)
		return 0;
	for (d = 0; d < s->rank && d < KS_PLAN_MAX_RANK; d++)
		if (__builtin_mul_overflow(n, s->sizes[d], &n))
			return UINT64_MAX;
	return n;
}

/* Whether the rank-r region at byte off with the step's sizes and strides stays inside a buffer of
 * `bytes` bytes: its last element ends at off + width * (1 + sum((size - 1) * stride)). */
static int region_fits(const ks_plan_step *s, uint64_t off, const uint64_t *stride, uint64_t bytes)
{
	uint64_t last = 0, end;
	uint32_t d;
	for (d = 0; d < s->rank; d++) {
		uint64_t t;
		if (s->sizes[d] == 0)
			return 1; /* an empty region touches nothing */
		if (__builtin_mul_overflow(s->sizes[d] - 1, stride[d], &t) || __builtin_add_overflow(last, t, &last))
			return 0;
	}
	return !__builtin_add_overflow(last, 1, &end) && !__builtin_mul_overflow(end, (uint64_t)s->width, &end) &&
	       !__builtin_add_overflow(end, off, &end) && end <= bytes;
}

int ks_plan_step_check(const ks_plan_step *s, size_t index, const ks_plan *plan)
{
	const char *what = s->kind == KS_STEP_FILL ? "fill" : "copy";
	if (s->kind == KS_STEP_LAUNCH) {
		if (s->kernel >= plan->nkernels)
			return ks_error_set(KS_EINVALID, "plan step %zu: launches kernel %u of %zu", index + 1,
					    s->kernel, plan->nkernels);
		return 0;
	}
	if (s->kind != KS_STEP_FILL && s->kind != KS_STEP_COPY)
		return ks_error_set(KS_EINVALID, "plan step %zu: unknown kind", index + 1);
	if (s->width != 1 && s->width != 2 && s->width != 4 && s->width != 8)
		return ks_error_set(KS_EINVALID, "plan step %zu (%s): elements of %u bytes", index + 1, what, s->width);
	if (s->rank < 1 || s->rank > KS_PLAN_MAX_RANK)
		return ks_error_set(KS_EINVALID, "plan step %zu (%s): rank %u (1 to %d)", index + 1, what, s->rank,
				    KS_PLAN_MAX_RANK);
	if (s->buf >= plan->nbufs || (s->kind == KS_STEP_COPY && s->src >= plan->nbufs))
		return ks_error_set(KS_EINVALID, "plan step %zu (%s): refers to a missing buffer", index + 1, what);
	if (ks_plan_step_count(s) > (1ull << 40))
		return ks_error_set(KS_ELIMIT, "plan step %zu (%s): too many elements", index + 1, what);
	if (s->off % s->width || (s->kind == KS_STEP_COPY && s->src_off % s->width))
		return ks_error_set(KS_EINVALID, "plan step %zu (%s): an offset is not a multiple of the "
				    "element size", index + 1, what);
	if (!region_fits(s, s->off, s->dstride, plan->bufs[s->buf].bytes))
		return ks_error_set(KS_EINVALID, "plan step %zu (%s): the region written leaves buffer %s",
				    index + 1, what, plan->bufs[s->buf].name);
	if (s->kind == KS_STEP_COPY && !region_fits(s, s->src_off, s->sstride, plan->bufs[s->src].bytes))
		return ks_error_set(KS_EINVALID, "plan step %zu (copy): the region read leaves buffer %s",
				    index + 1, plan->bufs[s->src].name);
	return 0;
}

/* ---- JSON form. 64-bit integers travel as strings: JSON numbers are doubles. */

static void add_u64(cJSON *o, const char *k, uint64_t v)
{
	char s[32];
	snprintf(s, sizeof(s), "%llu", (unsigned long long)v);
	cJSON_AddStringToObject(o, k, s);
}

static int get_u64(uint64_t *out, const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	char *end;
	if (!cJSON_IsString(v))
		return ks_error_set(KS_EINVALID, "plan: missing %s", k);
	*out = strtoull(v->valuestring, &end, 10);
	if (*end)
		return ks_error_set(KS_EINVALID, "plan: bad %s", k);
	return 0;
}

static cJSON *u32x3(const uint32_t v[3])
{
	double d[3] = { v[0], v[1], v[2] };
	return cJSON_CreateDoubleArray(d, 3);
}

cJSON *ks_plan_to_json(const ks_plan *plan)
{
	cJSON *o = cJSON_CreateObject(), *bufs = cJSON_AddArrayToObject(o, "bufs"),
	      *ks = cJSON_AddArrayToObject(o, "kernels");
	size_t i, j;
	add_u64(o, "seed", plan->seed);
	if (plan->version || plan->change > 0) {
		add_u64(o, "version", plan->version);
		cJSON_AddNumberToObject(o, "change", plan->change);
	}
	cJSON_AddNumberToObject(o, "poison", plan->poison);
	cJSON_AddNumberToObject(o, "guard", plan->guard);
	for (i = 0; i < plan->nbufs; i++) {
		const ks_plan_buf *b = &plan->bufs[i];
		cJSON *x = cJSON_CreateObject();
		cJSON_AddStringToObject(x, "name", b->name);
		cJSON_AddNumberToObject(x, "dtype", b->dtype);
		add_u64(x, "count", b->count);
		cJSON_AddNumberToObject(x, "role", b->role);
		cJSON_AddNumberToObject(x, "scratch", b->scratch);
		cJSON_AddNumberToObject(x, "fill", b->fill);
		cJSON_AddNumberToObject(x, "dist", b->dist);
		cJSON_AddNumberToObject(x, "a", b->a);
		cJSON_AddNumberToObject(x, "b", b->b);
		cJSON_AddNumberToObject(x, "stream", b->stream);
		cJSON_AddItemToArray(bufs, x);
	}
	for (i = 0; i < plan->nkernels; i++) {
		const ks_plan_kernel *k = &plan->kernels[i];
		cJSON *x = cJSON_CreateObject(), *ps;
		cJSON_AddNumberToObject(x, "func", k->func);
		cJSON_AddStringToObject(x, "name", k->name);
		cJSON_AddItemToObject(x, "grid", u32x3(k->grid));
		cJSON_AddItemToObject(x, "block", u32x3(k->block));
		cJSON_AddNumberToObject(x, "shared", k->shared);
		ps = cJSON_AddArrayToObject(x, "params");
		for (j = 0; j < k->nparams; j++) {
			const ks_plan_param *pp = &k->params[j];
			cJSON *y = cJSON_CreateObject();
			cJSON_AddNumberToObject(y, "k", pp->kind);
			if (pp->kind == KS_PARAM_BUF) {
				cJSON_AddNumberToObject(y, "buf", pp->buf);
				if (pp->off)
					add_u64(y, "off", pp->off);
			} else if (pp->kind == KS_PARAM_NULL)
				;
			else if (pp->kind == KS_PARAM_F32 || pp->kind == KS_PARAM_F64)
				cJSON_AddNumberToObject(y, "f", pp->f);
			else {
				char s[32];
				snprintf(s, sizeof(s), "%lld", (long long)pp->i);
				cJSON_AddStringToObject(y, "i", s);
			}
			cJSON_AddItemToArray(ps, y);
		}
		cJSON_AddItemToArray(ks, x);
	}
	if (plan->nsteps) {
		cJSON *sa = cJSON_AddArrayToObject(o, "steps");
		for (i = 0; i < plan->nsteps; i++) {
			const ks_plan_step *s = &plan->steps[i];
			cJSON *x = cJSON_CreateObject(), *sz, *ds, *ss;
			uint32_t d;
			cJSON_AddNumberToObject(x, "k", s->kind);
			if (s->kind == KS_STEP_LAUNCH) {
				cJSON_AddNumberToObject(x, "kernel", s->kernel);
				cJSON_AddItemToArray(sa, x);
				continue;
			}
			cJSON_AddNumberToObject(x, "buf", s->buf);
			cJSON_AddNumberToObject(x, "src", s->src);
			add_u64(x, "off", s->off);
			add_u64(x, "src_off", s->src_off);
			cJSON_AddNumberToObject(x, "width", s->width);
			add_u64(x, "value", s->value);
			sz = cJSON_AddArrayToObject(x, "sizes");
			ds = cJSON_AddArrayToObject(x, "dstride");
			ss = cJSON_AddArrayToObject(x, "sstride");
			for (d = 0; d < s->rank && d < KS_PLAN_MAX_RANK; d++) {
				char v[32];
				snprintf(v, sizeof(v), "%llu", (unsigned long long)s->sizes[d]);
				cJSON_AddItemToArray(sz, cJSON_CreateString(v));
				snprintf(v, sizeof(v), "%llu", (unsigned long long)s->dstride[d]);
				cJSON_AddItemToArray(ds, cJSON_CreateString(v));
				snprintf(v, sizeof(v), "%llu", (unsigned long long)s->sstride[d]);
				cJSON_AddItemToArray(ss, cJSON_CreateString(v));
			}
			cJSON_AddItemToArray(sa, x);
		}
	}
	return o;
}

static int num(double *out, const cJSON *o, const char *k)
{
	if (ks_json_num(out, o, k, 1) < 0)
		return ks_error_wrap(KS_EINVALID, "plan");
	return 0;
}

/* A required integer field in [lo, hi]. */
static int inum(int64_t *out, const cJSON *o, const char *k, int64_t lo, int64_t hi)
{
	if (ks_json_int_in(out, o, k, 1, lo, hi) < 0)
		return ks_error_wrap(KS_EINVALID, "plan");
	return 0;
}

static int get_u32x3(uint32_t dst[3], const cJSON *o, const char *k)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, k);
	int64_t v;
	int i;
	if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) != 3)
		return ks_error_set(KS_EINVALID, "plan: bad %s", k);
	for (i = 0; i < 3; i++) {
		const cJSON *x = cJSON_GetArrayItem(a, i);
		if (!cJSON_IsNumber(x) || ks_json_d2i(&v, x->valuedouble, 0, UINT32_MAX) < 0)
			return ks_error_set(KS_EINVALID, "plan: bad %s", k);
		dst[i] = (uint32_t)v;
	}
	return 0;
}

/* A 64-bit integer sent as a decimal string (JSON numbers are doubles): all digits, in range. */
static int get_i64_str(int64_t *out, const char *s)
{
	char *end;
	errno = 0;
	*out = strtoll(s, &end, 10);
	if (!*s || *end || errno || isspace((unsigned char)*s))
		return ks_error_set(KS_EINVALID, "plan: bad integer parameter");
	return 0;
}

/* An array of up to KS_PLAN_MAX_RANK unsigned decimal strings into v; its length in *n. */
static int get_u64_array(uint64_t *v, uint32_t *n, const cJSON *o, const char *k)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, k), *x;
	char *end;
	*n = 0;
	if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) > KS_PLAN_MAX_RANK)
		return ks_error_set(KS_EINVALID, "plan: bad %s", k);
	cJSON_ArrayForEach(x, a)
	{
		if (!cJSON_IsString(x) || !isdigit((unsigned char)x->valuestring[0]))
			return ks_error_set(KS_EINVALID, "plan: bad %s", k);
		errno = 0;
		v[(*n)++] = strtoull(x->valuestring, &end, 10);
		if (*end || errno)
			return ks_error_set(KS_EINVALID, "plan: bad %s", k);
	}
	return 0;
}

static int steps_from_json(ks_plan *out, const cJSON *sa)
{
	const cJSON *it;
	int64_t v;
	int rc;
	if (!sa)
		return 0;
	if (!cJSON_IsArray(sa) || cJSON_GetArraySize(sa) > KS_PLAN_MAX_STEPS)
		return ks_error_set(KS_EINVALID, "plan: bad steps");
	out->steps = ks_calloc((size_t)cJSON_GetArraySize(sa) + 1, sizeof(ks_plan_step));
	cJSON_ArrayForEach(it, sa)
	{
		ks_plan_step *s = &out->steps[out->nsteps];
		uint32_t nd = 0, ns = 0;
		if ((rc = inum(&v, it, "k", KS_STEP_LAUNCH, KS_STEP_COPY)) < 0)
			return rc;
		s->kind = (ks_step_kind)v;
		if (s->kind == KS_STEP_LAUNCH) {
			if ((rc = inum(&v, it, "kernel", 0, KS_PLAN_MAX_KERNELS - 1)) < 0)
				return rc;
			s->kernel = (uint32_t)v;
		} else {
			if ((rc = inum(&v, it, "buf", 0, UINT32_MAX)) < 0)
				return rc;
			s->buf = (uint32_t)v;
			if ((rc = inum(&v, it, "src", 0, UINT32_MAX)) < 0)
				return rc;
			s->src = (uint32_t)v;
			if ((rc = inum(&v, it, "width", 1, 8)) < 0)
				return rc;
			s->width = (uint32_t)v;
			if ((rc = get_u64(&s->off, it, "off")) < 0 || (rc = get_u64(&s->src_off, it, "src_off")) < 0 ||
			    (rc = get_u64(&s->value, it, "value")) < 0 ||
			    (rc = get_u64_array(s->sizes, &s->rank, it, "sizes")) < 0 ||
			    (rc = get_u64_array(s->dstride, &nd, it, "dstride")) < 0 ||
			    (rc = get_u64_array(s->sstride, &ns, it, "sstride")) < 0)
				return rc;
			if (nd != s->rank || ns != s->rank)
				return ks_error_set(KS_EINVALID, "plan: step %zu: sizes and strides differ in rank",
						    out->nsteps + 1);
		}
		if ((rc = ks_plan_step_check(s, out->nsteps, out)) < 0)
			return rc;
		out->nsteps++;
	}
	return 0;
}

int ks_plan_from_json(ks_plan *out, const cJSON *j)
{
	const cJSON *bufs = cJSON_GetObjectItemCaseSensitive(j, "bufs"),
		    *ks = cJSON_GetObjectItemCaseSensitive(j, "kernels"), *it;
	int64_t v;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	if (!cJSON_IsArray(bufs) || !cJSON_IsArray(ks) || cJSON_GetArraySize(bufs) > 256 ||
	    cJSON_GetArraySize(ks) > KS_PLAN_MAX_KERNELS)
		return ks_error_set(KS_EINVALID, "plan: bad shape");
	if ((rc = get_u64(&out->seed, j, "seed")) < 0 || (rc = inum(&v, j, "poison", 0, 1)) < 0)
		goto done;
	out->poison = (int)v;
	if (cJSON_GetObjectItemCaseSensitive(j, "version") &&
	    ((rc = get_u64(&out->version, j, "version")) < 0 || (rc = num(&out->change, j, "change")) < 0))
		goto done;
	if (!(out->change >= 0 && out->change <= 1)) {
		rc = ks_error_set(KS_EINVALID, "plan: bad change");
		goto done;
	}
	if ((rc = inum(&v, j, "guard", 0, 1 << 20)) < 0)
		goto done;
	out->guard = (uint32_t)v;
	out->bufs = ks_calloc((size_t)cJSON_GetArraySize(bufs) + 1, sizeof(ks_plan_buf));
	cJSON_ArrayForEach(it, bufs)
	{
		ks_plan_buf *b = &out->bufs[out->nbufs++];
		const char *name = NULL;
		if ((rc = ks_json_str(&name, it, "name", 1)) < 0)
			goto done;
		b->name = ks_strdup(name);
		if ((rc = inum(&v, it, "dtype", 0, KS_DT_COUNT - 1)) < 0)
			goto done;
		b->dtype = (ks_dtype)v;
		if ((rc = get_u64(&b->count, it, "count")) < 0)
			goto done;
		if (b->count > (1ull << 40)) {
			rc = ks_error_set(KS_ELIMIT, "plan: buffer too large");
			goto done;
		}
		b->bytes = b->count * ks_dtype_size(b->dtype);
		if ((rc = inum(&v, it, "role", KS_ROLE_IN, KS_ROLE_INOUT)) < 0)
			goto done;
		b->role = (ks_role)v;
		if ((rc = inum(&v, it, "scratch", 0, 1)) < 0)
			goto done;
		b->scratch = (int)v;
		if ((rc = inum(&v, it, "fill", KS_FILL_RANDOM, KS_FILL_ZERO)) < 0)
			goto done;
		b->fill = (ks_fill)v;
		if ((rc = inum(&v, it, "dist", KS_DIST_DEFAULT, KS_DIST_BITS)) < 0)
			goto done;
		b->dist = (ks_dist_kind)v;
		if ((rc = num(&b->a, it, "a")) < 0 || (rc = num(&b->b, it, "b")) < 0 ||
		    (rc = inum(&v, it, "stream", 0, UINT32_MAX)) < 0)
			goto done;
		b->stream = (uint32_t)v;
	}
	out->kernels = ks_calloc((size_t)cJSON_GetArraySize(ks) + 1, sizeof(ks_plan_kernel));
	cJSON_ArrayForEach(it, ks)
	{
		ks_plan_kernel *k = &out->kernels[out->nkernels++];
		const cJSON *ps = cJSON_GetObjectItemCaseSensitive(it, "params"), *p;
		const char *name = NULL;
		if ((rc = inum(&v, it, "func", 0, KS_PLAN_MAX_FUNCS - 1)) < 0)
			goto done;
		k->func = (uint32_t)v;
		if ((rc = ks_json_str(&name, it, "name", 1)) < 0)
			goto done;
		k->name = ks_strdup(name);
		if ((rc = get_u32x3(k->grid, it, "grid")) < 0 || (rc = get_u32x3(k->block, it, "block")) < 0 ||
		    (rc = inum(&v, it, "shared", 0, UINT32_MAX)) < 0)
			goto done;
		k->shared = (uint32_t)v;
		if (!cJSON_IsArray(ps) || cJSON_GetArraySize(ps) > KS_LAUNCH_MAX_ARGS) {
			rc = ks_error_set(KS_EINVALID, "plan: bad params");
			goto done;
		}
		k->params = ks_calloc((size_t)cJSON_GetArraySize(ps) + 1, sizeof(ks_plan_param));
		cJSON_ArrayForEach(p, ps)
		{
			ks_plan_param *pp = &k->params[k->nparams++];
			const char *is = NULL;
			if ((rc = inum(&v, p, "k", KS_PARAM_BUF, KS_PARAM_KIND_COUNT - 1)) < 0)
				goto done;
			pp->kind = (ks_param_kind)v;
			if (pp->kind == KS_PARAM_BUF) {
				if (out->nbufs == 0 || (rc = inum(&v, p, "buf", 0, (int64_t)out->nbufs - 1)) < 0) {
					rc = ks_error_set(KS_EINVALID, "plan: param refers to a missing buffer");
					goto done;
				}
				pp->buf = (uint32_t)v;
				if (cJSON_GetObjectItemCaseSensitive(p, "off") &&
				    ((rc = get_u64(&pp->off, p, "off")) < 0 || pp->off > out->bufs[pp->buf].bytes)) {
					rc = ks_error_set(KS_EINVALID, "plan: a pointer parameter points past its buffer");
					goto done;
				}
			} else if (pp->kind == KS_PARAM_NULL) {
				;
			} else if (pp->kind == KS_PARAM_F32 || pp->kind == KS_PARAM_F64) {
				if ((rc = num(&pp->f, p, "f")) < 0)
					goto done;
			} else {
				if ((rc = ks_json_str(&is, p, "i", 1)) < 0 || (rc = get_i64_str(&pp->i, is)) < 0)
					goto done;
			}
		}
	}
	if ((rc = steps_from_json(out, cJSON_GetObjectItemCaseSensitive(j, "steps"))) < 0)
		goto done;
done:
	if (rc < 0)
		ks_plan_clear(out);
	return rc;
}
