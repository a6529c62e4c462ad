#include "load/launch.h"
#include "util/errors.h"
#include "util/jsonutil.h"
#include "util/mem.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

static int valid_ident(const char *s)
{
	if (!s || !*s || strlen(s) > 256)
		return 0;
	if (!(isalpha((unsigned char)*s) || *s == '_'))
		return 0;
	for (; *s; s++)
		if (!(isalnum((unsigned char)*s) || *s == '_'))
			return 0;
	return 1;
}

/* An expression given as a JSON string or integer number. */
static int expr_of(char **out, const cJSON *v, const char *what, const char *field)
{
	int64_t i;
	if (cJSON_IsString(v)) {
		if (strlen(v->valuestring) > KS_LAUNCH_MAX_EXPR)
			return ks_error_set(KS_ELIMIT, "%s: %s expression is longer than %d characters",
					    what, field, KS_LAUNCH_MAX_EXPR);
		*out = ks_strdup(v->valuestring);
		return 0;
	}
	if (cJSON_IsNumber(v)) {
		if (ks_json_d2i(&i, v->valuedouble, INT64_MIN, INT64_MAX) < 0)
			return ks_error_wrap(KS_EINVALID, "%s: %s (write larger values as an expression "
					     "string)", what, field);
		*out = ks_asprintf("%lld", (long long)i);
		return 0;
	}
	return ks_error_set(KS_EINVALID, "%s: %s must be an integer or an expression string", what,
			    field);
}

static int parse_dims(char *dst[3], const cJSON *v, const char *what, const char *field, int required)
{
	const cJSON *it;
	int n = 0;
	if (!v) {
		if (required)
			return ks_error_set(KS_EINVALID, "%s: missing \"%s\"", what, field);
		return 0;
	}
	if (!cJSON_IsArray(v)) {
		/* a single expression is accepted for a 1-D grid or block */
		return expr_of(&dst[0], v, what, field);
	}
	cJSON_ArrayForEach(it, v)
	{
		if (n == 3)
			return ks_error_set(KS_EINVALID, "%s: \"%s\" has more than 3 dimensions", what,
					    field);
		if (expr_of(&dst[n], it, what, field) < 0)
			return KS_EINVALID;
		n++;
	}
	if (n == 0)
		return ks_error_set(KS_EINVALID, "%s: \"%s\" is empty", what, field);
	return 0;
}

static int parse_arg(ks_launch_arg *a, const cJSON *v, const char *what)
{
	const cJSON *it;
	if (cJSON_IsString(v)) {
		if (!valid_ident(v->valuestring))
			return ks_error_set(KS_EINVALID, "%s: argument \"%s\" is not a name", what,
					    v->valuestring);
		a->kind = KS_LARG_NAME;
		a->name = ks_strdup(v->valuestring);
		return 0;
	}
	if (!cJSON_IsObject(v) || cJSON_GetArraySize(v) != 1)
		return ks_error_set(KS_EINVALID,
				    "%s: an argument is a name or one typed value like {\"i32\": \"n\"}",
				    what);
	it = v->child;
	if (!strcmp(it->string, "i32") || !strcmp(it->string, "u32") || !strcmp(it->string, "i64")) {
		a->kind = KS_LARG_INT;
		ks_dtype_parse(&a->type, it->string);
		return expr_of(&a->expr, it, what, it->string);
	}
	if (!strcmp(it->string, "f32") || !strcmp(it->string, "f64")) {
		if (!cJSON_IsNumber(it))
			return ks_error_set(KS_EINVALID, "%s: {\"%s\": ...} needs a number", what,
					    it->string);
		a->kind = KS_LARG_FLOAT;
		ks_dtype_parse(&a->type, it->string);
		a->value = it->valuedouble;
		return 0;
	}
	return ks_error_set(KS_EINVALID, "%s: unknown argument type \"%s\" (use i32, u32, i64, f32 or f64)",
			    what, it->string);
}

