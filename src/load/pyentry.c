/* pyentry: see src/load/pyentry.h. */
#include "load/pyentry.h"
#include "util/buf.h"
#include "util/errors.h"
#include "util/mem.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* The names Python reserves: a function or keyword argument cannot take them. */
static const char *const py_keywords[] = {
	"False", "None",   "True",    "and",      "as",	"assert", "async",  "await",
	"break", "class",  "continue", "def",     "del",	"elif",	  "else",   "except",
	"finally", "for",  "from",    "global",   "if",	"import", "in",	    "is",
	"lambda", "nonlocal", "not",  "or",	  "pass",	"raise",  "return", "try",
	"while", "with",   "yield"
};

static int ident(const char *s)
{
	size_t i;
	if (!s || !*s || strlen(s) > KS_PYENTRY_MAX_NAME || isdigit((unsigned char)*s))
		return 0;
	for (i = 0; s[i]; i++)
		if (!(isalnum((unsigned char)s[i]) || s[i] == '_'))
			return 0;
	return 1;
}

static int py_ident(const char *s)
{
	size_t i;
	if (!ident(s))
		return 0;
	for (i = 0; i < sizeof(py_keywords) / sizeof(py_keywords[0]); i++)
		if (!strcmp(s, py_keywords[i]))
			return 0;
	return 1;
}

/* {"const": v} with v a bool, null, finite number or short string, into a->json. */
static int parse_const(ks_pyarg *a, const cJSON *v, const char *what)
{
	const cJSON *c = cJSON_GetObjectItemCaseSensitive(v, "const");
	char *text;
	if (!c || cJSON_GetArraySize(v) != 1)
		return ks_error_set(KS_EINVALID, "%s: an object must be {\"const\": value}", what);
	if (cJSON_IsNumber(c) && !isfinite(c->valuedouble))
		return ks_error_set(KS_EINVALID, "%s: the constant is not a finite number", what);
	if (!cJSON_IsBool(c) && !cJSON_IsNull(c) && !cJSON_IsNumber(c) && !cJSON_IsString(c))
		return ks_error_set(KS_EINVALID, "%s: a constant is a bool, null, number or string", what);
	if (!(text = cJSON_PrintUnformatted(c)))
		return ks_error_set(KS_ERROR, "%s: cannot print the constant", what);
	if (strlen(text) > KS_PYENTRY_MAX_CONST) {
		cJSON_free(text);
		return ks_error_set(KS_ELIMIT, "%s: the constant is longer than %d characters", what,
				    KS_PYENTRY_MAX_CONST);
	}
	a->kind = KS_PYARG_CONST;
	a->json = ks_strdup(text);
	cJSON_free(text);
	return 0;
}

/* One argument: a name string (an argument of the spec) or a constant. */
static int parse_arg(ks_pyarg *a, const cJSON *v, const char *what)
{
	if (cJSON_IsString(v)) {
		if (!ident(v->valuestring))
			return ks_error_set(KS_EINVALID, "%s: \"%.80s\" is not the name of an argument", what,
					    v->valuestring);
		a->kind = KS_PYARG_NAME;
		a->ref = ks_strdup(v->valuestring);
		return 0;
	}
	if (cJSON_IsObject(v))
		return parse_const(a, v, what);
	return ks_error_set(KS_EINVALID, "%s: must be the name of an argument of the spec or "
					 "{\"const\": value}", what);
}

static int parse_args(ks_python_entry *e, const cJSON *v)
{
	const cJSON *it;
	char what[96];
	int rc;
	if (!cJSON_IsArray(v))
		return ks_error_set(KS_EINVALID, "python.args: must be a list (the positional arguments)");
	if (cJSON_GetArraySize(v) > KS_PYENTRY_MAX_ARGS)
		return ks_error_set(KS_ELIMIT, "python.args: at most %d arguments", KS_PYENTRY_MAX_ARGS);
	e->args = ks_calloc((size_t)cJSON_GetArraySize(v) + 1, sizeof(ks_pyarg));
	cJSON_ArrayForEach(it, v)
	{
		snprintf(what, sizeof(what), "python.args[%zu]", e->nargs);
		if ((rc = parse_arg(&e->args[e->nargs++], it, what)) < 0)
			return rc;
	}
	return 0;
}

