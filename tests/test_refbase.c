/* refbase: the references' submission from a TritonBench-G folder, their times as each answer's
 * baseline, and the judge's speedups over them (--baseline reference). */
#include "ktest.h"
#include "judge/roofline.h"
#include "session/refbase.h"
#include "util/errors.h"
#include "util/mem.h"

#include <math.h>
#include <string.h>

static ks_problem_set *hackathon(void)
{
	ks_problem_set *s = NULL;
	KT_EQ_INT(ks_problem_set_load(&s, "reference_tests", "hackathon"), 0);
	return s;
}

static void perf_case(ks_kernel_result *r, size_t ci, double ms, double golden_ms)
{
	ks_perf_result *pc;
	r->perf = ks_realloc(r->perf, (r->nperf + 1) * sizeof(*r->perf));
	pc = &r->perf[r->nperf++];
	memset(pc, 0, sizeof(*pc));
	pc->label = ks_asprintf("case %zu", ci);
	pc->case_index = ci;
	pc->ms = ms;
	pc->golden_ms = golden_ms;
}

static void timed(ks_kernel_result *r, const char *problem)
{
	memset(r, 0, sizeof(*r));
	r->problem = ks_strdup(problem);
	r->ran = r->compiled = r->call = r->exec = r->timed = 1;
}

static void test_the_references_become_one_triton_pass(void)
{
	ks_problem_set *s = hackathon();
	ks_submission *sub = NULL;
	char *missing = NULL;
	const ks_entry *e;

	KT_EQ_INT(ks_refbase_submission(&sub, &missing, s, "tests/fixtures/refbase", NULL, 0), 0);
	KT_EQ_INT(sub->npasses, 1);
	KT_EQ_INT(sub->passes[0].nentries, 1);
	e = &sub->passes[0].entries[0];
	KT_ASSERT_MSG(!e->error, "%s", e->error);
	KT_EQ_STR(e->problem, "sin_kernel");
	KT_EQ_INT(e->language, KS_LANG_TRITON);
	/* the code above the separator, as GEAK entries carry it: no test code */
	KT_CONTAINS(e->predict, "def call_kernel(x):");
	KT_ASSERT(!strstr(e->predict, "result_gold"));
	KT_ASSERT(!strstr(e->predict, "######"));
	/* the other nine hackathon problems have no reference there: named */
	KT_CONTAINS(missing, "int4_matmul");
	KT_CONTAINS(missing, "rotary_transform");
	KT_ASSERT(!strstr(missing, "sin_kernel"));
	ks_free(missing);
	ks_submission_free(sub);
	ks_problem_set_free(s);
}

/* Only the references of the problems a run's answers name are scored: the others are no one's
 * baseline (int4_matmul's alone traces for minutes). */
static void test_only_the_named_problems_references_are_taken(void)
{
	ks_problem_set *s = hackathon();
	ks_submission *sub = NULL;
	char *missing = NULL;
	const char *one[] = { "sin_kernel" }, *none[] = { "int4_matmul", "matrix_transpose" };
	KT_EQ_INT(ks_refbase_submission(&sub, &missing, s, "tests/fixtures/refbase", one, 1), 0);
	KT_EQ_INT(sub->passes[0].nentries, 1);
	KT_ASSERT(missing == NULL); /* the problems not named are not missing: not asked for */
	ks_submission_free(sub);
	sub = NULL;
	KT_ASSERT(ks_refbase_submission(&sub, &missing, s, "tests/fixtures/refbase", none, 2) < 0);
	KT_CONTAINS(ks_error_msg(), "none of the 2 problems the answers name");
	ks_error_clear();
	ks_problem_set_free(s);
}

static void test_a_folder_without_references_is_refused(void)
{
	ks_problem_set *s = hackathon();
	ks_submission *sub = NULL;
	char *missing = NULL;
	/* a TritonBench-G folder, but none of its files is a problem loaded */
	KT_ASSERT(ks_refbase_submission(&sub, &missing, s, "tests/fixtures/sets/tritonbench-g", NULL, 0) < 0);
	KT_CONTAINS(ks_error_msg(), "none of the");
	KT_ASSERT(sub == NULL);
	KT_ASSERT(ks_refbase_submission(&sub, &missing, s, "tests/fixtures/no-such-folder", NULL, 0) < 0);
	KT_CONTAINS(ks_error_msg(), "--baseline reference=tests/fixtures/no-such-folder");
	/* kscore's own problems are no set of references */
	KT_ASSERT(ks_refbase_submission(&sub, &missing, s, "reference_tests", NULL, 0) < 0);
	ks_error_clear();
	ks_problem_set_free(s);
}

