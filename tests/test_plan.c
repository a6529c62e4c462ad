#include "ktest.h"
#include "errors.h"
#include "launch.h"
#include "mem.h"
#include "plan.h"
#include "problem.h"

static ks_problem_set *load(void)
{
	ks_problem_set *s = NULL;
	KT_EQ_INT(ks_problem_set_load(&s, "tests/fixtures/problems", NULL), 0);
	KT_EQ_INT(s->nerrors, 0);
	return s;
}

static void test_default_plan_resolves(void)
{
	ks_problem_set *s = load();
	const ks_problem *p = ks_problem_set_find(s, "vadd");
	ks_env env = KS_ENV_INIT;
	ks_plan plan;
	KT_EQ_INT(ks_problem_env(&env, p, &p->correctness[1]), 0);
	KT_EQ_INT(ks_plan_build(&plan, p, &p->launch, &p->correctness[1], &env, 42, 1, NULL), 0);
	KT_EQ_INT(plan.nbufs, 3);
	KT_EQ_INT(plan.bufs[0].count, 1000);
	KT_EQ_INT(plan.bufs[0].fill, KS_FILL_RANDOM);
	KT_EQ_INT(plan.bufs[0].dist, KS_DIST_NORMAL); /* default for floats */
	KT_EQ_INT(plan.bufs[1].dist, KS_DIST_UNIFORM);
	KT_EQ_INT(plan.bufs[2].fill, KS_FILL_POISON);
	KT_EQ_INT(plan.bufs[2].bytes, 4000);
	KT_EQ_INT(plan.nkernels, 1);
	KT_EQ_INT(plan.kernels[0].grid[0], 4);
	KT_EQ_INT(plan.kernels[0].block[0], 256);
	KT_EQ_INT(plan.kernels[0].nparams, 4);
	KT_EQ_INT(plan.kernels[0].params[2].kind, KS_PARAM_BUF);
	KT_EQ_INT(plan.kernels[0].params[2].buf, 2);
	KT_EQ_INT(plan.kernels[0].params[3].kind, KS_PARAM_I32);
	KT_EQ_INT(plan.kernels[0].params[3].i, 1000);
	KT_EQ_INT(plan.poison, 1);
	ks_plan_clear(&plan);
	ks_env_free(&env);
	ks_problem_set_free(s);
}

static void test_multi_kernel_plan_with_scratch_and_json_roundtrip(void)
{
	ks_problem_set *s = load();
	const ks_problem *p = ks_problem_set_find(s, "rowsum");
	ks_env env = KS_ENV_INIT;
	ks_plan plan, back;
	char **names = NULL;
	size_t nn = 0;
	cJSON *j;
	KT_EQ_INT(ks_problem_env(&env, p, &p->correctness[2]), 0);
	KT_EQ_INT(ks_plan_build(&plan, p, &p->golden_launch, &p->correctness[2], &env, 7, 0, NULL), 0);
	KT_EQ_INT(plan.nbufs, 3);
	KT_EQ_STR(plan.bufs[2].name, "part");
	KT_ASSERT(plan.bufs[2].scratch);
	KT_EQ_INT(plan.bufs[2].count, 33 * 2);
	KT_EQ_INT(plan.nkernels, 2);
	KT_EQ_INT(plan.kernels[0].grid[0], 2);
	KT_EQ_INT(plan.kernels[0].grid[1], 33);
	KT_EQ_INT(plan.kernels[1].func, 1);
	KT_EQ_INT(plan.kernels[0].params[4].i, 2); /* the let "chunks" passed as i32 */
	ks_plan_kernel_names(&names, &nn, &p->golden_launch);
	KT_EQ_INT(nn, 2);
	KT_EQ_STR(names[1], "finish");
	ks_free_strv(names, nn);
	j = ks_plan_to_json(&plan);
	KT_EQ_INT(ks_plan_from_json(&back, j), 0);
	KT_EQ_INT(back.seed, 7);
	KT_EQ_INT(back.nbufs, 3);
	KT_EQ_INT(back.bufs[0].count, plan.bufs[0].count);
	KT_EQ_INT(back.kernels[1].params[1].buf, plan.kernels[1].params[1].buf);
	KT_EQ_INT(back.kernels[0].grid[1], 33);
	cJSON_Delete(j);
	ks_plan_clear(&back);
	ks_plan_clear(&plan);
	ks_env_free(&env);
	ks_problem_set_free(s);
}

static const char *plan_err(const char *launch_json, const char *dim)
{
	ks_problem_set *s = load();
	const ks_problem *p = ks_problem_set_find(s, "vadd");
	ks_launch l;
	ks_env env = KS_ENV_INIT;
	ks_plan plan;
	ks_case c = p->correctness[0];
	char *dims[1] = { (char *)dim };
	static char msg[2048];
	c.dims = dims;
	KT_EQ_INT(ks_launch_parse_text(&l, launch_json, "test"), 0);
	KT_EQ_INT(ks_problem_check_launch(p, &l, "test"), 0);
	if (ks_problem_env(&env, p, &c) == 0 && ks_plan_build(&plan, p, &l, &c, &env, 1, 0, NULL) == 0)
		KT_FAIL("plan %s should fail", launch_json);
	snprintf(msg, sizeof(msg), "%s", ks_error_msg());
	ks_launch_clear(&l);
	ks_env_free(&env);
	ks_problem_set_free(s);
	return msg;
}

