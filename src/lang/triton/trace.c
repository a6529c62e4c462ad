#include "lang/triton/trace.h"
#include "lang/triton/glue.h"
#include "lang/image.h"
#include "load/dtype.h"
#include "load/expr.h"
#include "util/errors.h"
#include "util/hash.h"
#include "util/jsonutil.h"
#include "util/mem.h"
#include "util/utf8.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <math.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <string.h>

const char *ks_trace_status_name(ks_trace_status s)
{
	static const char *const n[] = { "ok",    "refused", "host_op",     "untraceable",
					  "error", "timeout", "unavailable", "broken" };
	return s <= KS_TRACE_BROKEN ? n[s] : "?";
}

/* ---- the request ---- */

static const char *dist_name(ks_dist_kind k)
{
	switch (k) {
	case KS_DIST_UNIFORM:
		return "uniform";
	case KS_DIST_INT:
		return "int";
	case KS_DIST_BITS:
		return "bits";
	default:
		return "normal";
	}
}

/* One case's tensors and scalars, as the helper builds them. */
static int request_case(cJSON *cases, const ks_problem *p, const ks_case *c, int perf, size_t index,
			const ks_plan_limits *lim)
{
	ks_env env = KS_ENV_INIT;
	ks_launch none;
	ks_plan plan;
	cJSON *o, *ts, *ss;
	size_t i, b = 0, d;
	int rc;

	memset(&none, 0, sizeof(none));
	memset(&plan, 0, sizeof(plan));
	if ((rc = ks_problem_env(&env, p, c)) < 0 ||
	    (rc = ks_plan_build(&plan, p, &none, c, &env, 0, 0, lim)) < 0) {
		ks_error_wrap(rc, "case %s", c->label);
		goto done;
	}
	o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "index", (double)index);
	ks_json_add_str(o, "label", c->label);
	cJSON_AddBoolToObject(o, "perf", perf);
	ts = cJSON_AddArrayToObject(o, "tensors");
	ss = cJSON_AddArrayToObject(o, "scalars");
	cJSON_AddItemToArray(cases, o);
	for (i = 0; i < p->nargs; i++) {
		const ks_arg *a = &p->args[i];
		cJSON *x = cJSON_CreateObject();
		if (a->role == KS_ROLE_SCALAR) {
			ks_json_add_str(x, "name", a->name);
			ks_json_add_str(x, "type", ks_dtype_name(a->dtype));
			if (a->value) {
				int64_t v;
				if ((rc = ks_expr_eval(&v, a->value, &env)) < 0) {
					cJSON_Delete(x);
					ks_error_wrap(rc, "case %s, scalar %s", c->label, a->name);
					goto done;
				}
				cJSON_AddNumberToObject(x, "value", (double)v);
			} else {
				cJSON_AddNumberToObject(x, "value", a->fvalue);
			}
			cJSON_AddItemToArray(ss, x);
			continue;
		}
		{
			const ks_plan_buf *pb = &plan.bufs[b++];
			cJSON *shape = cJSON_AddArrayToObject(x, "shape");
			ks_json_add_str(x, "name", a->name);
			ks_json_add_str(x, "dtype", ks_dtype_name(a->dtype));
			ks_json_add_str(x, "role", a->role == KS_ROLE_IN ? "in" : a->role == KS_ROLE_OUT ? "out" : "inout");
			for (d = 0; d < a->ndim; d++) {
				int64_t v;
				if ((rc = ks_expr_eval(&v, a->shape[d], &env)) < 0) {
					cJSON_Delete(x);
					ks_error_wrap(rc, "case %s, shape of %s", c->label, a->name);
					goto done;
				}
				cJSON_AddItemToArray(shape, cJSON_CreateNumber((double)v));
			}
			if (pb->fill == KS_FILL_RANDOM) {
				cJSON *dist = cJSON_AddObjectToObject(x, "dist");
				ks_json_add_str(dist, "kind", dist_name(pb->dist));
				cJSON_AddNumberToObject(dist, "a", pb->a);
				cJSON_AddNumberToObject(dist, "b", pb->b);
			}
			cJSON_AddItemToArray(ts, x);
		}
	}
done:
	ks_plan_clear(&plan);
	ks_env_free(&env);
	return rc;
}

int ks_trace_request(cJSON **out, const ks_problem *p, const cJSON *entry, const char *source, int device,
		     double case_timeout_s, uint64_t id, const ks_plan_limits *lim)
{
	cJSON *r = cJSON_CreateObject(), *cases;
	size_t i;
	int rc = 0;
	double total = case_timeout_s * (double)(p->ncorrectness + p->nperf);
	*out = NULL;
	ks_json_add_str(r, "op", "trace");
	cJSON_AddNumberToObject(r, "id", (double)id);
	cJSON_AddNumberToObject(r, "device", device);
	ks_json_add_str(r, "source", source);
	ks_json_add_str(r, "problem", p->name);
	if (case_timeout_s > KS_TRACE_MAX_TOTAL_S)
		case_timeout_s = KS_TRACE_MAX_TOTAL_S;
	if (total > KS_TRACE_MAX_TOTAL_S)
		total = KS_TRACE_MAX_TOTAL_S;
	if (total < case_timeout_s)
		total = case_timeout_s;
	cJSON_AddNumberToObject(r, "timeout_s", total);
	cJSON_AddNumberToObject(r, "case_timeout_s", case_timeout_s);
	cJSON_AddItemToObject(r, "entry", entry ? cJSON_Duplicate(entry, 1) : cJSON_CreateNull());
	cases = cJSON_AddArrayToObject(r, "cases");
	for (i = 0; i < p->ncorrectness && rc == 0; i++)
		rc = request_case(cases, p, &p->correctness[i], 0, i, lim);
	for (i = 0; i < p->nperf && rc == 0; i++)
		rc = request_case(cases, p, &p->perf[i], 1, p->ncorrectness + i, lim);
	if (rc < 0) {
		cJSON_Delete(r);
		return rc;
	}
	*out = r;
	return 0;
}