static void test_answers_are_judged_over_the_reference(void)
{
	ks_kernel_result ref[2], r;
	ks_config cfg = KS_CONFIG_INIT;
	ks_refbase *b;
	cJSON *j, *probs;

	/* the reference of sin_kernel timed on perf cases 0 and 1; matrix_transpose's failed */
	timed(&ref[0], "sin_kernel");
	perf_case(&ref[0], 0, 4.0, 1.0);
	perf_case(&ref[0], 1, 6.0, 2.0);
	timed(&ref[1], "matrix_transpose");
	ref[1].exec = ref[1].timed = 0;
	ref[1].reason = KS_REASON_TIMEOUT;
	ref[1].detail = ks_strdup("case 1 ran past its 120 s limit");
	b = ks_refbase_new("refs", ref, 2, "int4_matmul");
	KT_CONTAINS(ks_refbase_describe(b), "1 of 2 timed");
	KT_CONTAINS(ks_refbase_describe(b), "matrix_transpose: the reference failed: timeout");
	KT_CONTAINS(ks_refbase_describe(b), "none for int4_matmul");

	/* an answer twice as fast as the reference, slower than the golden kernel */
	timed(&r, "sin_kernel");
	perf_case(&r, 0, 2.0, 1.0);
	perf_case(&r, 1, 3.0, 2.0);
	ks_refbase_apply(b, &r);
	KT_ASSERT(r.over_reference);
	KT_ASSERT(r.reference_note == NULL);
	ks_judge_kernel(&r, NULL, NULL, &cfg);
	KT_NEAR(r.perf[0].speedup, 2.0, 1e-12);
	KT_NEAR(r.perf[0].speedup_golden, 0.5, 1e-12);
	KT_NEAR(r.speedup, 10.0 / 5.0, 1e-12);       /* sum of the reference's / sum of the answer's */
	KT_NEAR(r.speedup_golden, 3.0 / 5.0, 1e-12);
	KT_NEAR(r.score, 2.0, 1e-12);
	ks_kernel_result_clear(&r);

	/* a perf case the reference has no time for counts in no speedup over it */
	timed(&r, "sin_kernel");
	perf_case(&r, 0, 2.0, 1.0);
	perf_case(&r, 2, 1.0, 1.0);
	ks_refbase_apply(b, &r);
	KT_CONTAINS(r.reference_note, "1 of the 2 perf cases");
	ks_judge_kernel(&r, NULL, NULL, &cfg);
	KT_NEAR(r.speedup, 2.0, 1e-12);
	KT_NEAR(r.perf[1].speedup, 0, 0);
	KT_NEAR(r.speedup_golden, 2.0 / 3.0, 1e-12);
	ks_kernel_result_clear(&r);

	/* the reference failed: no speedup over it, and the record says why */
	timed(&r, "matrix_transpose");
	perf_case(&r, 0, 1.0, 1.0);
	ks_refbase_apply(b, &r);
	KT_CONTAINS(r.reference_note, "the reference failed: timeout");
	ks_judge_kernel(&r, NULL, NULL, &cfg);
	KT_NEAR(r.speedup, 0, 0);
	KT_NEAR(r.score, 0, 0);
	KT_NEAR(r.speedup_golden, 1.0, 1e-12);
	ks_kernel_result_clear(&r);

	/* a fast answer over a slow reference is not suspicious: the bound is the golden kernel's */
	timed(&r, "sin_kernel");
	perf_case(&r, 0, 0.02, 0.1); /* 200x over the reference, 5x over the golden kernel */
	ks_refbase_apply(b, &r);
	ks_judge_kernel(&r, NULL, NULL, &cfg);
	KT_ASSERT_MSG(!r.suspicious, "%s", r.suspicious_why);
	KT_NEAR(r.speedup, 200.0, 1e-9);
	ks_kernel_result_clear(&r);

	j = ks_refbase_json(b);
	KT_EQ_STR(cJSON_GetObjectItem(j, "kind")->valuestring, "reference");
	probs = cJSON_GetObjectItem(j, "problems");
	KT_EQ_INT(cJSON_GetArraySize(probs), 2);
	KT_ASSERT(cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetArrayItem(probs, 0), "timed")));
	KT_ASSERT(cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetArrayItem(probs, 0), "perf_ms"), 1)->valuedouble == 6.0);
	KT_ASSERT(cJSON_IsFalse(cJSON_GetObjectItem(cJSON_GetArrayItem(probs, 1), "timed")));
	KT_EQ_STR(cJSON_GetObjectItem(j, "missing")->valuestring, "int4_matmul");
	cJSON_Delete(j);
	ks_refbase_free(b);
	ks_kernel_result_clear(&ref[0]);
	ks_kernel_result_clear(&ref[1]);
}

static void test_the_golden_baseline_is_unchanged(void)
{
	ks_kernel_result r;
	ks_config cfg = KS_CONFIG_INIT;
	timed(&r, "sin_kernel");
	perf_case(&r, 0, 2.0, 1.0);
	perf_case(&r, 1, 1.0, 2.0);
	ks_judge_kernel(&r, NULL, NULL, &cfg);
	KT_NEAR(r.speedup, 1.0, 1e-12);
	KT_NEAR(r.speedup_golden, 1.0, 1e-12);
	KT_NEAR(r.perf[1].speedup, 2.0, 1e-12);
	KT_ASSERT(!r.over_reference);
	ks_kernel_result_clear(&r);
}

static const kt_test tests[] = {
	KT(test_the_references_become_one_triton_pass), KT(test_only_the_named_problems_references_are_taken),
	KT(test_a_folder_without_references_is_refused),
	KT(test_answers_are_judged_over_the_reference), KT(test_the_golden_baseline_is_unchanged), { 0 }
};
KT_MAIN("refbase", tests)
