/* oracle_reply: the oracle helper's reply read into the case model (oracle.h), every field
 * checked and capped: the reply is another process's output. */
#include "load/sets/oracle.h"
#include "util/errors.h"
#include "util/jsonutil.h"
#include "util/mem.h"
#include "util/utf8.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *ks_oracle_status_name(ks_oracle_status s)
{
	switch (s) {
	case KS_ORACLE_OK: return "ok";
	case KS_ORACLE_ERROR: return "error";
	case KS_ORACLE_TIMEOUT: return "timeout";
	case KS_ORACLE_UNAVAILABLE: return "unavailable";
	case KS_ORACLE_BAD_REQUEST: return "bad_request";
	default: return "broken";
	}
}

/* A string of the reply, cleaned (valid UTF-8, printable) and cut to KS_ORACLE_MAX_TEXT bytes. */
static char *text(const cJSON *v)
{
	size_t n;
	if (!cJSON_IsString(v) || !v->valuestring)
		return NULL;
	n = strlen(v->valuestring);
	return ks_utf8_printable(v->valuestring, n > KS_ORACLE_MAX_TEXT ? KS_ORACLE_MAX_TEXT : n);
}

/* A name-like string (paths, keys, entries, dtypes, file names): 1 to 128 bytes of
 * [A-Za-z0-9_.:-]. */
static char *name_str(const char *s, const char *what)
{
	size_t i, n = s ? strlen(s) : 0;
	if (!s || !n || n > 128) {
		ks_error_set(KS_EINVALID, "%s is not a name of 1 to 128 bytes", what);
		return NULL;
	}
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
		      c == '.' || c == ':' || c == '-')) {
			ks_error_set(KS_EINVALID, "%s holds a character that is not in a name", what);
			return NULL;
		}
	}
	return ks_strdup(s);
}

static char *name(const cJSON *v, const char *what)
{
	return name_str(cJSON_IsString(v) ? v->valuestring : NULL, what);
}

static void oval_clear(ks_oval *v)
{
	size_t i;
	for (i = 0; i < v->nitems; i++)
		oval_clear(&v->items[i]);
	ks_free(v->items);
	ks_free(v->key);
	ks_free(v->path);
	ks_free(v->dtype);
	ks_free(v->device);
	ks_free(v->sval);
	memset(v, 0, sizeof(*v));
}

static int int_array(int64_t *out, size_t *n, const cJSON *a, int64_t lo, const char *what)
{
	const cJSON *it;
	size_t k = 0;
	if (!cJSON_IsArray(a))
		return ks_error_set(KS_EINVALID, "%s is not an array", what);
	cJSON_ArrayForEach(it, a) {
		if (k >= KS_ORACLE_MAX_RANK)
			return ks_error_set(KS_EINVALID, "%s has more than %d items", what, KS_ORACLE_MAX_RANK);
		if (!cJSON_IsNumber(it) || ks_json_d2i(&out[k], it->valuedouble, lo, INT64_C(1) << 50) < 0)
			return ks_error_set(KS_EINVALID, "%s holds something other than an integer from %lld to 2^50",
					    what, (long long)lo);
		k++;
	}
	*n = k;
	return 0;
}

static int read_value(ks_oval *v, const cJSON *j, int depth, size_t *count, const char *what);

static int read_items(ks_oval *v, const cJSON *items, int depth, size_t *count, const char *what)
{
	const cJSON *it;
	size_t n = 0, i = 0;
	int dict = v->kind == KS_OVAL_DICT;
	if (depth >= KS_ORACLE_MAX_DEPTH)
		return ks_error_set(KS_EINVALID, "%s nests more than %d deep", what, KS_ORACLE_MAX_DEPTH);
	if (dict ? !cJSON_IsObject(items) : !cJSON_IsArray(items))
		return ks_error_set(KS_EINVALID, "%s: items is not an %s", what, dict ? "object" : "array");
	n = (size_t)cJSON_GetArraySize(items);
	if (n > KS_ORACLE_MAX_VALUES)
		return ks_error_set(KS_EINVALID, "%s has more than %d items", what, KS_ORACLE_MAX_VALUES);
	v->items = ks_calloc(n + 1, sizeof(ks_oval));
	cJSON_ArrayForEach(it, items) {
		if (dict && !(v->items[i].key = name_str(it->string, "a dict key")))
			return KS_EINVALID;
		v->nitems = i + 1;
		if (read_value(&v->items[i], it, depth + 1, count, what) < 0)
			return KS_EINVALID;
		i++;
	}
	return 0;
}

