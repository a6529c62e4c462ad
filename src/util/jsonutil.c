#include "util/jsonutil.h"
#include "util/errors.h"
#include "util/fsutil.h"
#include "util/mem.h"
#include "util/utf8.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Depth scan that understands strings, so brackets inside strings do not count. */
static int depth_ok(const char *t, size_t len, int max_depth, size_t *where)
{
	int depth = 0, in_str = 0;
	size_t i;
	for (i = 0; i < len; i++) {
		char c = t[i];
		if (in_str) {
			if (c == '\\')
				i++;
			else if (c == '"')
				in_str = 0;
			continue;
		}
		if (c == '"')
			in_str = 1;
		else if (c == '[' || c == '{') {
			if (++depth > max_depth) {
				*where = i;
				return 0;
			}
		} else if (c == ']' || c == '}')
			depth--;
	}
	return 1;
}

static void line_col(const char *t, size_t off, int *line, int *col)
{
	size_t i;
	*line = 1;
	*col = 1;
	for (i = 0; i < off; i++) {
		if (t[i] == '\n') {
			(*line)++;
			*col = 1;
		} else
			(*col)++;
	}
}

int ks_json_parse(cJSON **out, const char *text, size_t len, int max_depth, const char *what)
{
	const char *end = NULL;
	size_t where = 0;
	int line, col;
	cJSON *v;

	*out = NULL;
	if (!depth_ok(text, len, max_depth, &where)) {
		line_col(text, where, &line, &col);
		return ks_error_set(KS_ELIMIT, "%s:%d:%d: JSON nested deeper than %d levels", what,
				    line, col, max_depth);
	}
	v = cJSON_ParseWithLengthOpts(text, len, &end, 0);
	if (!v) {
		size_t off = end && end >= text ? (size_t)(end - text) : 0;
		line_col(text, off, &line, &col);
		return ks_error_set(KS_EINVALID, "%s:%d:%d: invalid JSON", what, line, col);
	}
	/* only whitespace may follow */
	if (end) {
		const char *p = end, *stop = text + len;
		while (p < stop && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
			p++;
		if (p < stop && *p) {
			line_col(text, (size_t)(p - text), &line, &col);
			cJSON_Delete(v);
			return ks_error_set(KS_EINVALID, "%s:%d:%d: unexpected text after the JSON value",
					    what, line, col);
		}
	}
	*out = v;
	return 0;
}

/* The typed getters' common part: obj[key] into *out when it passes is(); 1 when it is absent or
 * null and not required; KS_EINVALID naming the field and `what` it must be otherwise. */
static int typed(const cJSON **out, const cJSON *obj, const char *key, int required,
		 cJSON_bool (*is)(const cJSON *), const char *what)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
	if (!v || cJSON_IsNull(v)) {
		if (required)
			return ks_error_set(KS_EINVALID, "missing field \"%s\"", key);
		return 1;
	}
	if (!is(v))
		return ks_error_set(KS_EINVALID, "field \"%s\" must be %s", key, what);
	*out = v;
	return 0;
}

int ks_json_str(const char **out, const cJSON *obj, const char *key, int required)
{
	const cJSON *v = NULL;
	int rc = typed(&v, obj, key, required, cJSON_IsString, "a string");
	if (rc == 0)
		*out = v->valuestring;
	return rc;
}

int ks_json_num(double *out, const cJSON *obj, const char *key, int required)
{
	const cJSON *v = NULL;
	int rc = typed(&v, obj, key, required, cJSON_IsNumber, "a number");
	if (rc == 0)
		*out = v->valuedouble;
	return rc;
}

/* [lo, hi] clipped to the integers a double holds exactly. */
static void clip(int64_t *lo, int64_t *hi)
{
	const int64_t m = (int64_t)KS_JSON_MAX_EXACT_INT;
	if (*lo < -m)
		*lo = -m;
	if (*hi > m)
		*hi = m;
}

/* Integral, finite and within [lo, hi]; compared in double before any conversion, which is what
 * makes the later cast defined. */
static int fits(double d, int64_t lo, int64_t hi)
{
	return isfinite(d) && d == floor(d) && d >= (double)lo && d <= (double)hi;
}

