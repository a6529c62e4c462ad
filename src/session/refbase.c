/* refbase: see refbase.h. */
#include "session/refbase.h"
#include "load/sets/set.h"
#include "util/buf.h"
#include "util/errors.h"
#include "util/jsonutil.h"
#include "util/mem.h"

#include <stdio.h>
#include <string.h>

/* What a reference left for one problem. */
typedef struct {
	char *problem;
	int timed;             /* it passed its checks and every perf case was timed */
	char *why;             /* !timed: its verdict, for the answers' records */
	double *ms;            /* per perf case index of the problem; 0: none */
	size_t nms;
} ref_problem;

struct ks_refbase {
	char *dir;
	ref_problem *p;
	size_t n;
	char *missing;
	char *describe;
};

static int named(const char *name, const char *const *only, size_t nonly)
{
	size_t i;
	for (i = 0; i < nonly; i++)
		if (only[i] && !strcmp(only[i], name))
			return 1;
	return nonly == 0;
}

int ks_refbase_submission(ks_submission **out, char **missing, const ks_problem_set *ps, const char *dir,
			  const char *const *only, size_t nonly)
{
	ks_problem_source *src = NULL;
	ks_submission *sub = NULL;
	cJSON *arr = NULL;
	ks_buf miss = KS_BUF_INIT(1 << 16);
	char *text = NULL;
	size_t i, found = 0;
	int rc;

	*out = NULL;
	*missing = NULL;
	if ((rc = ks_set_read(&src, dir, NULL)) < 0) {
		ks_error_wrap(rc, "--baseline reference=%s", dir);
		goto done;
	}
	if (src->format != KS_SET_TRITONBENCH_G) {
		rc = ks_error_set(KS_EINVALID, "--baseline reference=%s: a %s set, not a folder of TritonBench-G "
				  "reference implementations", dir, ks_set_format_name(src->format));
		goto done;
	}
	arr = cJSON_CreateArray();
	for (i = 0; i < ps->n; i++) {
		const ks_problem *p = ps->problems[i];
		const ks_set_problem *sp = ks_set_find(src, p->name);
		cJSON *e;
		if (!named(p->name, only, nonly))
			continue;
		if (!sp || !sp->reference) {
			ks_buf_printf(&miss, "%s%s", miss.len ? ", " : "", p->name);
			continue;
		}
		/* a GEAK entry, as GEAK-eval would see the reference: the file named for the problem */
		e = cJSON_CreateObject();
		{
			char *file = ks_asprintf("%s.py", p->name);
			ks_json_add_str(e, "file", file);
			ks_free(file);
		}
		ks_json_add_str(e, "predict", sp->reference);
		cJSON_AddItemToArray(arr, e);
		found++;
	}
	if (!found) {
		rc = ks_error_set(KS_EINVALID, "--baseline reference=%s holds a reference for none of the %zu "
				  "problems %s", dir, nonly ? nonly : ps->n, nonly ? "the answers name" : "loaded");
		goto done;
	}
	text = cJSON_PrintUnformatted(arr);
	sub = ks_calloc(1, sizeof(*sub));
	sub->path = ks_strdup(dir);
	sub->passes = ks_calloc(1, sizeof(*sub->passes));
	sub->npasses = 1;
	ks_pass_parse(&sub->passes[0], dir, text, strlen(text), NULL);
	memcpy(sub->sha256, sub->passes[0].sha256, sizeof(sub->sha256));
	if (sub->passes[0].error) {
		rc = ks_error_set(KS_EINVALID, "--baseline reference=%s: %s", dir, sub->passes[0].error);
		goto done;
	}
	*out = sub;
	sub = NULL;
	*missing = miss.len ? ks_buf_take(&miss, NULL) : NULL;
	rc = 0;
done:
	ks_submission_free(sub);
	cJSON_Delete(arr);
	if (text)
		cJSON_free(text);
	ks_buf_free(&miss);
	ks_set_free(src);
	return rc;
}