static int read_value(ks_oval *v, const cJSON *j, int depth, size_t *count, const char *what)
{
	static const char *const kinds[] = { "none", "tensor", "int", "float", "bool", "str", "dtype",
					     "tuple", "list", "dict", "other" };
	const char *kind = NULL;
	const cJSON *x;
	size_t k, nstrides = 0;
	if (++*count > KS_ORACLE_MAX_VALUES)
		return ks_error_set(KS_EINVALID, "%s: more than %d values", what, KS_ORACLE_MAX_VALUES);
	if (!cJSON_IsObject(j) || ks_json_str(&kind, j, "kind", 1) < 0)
		return ks_error_set(KS_EINVALID, "%s: a value without a kind", what);
	for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]) && strcmp(kinds[k], kind); k++)
		;
	if (k == sizeof(kinds) / sizeof(kinds[0]))
		return ks_error_set(KS_EINVALID, "%s: unknown value kind", what);
	v->kind = (ks_oval_kind)k;
	x = cJSON_GetObjectItemCaseSensitive(j, "value");
	switch (v->kind) {
	case KS_OVAL_TENSOR:
		if (!(v->path = name(cJSON_GetObjectItemCaseSensitive(j, "path"), "a tensor's path")) ||
		    !(v->dtype = name(cJSON_GetObjectItemCaseSensitive(j, "dtype"), "a tensor's dtype")) ||
		    !(v->device = name(cJSON_GetObjectItemCaseSensitive(j, "device"), "a tensor's device")) ||
		    int_array(v->shape, &v->ndim, cJSON_GetObjectItemCaseSensitive(j, "shape"), 0, "a shape") < 0 ||
		    int_array(v->strides, &nstrides, cJSON_GetObjectItemCaseSensitive(j, "strides"), -(INT64_C(1) << 50),
			      "strides") < 0 ||
		    ks_json_int_in(&v->offset, j, "offset", 1, 0, INT64_C(1) << 50) < 0 ||
		    ks_json_bool(&v->contiguous, j, "contiguous", 1) < 0)
			return ks_error_wrap(KS_EINVALID, "%s", what);
		if (nstrides != v->ndim)
			return ks_error_set(KS_EINVALID, "%s: %s has %zu strides for %zu dimensions", what, v->path,
					    nstrides, v->ndim);
		return 0;
	case KS_OVAL_INT:
	case KS_OVAL_BOOL:
		if (cJSON_IsBool(x))
			v->ival = cJSON_IsTrue(x);
		else if (cJSON_IsString(x) && v->kind == KS_OVAL_INT)
			v->sval = text(x); /* beyond 2^53: kept as text, refused as a scalar */
		else if (!cJSON_IsNumber(x) || ks_json_d2i(&v->ival, x->valuedouble, INT64_MIN, INT64_MAX) < 0)
			return ks_error_set(KS_EINVALID, "%s: an int or bool without an integer value", what);
		return 0;
	case KS_OVAL_FLOAT:
		if (cJSON_IsNumber(x))
			v->fval = x->valuedouble;
		else if (cJSON_IsString(x) && !strcmp(x->valuestring, "nan"))
			v->fval = NAN;
		else if (cJSON_IsString(x) && (!strcmp(x->valuestring, "inf") || !strcmp(x->valuestring, "-inf")))
			v->fval = x->valuestring[0] == '-' ? -INFINITY : INFINITY;
		else
			return ks_error_set(KS_EINVALID, "%s: a float without a value", what);
		return 0;
	case KS_OVAL_STR:
		if (!(v->sval = text(x)))
			return ks_error_set(KS_EINVALID, "%s: a str without a value", what);
		return 0;
	case KS_OVAL_DTYPE:
		return (v->dtype = name(x, "a dtype value")) ? 0 : ks_error_wrap(KS_EINVALID, "%s", what);
	case KS_OVAL_OTHER:
		v->sval = text(cJSON_GetObjectItemCaseSensitive(j, "type"));
		return 0;
	case KS_OVAL_TUPLE:
	case KS_OVAL_LIST:
	case KS_OVAL_DICT:
		return read_items(v, cJSON_GetObjectItemCaseSensitive(j, "items"), depth, count, what);
	default:
		return 0;
	}
}