/* A plan's list field `key` (v, present): a JSON array, non-empty when nonempty, of at most max
 * items; else KS_EINVALID or KS_ELIMIT naming `what`, the key, and the limit as "more than <max>
 * <items>". */
static int check_list(const cJSON *v, const char *key, int nonempty, int max, const char *items,
		      const char *what)
{
	if (!cJSON_IsArray(v) || (nonempty && cJSON_GetArraySize(v) == 0))
		return ks_error_set(KS_EINVALID, "%s: \"%s\" must be a %slist", what, key,
				    nonempty ? "non-empty " : "");
	if (cJSON_GetArraySize(v) > max)
		return ks_error_set(KS_ELIMIT, "%s: more than %d %s", what, max, items);
	return 0;
}

static int parse_kernel(ks_kernel_launch *k, const cJSON *v, const char *what)
{
	const cJSON *name, *args, *it;
	char kwhat[512];
	int rc;

	if (!cJSON_IsObject(v))
		return ks_error_set(KS_EINVALID, "%s: a kernel launch must be an object", what);
	name = cJSON_GetObjectItemCaseSensitive(v, "name");
	if (!name)
		name = cJSON_GetObjectItemCaseSensitive(v, "kernel");
	if (!cJSON_IsString(name) || !*name->valuestring || strlen(name->valuestring) > 512)
		return ks_error_set(KS_EINVALID, "%s: a kernel launch needs a \"name\"", what);
	k->name = ks_strdup(name->valuestring);
	snprintf(kwhat, sizeof(kwhat), "%s, kernel %s", what, k->name);
	if ((rc = parse_dims(k->grid, cJSON_GetObjectItemCaseSensitive(v, "grid"), kwhat, "grid", 1)) < 0 ||
	    (rc = parse_dims(k->block, cJSON_GetObjectItemCaseSensitive(v, "block"), kwhat, "block", 1)) < 0)
		return rc;
	it = cJSON_GetObjectItemCaseSensitive(v, "shared");
	if (it && (rc = expr_of(&k->shared, it, kwhat, "shared")) < 0)
		return rc;
	args = cJSON_GetObjectItemCaseSensitive(v, "args");
	if (!args) {
		k->default_args = 1;
		return 0;
	}
	if ((rc = check_list(args, "args", 0, KS_LAUNCH_MAX_ARGS, "arguments", kwhat)) < 0)
		return rc;
	k->args = ks_calloc((size_t)cJSON_GetArraySize(args) + 1, sizeof(*k->args));
	cJSON_ArrayForEach(it, args)
	{
		if ((rc = parse_arg(&k->args[k->nargs], it, kwhat)) < 0)
			return rc;
		k->nargs++;
	}
	return 0;
}

static int parse_scratch(ks_scratch *s, const cJSON *v, const char *what)
{
	const char *name = NULL, *dt = NULL, *init = NULL;
	int rc;
	if (!cJSON_IsObject(v))
		return ks_error_set(KS_EINVALID, "%s: a scratch buffer must be an object", what);
	if (ks_json_str(&name, v, "name", 1) < 0 || ks_json_str(&dt, v, "dtype", 1) < 0)
		return ks_error_wrap(KS_EINVALID, "%s: scratch buffer", what);
	if (!valid_ident(name))
		return ks_error_set(KS_EINVALID, "%s: scratch name \"%s\" is not a name", what, name);
	s->name = ks_strdup(name);
	if (ks_dtype_parse(&s->dtype, dt) < 0)
		return ks_error_wrap(KS_EINVALID, "%s: scratch %s", what, name);
	if (!cJSON_GetObjectItemCaseSensitive(v, "count"))
		return ks_error_set(KS_EINVALID, "%s: scratch %s needs a \"count\"", what, name);
	if ((rc = expr_of(&s->count, cJSON_GetObjectItemCaseSensitive(v, "count"), what, "count")) < 0)
		return rc;
	if (ks_json_str(&init, v, "init", 0) == 0) {
		if (!strcmp(init, "zero"))
			s->zero = 1;
		else if (strcmp(init, "poison"))
			return ks_error_set(KS_EINVALID, "%s: scratch %s: init must be \"zero\" or \"poison\"",
					    what, name);
	} else if (cJSON_GetObjectItemCaseSensitive(v, "init"))
		return ks_error_set(KS_EINVALID, "%s: scratch %s: init must be a string", what, name);
	return 0;
}

