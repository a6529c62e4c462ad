/* prelude: see src/load/prelude.h. */
#include "load/prelude.h"
#include "util/buf.h"
#include "util/errors.h"
#include "util/fsutil.h"
#include "util/mem.h"

#include <ctype.h>
#include <string.h>

/* A file name in _shared/: letters, digits, '_', '-', '.', not starting with '.'. */
static int plain_name(const char *s)
{
	const char *p;
	if (!*s || *s == '.' || strlen(s) > 128)
		return 0;
	for (p = s; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '_' && *p != '-' && *p != '.')
			return 0;
	return 1;
}

static int ident(const char *s)
{
	const char *p;
	if (!*s || isdigit((unsigned char)*s))
		return 0;
	for (p = s; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '_')
			return 0;
	return p - s <= 64;
}

/* The #define lines of "defines": identifiers mapped to a string (the macro's text) or an integer. */
static int defines(ks_buf *out, const cJSON *d, const char *what)
{
	const cJSON *v;
	if (!d)
		return 0;
	if (!cJSON_IsObject(d))
		return ks_error_set(KS_EINVALID, "%s: \"golden_prelude.defines\" must be an object", what);
	cJSON_ArrayForEach(v, d)
	{
		const char *name = v->string;
		if (!ident(name))
			return ks_error_set(KS_EINVALID,
					    "%s: golden_prelude define \"%.64s\" is not an identifier", what,
					    name);
		if (cJSON_IsNumber(v) && v->valuedouble == (double)(long long)v->valuedouble) {
			ks_buf_printf(out, "#define %s %lld\n", name, (long long)v->valuedouble);
		} else if (cJSON_IsString(v) && strlen(v->valuestring) <= KS_PRELUDE_MAX_VALUE &&
			   !strpbrk(v->valuestring, "\r\n\\")) {
			ks_buf_printf(out, "#define %s %s\n", name, v->valuestring);
		} else {
			return ks_error_set(KS_EINVALID,
					    "%s: golden_prelude define %s must be an integer or a one-line "
					    "string of at most %d characters",
					    what, name, KS_PRELUDE_MAX_VALUE);
		}
	}
	return 0;
}

/* Appends one shared source, between #line directives that name it. */
static int add_source(ks_buf *out, const char *problem_dir, const cJSON *s, const char *what)
{
	char *path, *text = NULL;
	size_t len = 0;
	int rc;

	if (!cJSON_IsString(s) || !plain_name(s->valuestring))
		return ks_error_set(KS_EINVALID,
				    "%s: golden_prelude sources must be file names in the reference tests' "
				    "_shared folder",
				    what);
	path = ks_asprintf("%s/../../_shared/%s", problem_dir, s->valuestring);
	if ((rc = ks_fs_read(&text, &len, path, KS_PRELUDE_MAX_BYTES)) < 0) {
		ks_error_wrap(rc, "%s: golden_prelude", what);
		goto done;
	}
	ks_buf_printf(out, "#line 1 \"_shared/%s\"\n", s->valuestring);
	rc = ks_buf_put(out, text, len);
	if (rc == 0 && len && text[len - 1] != '\n')
		rc = ks_buf_puts(out, "\n");
done:
	ks_free(text);
	ks_free(path);
	return rc;
}

int ks_prelude_apply(char **src, size_t *len, const cJSON *spec, const char *problem_dir,
		     const char *golden_name, const char *what)
{
	const cJSON *gp = cJSON_GetObjectItemCaseSensitive(spec, "golden_prelude"), *s, *it;
	ks_buf out = KS_BUF_INIT(KS_PRELUDE_MAX_SOURCES * (size_t)KS_PRELUDE_MAX_BYTES + (4u << 20) +
				 65536);
	int rc;

	if (!gp)
		return 0;
	s = cJSON_GetObjectItemCaseSensitive(gp, "source");
	if (!cJSON_IsObject(gp) || (!cJSON_IsString(s) && !cJSON_IsArray(s)) ||
	    (cJSON_IsArray(s) && (cJSON_GetArraySize(s) < 1 ||
				  cJSON_GetArraySize(s) > KS_PRELUDE_MAX_SOURCES))) {
		rc = ks_error_set(KS_EINVALID,
				  "%s: \"golden_prelude\" must be an object whose \"source\" names one "
				  "file (or a list of 1 to %d) in the reference tests' _shared folder",
				  what, KS_PRELUDE_MAX_SOURCES);
		goto done;
	}
	if ((rc = defines(&out, cJSON_GetObjectItemCaseSensitive(gp, "defines"), what)) < 0)
		goto done;
	if (cJSON_IsString(s)) {
		if ((rc = add_source(&out, problem_dir, s, what)) < 0)
			goto done;
	} else {
		cJSON_ArrayForEach(it, s)
		{
			if ((rc = add_source(&out, problem_dir, it, what)) < 0)
				goto done;
		}
	}
	ks_buf_printf(&out, "#line 1 \"%s\"\n", golden_name);
	if ((rc = ks_buf_put(&out, *src, *len)) < 0)
		goto done;
	ks_free(*src);
	*src = ks_buf_take(&out, len);
done:
	ks_buf_free(&out);
	return rc;
}