static int read_strv(char ***v, size_t *n, const cJSON *a, size_t max, int names, const char *what)
{
	const cJSON *it;
	if (!a)
		return 0;
	if (!cJSON_IsArray(a) || (size_t)cJSON_GetArraySize(a) > max)
		return ks_error_set(KS_EINVALID, "%s is not an array of at most %zu strings", what, max);
	*v = ks_calloc((size_t)cJSON_GetArraySize(a) + 1, sizeof(char *));
	cJSON_ArrayForEach(it, a) {
		char *s = names ? name(it, what) : text(it);
		if (!s)
			return ks_error_set(KS_EINVALID, "%s holds something other than %s", what,
					    names ? "a name" : "a string");
		(*v)[(*n)++] = s;
	}
	return 0;
}

/* The files of a materialize reply: {"a0": {"file": "c0.a0.bin", "bytes": 96}, ...}. */
static int read_files(char ***paths, char ***files, uint64_t **bytes, size_t *n, const cJSON *o, const char *what)
{
	const cJSON *it;
	size_t cap;
	if (!o)
		return 0;
	if (!cJSON_IsObject(o) || (cap = (size_t)cJSON_GetArraySize(o)) > KS_ORACLE_MAX_VALUES)
		return ks_error_set(KS_EINVALID, "%s is not an object of at most %d files", what, KS_ORACLE_MAX_VALUES);
	*paths = ks_calloc(cap + 1, sizeof(char *));
	*files = ks_calloc(cap + 1, sizeof(char *));
	*bytes = ks_calloc(cap + 1, sizeof(uint64_t));
	cJSON_ArrayForEach(it, o) {
		int64_t b = 0;
		char *p = name_str(it->string, what);
		char *f = p ? name(cJSON_GetObjectItemCaseSensitive(it, "file"), what) : NULL;
		if (!f || strchr(f, '/') || f[0] == '.' ||
		    ks_json_int_in(&b, it, "bytes", 1, 0, INT64_C(1) << 50) < 0) {
			ks_free(p);
			ks_free(f);
			return ks_error_set(KS_EINVALID, "%s: a file entry without a plain file name and a size", what);
		}
		(*paths)[*n] = p;
		(*files)[*n] = f;
		(*bytes)[(*n)++] = (uint64_t)b;
	}
	return 0;
}