int ks_launch_parse(ks_launch *out, const cJSON *json, const char *what)
{
	const cJSON *kernels, *scratch, *it;
	int rc = 0;
	size_t i, j;

	memset(out, 0, sizeof(*out));
	if (!cJSON_IsObject(json)) {
		rc = ks_error_set(KS_EINVALID, "%s: a launch plan must be a JSON object", what);
		goto done;
	}
	kernels = cJSON_GetObjectItemCaseSensitive(json, "kernels");
	if (kernels) {
		if ((rc = check_list(kernels, "kernels", 1, KS_LAUNCH_MAX_KERNELS, "kernels in one plan",
				     what)) < 0)
			goto done;
		out->kernels = ks_calloc((size_t)cJSON_GetArraySize(kernels), sizeof(*out->kernels));
		cJSON_ArrayForEach(it, kernels)
		{
			out->nkernels++;
			if ((rc = parse_kernel(&out->kernels[out->nkernels - 1], it, what)) < 0)
				goto done;
		}
	} else {
		out->kernels = ks_calloc(1, sizeof(*out->kernels));
		out->nkernels = 1;
		if ((rc = parse_kernel(&out->kernels[0], json, what)) < 0)
			goto done;
	}
	scratch = cJSON_GetObjectItemCaseSensitive(json, "scratch");
	if (scratch) {
		if ((rc = check_list(scratch, "scratch", 0, KS_LAUNCH_MAX_SCRATCH, "scratch buffers", what)) < 0)
			goto done;
		out->scratch = ks_calloc((size_t)cJSON_GetArraySize(scratch) + 1, sizeof(*out->scratch));
		cJSON_ArrayForEach(it, scratch)
		{
			out->nscratch++;
			if ((rc = parse_scratch(&out->scratch[out->nscratch - 1], it, what)) < 0)
				goto done;
		}
		for (i = 0; i < out->nscratch; i++)
			for (j = i + 1; j < out->nscratch; j++)
				if (!strcmp(out->scratch[i].name, out->scratch[j].name)) {
					rc = ks_error_set(KS_EINVALID, "%s: scratch \"%s\" declared twice",
							  what, out->scratch[i].name);
					goto done;
				}
	}
done:
	if (rc < 0)
		ks_launch_clear(out);
	return rc;
}

int ks_launch_parse_text(ks_launch *out, const char *text, const char *what)
{
	cJSON *j = NULL;
	int rc;
	memset(out, 0, sizeof(*out));
	if (strnlen(text, KS_LAUNCH_MAX_TEXT + 1) > KS_LAUNCH_MAX_TEXT)
		return ks_error_set(KS_ELIMIT, "%s: longer than %d bytes", what, KS_LAUNCH_MAX_TEXT);
	if ((rc = ks_json_parse(&j, text, strlen(text), 16, what)) < 0)
		return rc;
	rc = ks_launch_parse(out, j, what);
	cJSON_Delete(j);
	return rc;
}

static char *dup_or_null(const char *s)
{
	return s ? ks_strdup(s) : NULL;
}