static void test_bad_geometry_and_values_are_named(void)
{
	KT_CONTAINS(plan_err("{\"kernel\": \"vadd\", \"grid\": [1], \"block\": [2048]}", "8"),
		    "not a valid block");
	KT_CONTAINS(plan_err("{\"kernel\": \"vadd\", \"grid\": [1, 70000], \"block\": [32]}", "8"),
		    "exceeds the hardware limits");
	KT_CONTAINS(plan_err("{\"kernel\": \"vadd\", \"grid\": [1], \"block\": [32], \"shared\": \"300000\"}", "8"),
		    "dynamic shared memory");
	KT_CONTAINS(plan_err("{\"kernel\": \"vadd\", \"grid\": [\"n / (n - 8)\"], \"block\": [32]}", "8"),
		    "division by zero");
	KT_CONTAINS(plan_err("{\"kernel\": \"vadd\", \"grid\": [1], \"block\": [32], \"args\": "
			     "[\"a\", \"b\", \"c\", {\"i32\": \"n * 1000000000\"}]}", "8"),
		    "does not fit in i32");
	KT_CONTAINS(plan_err("{\"kernel\": \"vadd\", \"grid\": [1], \"block\": [32], \"scratch\": "
			     "[{\"name\": \"s\", \"dtype\": \"f64\", \"count\": \"n << 40\"}]}", "8"),
		    "scratch");
	KT_CONTAINS(plan_err("{\"kernel\": \"vadd\", \"grid\": [1], \"block\": [32]}", "-1"), "negative");
}

static void test_launch_parse_errors(void)
{
	ks_launch l;
	KT_ASSERT(ks_launch_parse_text(&l, "[]", "e1") < 0);
	KT_CONTAINS(ks_error_msg(), "must be a JSON object");
	KT_ASSERT(ks_launch_parse_text(&l, "{\"grid\": [1], \"block\": [1]}", "e2") < 0);
	KT_CONTAINS(ks_error_msg(), "needs a \"name\"");
	KT_ASSERT(ks_launch_parse_text(&l, "{\"kernel\": \"k\", \"block\": [1]}", "e3") < 0);
	KT_CONTAINS(ks_error_msg(), "missing \"grid\"");
	KT_ASSERT(ks_launch_parse_text(&l, "{\"kernel\": \"k\", \"grid\": [1,1,1,1], \"block\": [1]}", "e4") < 0);
	KT_CONTAINS(ks_error_msg(), "more than 3");
	KT_ASSERT(ks_launch_parse_text(&l, "{\"kernel\": \"k\", \"grid\": [1], \"block\": [1], \"args\": [{\"i16\": 1}]}", "e5") < 0);
	KT_CONTAINS(ks_error_msg(), "unknown argument type");
	KT_ASSERT(ks_launch_parse_text(&l, "{\"kernels\": [{\"kernel\":\"a\",\"grid\":[1],\"block\":[1]},"
				       "{\"kernel\":\"a\",\"grid\":[1],\"block\":[1]},{\"kernel\":\"a\",\"grid\":[1],\"block\":[1]},"
				       "{\"kernel\":\"a\",\"grid\":[1],\"block\":[1]},{\"kernel\":\"a\",\"grid\":[1],\"block\":[1]},"
				       "{\"kernel\":\"a\",\"grid\":[1],\"block\":[1]},{\"kernel\":\"a\",\"grid\":[1],\"block\":[1]},"
				       "{\"kernel\":\"a\",\"grid\":[1],\"block\":[1]},{\"kernel\":\"a\",\"grid\":[1],\"block\":[1]}]}",
				       "e6") < 0);
	KT_CONTAINS(ks_error_msg(), "more than 8 kernels");
	KT_ASSERT(ks_launch_parse_text(&l, "{\"kernel\": \"k\", \"grid\": [1], \"block\": [1], \"scratch\": "
				       "[{\"name\": \"s\", \"dtype\": \"f32\", \"count\": 4}, {\"name\": \"s\", "
				       "\"dtype\": \"f32\", \"count\": 4}]}", "e7") < 0);
	KT_CONTAINS(ks_error_msg(), "declared twice");
	KT_EQ_INT(ks_launch_parse_text(&l, "{\"kernel\": \"k<float, 4>\", \"grid\": \"cdiv(n, 4)\", "
				       "\"block\": 128, \"args\": [\"x\", {\"f32\": 0.5}, {\"i64\": \"n\"}]}", "ok"), 0);
	KT_EQ_STR(l.kernels[0].name, "k<float, 4>");
	KT_EQ_STR(l.kernels[0].grid[0], "cdiv(n, 4)");
	KT_EQ_STR(l.kernels[0].block[0], "128");
	KT_EQ_INT(l.kernels[0].args[1].kind, KS_LARG_FLOAT);
	KT_EQ_INT(l.kernels[0].args[2].type, KS_DT_I64);
	ks_launch_clear(&l);
}

static const kt_test tests[] = {
	KT(test_default_plan_resolves), KT(test_multi_kernel_plan_with_scratch_and_json_roundtrip),
	KT(test_bad_geometry_and_values_are_named), KT(test_launch_parse_errors), { 0 }
};
KT_MAIN("plan", tests)
