#include "refs/setcases.h"
#include "util/buf.h"
#include "util/errors.h"
#include "util/jsonutil.h"
#include "util/linechild.h"
#include "util/mem.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define TEXT_CAP (8u << 20) /* the listing of a whole set */
#define CALL_CAP 160        /* one call as the listing shows it */

static cJSON *int_array(const int64_t *v, size_t n)
{
	cJSON *a = cJSON_CreateArray();
	size_t i;
	for (i = 0; i < n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateNumber((double)v[i]));
	return a;
}

static const char *kind_name(ks_oval_kind k)
{
	static const char *const names[] = { "none", "tensor", "int", "float", "bool", "str", "dtype",
					     "tuple", "list", "dict", "other" };
	return (size_t)k < sizeof(names) / sizeof(names[0]) ? names[k] : "other";
}

static cJSON *value_json(const ks_oval *v)
{
	cJSON *o = cJSON_CreateObject(), *items;
	size_t i;
	ks_json_add_str(o, "kind", kind_name(v->kind));
	switch (v->kind) {
	case KS_OVAL_TENSOR:
		ks_json_add_str(o, "path", v->path);
		cJSON_AddItemToObject(o, "shape", int_array(v->shape, v->ndim));
		ks_json_add_str(o, "dtype", v->dtype);
		if (!v->contiguous || v->offset) {
			cJSON_AddItemToObject(o, "strides", int_array(v->strides, v->ndim));
			ks_json_add_num(o, "offset", (double)v->offset);
		}
		break;
	case KS_OVAL_INT:
		if (v->sval)
			ks_json_add_str(o, "value", v->sval);
		else
			ks_json_add_num(o, "value", (double)v->ival);
		break;
	case KS_OVAL_BOOL:
		cJSON_AddBoolToObject(o, "value", v->ival != 0);
		break;
	case KS_OVAL_FLOAT:
		if (isfinite(v->fval))
			ks_json_add_num(o, "value", v->fval);
		else
			ks_json_add_str(o, "value", isnan(v->fval) ? "nan" : v->fval > 0 ? "inf" : "-inf");
		break;
	case KS_OVAL_STR:
	case KS_OVAL_OTHER:
		ks_json_add_str(o, v->kind == KS_OVAL_STR ? "value" : "type", v->sval);
		break;
	case KS_OVAL_DTYPE:
		ks_json_add_str(o, "value", v->dtype);
		break;
	case KS_OVAL_TUPLE:
	case KS_OVAL_LIST:
	case KS_OVAL_DICT:
		items = v->kind == KS_OVAL_DICT ? cJSON_AddObjectToObject(o, "items") : cJSON_AddArrayToObject(o, "items");
		for (i = 0; i < v->nitems; i++) {
			if (v->kind == KS_OVAL_DICT)
				cJSON_AddItemToObject(items, v->items[i].key, value_json(&v->items[i]));
			else
				cJSON_AddItemToArray(items, value_json(&v->items[i]));
		}
		break;
	default:
		break;
	}
	return o;
}

static cJSON *case_json(const ks_oracle_case *c)
{
	cJSON *o = cJSON_CreateObject(), *a, *w;
	size_t i;
	ks_json_add_num(o, "index", (double)c->index);
	ks_json_add_str(o, "kind", c->perf ? "perf" : "correctness");
	ks_json_add_str(o, "entry", c->entry);
	a = cJSON_AddArrayToObject(o, "args");
	for (i = 0; i < c->nargs; i++)
		cJSON_AddItemToArray(a, value_json(&c->args[i]));
	a = cJSON_AddObjectToObject(o, "kwargs");
	for (i = 0; i < c->nkwargs; i++)
		cJSON_AddItemToObject(a, c->kwargs[i].key, value_json(&c->kwargs[i]));
	cJSON_AddItemToObject(o, "returns", value_json(&c->ret));
	w = cJSON_AddArrayToObject(o, "writes");
	for (i = 0; i < c->nwrites; i++)
		cJSON_AddItemToArray(w, cJSON_CreateString(c->writes[i]));
	return o;
}

/* 1 when the comma-separated list names name. */
static int listed(const char *list, const char *name)
{
	size_t n = strlen(name);
	const char *p = list;
	while (p && *p) {
		if (!strncmp(p, name, n) && (p[n] == ',' || p[n] == 0))
			return 1;
		p = strchr(p, ',');
		p = p ? p + 1 : NULL;
	}
	return 0;
}

/* Every name of the list is a problem of src; else KS_EINVALID naming the first that is not. */
static int check_only(const ks_problem_source *src, const char *only)
{
	char *dup = ks_strdup(only), *tok, *save = NULL;
	int rc = 0;
	for (tok = strtok_r(dup, ",", &save); tok && rc == 0; tok = strtok_r(NULL, ",", &save))
		if (!ks_set_find(src, tok))
			rc = ks_error_set(KS_EINVALID, "--only: %s is not a problem of %s", tok, src->root);
	ks_free(dup);
	return rc;
}

/* The first words of a reason, up to its first ':' or 60 bytes: what groups failures alike
 * ("its test code raised RuntimeError", "case 0"). */
