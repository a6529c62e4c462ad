/* The Triton front-end's mapping on traces recorded on a GPU host (tests/fixtures/triton/: each
 * answer, the request the helper got and its real response, CUBINs included; recorded by
 * tests/triton/fixtures.py). No GPU and no torch are needed: every response is read, every case of
 * an `ok` trace becomes a plan, and each plan's parameters are checked against the parameter lists
 * the recorded CUBINs hold (the check a GPU worker makes at load time); the attacks read as their
 * verdicts. The requests' cases are a few small ones, so each problem's cases are replaced by them:
 * their dimensions are read back from the request and checked by building the same request again. */
#include "ktest.h"
#include "lang/cubin.h"
#include "lang/triton/trace.h"
#include "util/errors.h"
#include "util/fsutil.h"
#include "util/jsonutil.h"
#include "util/mem.h"

#include <stdio.h>
#include <string.h>

static cJSON *read_json(const char *name, const char *kind)
{
	char path[512], *text = NULL;
	size_t n = 0;
	cJSON *j = NULL;
	snprintf(path, sizeof(path), "tests/fixtures/triton/%s.%s.json", name, kind);
	KT_ASSERT_MSG(ks_fs_read(&text, &n, path, 64u << 20) == 0, "cannot read %s", path);
	KT_ASSERT_MSG(ks_json_parse(&j, text, n, 64, path) == 0, "%s: %s", path, ks_error_msg());
	ks_free(text);
	return j;
}

static int is_dim(const ks_problem *p, const char *e, size_t *d)
{
	for (*d = 0; *d < p->ndims; (*d)++)
		if (!strcmp(p->dims[*d], e))
			return 1;
	return 0;
}

/* The cases of the request, as cases of p: a dimension is the value of a scalar or the extent of a
 * tensor whose expression is that dimension alone; one named nowhere is 1. */
static ks_case *cases_of(const ks_problem *p, const cJSON *req, size_t *n)
{
	const cJSON *cases = cJSON_GetObjectItem(req, "cases"), *c;
	ks_case *out = ks_calloc((size_t)cJSON_GetArraySize(cases) + 1, sizeof(ks_case));
	*n = 0;
	cJSON_ArrayForEach(c, cases)
	{
		ks_case *k = &out[(*n)++];
		int64_t *v = ks_calloc(p->ndims + 1, sizeof(int64_t));
		size_t a, d, s = 0, t = 0, i;
		for (d = 0; d < p->ndims; d++)
			v[d] = 1;
		for (a = 0; a < p->nargs; a++) {
			const ks_arg *g = &p->args[a];
			if (g->role == KS_ROLE_SCALAR) {
				const cJSON *sv = cJSON_GetArrayItem(cJSON_GetObjectItem(c, "scalars"), (int)s++);
				if (g->value && is_dim(p, g->value, &d))
					v[d] = (int64_t)cJSON_GetObjectItem(sv, "value")->valuedouble;
				continue;
			}
			{
				const cJSON *tv = cJSON_GetArrayItem(cJSON_GetObjectItem(c, "tensors"), (int)t++),
					    *sh = cJSON_GetObjectItem(tv, "shape");
				for (i = 0; i < g->ndim; i++)
					if (is_dim(p, g->shape[i], &d))
						v[d] = (int64_t)cJSON_GetArrayItem(sh, (int)i)->valuedouble;
			}
		}
		k->label = ks_strdup(cJSON_GetObjectItem(c, "label")->valuestring);
		k->seeds = 2;
		k->dims = ks_calloc(p->ndims + 1, sizeof(char *));
		for (d = 0; d < p->ndims; d++)
			k->dims[d] = ks_asprintf("%lld", (long long)v[d]);
		k->dist = ks_calloc(p->nargs + 1, sizeof(ks_dist));
		ks_free(v);
	}
	return out;
}

static void free_cases(ks_case *c, size_t n, size_t ndims)
{
	size_t i;
	for (i = 0; i < n; i++) {
		ks_free(c[i].label);
		ks_free_strv(c[i].dims, ndims);
		ks_free(c[i].dist);
	}
	ks_free(c);
}

/* The shapes and scalar values of two requests' cases agree. */
static void same_cases(const cJSON *a, const cJSON *b)
{
	const cJSON *ca = cJSON_GetObjectItem(a, "cases"), *cb = cJSON_GetObjectItem(b, "cases");
	int i;
	KT_EQ_INT(cJSON_GetArraySize(ca), cJSON_GetArraySize(cb));
	for (i = 0; i < cJSON_GetArraySize(ca); i++) {
		char *sa = ks_json_print(cJSON_GetObjectItem(cJSON_GetArrayItem(ca, i), "scalars"), 0);
		char *sb = ks_json_print(cJSON_GetObjectItem(cJSON_GetArrayItem(cb, i), "scalars"), 0);
		const cJSON *ta = cJSON_GetObjectItem(cJSON_GetArrayItem(ca, i), "tensors"),
			    *tb = cJSON_GetObjectItem(cJSON_GetArrayItem(cb, i), "tensors");
		int t;
		KT_ASSERT_MSG(!strcmp(sa, sb), "case %d: scalars %s, recorded %s", i, sa, sb);
		for (t = 0; t < cJSON_GetArraySize(ta); t++) {
			char *xa = ks_json_print(cJSON_GetObjectItem(cJSON_GetArrayItem(ta, t), "shape"), 0);
			char *xb = ks_json_print(cJSON_GetObjectItem(cJSON_GetArrayItem(tb, t), "shape"), 0);
			KT_ASSERT_MSG(!strcmp(xa, xb), "case %d tensor %d: %s, recorded %s", i, t, xa, xb);
			ks_free(xa);
			ks_free(xb);
		}
		ks_free(sa);
		ks_free(sb);
	}
}