int ks_json_d2i(int64_t *out, double d, int64_t lo, int64_t hi)
{
	clip(&lo, &hi);
	if (!fits(d, lo, hi)) {
		if (-lo == hi && hi == (int64_t)KS_JSON_MAX_EXACT_INT)
			return ks_error_set(KS_EINVALID, "%.15g is not an integer of magnitude at most 2^53",
					    d);
		return ks_error_set(KS_EINVALID, "%.15g is not an integer from %lld to %lld", d,
				    (long long)lo, (long long)hi);
	}
	*out = (int64_t)d;
	return 0;
}

int ks_json_int_in(int64_t *out, const cJSON *obj, const char *key, int required, int64_t lo,
		   int64_t hi)
{
	double d;
	int rc = ks_json_num(&d, obj, key, required);
	if (rc != 0)
		return rc;
	if (!fits(d, -(int64_t)KS_JSON_MAX_EXACT_INT, (int64_t)KS_JSON_MAX_EXACT_INT))
		return ks_error_set(KS_EINVALID, "field \"%s\" must be an integer", key);
	clip(&lo, &hi);
	if (!fits(d, lo, hi))
		return ks_error_set(KS_EINVALID, "field \"%s\" must be an integer from %lld to %lld",
				    key, (long long)lo, (long long)hi);
	*out = (int64_t)d;
	return 0;
}

int ks_json_int(int64_t *out, const cJSON *obj, const char *key, int required)
{
	return ks_json_int_in(out, obj, key, required, INT64_MIN, INT64_MAX);
}

int ks_json_bool(int *out, const cJSON *obj, const char *key, int required)
{
	const cJSON *v = NULL;
	int rc = typed(&v, obj, key, required, cJSON_IsBool, "true or false");
	if (rc == 0)
		*out = cJSON_IsTrue(v);
	return rc;
}

double ks_json_num_or(const cJSON *obj, const char *key, double dflt)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
	return cJSON_IsNumber(v) ? v->valuedouble : dflt;
}

double ks_json_numval(const cJSON *obj, const char *key)
{
	return ks_json_num_or(obj, key, NAN);
}

char *ks_json_strdup(const cJSON *obj, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
	return cJSON_IsString(v) && v->valuestring ? ks_strdup(v->valuestring) : NULL;
}

int ks_json_str_copy(char *dst, size_t n, const cJSON *obj, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
	if (!cJSON_IsString(v) || !v->valuestring || n == 0)
		return 0;
	snprintf(dst, n, "%s", v->valuestring);
	return 1;
}

char *ks_json_print(const cJSON *v, int pretty)
{
	char *s = pretty ? cJSON_Print(v) : cJSON_PrintUnformatted(v), *t;
	size_t n;

	if (!s)
		return NULL;
	/* cJSON escapes control characters but copies other bytes as they are, so a string that came
	 * from the input (a team or file name, a compile log quoting code) may hold invalid UTF-8. Such
	 * bytes are >= 0x80, never a quote or a backslash: replacing them keeps the JSON valid. */
	t = ks_utf8_sanitize(s, strlen(s), &n);
	cJSON_free(s);
	return t;
}

int ks_json_write_file(const char *path, const cJSON *v, int pretty)
{
	char *s = ks_json_print(v, pretty);
	size_t n;
	int rc;
	if (!s)
		return ks_error_set(KS_ERROR, "%s: cannot serialise JSON", path);
	n = strlen(s);
	s = ks_realloc(s, n + 2);
	s[n++] = '\n';
	s[n] = '\0';
	rc = ks_fs_write_atomic(path, s, n);
	ks_free(s);
	return rc;
}

cJSON *ks_json_add_str(cJSON *obj, const char *key, const char *v)
{
	return v ? cJSON_AddStringToObject(obj, key, v) : cJSON_AddNullToObject(obj, key);
}

cJSON *ks_json_add_num(cJSON *obj, const char *key, double v)
{
	if (isnan(v) || isinf(v))
		return cJSON_AddNullToObject(obj, key);
	return cJSON_AddNumberToObject(obj, key, v);
}