static char *reason_group(const char *reason)
{
	size_t n;
	if (!strncmp(reason, "case ", 5) && strspn(reason + 5, "0123456789") && strstr(reason, ": "))
		reason = strstr(reason, ": ") + 2; /* "case 3: x returned ..." groups with "case 0: x returned ..." */
	n = strcspn(reason, ":(");
	while (n && reason[n - 1] == ' ')
		n--;
	return ks_strndup(reason, n > 60 ? 60 : n);
}

static void add_problem(cJSON *ps, cJSON *groups, size_t *with, const ks_problem_source *src,
			const ks_set_problem *sp, const ks_oracle_reply *r, double wall)
{
	cJSON *e = cJSON_CreateObject(), *a;
	ks_problem *p = NULL;
	ks_oracle_refusal *ref = NULL;
	size_t i, nref = 0;
	ks_json_add_str(e, "name", sp->name);
	ks_json_add_str(e, "file", sp->path);
	ks_json_add_str(e, "status", ks_oracle_status_name(r->status));
	ks_json_add_num(e, "seconds", round(wall * 1000) / 1000);
	ks_json_add_num(e, "run_seconds", r->seconds);
	cJSON_AddBoolToObject(e, "confined", r->landlock);
	if (r->confinement)
		ks_json_add_str(e, "confinement", r->confinement);
	if (r->status == KS_ORACLE_OK && ks_oracle_problem(&p, &ref, &nref, sp, src->format, r) < 0)
		ks_error_clear();
	ks_json_add_num(e, "correctness", p ? (double)p->ncorrectness : 0);
	ks_json_add_num(e, "perf", p ? (double)p->nperf : 0);
	if (r->status != KS_ORACLE_OK || !p) {
		char *why = r->status != KS_ORACLE_OK ? ks_strdup(r->reason ? r->reason : "")
				: ks_asprintf("kscore's problem model holds none of its %zu cases: %s", r->ncases,
					      nref ? ref[0].reason : "none was made");
		char *g = reason_group(why);
		cJSON *n = cJSON_GetObjectItemCaseSensitive(groups, g);
		ks_json_add_str(e, "reason", why);
		if (n)
			cJSON_SetNumberValue(n, n->valuedouble + 1);
		else
			ks_json_add_num(groups, g, 1);
		ks_free(g);
		ks_free(why);
	} else {
		++*with;
	}
	a = cJSON_AddArrayToObject(e, "notes");
	for (i = 0; i < r->nnotes; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(r->notes[i]));
	a = cJSON_AddArrayToObject(e, "cases");
	for (i = 0; i < r->ncases; i++)
		cJSON_AddItemToArray(a, case_json(&r->cases[i]));
	a = cJSON_AddArrayToObject(e, "refused");
	for (i = 0; i < nref; i++) {
		cJSON *x = cJSON_CreateObject();
		ks_json_add_num(x, "index", (double)ref[i].index);
		ks_json_add_str(x, "reason", ref[i].reason);
		cJSON_AddItemToArray(a, x);
	}
	if (r->output)
		ks_json_add_str(e, "output", r->output);
	cJSON_AddItemToArray(ps, e);
	ks_problem_free(p);
	ks_oracle_refusals_free(ref, nref);
}

int ks_setcases_run(cJSON **out, const ks_problem_source *src, const ks_setcases_options *o)
{
	ks_oracle *orc = NULL;
	cJSON *res = NULL, *ps, *groups, *sum;
	char *versions = NULL;
	size_t i, run = 0, with = 0;
	int rc, no_torch = 0;
	*out = NULL;
	if (o->only && (rc = check_only(src, o->only)) < 0)
		return rc;
	if ((rc = ks_oracle_start(&orc, &o->oracle)) < 0)
		return rc;
	res = cJSON_CreateObject();
	ks_json_add_str(res, "schema", "kscore.problem-cases/1");
	ks_json_add_str(res, "format", ks_set_format_name(src->format));
	ks_json_add_str(res, "root", src->root);
	ks_json_add_num(res, "seed", (double)(o->seed & ((UINT64_C(1) << 53) - 1)));
	versions = ks_oracle_versions(orc, &no_torch);
	if (versions) {
		cJSON *v = NULL;
		if (ks_json_parse(&v, versions, strlen(versions), 4, "versions") == 0)
			cJSON_AddItemToObject(res, "versions", v);
	}
	if (!versions || no_torch)
		ks_json_add_str(res, "unavailable", ks_error_msg());
	ks_error_clear();
	groups = cJSON_CreateObject();
	ps = cJSON_AddArrayToObject(res, "problems");
	for (i = 0; i < src->n; i++) {
		ks_oracle_reply r;
		double t0;
		if (o->only && !listed(o->only, src->problems[i].name))
			continue;
		t0 = ks_linechild_now();
		ks_oracle_cases(orc, &r, src->format, &src->problems[i], o->seed);
		ks_error_clear();
		add_problem(ps, groups, &with, src, &src->problems[i], &r, ks_linechild_now() - t0);
		ks_oracle_reply_clear(&r);
		run++;
	}
	sum = cJSON_AddObjectToObject(res, "summary");
	ks_json_add_num(sum, "problems", (double)run);
	ks_json_add_num(sum, "with_cases", (double)with);
	ks_json_add_num(sum, "without", (double)(run - with));
	cJSON_AddItemToObject(sum, "reasons", groups);
	ks_free(versions);
	ks_oracle_free(orc);
	*out = res;
	return 0;
}