/* Reads fixture `name` (problem `problem`) and checks its verdict; for an ok trace, every case's
 * plan against the CUBINs. Returns the number of plans checked. */
static size_t replay(const char *name, const char *problem, const char *status, const char *want)
{
	ks_problem_set *s = NULL;
	ks_problem *p;
	cJSON *req = read_json(name, "request"), *resp = read_json(name, "response"), *again = NULL, *entry;
	ks_case *cases, *saved;
	size_t n, nsaved, nperf, i, checked = 0;
	ks_trace t;

	KT_EQ_INT(ks_problem_set_load(&s, "reference_tests", "hackathon"), 0);
	p = (ks_problem *)ks_problem_set_find(s, problem);
	KT_ASSERT_MSG(p != NULL, "no problem %s", problem);
	cases = cases_of(p, req, &n);
	saved = p->correctness;
	nsaved = p->ncorrectness;
	nperf = p->nperf;
	p->correctness = cases;
	p->ncorrectness = n;
	p->nperf = 0;
	entry = ks_problem_python_json(p);
	KT_ASSERT(entry != NULL);
	KT_EQ_INT(ks_trace_request(&again, p, entry, "", 0, 60, 1, NULL), 0);
	same_cases(again, req);

	KT_EQ_INT(ks_trace_read(&t, resp, p, NULL), 0);
	KT_ASSERT_MSG(!strcmp(ks_trace_status_name(t.status), status), "%s: %s (%s), expected %s", name,
		      ks_trace_status_name(t.status), t.message ? t.message : "", status);
	if (want)
		KT_ASSERT_MSG(t.message && strstr(t.message, want), "%s: message %s", name, t.message);
	if (t.status == KS_TRACE_OK) {
		void *blob = NULL;
		char **names = NULL, *detail = NULL;
		size_t len = 0, nn = 0;
		KT_ASSERT(t.versions && strstr(t.versions, "triton 3.6"));
		KT_EQ_INT(ks_trace_image(&blob, &len, &names, &nn, &t), 0);
		for (i = 0; i < n; i++) {
			ks_env env = KS_ENV_INIT;
			ks_plan plan;
			KT_EQ_INT(ks_problem_env(&env, p, &p->correctness[i]), 0);
			KT_ASSERT_MSG(ks_trace_plan(&plan, &t, p, 0, i, &env, 7, 0, NULL) == 0, "%s case %zu: %s", name,
				      i, ks_error_msg());
			KT_ASSERT(plan.nkernels >= 1 || plan.nsteps >= 1);
			KT_ASSERT_MSG(ks_cubin_check_plan(&detail, blob, len, names, nn, &plan) == 0, "%s case %zu: %s",
				      name, i, detail ? detail : "");
			checked++;
			ks_plan_clear(&plan);
			ks_env_free(&env);
		}
		ks_free(blob);
		ks_free_strv(names, nn);
	}
	ks_trace_clear(&t);
	cJSON_Delete(entry);
	cJSON_Delete(again);
	cJSON_Delete(req);
	cJSON_Delete(resp);
	p->correctness = saved;
	p->ncorrectness = nsaved;
	p->nperf = nperf;
	free_cases(cases, n, p->ndims);
	ks_problem_set_free(s);
	return checked;
}

static void test_recorded_traces_become_plans_their_cubins_accept(void)
{
	static const char *const ok[] = { "sin_kernel", "matrix_vector_multip", "triton_matmul", "rotary_transform",
					  "l2_norm_triton1", "matrix_transpose", "embedding_triton_kernel" };
	size_t i;
	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		KT_ASSERT_MSG(replay(ok[i], ok[i], "ok", NULL) >= 2, "%s: fewer than two cases replayed", ok[i]);
}

static void test_recorded_attacks_read_as_their_verdicts(void)
{
	replay("attack_torch_fallback", "sin_kernel", "host_op", "aten.sin");
	replay("attack_forbidden_import", "sin_kernel", "refused", "import");
	replay("attack_toplevel_call", "sin_kernel", "refused", NULL);
	replay("attack_result_cache", "sin_kernel", "untraceable", NULL);
	replay("attack_skip_after_first", "sin_kernel", "untraceable", NULL);
	replay("attack_other_stream", "sin_kernel", "refused", NULL);
	/* the only kernel touches a scratch element; the output is kscore's strided copy of the input */
	replay("attack_copy_transpose", "matrix_transpose", "host_op", "step 3: the wrapper's copy");
}

static const kt_test tests[] = {
	KT(test_recorded_traces_become_plans_their_cubins_accept),
	KT(test_recorded_attacks_read_as_their_verdicts),
	{ 0 }
};

KT_MAIN("trace_fixtures", tests)
