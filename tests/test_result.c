/* Tests of result: reason names, the first failure, and a kernel's record in score.json. */
#include "ktest.h"
#include "run/result.h"
#include "util/jsonutil.h"
#include "util/mem.h"

static void test_reason_names_are_distinct_and_stable(void)
{
	int i, j;
	for (i = 0; i < KS_REASON_COUNT; i++) {
		const char *n = ks_reason_name((ks_reason)i);
		KT_ASSERT(n && *n && strcmp(n, "?"));
		for (j = 0; n[j]; j++)
			KT_ASSERT_MSG((n[j] >= 'a' && n[j] <= 'z') || n[j] == '_', "reason name %s", n);
		for (j = 0; j < i; j++)
			KT_ASSERT(strcmp(n, ks_reason_name((ks_reason)j)));
	}
	/* the names other tools read (docs/results.md) */
	KT_EQ_STR(ks_reason_name(KS_REASON_OK), "ok");
	KT_EQ_STR(ks_reason_name(KS_REASON_MISMATCH), "mismatch");
	KT_EQ_STR(ks_reason_name(KS_REASON_OOB_WRITE), "oob_write");
	KT_EQ_STR(ks_reason_name(KS_REASON_UNWRITTEN), "unwritten");
	KT_EQ_STR(ks_reason_name(KS_REASON_INPUT_MODIFIED), "input_modified");
	KT_EQ_STR(ks_reason_name(KS_REASON_NONDETERMINISTIC), "nondeterministic");
	KT_EQ_STR(ks_reason_name(KS_REASON_COMPILE_ERROR), "compile_error");
	KT_EQ_STR(ks_reason_name(KS_REASON_NOT_RUN), "not_run");
	KT_EQ_STR(ks_reason_name(KS_REASON_COUNT), "?");
}

static void test_the_first_failure_is_kept(void)
{
	ks_kernel_result r;
	memset(&r, 0, sizeof(r));
	ks_kernel_result_fail(&r, KS_REASON_MISMATCH, "case %s: %d wrong", "n=7", 3);
	ks_kernel_result_fail(&r, KS_REASON_TIMEOUT, "later");
	KT_EQ_INT(r.reason, KS_REASON_MISMATCH);
	KT_EQ_STR(r.detail, "case n=7: 3 wrong");
	ks_kernel_result_clear(&r);
	KT_EQ_INT(r.reason, KS_REASON_OK);
	KT_ASSERT(r.detail == NULL);
}

static const cJSON *get(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	KT_ASSERT_MSG(v != NULL, "no \"%s\"", k);
	return v;
}

static void test_record_of_a_compiled_kernel_not_run(void)
{
	ks_kernel_result r;
	cJSON *j;
	memset(&r, 0, sizeof(r));
	r.pass = 1;
	r.index = 4;
	r.file = ks_strdup("vadd.py");
	r.problem = ks_strdup("vadd");
	r.difficulty = 2;
	r.compiled = 1;
	r.reason = KS_REASON_NOT_RUN;
	r.compile_log = ks_strdup("ok");
	r.nkernels = 1;
	r.kernels = ks_calloc(1, sizeof(*r.kernels));
	r.kernels[0].name = ks_strdup("vadd");
	r.kernels[0].info.registers = 12;
	r.speedup = 2; /* left over in the struct: an untimed record still says null */
	r.roofline_fraction = 0.5;
	j = ks_kernel_result_json(&r);
	KT_EQ_INT(get(j, "pass")->valueint, 1);
	KT_EQ_INT(get(j, "index")->valueint, 4);
	KT_EQ_STR(get(j, "file")->valuestring, "vadd.py");
	KT_EQ_STR(get(j, "problem")->valuestring, "vadd");
	KT_ASSERT(cJSON_IsTrue(get(j, "compiled")));
	KT_ASSERT(cJSON_IsNull(get(j, "call"))); /* not run: no call or exec verdict */
	KT_ASSERT(cJSON_IsNull(get(j, "exec")));
	KT_EQ_STR(get(j, "reason")->valuestring, "not_run");
	KT_ASSERT(cJSON_IsNull(get(j, "detail")));
	KT_ASSERT(cJSON_IsNull(get(j, "speedup")));
	KT_ASSERT(cJSON_IsNull(get(j, "speedup_geomean")));
	KT_ASSERT(cJSON_IsNull(get(j, "roofline_fraction")));
	KT_EQ_STR(get(get(j, "compile"), "log")->valuestring, "ok");
	KT_EQ_INT(get(cJSON_GetArrayItem(get(j, "kernels"), 0), "registers")->valueint, 12);
	KT_EQ_INT(cJSON_GetArraySize(get(j, "perf")), 0);
	cJSON_Delete(j);
	ks_kernel_result_clear(&r);
}

static void test_record_of_a_timed_kernel(void)
{
	ks_kernel_result r;
	cJSON *j;
	const cJSON *pc, *c;
	memset(&r, 0, sizeof(r));
	r.compiled = r.call = r.exec = r.ran = r.timed = 1;
	r.speedup = 1.5;
	r.speedup_geomean = 1.25;
	r.roofline_fraction = 0.5;
	r.score = 1.5;
	r.nperf = 1;
	r.perf = ks_calloc(1, sizeof(*r.perf));
	r.perf[0].label = ks_strdup("n=4096");
	r.perf[0].ms = 2;
	r.perf[0].golden_ms = 3;
	r.perf[0].speedup = 1.5;
	r.perf[0].runs = 40;
	r.perf[0].verified = 2;
	r.ncases = 1;
	r.cases = ks_calloc(1, sizeof(*r.cases));
	r.cases[0].label = ks_strdup("n=1");
	r.cases[0].seed_index = -1;
	r.cases[0].seed = 12345678901234567890ull;
	r.cases[0].passed = 1;
	j = ks_kernel_result_json(&r);
	KT_ASSERT(cJSON_IsTrue(get(j, "call")));
	KT_ASSERT(cJSON_IsTrue(get(j, "exec")));
	KT_NEAR(get(j, "speedup")->valuedouble, 1.5, 0);
	KT_NEAR(get(j, "speedup_geomean")->valuedouble, 1.25, 0);
	KT_NEAR(get(j, "score")->valuedouble, 1.5, 0);
	pc = cJSON_GetArrayItem(get(j, "perf"), 0);
	KT_EQ_STR(get(pc, "case")->valuestring, "n=4096");
	KT_NEAR(get(pc, "ms")->valuedouble, 2, 0);
	KT_EQ_INT(get(pc, "runs")->valueint, 40);
	KT_EQ_INT(get(pc, "verified_runs")->valueint, 2);
	c = cJSON_GetArrayItem(get(j, "cases"), 0);
	KT_EQ_STR(get(c, "run")->valuestring, "repeat"); /* the determinism re-run */
	KT_EQ_STR(get(c, "seed")->valuestring, "12345678901234567890"); /* 64 bits, as text */
	KT_ASSERT(cJSON_IsTrue(get(c, "passed")));
	KT_EQ_STR(get(c, "reason")->valuestring, "ok");
	cJSON_Delete(j);
	ks_kernel_result_clear(&r);
}

static const kt_test tests[] = {
	KT(test_reason_names_are_distinct_and_stable),
	KT(test_the_first_failure_is_kept),
	KT(test_record_of_a_compiled_kernel_not_run),
	KT(test_record_of_a_timed_kernel),
	{ NULL, NULL }
};

KT_MAIN("result", tests)