static void put_value(ks_buf *b, const cJSON *v)
{
	const char *kind = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(v, "kind"));
	const cJSON *it;
	int first = 1;
	if (!kind)
		return;
	if (!strcmp(kind, "tensor")) {
		ks_buf_printf(b, "%s[", cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(v, "dtype")));
		cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(v, "shape")) {
			ks_buf_printf(b, "%s%.0f", first ? "" : ",", it->valuedouble);
			first = 0;
		}
		ks_buf_puts(b, cJSON_GetObjectItemCaseSensitive(v, "strides") ? "]*" : "]");
	} else if (!strcmp(kind, "tuple") || !strcmp(kind, "list") || !strcmp(kind, "dict")) {
		ks_buf_puts(b, kind[0] == 'l' ? "[" : "(");
		cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(v, "items")) {
			ks_buf_puts(b, first ? "" : ", ");
			put_value(b, it);
			first = 0;
		}
		ks_buf_puts(b, kind[0] == 'l' ? "]" : ")");
	} else if ((it = cJSON_GetObjectItemCaseSensitive(v, "value")) && cJSON_IsNumber(it)) {
		ks_buf_printf(b, "%g", it->valuedouble);
	} else if (it && cJSON_IsString(it)) {
		ks_buf_printf(b, "%.20s", it->valuestring);
	} else {
		ks_buf_puts(b, kind);
	}
}

/* entry(args, key=value) -> returns, cut to CALL_CAP bytes. */
static char *call_text(const cJSON *c)
{
	ks_buf b = KS_BUF_INIT(1u << 20);
	const cJSON *it;
	char *s;
	int first = 1;
	ks_buf_printf(&b, "%s(", cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(c, "entry")));
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(c, "args")) {
		ks_buf_puts(&b, first ? "" : ", ");
		put_value(&b, it);
		first = 0;
	}
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(c, "kwargs")) {
		ks_buf_printf(&b, "%s%s=", first ? "" : ", ", it->string);
		put_value(&b, it);
		first = 0;
	}
	ks_buf_puts(&b, ") -> ");
	put_value(&b, cJSON_GetObjectItemCaseSensitive(c, "returns"));
	if (cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(c, "writes")) > 0)
		ks_buf_puts(&b, ", writes its arguments");
	s = ks_buf_take(&b, NULL);
	if (strlen(s) > CALL_CAP)
		strcpy(s + CALL_CAP - 3, "...");
	ks_buf_free(&b);
	return s;
}

char *ks_setcases_text(const cJSON *res)
{
	ks_buf b = KS_BUF_INIT(TEXT_CAP);
	const cJSON *p, *sum = cJSON_GetObjectItemCaseSensitive(res, "summary"), *g;
	const char *un = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(res, "unavailable"));
	char *s;
	if (un)
		ks_buf_printf(&b, "oracle unavailable: %s\n", un);
	ks_buf_printf(&b, "%-36s %-8s %5s %5s %7s  %s\n", "problem", "status", "cases", "perf", "seconds",
		      "first case, or why there is none");
	cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(res, "problems")) {
		const char *reason = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(p, "reason"));
		const cJSON *cases = cJSON_GetObjectItemCaseSensitive(p, "cases");
		int nref = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(p, "refused"));
		char *call = !reason && cJSON_GetArraySize(cases) > 0 ? call_text(cJSON_GetArrayItem(cases, 0)) : NULL;
		ks_buf_printf(&b, "%-36s %-8s %5.0f %5.0f %7.2f  %s", cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(p, "name")),
			      cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(p, "status")),
			      ks_json_num_or(p, "correctness", 0), ks_json_num_or(p, "perf", 0),
			      ks_json_num_or(p, "seconds", 0), reason ? reason : call ? call : "");
		if (!reason && nref)
			ks_buf_printf(&b, " (%d of %d cases refused: %s)", nref, cJSON_GetArraySize(cases),
				      cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
					      cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(p, "refused"), 0), "reason")));
		ks_buf_puts(&b, "\n");
		ks_free(call);
	}
	ks_buf_printf(&b, "%.0f problems: %.0f with cases, %.0f without\n", ks_json_num_or(sum, "problems", 0),
		      ks_json_num_or(sum, "with_cases", 0), ks_json_num_or(sum, "without", 0));
	cJSON_ArrayForEach(g, cJSON_GetObjectItemCaseSensitive(sum, "reasons"))
		ks_buf_printf(&b, "  %4.0f  %s\n", g->valuedouble, g->string);
	s = ks_buf_take(&b, NULL);
	ks_buf_free(&b);
	ks_error_clear(); /* a listing over the cap is cut, not failed */
	return s;
}