void ks_launch_copy(ks_launch *dst, const ks_launch *src)
{
	size_t i, j;
	memset(dst, 0, sizeof(*dst));
	dst->nkernels = src->nkernels;
	dst->kernels = ks_calloc(src->nkernels ? src->nkernels : 1, sizeof(*dst->kernels));
	for (i = 0; i < src->nkernels; i++) {
		const ks_kernel_launch *s = &src->kernels[i];
		ks_kernel_launch *d = &dst->kernels[i];
		d->name = ks_strdup(s->name);
		for (j = 0; j < 3; j++) {
			d->grid[j] = dup_or_null(s->grid[j]);
			d->block[j] = dup_or_null(s->block[j]);
		}
		d->shared = dup_or_null(s->shared);
		d->default_args = s->default_args;
		d->nargs = s->nargs;
		if (s->args) {
			d->args = ks_calloc(s->nargs + 1, sizeof(*d->args));
			for (j = 0; j < s->nargs; j++) {
				d->args[j] = s->args[j];
				d->args[j].name = dup_or_null(s->args[j].name);
				d->args[j].expr = dup_or_null(s->args[j].expr);
			}
		}
	}
	dst->nscratch = src->nscratch;
	if (src->nscratch) {
		dst->scratch = ks_calloc(src->nscratch, sizeof(*dst->scratch));
		for (i = 0; i < src->nscratch; i++) {
			dst->scratch[i] = src->scratch[i];
			dst->scratch[i].name = ks_strdup(src->scratch[i].name);
			dst->scratch[i].count = ks_strdup(src->scratch[i].count);
		}
	}
}

static cJSON *dims_json(char *const d[3])
{
	cJSON *a = cJSON_CreateArray();
	int i;
	for (i = 0; i < 3 && d[i]; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(d[i]));
	return a;
}

cJSON *ks_launch_to_json(const ks_launch *l)
{
	cJSON *root = cJSON_CreateObject(), *ks = cJSON_AddArrayToObject(root, "kernels");
	size_t i, j;
	for (i = 0; i < l->nkernels; i++) {
		const ks_kernel_launch *k = &l->kernels[i];
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "name", k->name);
		cJSON_AddItemToObject(o, "grid", dims_json(k->grid));
		cJSON_AddItemToObject(o, "block", dims_json(k->block));
		if (k->shared)
			cJSON_AddStringToObject(o, "shared", k->shared);
		if (!k->default_args) {
			cJSON *args = cJSON_AddArrayToObject(o, "args");
			for (j = 0; j < k->nargs; j++) {
				const ks_launch_arg *a = &k->args[j];
				cJSON *t;
				if (a->kind == KS_LARG_NAME) {
					cJSON_AddItemToArray(args, cJSON_CreateString(a->name));
					continue;
				}
				t = cJSON_CreateObject();
				if (a->kind == KS_LARG_INT)
					cJSON_AddStringToObject(t, ks_dtype_name(a->type), a->expr);
				else
					cJSON_AddNumberToObject(t, ks_dtype_name(a->type), a->value);
				cJSON_AddItemToArray(args, t);
			}
		}
		cJSON_AddItemToArray(ks, o);
	}
	if (l->nscratch) {
		cJSON *sc = cJSON_AddArrayToObject(root, "scratch");
		for (i = 0; i < l->nscratch; i++) {
			cJSON *o = cJSON_CreateObject();
			cJSON_AddStringToObject(o, "name", l->scratch[i].name);
			cJSON_AddStringToObject(o, "dtype", ks_dtype_name(l->scratch[i].dtype));
			cJSON_AddStringToObject(o, "count", l->scratch[i].count);
			cJSON_AddStringToObject(o, "init", l->scratch[i].zero ? "zero" : "poison");
			cJSON_AddItemToArray(sc, o);
		}
	}
	return root;
}

void ks_launch_clear(ks_launch *l)
{
	size_t i, j;
	for (i = 0; i < l->nkernels; i++) {
		ks_kernel_launch *k = &l->kernels[i];
		ks_free(k->name);
		for (j = 0; j < 3; j++) {
			ks_free(k->grid[j]);
			ks_free(k->block[j]);
		}
		ks_free(k->shared);
		for (j = 0; j < k->nargs; j++) {
			ks_free(k->args[j].name);
			ks_free(k->args[j].expr);
		}
		ks_free(k->args);
	}
	ks_free(l->kernels);
	for (i = 0; i < l->nscratch; i++) {
		ks_free(l->scratch[i].name);
		ks_free(l->scratch[i].count);
	}
	ks_free(l->scratch);
	memset(l, 0, sizeof(*l));
}