static int parse_kwargs(ks_python_entry *e, const cJSON *v)
{
	const cJSON *it;
	char what[96];
	size_t i;
	int rc;
	if (!cJSON_IsObject(v))
		return ks_error_set(KS_EINVALID, "python.kwargs: must be an object (keyword: value)");
	if (cJSON_GetArraySize(v) > KS_PYENTRY_MAX_ARGS)
		return ks_error_set(KS_ELIMIT, "python.kwargs: at most %d keyword arguments",
				    KS_PYENTRY_MAX_ARGS);
	e->kwargs = ks_calloc((size_t)cJSON_GetArraySize(v) + 1, sizeof(ks_pyarg));
	cJSON_ArrayForEach(it, v)
	{
		ks_pyarg *a;
		if (!py_ident(it->string))
			return ks_error_set(KS_EINVALID, "python.kwargs: \"%.80s\" is not a Python identifier",
					    it->string);
		/* JSON allows a key twice; a call cannot pass a keyword twice */
		for (i = 0; i < e->nkwargs; i++)
			if (!strcmp(e->kwargs[i].key, it->string))
				return ks_error_set(KS_EINVALID, "python.kwargs: keyword %s is given twice",
						    it->string);
		snprintf(what, sizeof(what), "python.kwargs.%s", it->string);
		a = &e->kwargs[e->nkwargs++];
		a->key = ks_strdup(it->string);
		if ((rc = parse_arg(a, it, what)) < 0)
			return rc;
	}
	return 0;
}

static int parse_made(ks_python_entry *e, const cJSON *v)
{
	const cJSON *it;
	size_t i;
	if (!cJSON_IsArray(v))
		return ks_error_set(KS_EINVALID, "python.made_by_entry: must be a list of input names");
	if (cJSON_GetArraySize(v) > KS_PYENTRY_MAX_MADE)
		return ks_error_set(KS_ELIMIT, "python.made_by_entry: at most %d names", KS_PYENTRY_MAX_MADE);
	e->made_by_entry = ks_calloc((size_t)cJSON_GetArraySize(v) + 1, sizeof(char *));
	cJSON_ArrayForEach(it, v)
	{
		if (!cJSON_IsString(it) || !ident(it->valuestring))
			return ks_error_set(KS_EINVALID, "python.made_by_entry[%zu]: must be the name of an "
							 "input tensor", e->nmade);
		for (i = 0; i < e->nmade; i++)
			if (!strcmp(e->made_by_entry[i], it->valuestring))
				return ks_error_set(KS_EINVALID, "python.made_by_entry: %s is listed twice",
						    it->valuestring);
		e->made_by_entry[e->nmade++] = ks_strdup(it->valuestring);
	}
	return 0;
}

static int parse_section(ks_python_entry *e, const cJSON *v)
{
	static const char *const keys[] = { "entry", "args", "kwargs", "returns", "made_by_entry", "note" };
	const cJSON *it;
	size_t k;
	int rc;
	if (!cJSON_IsObject(v))
		return ks_error_set(KS_EINVALID, "python: must be an object");
	cJSON_ArrayForEach(it, v)
	{
		for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
			if (!strcmp(it->string, keys[k]))
				break;
		if (k == sizeof(keys) / sizeof(keys[0]))
			return ks_error_set(KS_EINVALID, "python: unknown field \"%.80s\" (known: entry, args, "
							 "kwargs, returns, made_by_entry, note)", it->string);
	}
	it = cJSON_GetObjectItemCaseSensitive(v, "entry");
	if (!cJSON_IsString(it) || !py_ident(it->valuestring))
		return ks_error_set(KS_EINVALID, "python.entry: must be the entry function's name, a Python "
						 "identifier of at most %d characters", KS_PYENTRY_MAX_NAME);
	e->entry = ks_strdup(it->valuestring);
	if ((rc = parse_args(e, cJSON_GetObjectItemCaseSensitive(v, "args"))) < 0)
		return rc;
	it = cJSON_GetObjectItemCaseSensitive(v, "kwargs");
	if (it && (rc = parse_kwargs(e, it)) < 0)
		return rc;
	it = cJSON_GetObjectItemCaseSensitive(v, "returns");
	if (!it)
		return ks_error_set(KS_EINVALID, "python.returns: missing (the output the entry returns, or "
						 "null when it writes its outputs in place)");
	if (cJSON_IsString(it) && ident(it->valuestring))
		e->returns = ks_strdup(it->valuestring);
	else if (!cJSON_IsNull(it))
		return ks_error_set(KS_EINVALID, "python.returns: must be the name of an output, or null");
	it = cJSON_GetObjectItemCaseSensitive(v, "made_by_entry");
	if (it && (rc = parse_made(e, it)) < 0)
		return rc;
	it = cJSON_GetObjectItemCaseSensitive(v, "note");
	if (it) {
		if (!cJSON_IsString(it))
			return ks_error_set(KS_EINVALID, "python.note: must be a string");
		if (strlen(it->valuestring) > KS_PYENTRY_MAX_NOTE)
			return ks_error_set(KS_ELIMIT, "python.note: longer than %d bytes", KS_PYENTRY_MAX_NOTE);
		e->note = ks_strdup(it->valuestring);
	}
	return 0;
}

