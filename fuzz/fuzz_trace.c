/* fuzz_trace: the Triton helper's response to a trace request (lang/triton/trace.c). The response
 * comes from a process that ran a submission's Python, so it is untrusted input. The first byte
 * picks one of the hackathon problems (in name order); the rest is the response. The problem keeps
 * as many correctness cases as the response holds (the recorded seeds hold two or three) and no
 * perf case. Contract: the reader never fails as a whole; a trace that is not OK says why; an OK
 * trace gives an image and, per case, a plan or an error with a message, every plan's steps inside
 * their buffers and surviving the trip to a GPU worker. */
#include "fuzz.h"
#include "lang/triton/trace.h"
#include "load/problem.h"
#include "util/jsonutil.h"
#include "util/utf8.h"

static ks_problem_set *set;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char *root = ks_asprintf("%s/reference_tests", fz_root());
	(void)argc;
	(void)argv;
	if (ks_problem_set_load(&set, root, "hackathon") < 0 || !set->n) {
		fprintf(stderr, "fuzz_trace: %s: %s\n", root, set ? "no problem" : ks_error_msg());
		exit(1);
	}
	ks_free(root);
	return 0;
}

static void check_plan(const ks_trace *t, ks_problem *p, size_t ci)
{
	ks_env env = KS_ENV_INIT;
	ks_plan plan, back;
	cJSON *j;
	size_t s;
	FZ_CHECK(ks_problem_env(&env, p, &p->correctness[ci]) == 0, "a validated case fails: %s", ks_error_msg());
	if (ks_trace_plan(&plan, t, p, 0, ci, &env, 5, (int)(ci & 1), NULL) < 0) {
		FZ_CHECK(*ks_error_msg(), "a plan refused without a message");
		ks_error_clear();
		ks_env_free(&env);
		return;
	}
	for (s = 0; s < plan.nsteps; s++)
		FZ_CHECK(ks_plan_step_check(&plan.steps[s], s, &plan) == 0, "step %zu: %s", s, ks_error_msg());
	j = ks_plan_to_json(&plan);
	FZ_CHECK(ks_plan_from_json(&back, j) == 0, "a built plan does not survive JSON: %s", ks_error_msg());
	FZ_CHECK(back.nsteps == plan.nsteps && back.nkernels == plan.nkernels && back.nbufs == plan.nbufs,
		 "the plan changed on its way to the worker");
	ks_plan_clear(&back);
	cJSON_Delete(j);
	ks_plan_clear(&plan);
	ks_env_free(&env);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ks_problem *p;
	cJSON *resp = NULL;
	const cJSON *cases;
	size_t nc, np, keep, ci;
	ks_trace t;

	if (size < 2)
		return 0;
	p = set->problems[data[0] % set->n];
	if (ks_json_parse(&resp, (const char *)data + 1, size - 1, 64, "response") < 0) {
		ks_error_clear();
		return 0;
	}
	cases = cJSON_GetObjectItemCaseSensitive(resp, "cases");
	nc = p->ncorrectness;
	np = p->nperf;
	keep = cJSON_IsArray(cases) ? (size_t)cJSON_GetArraySize(cases) : 0;
	p->ncorrectness = keep && keep < nc ? keep : nc;
	p->nperf = 0;
	FZ_CHECK(ks_trace_read(&t, resp, p, NULL) == 0, "the reader failed as a whole");
	FZ_CHECK(t.status <= KS_TRACE_BROKEN, "status %d", (int)t.status);
	if (t.status != KS_TRACE_OK) {
		FZ_CHECK(t.message && *t.message, "a %s trace without a message", ks_trace_status_name(t.status));
		FZ_CHECK(ks_utf8_valid(t.message, strlen(t.message), NULL), "a message that is not UTF-8");
	} else {
		void *blob = NULL;
		char **names = NULL;
		size_t len = 0, nn = 0;
		FZ_CHECK(t.nkernels >= 1, "an OK trace without kernels");
		FZ_CHECK(ks_trace_image(&blob, &len, &names, &nn, &t) == 0, "no image: %s", ks_error_msg());
		FZ_CHECK(nn == t.nkernels && len > 0, "an image of %zu names for %zu kernels", nn, t.nkernels);
		ks_free(blob);
		ks_free_strv(names, nn);
		for (ci = 0; ci < p->ncorrectness; ci++)
			check_plan(&t, p, ci);
	}
	ks_trace_clear(&t);
	p->ncorrectness = nc;
	p->nperf = np;
	cJSON_Delete(resp);
	ks_error_clear();
	return 0;
}