static int read_case(ks_oracle_case *c, const cJSON *j, size_t index)
{
	char what[64];
	const char *kind = NULL, *sig = NULL;
	const cJSON *a, *it;
	size_t count = 0, i = 0;
	int64_t idx = 0;
	snprintf(what, sizeof(what), "case %zu", index);
	if (!cJSON_IsObject(j) || ks_json_int_in(&idx, j, "index", 1, 0, KS_ORACLE_MAX_CASES) < 0 ||
	    (size_t)idx != index || ks_json_str(&kind, j, "kind", 1) < 0 || ks_json_str(&sig, j, "signature", 1) < 0)
		return ks_error_set(KS_EINVALID, "%s: no index %zu, kind and signature", what, index);
	if (strcmp(kind, "correctness") && strcmp(kind, "perf"))
		return ks_error_set(KS_EINVALID, "%s: kind is neither correctness nor perf", what);
	c->index = index;
	c->perf = !strcmp(kind, "perf");
	if (strlen(sig) != 16 || strspn(sig, "0123456789abcdef") != 16)
		return ks_error_set(KS_EINVALID, "%s: the signature is not 16 hex digits", what);
	memcpy(c->signature, sig, 17);
	if (!(c->entry = name(cJSON_GetObjectItemCaseSensitive(j, "entry"), "the entry")))
		return ks_error_wrap(KS_EINVALID, "%s", what);
	a = cJSON_GetObjectItemCaseSensitive(j, "args");
	if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) > KS_ORACLE_MAX_VALUES)
		return ks_error_set(KS_EINVALID, "%s: args is not an array", what);
	c->args = ks_calloc((size_t)cJSON_GetArraySize(a) + 1, sizeof(ks_oval));
	cJSON_ArrayForEach(it, a) {
		c->nargs = i + 1;
		if (read_value(&c->args[i++], it, 0, &count, what) < 0)
			return KS_EINVALID;
	}
	a = cJSON_GetObjectItemCaseSensitive(j, "kwargs");
	if (!cJSON_IsObject(a) || cJSON_GetArraySize(a) > KS_ORACLE_MAX_VALUES)
		return ks_error_set(KS_EINVALID, "%s: kwargs is not an object", what);
	c->kwargs = ks_calloc((size_t)cJSON_GetArraySize(a) + 1, sizeof(ks_oval));
	i = 0;
	cJSON_ArrayForEach(it, a) {
		c->nkwargs = i + 1;
		if (!(c->kwargs[i].key = name_str(it->string, "a keyword")) ||
		    read_value(&c->kwargs[i], it, 0, &count, what) < 0)
			return ks_error_wrap(KS_EINVALID, "%s", what);
		i++;
	}
	if (read_value(&c->ret, cJSON_GetObjectItemCaseSensitive(j, "returns"), 0, &count, what) < 0 ||
	    read_strv(&c->writes, &c->nwrites, cJSON_GetObjectItemCaseSensitive(j, "writes"), KS_ORACLE_MAX_VALUES, 1,
		      "writes") < 0 ||
	    read_files(&c->in_paths, &c->in_files, &c->in_bytes, &c->nin, cJSON_GetObjectItemCaseSensitive(j, "inputs"),
		       "inputs") < 0 ||
	    read_files(&c->out_paths, &c->out_files, &c->out_bytes, &c->nout,
		       cJSON_GetObjectItemCaseSensitive(j, "outputs"), "outputs") < 0)
		return ks_error_wrap(KS_EINVALID, "%s", what);
	for (i = 0; i < c->nwrites; i++)
		if (!ks_oracle_case_tensor(c, c->writes[i]))
			return ks_error_set(KS_EINVALID, "%s: it wrote %s, which is no argument tensor", what, c->writes[i]);
	return 0;
}

static void case_clear(ks_oracle_case *c)
{
	size_t i;
	for (i = 0; i < c->nargs; i++)
		oval_clear(&c->args[i]);
	for (i = 0; i < c->nkwargs; i++)
		oval_clear(&c->kwargs[i]);
	ks_free(c->args);
	ks_free(c->kwargs);
	oval_clear(&c->ret);
	ks_free(c->entry);
	ks_free_strv(c->writes, c->nwrites);
	ks_free_strv(c->in_paths, c->nin);
	ks_free_strv(c->in_files, c->nin);
	ks_free_strv(c->out_paths, c->nout);
	ks_free_strv(c->out_files, c->nout);
	ks_free(c->in_bytes);
	ks_free(c->out_bytes);
	memset(c, 0, sizeof(*c));
}

void ks_oracle_reply_clear(ks_oracle_reply *r)
{
	size_t i;
	for (i = 0; i < r->ncases; i++)
		case_clear(&r->cases[i]);
	ks_free(r->cases);
	ks_free_strv(r->notes, r->nnotes);
	ks_free(r->file);
	ks_free(r->reason);
	ks_free(r->output);
	ks_free(r->confinement);
	memset(r, 0, sizeof(*r));
}