int ks_pyentry_parse(ks_python_entry *e, const cJSON *v)
{
	int rc;
	memset(e, 0, sizeof(*e));
	if ((rc = parse_section(e, v)) < 0)
		ks_pyentry_clear(e);
	return rc;
}

static void pyarg_clear(ks_pyarg *a)
{
	ks_free(a->key);
	ks_free(a->ref);
	ks_free(a->json);
}

void ks_pyentry_clear(ks_python_entry *e)
{
	size_t i;
	for (i = 0; i < e->nargs; i++)
		pyarg_clear(&e->args[i]);
	for (i = 0; i < e->nkwargs; i++)
		pyarg_clear(&e->kwargs[i]);
	ks_free(e->args);
	ks_free(e->kwargs);
	ks_free(e->entry);
	ks_free(e->returns);
	ks_free_strv(e->made_by_entry, e->nmade);
	ks_free(e->note);
	memset(e, 0, sizeof(*e));
}

static cJSON *arg_json(const ks_pyarg *a)
{
	cJSON *o, *c;
	if (a->kind == KS_PYARG_NAME)
		return cJSON_CreateString(a->ref);
	o = cJSON_CreateObject();
	/* the text was printed by cJSON from a literal at load time: it parses */
	c = cJSON_Parse(a->json);
	cJSON_AddItemToObject(o, "const", c ? c : cJSON_CreateNull());
	return o;
}

cJSON *ks_pyentry_json(const ks_python_entry *e)
{
	cJSON *o, *a, *k;
	size_t i;
	if (!e->entry)
		return NULL;
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "name", e->entry);
	a = cJSON_AddArrayToObject(o, "args");
	for (i = 0; i < e->nargs; i++)
		cJSON_AddItemToArray(a, arg_json(&e->args[i]));
	k = cJSON_AddObjectToObject(o, "kwargs");
	for (i = 0; i < e->nkwargs; i++)
		cJSON_AddItemToObject(k, e->kwargs[i].key, arg_json(&e->kwargs[i]));
	if (e->returns)
		cJSON_AddStringToObject(o, "returns", e->returns);
	else
		cJSON_AddNullToObject(o, "returns");
	a = cJSON_AddArrayToObject(o, "made_by_entry");
	for (i = 0; i < e->nmade; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(e->made_by_entry[i]));
	return o;
}

char *ks_pyentry_literal(const char *json)
{
	if (!strcmp(json, "true"))
		return ks_strdup("True");
	if (!strcmp(json, "false"))
		return ks_strdup("False");
	if (!strcmp(json, "null"))
		return ks_strdup("None");
	return ks_strdup(json);
}

static void put_arg(ks_buf *b, const ks_pyarg *a)
{
	char *lit;
	if (a->key)
		ks_buf_printf(b, "%s=", a->key);
	if (a->kind == KS_PYARG_NAME) {
		ks_buf_puts(b, a->ref);
		return;
	}
	lit = ks_pyentry_literal(a->json);
	ks_buf_puts(b, lit);
	ks_free(lit);
}

char *ks_pyentry_call_text(const ks_python_entry *e)
{
	/* bounded by the caps: 65 arguments of at most 64 + 1 + 256 characters */
	ks_buf b = KS_BUF_INIT(64u << 10);
	size_t i;
	if (!e->entry)
		return NULL;
	ks_buf_printf(&b, "%s(", e->entry);
	for (i = 0; i < e->nargs + e->nkwargs; i++) {
		if (i)
			ks_buf_puts(&b, ", ");
		put_arg(&b, i < e->nargs ? &e->args[i] : &e->kwargs[i - e->nargs]);
	}
	ks_buf_puts(&b, ")");
	return ks_buf_take(&b, NULL);
}