/* ---- reading a response ---- */

typedef struct {
	ks_trace *t;
	const ks_problem *p;
	const ks_plan_limits *lim;
	uint64_t cubin_bytes;
} reader;

/* Sets the trace broken with a message; returns -1 so callers can `return broken(...)`. */
static int broken(reader *rd, const char *fmt, ...) KS_PRINTF(2, 3);
static int broken(reader *rd, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (rd->t->status != KS_TRACE_BROKEN) {
		rd->t->status = KS_TRACE_BROKEN;
		ks_free(rd->t->message);
		rd->t->message = ks_asprintf("the Triton helper's response is not a valid trace: %s", msg);
	}
	return -1;
}

/* What the answer can put in a message: capped, and through the device printf filter (valid UTF-8,
 * no control characters: a message reaches the table, the reports and the site). */
static char *safe_text(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	if (!cJSON_IsString(v))
		return NULL;
	return ks_utf8_printable(v->valuestring, strnlen(v->valuestring, KS_TRACE_MAX_TEXT));
}

static int get_u64(uint64_t *out, const cJSON *o, const char *key, uint64_t max)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	if (cJSON_IsString(v)) { /* past 2^53, numbers travel as strings */
		char *end;
		unsigned long long x;
		if (!isdigit((unsigned char)v->valuestring[0]))
			return -1;
		x = strtoull(v->valuestring, &end, 10);
		if (*end || x > max)
			return -1;
		*out = x;
		return 0;
	}
	if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0) || v->valuedouble > (double)max ||
	    v->valuedouble != floor(v->valuedouble))
		return -1;
	*out = (uint64_t)v->valuedouble;
	return 0;
}

static int get_i64(int64_t *out, const cJSON *v)
{
	if (cJSON_IsString(v)) {
		char *end;
		long long x;
		const char *s = v->valuestring;
		if (!(isdigit((unsigned char)s[0]) || (s[0] == '-' && isdigit((unsigned char)s[1]))))
			return -1;
		errno = 0;
		x = strtoll(s, &end, 10);
		if (*end || errno)
			return -1;
		*out = x;
		return 0;
	}
	if (!cJSON_IsNumber(v) || !(fabs(v->valuedouble) <= 9007199254740992.0) ||
	    v->valuedouble != floor(v->valuedouble))
		return -1;
	*out = (int64_t)v->valuedouble;
	return 0;
}

static int get_u32x3(uint32_t out[3], const cJSON *o, const char *key, uint32_t max)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, key);
	int i;
	if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) < 1 || cJSON_GetArraySize(a) > 3)
		return -1;
	out[0] = out[1] = out[2] = 1;
	for (i = 0; i < cJSON_GetArraySize(a); i++) {
		uint64_t v;
		cJSON *x = cJSON_GetArrayItem(a, i);
		if (!cJSON_IsNumber(x) || !(x->valuedouble >= 0) || x->valuedouble > max ||
		    x->valuedouble != floor(x->valuedouble))
			return -1;
		v = (uint64_t)x->valuedouble;
		out[i] = (uint32_t)v;
	}
	return 0;
}

static int decode_base64(unsigned char **out, size_t *len, const char *s)
{
	size_t n = strlen(s), pad = 0;
	unsigned char *buf;
	int got;
	if (n == 0 || n % 4 || n > (size_t)INT32_MAX)
		return -1;
	pad = (s[n - 1] == '=') + (s[n - 2] == '=');
	buf = ks_malloc(n / 4 * 3 + 1);
	got = EVP_DecodeBlock(buf, (const unsigned char *)s, (int)n);
	if (got < 0 || (size_t)got < pad) {
		ks_free(buf);
		return -1;
	}
	*out = buf;
	*len = (size_t)got - pad;
	return 0;
}