static const ks_oval *find_in(const ks_oval *v, const char *path)
{
	size_t i;
	if (v->kind == KS_OVAL_TENSOR)
		return v->path && !strcmp(v->path, path) ? v : NULL;
	for (i = 0; i < v->nitems; i++) {
		const ks_oval *f = find_in(&v->items[i], path);
		if (f)
			return f;
	}
	return NULL;
}

const ks_oval *ks_oracle_case_tensor(const ks_oracle_case *c, const char *path)
{
	const ks_oval *f = NULL;
	size_t i;
	for (i = 0; !f && i < c->nargs; i++)
		f = find_in(&c->args[i], path);
	for (i = 0; !f && i < c->nkwargs; i++)
		f = find_in(&c->kwargs[i], path);
	return f ? f : find_in(&c->ret, path);
}

static void broken(ks_oracle_reply *r, const char *why)
{
	ks_oracle_reply_clear(r);
	r->status = KS_ORACLE_BROKEN;
	r->reason = ks_asprintf("the oracle's reply is malformed: %s", why);
}

void ks_oracle_reply_read(ks_oracle_reply *out, const char *line, size_t n)
{
	static const char *const statuses[] = { "ok", "error", "timeout", "unavailable", "bad_request" };
	cJSON *j = NULL;
	const cJSON *cases, *conf, *it;
	const char *st = NULL;
	size_t k, i = 0;
	memset(out, 0, sizeof(*out));
	if (n > KS_ORACLE_MAX_REPLY) {
		broken(out, "over the size cap");
		return;
	}
	if (ks_json_parse(&j, line, n, 2 * KS_ORACLE_MAX_DEPTH + 8, "the oracle's reply") < 0 || !cJSON_IsObject(j) ||
	    ks_json_str(&st, j, "status", 1) < 0) {
		broken(out, j ? "no status" : ks_error_msg());
		goto done;
	}
	for (k = 0; k < sizeof(statuses) / sizeof(statuses[0]) && strcmp(statuses[k], st); k++)
		;
	if (k == sizeof(statuses) / sizeof(statuses[0])) {
		broken(out, "an unknown status");
		goto done;
	}
	out->status = (ks_oracle_status)k;
	out->file = text(cJSON_GetObjectItemCaseSensitive(j, "file"));
	out->reason = text(cJSON_GetObjectItemCaseSensitive(j, "reason"));
	out->output = text(cJSON_GetObjectItemCaseSensitive(j, "output"));
	out->seconds = ks_json_num_or(j, "seconds", 0);
	if (!isfinite(out->seconds) || out->seconds < 0)
		out->seconds = 0;
	out->bytes_written = (uint64_t)fmax(0, fmin(ks_json_num_or(j, "bytes_written", 0), 1e15));
	conf = cJSON_GetObjectItemCaseSensitive(j, "confinement");
	out->landlock = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(conf, "landlock"));
	out->confinement = text(cJSON_GetObjectItemCaseSensitive(conf, "reason"));
	if (read_strv(&out->notes, &out->nnotes, cJSON_GetObjectItemCaseSensitive(j, "notes"), KS_ORACLE_MAX_NOTES, 0,
		      "notes") < 0) {
		broken(out, ks_error_msg());
		goto done;
	}
	if (out->status != KS_ORACLE_OK) {
		if (!out->reason || !*out->reason) {
			ks_free(out->reason);
			out->reason = ks_strdup("the oracle gave no reason");
		}
		goto done;
	}
	cases = cJSON_GetObjectItemCaseSensitive(j, "cases");
	if (!cJSON_IsArray(cases) || cJSON_GetArraySize(cases) > KS_ORACLE_MAX_CASES) {
		broken(out, "cases is not an array of at most 1024 cases");
		goto done;
	}
	out->cases = ks_calloc((size_t)cJSON_GetArraySize(cases) + 1, sizeof(ks_oracle_case));
	cJSON_ArrayForEach(it, cases) {
		out->ncases = i + 1;
		if (read_case(&out->cases[i], it, i) < 0) {
			broken(out, ks_error_msg());
			goto done;
		}
		i++;
	}
done:
	ks_error_clear();
	cJSON_Delete(j);
}