ks_refbase *ks_refbase_new(const char *dir, const ks_kernel_result *r, size_t n, const char *missing)
{
	ks_refbase *b = ks_calloc(1, sizeof(*b));
	ks_buf line = KS_BUF_INIT(1 << 16);
	size_t i, k, timed = 0;

	b->dir = ks_strdup(dir);
	b->missing = missing ? ks_strdup(missing) : NULL;
	b->p = ks_calloc(n + 1, sizeof(*b->p));
	for (i = 0; i < n; i++) {
		const ks_kernel_result *x = &r[i];
		ref_problem *q;
		if (!x->problem)
			continue;
		q = &b->p[b->n++];
		q->problem = ks_strdup(x->problem);
		for (k = 0; k < x->nperf; k++)
			if (x->perf[k].case_index + 1 > q->nms)
				q->nms = x->perf[k].case_index + 1;
		q->ms = ks_calloc(q->nms + 1, sizeof(double));
		q->timed = x->exec && x->timed && !x->timing_error && x->nperf > 0;
		if (q->timed)
			for (k = 0; k < x->nperf; k++)
				q->ms[x->perf[k].case_index] = x->perf[k].ms;
		else if (x->reason != KS_REASON_OK)
			q->why = ks_asprintf("the reference failed: %s: %s", ks_reason_name(x->reason),
					     x->detail ? x->detail : "");
		else if (x->timing_error)
			q->why = ks_asprintf("the reference was not timed: %s", x->timing_error);
		else
			q->why = ks_strdup("the reference was not timed (no perf case)");
		timed += q->timed;
		if (!q->timed)
			ks_buf_printf(&line, "; %s: %.200s", q->problem, q->why);
	}
	b->describe = ks_asprintf("the reference implementations in %s: %zu of %zu timed%s%s%s", dir, timed, b->n,
				  line.len ? line.ptr : "", b->missing ? "; none for " : "",
				  b->missing ? b->missing : "");
	ks_buf_free(&line);
	return b;
}

static const ref_problem *find(const ks_refbase *b, const char *problem)
{
	size_t i;
	for (i = 0; problem && i < b->n; i++)
		if (!strcmp(b->p[i].problem, problem))
			return &b->p[i];
	return NULL;
}

void ks_refbase_apply(const ks_refbase *b, ks_kernel_result *r)
{
	const ref_problem *q = find(b, r->problem);
	size_t k, have = 0;

	r->over_reference = 1;
	ks_free(r->reference_note);
	r->reference_note = NULL;
	for (k = 0; k < r->nperf; k++) {
		size_t ci = r->perf[k].case_index;
		r->perf[k].reference_ms = q && q->timed && ci < q->nms ? q->ms[ci] : 0;
		have += r->perf[k].reference_ms > 0;
	}
	if (!q)
		r->reference_note = ks_asprintf("no reference implementation of %s in %s: no speedup over the "
						"reference", r->problem ? r->problem : "?", b->dir);
	else if (!q->timed)
		r->reference_note = ks_strdup(q->why);
	else if (have < r->nperf)
		r->reference_note = ks_asprintf("the reference has a time for %zu of the %zu perf cases: the "
						"speedup over it counts those", have, r->nperf);
}

const char *ks_refbase_describe(const ks_refbase *b)
{
	return b->describe;
}

cJSON *ks_refbase_json(const ks_refbase *b)
{
	cJSON *o = cJSON_CreateObject(), *a;
	size_t i, k;

	cJSON_AddStringToObject(o, "kind", "reference");
	ks_json_add_str(o, "dir", b->dir);
	ks_json_add_str(o, "text", b->describe);
	a = cJSON_AddArrayToObject(o, "problems");
	for (i = 0; i < b->n; i++) {
		const ref_problem *q = &b->p[i];
		cJSON *e = cJSON_CreateObject(), *ms;
		ks_json_add_str(e, "problem", q->problem);
		cJSON_AddBoolToObject(e, "timed", q->timed);
		ks_json_add_str(e, "why", q->why);
		ms = cJSON_AddArrayToObject(e, "perf_ms");
		for (k = 0; q->timed && k < q->nms; k++)
			cJSON_AddItemToArray(ms, q->ms[k] > 0 ? cJSON_CreateNumber(q->ms[k]) : cJSON_CreateNull());
		cJSON_AddItemToArray(a, e);
	}
	if (b->missing)
		ks_json_add_str(o, "missing", b->missing);
	return o;
}

void ks_refbase_free(ks_refbase *b)
{
	size_t i;
	if (!b)
		return;
	for (i = 0; i < b->n; i++) {
		ks_free(b->p[i].problem);
		ks_free(b->p[i].why);
		ks_free(b->p[i].ms);
	}
	ks_free(b->p);
	ks_free(b->dir);
	ks_free(b->missing);
	ks_free(b->describe);
	ks_free(b);
}