static int is_identifier(const char *s, size_t max)
{
	size_t i;
	if (!s || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
		return 0;
	for (i = 0; s[i]; i++)
		if (i >= max || !(isalnum((unsigned char)s[i]) || s[i] == '_'))
			return 0;
	return 1;
}

static int read_kernel(reader *rd, ks_trace_kernel *k, const cJSON *o, size_t index)
{
	const cJSON *params = cJSON_GetObjectItemCaseSensitive(o, "params"), *x;
	const char *name = NULL, *b64 = NULL, *sha = NULL;
	char hex[65];
	uint64_t v;
	int flag = 0;
	if (ks_json_str(&name, o, "name", 1) < 0 || !is_identifier(name, 255))
		return broken(rd, "kernel %zu has no valid name", index);
	k->name = ks_strdup(name);
	ks_error_clear();
	if (ks_json_str(&b64, o, "cubin", 1) < 0 || decode_base64(&k->cubin, &k->len, b64) < 0 || k->len == 0)
		return broken(rd, "kernel %s: its CUBIN is not base64", name);
	rd->cubin_bytes += k->len;
	if (rd->cubin_bytes > KS_TRACE_MAX_CUBIN_BYTES)
		return broken(rd, "the CUBINs pass %u bytes", KS_TRACE_MAX_CUBIN_BYTES);
	if (ks_json_str(&sha, o, "sha256", 0) == 0 && sha) {
		ks_sha256_hex(hex, k->cubin, k->len);
		if (strcmp(hex, sha) != 0)
			return broken(rd, "kernel %s: the CUBIN's digest does not match", name);
	}
	ks_error_clear();
	if (get_u64(&v, o, "num_warps", 32) < 0 || v == 0)
		return broken(rd, "kernel %s: num_warps", name);
	k->num_warps = (uint32_t)v;
	if (get_u64(&v, o, "shared", rd->lim->max_shared) < 0)
		return broken(rd, "kernel %s: shared memory missing or over %u bytes", name, rd->lim->max_shared);
	k->shared = (uint32_t)v;
	if (get_u64(&v, o, "num_ctas", 64) == 0 && v != 1) {
		rd->t->status = KS_TRACE_UNTRACEABLE;
		rd->t->message = ks_asprintf("kernel %s uses thread-block clusters (num_ctas=%llu), which "
					     "kscore does not replay", name, (unsigned long long)v);
		return -1;
	}
	if ((ks_json_bool(&flag, o, "cooperative", 0) == 0 && flag) || (ks_json_bool(&flag, o, "pdl", 0) == 0 && flag)) {
		rd->t->status = KS_TRACE_UNTRACEABLE;
		rd->t->message = ks_asprintf("kernel %s asks for a cooperative or programmatic-dependent "
					     "launch, which kscore does not replay", name);
		return -1;
	}
	ks_error_clear();
	if (!cJSON_IsArray(params) || cJSON_GetArraySize(params) > KS_LAUNCH_MAX_ARGS)
		return broken(rd, "kernel %s: params", name);
	k->params = ks_calloc((size_t)cJSON_GetArraySize(params) + 1, sizeof(char *));
	cJSON_ArrayForEach(x, params)
	{
		if (!cJSON_IsString(x) || strlen(x->valuestring) > 32)
			return broken(rd, "kernel %s: a parameter type", name);
		k->params[k->nparams++] = ks_strdup(x->valuestring);
	}
	return 0;
}

/* The index of buffer `name` in a case's list, or -1. */
static int buf_index(const ks_trace_case *c, const char *name, char *const *labels)
{
	size_t i;
	for (i = 0; i < c->nbufs; i++)
		if (strcmp(labels[i], name) == 0)
			return (int)i;
	return -1;
}

/* A float the helper sent: a number, or "nan", "inf", "-inf" (JSON has no non-finite numbers). */
static int get_float(double *out, const cJSON *v)
{
	if (cJSON_IsNumber(v)) {
		*out = v->valuedouble;
		return 0;
	}
	if (!cJSON_IsString(v))
		return -1;
	if (!strcmp(v->valuestring, "nan"))
		*out = NAN;
	else if (!strcmp(v->valuestring, "inf"))
		*out = INFINITY;
	else if (!strcmp(v->valuestring, "-inf"))
		*out = -INFINITY;
	else
		return -1;
	return 0;
}

/* A scalar argument: Triton's signature type gives the parameter's kind and width. */
static int read_scalar(ks_plan_param *pp, const cJSON *a)
{
	const cJSON *tv = cJSON_GetObjectItemCaseSensitive(a, "type"), *vv = cJSON_GetObjectItemCaseSensitive(a, "value");
	const char *t;
	int64_t i = 0;
	if (!cJSON_IsString(tv))
		return -1;
	t = tv->valuestring;
	if (!strcmp(t, "fp32") || !strcmp(t, "fp64") || !strcmp(t, "fp16") || !strcmp(t, "bf16")) {
		double f;
		if (get_float(&f, vv) < 0)
			return -1;
		if (!strcmp(t, "fp32")) {
			pp->kind = KS_PARAM_F32;
			pp->f = f;
		} else if (!strcmp(t, "fp64")) {
			pp->kind = KS_PARAM_F64;
			pp->f = f;
		} else {
			pp->kind = KS_PARAM_B16;
			pp->i = !strcmp(t, "fp16") ? ks_float_to_half((float)f) : ks_float_to_bf16((float)f);
		}
		return 0;
	}
	if (cJSON_IsBool(vv))
		i = cJSON_IsTrue(vv);
	else if (get_i64(&i, vv) < 0)
		return -1;
	pp->i = i;
	if (!strcmp(t, "i32"))
		pp->kind = KS_PARAM_I32;
	else if (!strcmp(t, "u32"))
		pp->kind = KS_PARAM_U32;
	else if (!strcmp(t, "i64"))
		pp->kind = KS_PARAM_I64;
	else if (!strcmp(t, "u64"))
		pp->kind = KS_PARAM_U64;
	else if (!strcmp(t, "i16") || !strcmp(t, "u16"))
		pp->kind = KS_PARAM_B16;
	else if (!strcmp(t, "i1") || !strcmp(t, "u1") || !strcmp(t, "i8") || !strcmp(t, "u8"))
		pp->kind = KS_PARAM_B8;
	else
		return -1;
	return 0;
}

static int read_launch(reader *rd, ks_trace_case *c, char *const *labels, const cJSON *s, size_t si)
{
	const cJSON *args = cJSON_GetObjectItemCaseSensitive(s, "args"), *a;
	ks_plan_kernel *pk;
	const ks_trace_kernel *tk;
	uint64_t kid, shared;
	uint32_t block[3];
	if (c->nkernels >= KS_PLAN_MAX_KERNELS)
		return broken(rd, "a case launches more than %d kernels", KS_PLAN_MAX_KERNELS);
	if (get_u64(&kid, s, "kernel", rd->t->nkernels ? rd->t->nkernels - 1 : 0) < 0 || !rd->t->nkernels)
		return broken(rd, "step %zu launches no recorded kernel", si + 1);
	tk = &rd->t->kernels[kid];
	pk = &c->kernels[c->nkernels];
	pk->func = (uint32_t)kid;
	pk->name = ks_strdup(tk->name);
	c->nkernels++;
	if (get_u32x3(pk->grid, s, "grid", 2147483647u) < 0 || pk->grid[1] > 65535 || pk->grid[2] > 65535)
		return broken(rd, "step %zu: the grid of %s", si + 1, tk->name);
	/* the block and the shared memory are the compiled kernel's, whatever the step says */
	pk->block[0] = 32 * tk->num_warps;
	pk->block[1] = pk->block[2] = 1;
	pk->shared = tk->shared;
	if ((cJSON_GetObjectItemCaseSensitive(s, "block") &&
	     (get_u32x3(block, s, "block", 1024) < 0 || block[0] * block[1] * block[2] != pk->block[0])) ||
	    (cJSON_GetObjectItemCaseSensitive(s, "shared") && (get_u64(&shared, s, "shared", UINT32_MAX) < 0 ||
							       shared != tk->shared)))
		return broken(rd, "step %zu: a block or shared memory %s was not compiled for", si + 1, tk->name);
	if (!cJSON_IsArray(args) || cJSON_GetArraySize(args) > KS_LAUNCH_MAX_ARGS)
		return broken(rd, "step %zu: the arguments of %s", si + 1, tk->name);
	pk->params = ks_calloc((size_t)cJSON_GetArraySize(args) + 1, sizeof(ks_plan_param));
	cJSON_ArrayForEach(a, args)
	{
		ks_plan_param *pp = &pk->params[pk->nparams];
		const cJSON *bv = cJSON_GetObjectItemCaseSensitive(a, "buffer");
		if (cJSON_IsString(bv)) {
			int bi = buf_index(c, bv->valuestring, labels);
			uint64_t off = 0;
			if (bi < 0 || (cJSON_GetObjectItemCaseSensitive(a, "offset") && get_u64(&off, a, "offset", UINT64_MAX) < 0))
				return broken(rd, "step %zu: argument %zu of %s names no buffer of its case", si + 1,
					      pk->nparams + 1, tk->name);
			pp->kind = KS_PARAM_BUF;
			pp->buf = (uint32_t)bi;
			pp->off = off;
		} else if (cJSON_GetObjectItemCaseSensitive(a, "null")) {
			pp->kind = KS_PARAM_NULL;
		} else if (read_scalar(pp, a) < 0) {
			return broken(rd, "step %zu: argument %zu of %s is neither a buffer, null nor a typed scalar",
				      si + 1, pk->nparams + 1, tk->name);
		}
		pk->nparams++;
	}
	return 0;
}

/* Element width and bits of a fill's value in dtype `t` (kscore's or Triton's names). */
static int fill_value(uint32_t *width, uint64_t *bits, const char *t, const cJSON *v)
{
	ks_dtype d;
	double f;
	if (cJSON_IsBool(v))
		f = (double)cJSON_IsTrue(v);
	else if (get_float(&f, v) < 0)
		return -1;
	if (!strcmp(t, "bool") || !strcmp(t, "i1")) {
		*width = 1;
		*bits = f != 0;
		return 0;
	}
	if (ks_dtype_parse(&d, t) < 0) {
		ks_error_clear();
		return -1;
	}
	*width = (uint32_t)ks_dtype_size(d);
	switch (d) {
	case KS_DT_F32: {
		float x = (float)f;
		uint32_t u;
		memcpy(&u, &x, 4);
		*bits = u;
		break;
	}
	case KS_DT_F64:
		memcpy(bits, &f, 8);
		break;
	case KS_DT_F16:
		*bits = ks_float_to_half((float)f);
		break;
	case KS_DT_BF16:
		*bits = ks_float_to_bf16((float)f);
		break;
	default:
		if (!(fabs(f) < 9.3e18) || f != floor(f))
			return -1;
		*bits = (uint64_t)(int64_t)f;
		if (*width < 8)
			*bits &= (1ull << (8 * *width)) - 1;
		break;
	}
	return 0;
}

/* A region: buffer, byte offset and (optionally) sizes and strides in elements. Without sizes the
 * region is `bytes` contiguous bytes. */
static int read_region(ks_plan_step *st, int src, const ks_trace_case *c, char *const *labels, const cJSON *o)
{
	const cJSON *bv = cJSON_GetObjectItemCaseSensitive(o, "buffer"), *sz = cJSON_GetObjectItemCaseSensitive(o, "sizes"),
		    *sd = cJSON_GetObjectItemCaseSensitive(o, "strides");
	uint64_t off = 0, *stride = src ? st->sstride : st->dstride;
	int bi, n, i;
	if (!cJSON_IsString(bv) || (bi = buf_index(c, bv->valuestring, labels)) < 0 ||
	    (cJSON_GetObjectItemCaseSensitive(o, "offset") && get_u64(&off, o, "offset", UINT64_MAX) < 0))
		return -1;
	if (src) {
		st->src = (uint32_t)bi;
		st->src_off = off;
	} else {
		st->buf = (uint32_t)bi;
		st->off = off;
	}
	if (!sz) {
		uint64_t bytes;
		if (src || get_u64(&bytes, o, "bytes", UINT64_MAX) < 0 || st->width == 0 || bytes % st->width)
			return -1;
		st->rank = 1;
		st->sizes[0] = bytes / st->width;
		stride[0] = 1;
		return 0;
	}
	n = cJSON_GetArraySize(sz);
	if (!cJSON_IsArray(sz) || !cJSON_IsArray(sd) || n < 1 || n > KS_PLAN_MAX_RANK || cJSON_GetArraySize(sd) != n ||
	    (st->rank && st->rank != (uint32_t)n))
		return -1;
	st->rank = (uint32_t)n;
	for (i = 0; i < n; i++) {
		const cJSON *a = cJSON_GetArrayItem(sz, i), *b = cJSON_GetArrayItem(sd, i);
		int64_t sv, dv;
		if (get_i64(&sv, a) < 0 || get_i64(&dv, b) < 0 || sv < 0 || dv < 0)
			return -1;
		if (src && st->sizes[i] != (uint64_t)sv)
			return -1; /* a copy reads what it writes: the same shape */
		st->sizes[i] = (uint64_t)sv;
		stride[i] = (uint64_t)dv;
	}
	return 0;
}

static int read_data_step(reader *rd, ks_trace_case *c, char *const *labels, const cJSON *s, size_t si, int copy)
{
	ks_plan_step *st = &c->steps[c->nsteps];
	const char *dt = NULL;
	ks_dtype d;
	memset(st, 0, sizeof(*st));
	st->kind = copy ? KS_STEP_COPY : KS_STEP_FILL;
	if (ks_json_str(&dt, s, "dtype", 1) < 0) {
		ks_error_clear();
		return broken(rd, "step %zu: no dtype", si + 1);
	}
	if (copy) {
		if (ks_dtype_parse(&d, dt) < 0) {
			ks_error_clear();
			if (strcmp(dt, "bool") != 0)
				return broken(rd, "step %zu: dtype %.32s", si + 1, dt);
			st->width = 1;
		} else {
			st->width = (uint32_t)ks_dtype_size(d);
		}
		if (read_region(st, 0, c, labels, cJSON_GetObjectItemCaseSensitive(s, "dst")) < 0 ||
		    read_region(st, 1, c, labels, cJSON_GetObjectItemCaseSensitive(s, "src")) < 0)
			return broken(rd, "step %zu: a copy's regions", si + 1);
	} else {
		if (fill_value(&st->width, &st->value, dt, cJSON_GetObjectItemCaseSensitive(s, "value")) < 0 ||
		    read_region(st, 0, c, labels, s) < 0)
			return broken(rd, "step %zu: a fill's value or region", si + 1);
	}
	c->nsteps++;
	return 0;
}

static int read_case_in(reader *rd, const cJSON *o, char **labels)
{
	const ks_problem *p = rd->p;
	const cJSON *bufs = cJSON_GetObjectItemCaseSensitive(o, "buffers"),
		    *steps = cJSON_GetObjectItemCaseSensitive(o, "steps"), *b, *s;
	uint64_t index, scratch_total = 0;
	ks_trace_case *c;
	size_t nscratch = 0, si = 0, i;
	int rc = 0;

	if (get_u64(&index, o, "index", p->ncorrectness + p->nperf - 1) < 0 || p->ncorrectness + p->nperf == 0)
		return broken(rd, "a case without a valid index");
	c = index < p->ncorrectness ? &rd->t->correctness[index] : &rd->t->perf[index - p->ncorrectness];
	if (c->recorded)
		return broken(rd, "case %llu twice", (unsigned long long)index);
	c->recorded = 1;
	if (!cJSON_IsArray(bufs) || cJSON_GetArraySize(bufs) > KS_TRACE_MAX_BUFS || !cJSON_IsArray(steps) ||
	    cJSON_GetArraySize(steps) > KS_PLAN_MAX_STEPS)
		return broken(rd, "case %llu: buffers or steps", (unsigned long long)index);
	c->buf_names = ks_calloc(KS_TRACE_MAX_BUFS, sizeof(char *));
	c->buf_bytes = ks_calloc(KS_TRACE_MAX_BUFS, sizeof(uint64_t));
	cJSON_ArrayForEach(b, bufs)
	{
		const char *name = NULL, *kind = NULL;
		size_t k = c->nbufs;
		if (ks_json_str(&name, b, "name", 1) < 0 || ks_json_str(&kind, b, "kind", 1) < 0 ||
		    !is_identifier(name, 64)) {
			ks_error_clear();
			return broken(rd, "case %llu: a buffer without a name or kind", (unsigned long long)index);
		}
		for (i = 0; i < k; i++)
			if (!strcmp(c->buf_names[i] ? c->buf_names[i] : labels[i], name))
				return broken(rd, "case %llu: buffer %s twice", (unsigned long long)index, name);
		labels[k] = ks_strdup(name);
		c->nbufs++;
		if (!strcmp(kind, "scratch")) {
			if (++nscratch > KS_TRACE_MAX_SCRATCH)
				return broken(rd, "case %llu: more than %d scratch buffers", (unsigned long long)index,
					      KS_TRACE_MAX_SCRATCH);
			if (get_u64(&c->buf_bytes[k], b, "bytes", rd->lim->max_scratch_bytes) < 0 ||
			    __builtin_add_overflow(scratch_total, c->buf_bytes[k], &scratch_total) ||
			    scratch_total > rd->lim->max_scratch_bytes) {
				rd->t->status = KS_TRACE_UNTRACEABLE;
				rd->t->message = ks_asprintf("the wrapper's scratch buffers pass the limit of %llu bytes "
							     "(--max-scratch)", (unsigned long long)rd->lim->max_scratch_bytes);
				rc = -1;
				goto done;
			}
		} else if (!strcmp(kind, "input") || !strcmp(kind, "output")) {
			int ai = ks_problem_arg_index(p, name);
			if (ai < 0 || p->args[ai].role == KS_ROLE_SCALAR ||
			    (!strcmp(kind, "input") && p->args[ai].role == KS_ROLE_OUT) ||
			    (!strcmp(kind, "output") && p->args[ai].role == KS_ROLE_IN))
				return broken(rd, "case %llu: %s is no %s tensor of %s", (unsigned long long)index, name,
					      kind, p->name);
			c->buf_names[k] = ks_strdup(name);
		} else {
			return broken(rd, "case %llu: buffer kind %.16s", (unsigned long long)index, kind);
		}
	}
	c->kernels = ks_calloc(KS_PLAN_MAX_KERNELS, sizeof(ks_plan_kernel));
	c->steps = ks_calloc((size_t)cJSON_GetArraySize(steps) + 1, sizeof(ks_plan_step));
	cJSON_ArrayForEach(s, steps)
	{
		const char *op = NULL;
		if (ks_json_str(&op, s, "op", 1) < 0) {
			ks_error_clear();
			rc = broken(rd, "case %llu, step %zu: no op", (unsigned long long)index, si + 1);
		} else if (!strcmp(op, "launch")) {
			ks_plan_step *st = &c->steps[c->nsteps];
			memset(st, 0, sizeof(*st));
			st->kind = KS_STEP_LAUNCH;
			st->kernel = (uint32_t)c->nkernels;
			if ((rc = read_launch(rd, c, labels, s, si)) == 0)
				c->nsteps++;
		} else if (!strcmp(op, "fill") || !strcmp(op, "copy")) {
			rc = read_data_step(rd, c, labels, s, si, op[0] == 'c');
		} else {
			rc = broken(rd, "case %llu, step %zu: op %.16s", (unsigned long long)index, si + 1, op);
		}
		if (rc < 0)
			goto done;
		si++;
	}
	if (ks_trace_glue_check(&rd->t->message,
				&(ks_glue_case){ c->steps, c->nsteps, c->kernels, c->nkernels, c->buf_names, c->nbufs }, p,
				(size_t)index)) {
		rd->t->status = KS_TRACE_HOST_OP;
		rc = -1;
	}
done:
	return rc;
}

/* One case of the response; the buffers' labels (scratch buffers are named only in the response)
 * matter only while its steps are read. */
static int read_case(reader *rd, const cJSON *o)
{
	char *labels[KS_TRACE_MAX_BUFS] = { 0 };
	int rc = read_case_in(rd, o, labels), i;
	for (i = 0; i < KS_TRACE_MAX_BUFS; i++)
		ks_free(labels[i]);
	return rc;
}

static ks_trace_status status_of(const char *s)
{
	static const struct {
		const char *name;
		ks_trace_status st;
	} map[] = { { "ok", KS_TRACE_OK },		   { "refused", KS_TRACE_REFUSED },
		    { "host_op", KS_TRACE_HOST_OP },	   { "untraceable", KS_TRACE_UNTRACEABLE },
		    { "error", KS_TRACE_ERROR },	   { "timeout", KS_TRACE_TIMEOUT },
		    { "unavailable", KS_TRACE_UNAVAILABLE } };
	size_t i;
	for (i = 0; s && i < sizeof(map) / sizeof(map[0]); i++)
		if (!strcmp(map[i].name, s))
			return map[i].st;
	return KS_TRACE_BROKEN;
}

static char *versions_of(const cJSON *v)
{
	const char *keys[] = { "python", "torch", "triton" };
	char out[256] = "";
	size_t i, o = 0;
	for (i = 0; i < 3; i++) {
		const cJSON *x = cJSON_GetObjectItemCaseSensitive(v, keys[i]);
		if (cJSON_IsString(x) && o < sizeof(out))
			o += (size_t)snprintf(out + o, sizeof(out) - o, "%s%s %.40s", o ? ", " : "", keys[i], x->valuestring);
	}
	return o ? ks_utf8_printable(out, strlen(out)) : NULL;
}

static char *confinement_of(const cJSON *c)
{
	char out[256] = "";
	size_t o = 0;
	const cJSON *x;
	cJSON_ArrayForEach(x, c)
	{
		if (o < sizeof(out) && x->string && cJSON_IsBool(x))
			o += (size_t)snprintf(out + o, sizeof(out) - o, "%s%.32s%s", o ? ", " : "", x->string,
					      cJSON_IsTrue(x) ? "" : cJSON_IsFalse(x) ? " (unavailable)" : "");
	}
	return o ? ks_utf8_printable(out, strlen(out)) : NULL;
}

static int read_response(ks_trace *out, const cJSON *response, const ks_problem *p, const ks_plan_limits *lim)
{
	ks_plan_limits dl = KS_PLAN_LIMITS_INIT;
	const cJSON *ks = cJSON_GetObjectItemCaseSensitive(response, "kernels"),
		    *cases = cJSON_GetObjectItemCaseSensitive(response, "cases"), *x;
	const char *st = NULL;
	reader rd;
	size_t i;
	uint64_t line = 0;

	memset(out, 0, sizeof(*out));
	rd.t = out;
	rd.p = p;
	rd.lim = lim ? lim : &dl;
	rd.cubin_bytes = 0;
	out->correctness = ks_calloc(p->ncorrectness + 1, sizeof(ks_trace_case));
	out->perf = ks_calloc(p->nperf + 1, sizeof(ks_trace_case));
	out->ncorrectness = p->ncorrectness;
	out->nperf = p->nperf;
	if (!cJSON_IsObject(response) || ks_json_str(&st, response, "status", 1) < 0) {
		ks_error_clear();
		broken(&rd, "no status");
		return 0;
	}
	out->status = status_of(st);
	out->versions = versions_of(cJSON_GetObjectItemCaseSensitive(response, "versions"));
	out->confinement = confinement_of(cJSON_GetObjectItemCaseSensitive(response, "confinement"));
	out->output = safe_text(response, "stdout");
	x = cJSON_GetObjectItemCaseSensitive(response, "seconds");
	out->seconds = cJSON_IsObject(x) ? ks_json_num_or(x, "total", 0) : ks_json_num_or(response, "seconds", 0);
	if (get_u64(&line, response, "line", 1u << 30) == 0)
		out->line = (int)line;
	if (out->status == KS_TRACE_BROKEN) {
		out->status = KS_TRACE_OK; /* so broken() sets its own message */
		broken(&rd, "status %.32s", st);
		return 0;
	}
	if (out->status != KS_TRACE_OK) {
		out->message = safe_text(response, "reason");
		if (!out->message || !*out->message) {
			ks_free(out->message);
			out->message = ks_asprintf("%s (the helper gave no reason)", ks_trace_status_name(out->status));
		}
		return 0;
	}
	if (!cJSON_IsArray(ks) || cJSON_GetArraySize(ks) < 1 || cJSON_GetArraySize(ks) > KS_TRACE_MAX_KERNELS) {
		if (cJSON_IsArray(ks) && cJSON_GetArraySize(ks) > KS_TRACE_MAX_KERNELS) {
			out->status = KS_TRACE_UNTRACEABLE;
			out->message = ks_asprintf("the answer compiled %d distinct kernels across the cases; kscore "
						   "replays at most %d", cJSON_GetArraySize(ks), KS_TRACE_MAX_KERNELS);
			return 0;
		}
		broken(&rd, "no kernels");
		return 0;
	}
	out->kernels = ks_calloc((size_t)cJSON_GetArraySize(ks), sizeof(ks_trace_kernel));
	cJSON_ArrayForEach(x, ks)
	{
		if (read_kernel(&rd, &out->kernels[out->nkernels], x, out->nkernels) < 0) {
			out->nkernels++;
			return 0;
		}
		out->nkernels++;
	}
	if (!cJSON_IsArray(cases) || (size_t)cJSON_GetArraySize(cases) != p->ncorrectness + p->nperf) {
		broken(&rd, "%d cases for a problem of %zu", cJSON_IsArray(cases) ? cJSON_GetArraySize(cases) : -1,
		       p->ncorrectness + p->nperf);
		return 0;
	}
	cJSON_ArrayForEach(x, cases)
		if (read_case(&rd, x) < 0)
			return 0;
	for (i = 0; i < p->ncorrectness + p->nperf; i++)
		if (!(i < p->ncorrectness ? &out->correctness[i] : &out->perf[i - p->ncorrectness])->recorded)
			broken(&rd, "case %zu is missing", i);
	return 0;
}

int ks_trace_read(ks_trace *out, const cJSON *response, const ks_problem *p, const ks_plan_limits *lim)
{
	int rc = read_response(out, response, p, lim);
	/* a message quotes the response's own strings, which need not be text nor printable */
	if (out->message) {
		char *clean = ks_utf8_printable(out->message, strlen(out->message));
		ks_free(out->message);
		out->message = clean;
	}
	return rc;
}

static void case_clear(ks_trace_case *c)
{
	size_t i;
	for (i = 0; i < c->nbufs; i++)
		ks_free(c->buf_names[i]);
	ks_free(c->buf_names);
	ks_free(c->buf_bytes);
	for (i = 0; i < c->nkernels; i++) {
		ks_free(c->kernels[i].name);
		ks_free(c->kernels[i].params);
	}
	ks_free(c->kernels);
	ks_free(c->steps);
}

void ks_trace_clear(ks_trace *t)
{
	size_t i;
	for (i = 0; i < t->nkernels; i++) {
		ks_free(t->kernels[i].name);
		ks_free(t->kernels[i].cubin);
		ks_free_strv(t->kernels[i].params, t->kernels[i].nparams);
	}
	ks_free(t->kernels);
	for (i = 0; i < t->ncorrectness; i++)
		case_clear(&t->correctness[i]);
	for (i = 0; i < t->nperf; i++)
		case_clear(&t->perf[i]);
	ks_free(t->correctness);
	ks_free(t->perf);
	ks_free(t->message);
	ks_free(t->versions);
	ks_free(t->output);
	ks_free(t->confinement);
	memset(t, 0, sizeof(*t));
}

int ks_trace_image(void **blob, size_t *len, char ***names, size_t *nnames, const ks_trace *t)
{
	ks_image_part parts[KS_IMAGE_MAX_PARTS];
	size_t i;
	int rc;
	*blob = NULL;
	*names = NULL;
	*nnames = 0;
	if (t->status != KS_TRACE_OK || t->nkernels == 0 || t->nkernels > KS_IMAGE_MAX_PARTS)
		return ks_error_set(KS_EINVALID, "no image: the trace holds %zu kernels", t->nkernels);
	if (t->nkernels == 1) {
		*blob = ks_malloc(t->kernels[0].len);
		memcpy(*blob, t->kernels[0].cubin, t->kernels[0].len);
		*len = t->kernels[0].len;
	} else {
		for (i = 0; i < t->nkernels; i++) {
			parts[i].data = t->kernels[i].cubin;
			parts[i].len = t->kernels[i].len;
			parts[i].nnames = 1;
		}
		if ((rc = ks_image_bundle(blob, len, parts, t->nkernels)) < 0)
			return rc;
	}
	*names = ks_calloc(t->nkernels + 1, sizeof(char *));
	for (i = 0; i < t->nkernels; i++)
		(*names)[i] = ks_strdup(t->kernels[i].name);
	*nnames = t->nkernels;
	return 0;
}

int ks_trace_plan(ks_plan *out, const ks_trace *t, const ks_problem *p, int perf, size_t ci, const ks_env *env,
		  uint64_t seed, int poison, const ks_plan_limits *lim)
{
	ks_plan_limits dl = KS_PLAN_LIMITS_INIT;
	const ks_trace_case *c;
	const ks_case *pc;
	uint32_t map[KS_TRACE_MAX_BUFS];
	ks_launch none;
	size_t i, j, tensors;
	int rc;

	if (!lim)
		lim = &dl;
	memset(out, 0, sizeof(*out));
	if (t->status != KS_TRACE_OK || (perf ? ci >= t->nperf || ci >= p->nperf : ci >= t->ncorrectness ||
					 ci >= p->ncorrectness))
		return ks_error_set(KS_EINVALID, "no traced plan for %s case %zu", perf ? "perf" : "correctness", ci + 1);
	c = perf ? &t->perf[ci] : &t->correctness[ci];
	pc = perf ? &p->perf[ci] : &p->correctness[ci];
	memset(&none, 0, sizeof(none));
	if ((rc = ks_plan_build(out, p, &none, pc, env, seed, poison, lim)) < 0)
		return rc;
	tensors = out->nbufs;
	out->bufs = ks_realloc(out->bufs, (tensors + c->nbufs + 1) * sizeof(ks_plan_buf));
	memset(out->bufs + tensors, 0, (c->nbufs + 1) * sizeof(ks_plan_buf));
	for (i = 0; i < c->nbufs; i++) {
		if (c->buf_names[i]) {
			for (j = 0; j < tensors && strcmp(out->bufs[j].name, c->buf_names[i]); j++)
				;
			if (j == tensors) {
				rc = ks_error_set(KS_EINVALID, "the trace names tensor %s, which %s does not have",
						  c->buf_names[i], p->name);
				goto done;
			}
			map[i] = (uint32_t)j;
		} else {
			ks_plan_buf *b = &out->bufs[out->nbufs];
			b->name = ks_asprintf("scratch%zu", out->nbufs - tensors);
			b->dtype = KS_DT_U8;
			b->count = b->bytes = c->buf_bytes[i];
			b->role = KS_ROLE_OUT;
			b->scratch = 1;
			b->fill = KS_FILL_POISON;
			b->stream = (uint32_t)(p->nargs + (out->nbufs - tensors));
			map[i] = (uint32_t)out->nbufs++;
		}
	}
	ks_free(out->kernels); /* ks_plan_build's, for a launch of no kernels */
	out->kernels = ks_calloc(c->nkernels + 1, sizeof(ks_plan_kernel));
	for (i = 0; i < c->nkernels; i++) {
		const ks_plan_kernel *k = &c->kernels[i];
		ks_plan_kernel *o = &out->kernels[out->nkernels++];
		*o = *k;
		o->name = ks_strdup(k->name);
		o->params = ks_calloc(k->nparams + 1, sizeof(ks_plan_param));
		if (k->shared > lim->max_shared) {
			rc = ks_error_set(KS_EINVALID, "kernel %s: %u bytes of dynamic shared memory (limit %u)",
					  k->name, k->shared, lim->max_shared);
			goto done;
		}
		for (j = 0; j < k->nparams; j++) {
			o->params[j] = k->params[j];
			if (k->params[j].kind != KS_PARAM_BUF)
				continue;
			o->params[j].buf = map[k->params[j].buf];
			if (k->params[j].off > out->bufs[o->params[j].buf].bytes) {
				rc = ks_error_set(KS_EINVALID, "kernel %s, argument %zu: a pointer %llu bytes into %s, "
						  "which has %llu", k->name, j + 1, (unsigned long long)k->params[j].off,
						  out->bufs[o->params[j].buf].name,
						  (unsigned long long)out->bufs[o->params[j].buf].bytes);
				goto done;
			}
		}
		o->nparams = k->nparams;
	}
	out->steps = ks_calloc(c->nsteps + 1, sizeof(ks_plan_step));
	for (i = 0; i < c->nsteps; i++) {
		ks_plan_step *s = &out->steps[out->nsteps++];
		*s = c->steps[i];
		if (s->kind != KS_STEP_LAUNCH) {
			s->buf = map[s->buf];
			if (s->kind == KS_STEP_COPY)
				s->src = map[s->src];
		}
		if ((rc = ks_plan_step_check(s, i, out)) < 0)
			goto done;
	}
done:
	if (rc < 0)
		ks_plan_clear(out);
	return rc;
}
