/* Tests of refcheck's record of a problem (the GPU checks themselves are in tests/test_gpu.c). */
#include "ktest.h"
#include "refs/refcheck.h"
#include "util/mem.h"

static const cJSON *get(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	KT_ASSERT_MSG(v != NULL, "no \"%s\"", k);
	return v;
}

static void test_the_first_failure_is_reported(void)
{
	ks_problem p;
	ks_refcheck_row r;
	memset(&p, 0, sizeof(p));
	memset(&r, 0, sizeof(r));
	p.name = (char *)"vadd";
	p.suite = (char *)"demo";
	r.p = &p;
	ks_refcheck_fail(&r, "case %s: the golden kernel writes outside %s", "n=7", "c");
	ks_refcheck_fail(&r, "a later failure");
	KT_EQ_STR(r.fail, "case n=7: the golden kernel writes outside c");
	ks_refcheck_row_clear(&r);
	KT_ASSERT(r.fail == NULL);
}

static void test_row_json(void)
{
	ks_problem p;
	ks_refcheck_row r;
	cJSON *j;
	memset(&p, 0, sizeof(p));
	memset(&r, 0, sizeof(r));
	p.name = (char *)"vadd";
	p.suite = (char *)"demo";
	r.p = &p;
	r.compiled = 1;
	r.cases_ok = 2;
	r.cases = 3;
	r.signal = 0.75;
	r.min_perf_ms = INFINITY; /* no perf case ran */
	r.max_roofline = 0.4;
	j = ks_refcheck_row_json(&r, 1);
	KT_EQ_STR(get(j, "suite")->valuestring, "demo");
	KT_EQ_STR(get(j, "problem")->valuestring, "vadd");
	KT_ASSERT(cJSON_IsTrue(get(j, "compiled")));
	KT_ASSERT(cJSON_IsTrue(get(j, "ran")));
	KT_EQ_INT(get(j, "cases_ok")->valueint, 2);
	KT_EQ_INT(get(j, "cases")->valueint, 3);
	KT_NEAR(get(j, "signal")->valuedouble, 0.75, 0);
	KT_ASSERT(cJSON_IsNull(get(j, "min_perf_ms"))); /* JSON has no infinity */
	KT_NEAR(get(j, "max_roofline_fraction")->valuedouble, 0.4, 0);
	KT_ASSERT(cJSON_IsNull(get(j, "failure")));
	cJSON_Delete(j);
	ks_refcheck_fail(&r, "outputs carry no signal");
	j = ks_refcheck_row_json(&r, 0);
	KT_ASSERT(cJSON_IsFalse(get(j, "ran")));
	KT_EQ_STR(get(j, "failure")->valuestring, "outputs carry no signal");
	cJSON_Delete(j);
	ks_refcheck_row_clear(&r);
}

static const kt_test tests[] = {
	KT(test_the_first_failure_is_reported),
	KT(test_row_json),
	{ NULL, NULL }
};

KT_MAIN("refcheck", tests)
