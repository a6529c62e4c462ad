#include "ktest.h"
#include "util/errors.h"
#include "util/fsutil.h"
#include "load/launch.h"
#include "util/mem.h"
#include "load/plan.h"
#include "load/problem.h"

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

/* An imported set's input (its values in the oracle's file) never becomes a random fill: the plan
 * is refused until a stage fills buffers from those files. */
static void test_an_oracle_input_is_not_filled_at_random(void)
{
	ks_problem_set *s = load();
	ks_problem *p = (ks_problem *)ks_problem_set_find(s, "vadd");
	ks_env env = KS_ENV_INIT;
	ks_plan plan;
	ks_dist saved = p->args[0].dist;
	ks_case *c = &p->correctness[1];
	KT_EQ_INT(ks_problem_env(&env, p, c), 0);
	p->args[0].dist.kind = KS_DIST_DATA;
	if (c->dist)
		c->dist[0].kind = KS_DIST_DEFAULT;
	KT_EQ_INT(ks_plan_build(&plan, p, &p->launch, c, &env, 42, 1, NULL), KS_EUNSUPPORTED);
	KT_CONTAINS(ks_error_msg(), "oracle's file");
	ks_error_clear();
	p->args[0].dist = saved;
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
	plan.version = 5;     /* a timed run's own version of its inputs (issue 23.1) */
	plan.change = 0.0625;
	j = ks_plan_to_json(&plan);
	KT_EQ_INT(ks_plan_from_json(&back, j), 0);
	KT_EQ_INT(back.seed, 7);
	KT_EQ_INT(back.version, 5);
	KT_NEAR(back.change, 0.0625, 0);
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
	/* a float the plan cannot carry to a worker as JSON (infinity), or that an f32 cannot hold:
	 * found by fuzz_problem through a spec's scalar; a submission's launch can hold one too */
	KT_CONTAINS(plan_err("{\"kernel\": \"vadd\", \"grid\": [1], \"block\": [32], \"args\": "
			     "[\"a\", \"b\", \"c\", {\"f32\": 1e39}]}", "8"),
		    "value 1e+39 is not a finite f32");
	KT_CONTAINS(plan_err("{\"kernel\": \"vadd\", \"grid\": [1], \"block\": [32], \"args\": "
			     "[\"a\", \"b\", \"c\", {\"f64\": 1e400}]}", "8"),
		    "value inf is not a finite f64");
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
	/* the list fields: the type, emptiness where it matters, and the limits, each named */
	KT_EQ_INT(ks_launch_parse_text(&l, "{\"kernels\": []}", "e8"), KS_EINVALID);
	KT_EQ_STR(ks_error_msg(), "e8: \"kernels\" must be a non-empty list");
	KT_EQ_INT(ks_launch_parse_text(&l, "{\"kernels\": {}}", "e9"), KS_EINVALID);
	KT_EQ_STR(ks_error_msg(), "e9: \"kernels\" must be a non-empty list");
	KT_EQ_INT(ks_launch_parse_text(&l, "{\"kernel\": \"k\", \"grid\": [1], \"block\": [1], \"scratch\": {}}", "e10"),
		  KS_EINVALID);
	KT_EQ_STR(ks_error_msg(), "e10: \"scratch\" must be a list");
	KT_EQ_INT(ks_launch_parse_text(&l, "{\"kernel\": \"k\", \"grid\": [1], \"block\": [1], \"scratch\": "
				       "[1, 2, 3, 4, 5, 6, 7, 8, 9]}", "e11"), KS_ELIMIT);
	KT_EQ_STR(ks_error_msg(), "e11: more than 8 scratch buffers");
	KT_EQ_INT(ks_launch_parse_text(&l, "{\"kernel\": \"k\", \"grid\": [1], \"block\": [1], \"args\": 3}", "e12"),
		  KS_EINVALID);
	KT_CONTAINS(ks_error_msg(), "\"args\" must be a list");
	{
		char big[1024] = "{\"kernel\": \"k\", \"grid\": [1], \"block\": [1], \"args\": [\"x\"";
		int i;
		for (i = 0; i < KS_LAUNCH_MAX_ARGS; i++)
			strcat(big, ", \"x\"");
		strcat(big, "]}");
		KT_EQ_INT(ks_launch_parse_text(&l, big, "e13"), KS_ELIMIT);
		KT_CONTAINS(ks_error_msg(), "more than 64 arguments");
	}
	KT_EQ_INT(ks_launch_parse_text(&l, "{\"kernel\": \"k<float, 4>\", \"grid\": \"cdiv(n, 4)\", "
				       "\"block\": 128, \"args\": [\"x\", {\"f32\": 0.5}, {\"i64\": \"n\"}]}", "ok"), 0);
	KT_EQ_STR(l.kernels[0].name, "k<float, 4>");
	KT_EQ_STR(l.kernels[0].grid[0], "cdiv(n, 4)");
	KT_EQ_STR(l.kernels[0].block[0], "128");
	KT_EQ_INT(l.kernels[0].args[1].kind, KS_LARG_FLOAT);
	KT_EQ_INT(l.kernels[0].args[2].type, KS_DT_I64);
	ks_launch_clear(&l);
}

/* Builds the vadd plan for n = dim with the given launch plan and limits; returns the plan's
 * status (0 or the error code). */
static int build_with(const char *launch_json, const char *dim, const ks_plan_limits *lim, ks_plan *plan)
{
	ks_problem_set *s = load();
	const ks_problem *p = ks_problem_set_find(s, "vadd");
	ks_launch l;
	ks_env env = KS_ENV_INIT;
	ks_case c = p->correctness[0];
	char *dims[1] = { (char *)dim };
	int rc;
	c.dims = dims;
	KT_EQ_INT(ks_launch_parse_text(&l, launch_json, "test"), 0);
	KT_EQ_INT(ks_problem_check_launch(p, &l, "test"), 0);
	KT_EQ_INT(ks_problem_env(&env, p, &c), 0);
	rc = ks_plan_build(plan, p, &l, &c, &env, 1, 0, lim);
	ks_launch_clear(&l);
	ks_env_free(&env);
	ks_problem_set_free(s);
	return rc;
}

/* Expressions in a plan finish whatever their values: 1 ** (2^63-1) used to hang the scorer. */
static void test_plan_expressions_are_bounded(void)
{
	ks_plan plan;
	KT_EQ_INT(build_with("{\"kernel\": \"vadd\", \"grid\": [\"1 ** 9223372036854775807\"], "
			     "\"block\": [\"(0 - 1) ** 9223372036854775806 * 32\"], \"args\": [\"a\", \"b\", "
			     "\"c\", {\"i32\": \"0 ** 9223372036854775807\"}]}", "8", NULL, &plan), 0);
	KT_EQ_INT(plan.kernels[0].grid[0], 1);
	KT_EQ_INT(plan.kernels[0].block[0], 32);
	KT_EQ_INT(plan.kernels[0].params[3].i, 0);
	ks_plan_clear(&plan);
	KT_CONTAINS(plan_err("{\"kernel\": \"vadd\", \"grid\": [\"2 ** 9223372036854775807\"], \"block\": [32]}",
			     "8"), "integer overflow");
}

/* Scratch sizes are checked before anything reaches a worker: 2^60 bytes are refused with the
 * limit named, and the limit is the caller's (--max-scratch). */
static void test_scratch_limit(void)
{
	ks_plan_limits lim = KS_PLAN_LIMITS_INIT;
	ks_plan plan;
	const char *m;
	m = plan_err("{\"kernel\": \"vadd\", \"grid\": [1], \"block\": [32], \"scratch\": "
		     "[{\"name\": \"s\", \"dtype\": \"f64\", \"count\": \"1 << 57\"}]}", "8");
	KT_CONTAINS(m, "scratch s: 144115188075855872 elements of f64");
	KT_CONTAINS(m, "limit of 4294967296 bytes (--max-scratch)");
	/* 2^61 elements of f64 is 2^64 bytes: the product wraps to 0 without a checked multiply */
	KT_CONTAINS(plan_err("{\"kernel\": \"vadd\", \"grid\": [1], \"block\": [32], \"scratch\": "
			     "[{\"name\": \"s\", \"dtype\": \"f64\", \"count\": \"1 << 61\"}]}", "8"),
		    "scratch s");
	lim.max_scratch_bytes = 1024;
	KT_EQ_INT(build_with("{\"kernel\": \"vadd\", \"grid\": [1], \"block\": [32], \"scratch\": "
			     "[{\"name\": \"s\", \"dtype\": \"f32\", \"count\": 200}, {\"name\": \"t\", "
			     "\"dtype\": \"u8\", \"count\": 224}]}", "8", &lim, &plan), 0);
	KT_EQ_INT(plan.bufs[3].bytes + plan.bufs[4].bytes, 1024);
	ks_plan_clear(&plan);
	KT_EQ_INT(build_with("{\"kernel\": \"vadd\", \"grid\": [1], \"block\": [32], \"scratch\": "
			     "[{\"name\": \"s\", \"dtype\": \"f32\", \"count\": 200}, {\"name\": \"t\", "
			     "\"dtype\": \"u8\", \"count\": 225}]}", "8", &lim, &plan), KS_ELIMIT);
	KT_CONTAINS(ks_error_msg(), "scratch t: 225 elements of u8");
	KT_CONTAINS(ks_error_msg(), "limit of 1024 bytes");
}

/* A tensor size that changes with the device (sm_count) is checked again when the plan is built:
 * 2^62 + 8 elements of f32 wrap the byte count to 32 bytes. */
static void test_tensor_sizes_are_checked_at_build_time(void)
{
	char root[4200], dir[4300], path[4400];
	ks_problem_set *s = NULL;
	const ks_problem *p;
	ks_env env = KS_ENV_INIT;
	ks_plan plan;
	FILE *f;
	snprintf(root, sizeof(root), "%s/refs", kt_tmpdir());
	snprintf(dir, sizeof(dir), "%s/s/dev", root);
	KT_EQ_INT(ks_fs_mkdir_p(dir, 0755), 0);
	snprintf(path, sizeof(path), "%s/problem.json", dir);
	f = fopen(path, "w");
	fputs("{\"name\": \"dev\", \"dims\": [\"n\"], \"args\": [{\"name\": \"y\", \"type\": \"f32*\", "
	      "\"role\": \"out\", \"shape\": [\"(sm_count - 132) * (1 << 62) + n\"]}], \"launch\": "
	      "{\"kernel\": \"k\", \"grid\": [1], \"block\": [32]}, \"tolerance\": {\"atol\": 0, \"rtol\": 0}, "
	      "\"bytes\": \"4\", \"cases\": {\"correctness\": [{\"n\": 8}]}}", f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/golden.cu", dir);
	KT_EQ_INT(ks_fs_write_atomic(path, "x", 1), 0);
	snprintf(path, sizeof(path), "%s/instruction.md", dir);
	KT_EQ_INT(ks_fs_write_atomic(path, "x", 1), 0);
	KT_EQ_INT(ks_problem_set_load(&s, root, NULL), 0);
	KT_EQ_INT(s->nerrors, 0);
	p = ks_problem_set_find(s, "dev");
	ks_problem_set_sm_count(s, 133);
	KT_EQ_INT(ks_problem_env(&env, p, &p->correctness[0]), 0);
	KT_EQ_INT(ks_plan_build(&plan, p, &p->launch, &p->correctness[0], &env, 1, 0, NULL), KS_ELIMIT);
	KT_CONTAINS(ks_error_msg(), "tensor y: 4611686018427387912 elements of f32");
	ks_env_free(&env);
	ks_problem_set_free(s);
}

/* Numbers a plan holds are range-checked before any conversion to an integer type. */
static void test_numbers_out_of_range(void)
{
	ks_launch l;
	KT_ASSERT(ks_launch_parse_text(&l, "{\"kernel\": \"k\", \"grid\": [1e40], \"block\": [1]}", "e1") < 0);
	KT_CONTAINS(ks_error_msg(), "e1, kernel k: grid (write larger values as an expression string): "
		    "1e+40 is not an integer");
	KT_ASSERT(ks_launch_parse_text(&l, "{\"kernel\": \"k\", \"grid\": [1], \"block\": [-1e300]}", "e2") < 0);
	KT_CONTAINS(ks_error_msg(), "is not an integer");
	KT_ASSERT(ks_launch_parse_text(&l, "{\"kernel\": \"k\", \"grid\": [1], \"block\": [1], \"args\": "
				       "[{\"i64\": 1e19}]}", "e3") < 0);
	KT_CONTAINS(ks_error_msg(), "1e+19 is not an integer");
	KT_ASSERT(ks_launch_parse_text(&l, "{\"kernel\": \"k\", \"grid\": [1], \"block\": [1], \"scratch\": "
				       "[{\"name\": \"s\", \"dtype\": \"f32\", \"count\": 9.5}]}", "e4") < 0);
	KT_CONTAINS(ks_error_msg(), "9.5 is not an integer");
	/* exact integers up to 2^53 are fine */
	KT_EQ_INT(ks_launch_parse_text(&l, "{\"kernel\": \"k\", \"grid\": [9007199254740992], \"block\": [1]}",
				       "ok"), 0);
	KT_EQ_STR(l.kernels[0].grid[0], "9007199254740992");
	ks_launch_clear(&l);
}

/* The worker side parses plans strictly too: out-of-range numbers are errors, not casts. */
static void test_plan_from_json_is_strict(void)
{
	static const char *bad[] = {
		"{\"seed\": \"1\", \"poison\": 0, \"guard\": 1e40, \"bufs\": [], \"kernels\": []}",
		"{\"seed\": \"1\", \"version\": \"2\", \"change\": 1.5, \"poison\": 0, \"guard\": 0, \"bufs\": [], "
		"\"kernels\": []}",
		"{\"seed\": \"1\", \"version\": \"x\", \"change\": 0.5, \"poison\": 0, \"guard\": 0, \"bufs\": [], "
		"\"kernels\": []}",
		"{\"seed\": \"1\", \"version\": \"2\", \"poison\": 0, \"guard\": 0, \"bufs\": [], \"kernels\": []}",
		"{\"seed\": \"1\", \"poison\": 0.5, \"guard\": 0, \"bufs\": [], \"kernels\": []}",
		"{\"seed\": \"1\", \"poison\": 0, \"guard\": 0, \"bufs\": [{\"name\": \"x\", \"dtype\": 1e30, "
		"\"count\": \"1\", \"role\": 0, \"scratch\": 0, \"fill\": 0, \"dist\": 0, \"a\": 0, \"b\": 1, "
		"\"stream\": 0}], \"kernels\": []}",
		"{\"seed\": \"1\", \"poison\": 0, \"guard\": 0, \"bufs\": [{\"name\": \"x\", \"dtype\": 0, "
		"\"count\": \"1\", \"role\": 0, \"scratch\": 0, \"fill\": 0, \"dist\": 0, \"a\": 0, \"b\": 1, "
		"\"stream\": -1e300}], \"kernels\": []}",
		"{\"seed\": \"1\", \"poison\": 0, \"guard\": 0, \"bufs\": [], \"kernels\": [{\"func\": 1e20, "
		"\"name\": \"k\", \"grid\": [1, 1, 1], \"block\": [1, 1, 1], \"shared\": 0, \"params\": []}]}",
		"{\"seed\": \"1\", \"poison\": 0, \"guard\": 0, \"bufs\": [], \"kernels\": [{\"func\": 0, "
		"\"name\": \"k\", \"grid\": [1, 1, 1], \"block\": [1, 1, 1], \"shared\": 1e10, \"params\": []}]}",
		"{\"seed\": \"1\", \"poison\": 0, \"guard\": 0, \"bufs\": [], \"kernels\": [{\"func\": 0, "
		"\"name\": \"k\", \"grid\": [1, 1, 1], \"block\": [1, 1, 1], \"shared\": 0, \"params\": "
		"[{\"k\": 3, \"i\": \"99999999999999999999\"}]}]}",
		"{\"seed\": \"1\", \"poison\": 0, \"guard\": 0, \"bufs\": [], \"kernels\": [{\"func\": 0, "
		"\"name\": \"k\", \"grid\": [1, 1, 1], \"block\": [1, 1, 1], \"shared\": 0, \"params\": "
		"[{\"k\": 1e40}]}]}",
		"{\"seed\": \"1\", \"poison\": 0, \"guard\": 0, \"bufs\": [], \"kernels\": [{\"func\": 0, "
		"\"name\": \"k\", \"grid\": [1, 1, 1], \"block\": [1, 1, 1], \"shared\": 0, \"params\": "
		"[{\"k\": 0, \"buf\": 0}]}]}",
		NULL
	};
	size_t i;
	for (i = 0; bad[i]; i++) {
		cJSON *j = cJSON_Parse(bad[i]);
		ks_plan plan;
		KT_ASSERT(j != NULL);
		KT_ASSERT_MSG(ks_plan_from_json(&plan, j) < 0, "plan %zu was accepted", i);
		cJSON_Delete(j);
	}
}

/* A plan given as text is capped before it is parsed. */
static void test_launch_text_is_capped(void)
{
	ks_launch l;
	size_t n = KS_LAUNCH_MAX_TEXT + 100;
	char *t = ks_calloc(n + 1, 1);
	memset(t, ' ', n);
	memcpy(t, "{\"kernel\": \"k\", \"grid\": [1], \"block\": [1]}", 42);
	KT_ASSERT(ks_launch_parse_text(&l, t, "big") < 0);
	KT_CONTAINS(ks_error_msg(), "big: longer than 65536 bytes");
	t[KS_LAUNCH_MAX_TEXT] = '\0';
	KT_EQ_INT(ks_launch_parse_text(&l, t, "fits"), 0);
	ks_launch_clear(&l);
	ks_free(t);
}

/* A plan with the replay's pieces (lang/triton/): a view pointer, a null pointer, raw scalars and
 * fill/copy steps between launches survives the trip to a worker, and a step that would leave its
 * buffer, or launch a kernel the plan lacks, is refused. */
static void test_steps_and_views_roundtrip_and_are_checked(void)
{
	ks_problem_set *s = load();
	const ks_problem *p = ks_problem_set_find(s, "vadd");
	ks_env env = KS_ENV_INIT;
	ks_plan plan, back;
	cJSON *j;
	char *text;
	KT_EQ_INT(ks_problem_env(&env, p, &p->correctness[1]), 0);
	KT_EQ_INT(ks_plan_build(&plan, p, &p->launch, &p->correctness[1], &env, 42, 1, NULL), 0);
	KT_ASSERT(plan.nkernels == 1 && plan.kernels[0].nparams >= 3);
	plan.kernels[0].params[0].off = 16;
	plan.kernels[0].params[1].kind = KS_PARAM_NULL;
	plan.kernels[0].params[2].kind = KS_PARAM_B16;
	plan.kernels[0].params[2].i = 0x3c00;
	plan.steps = ks_calloc(3, sizeof(ks_plan_step));
	plan.nsteps = 3;
	plan.steps[0].kind = KS_STEP_FILL;
	plan.steps[0].buf = 2;
	plan.steps[0].width = 4;
	plan.steps[0].value = 0;
	plan.steps[0].rank = 2;
	plan.steps[0].sizes[0] = 10;
	plan.steps[0].sizes[1] = 100;
	plan.steps[0].dstride[0] = 100;
	plan.steps[0].dstride[1] = 1;
	plan.steps[1].kind = KS_STEP_LAUNCH;
	plan.steps[2].kind = KS_STEP_COPY;
	plan.steps[2].buf = 2;
	plan.steps[2].src = 0;
	plan.steps[2].off = 4 * 500;
	plan.steps[2].src_off = 4 * 500;
	plan.steps[2].width = 4;
	plan.steps[2].rank = 1;
	plan.steps[2].sizes[0] = 500;
	plan.steps[2].dstride[0] = plan.steps[2].sstride[0] = 1;
	j = ks_plan_to_json(&plan);
	text = cJSON_PrintUnformatted(j);
	KT_EQ_INT(ks_plan_from_json(&back, j), 0);
	KT_EQ_INT(back.nsteps, 3);
	KT_EQ_INT(back.kernels[0].params[0].off, 16);
	KT_EQ_INT(back.kernels[0].params[1].kind, KS_PARAM_NULL);
	KT_EQ_INT(back.kernels[0].params[2].i, 0x3c00);
	KT_EQ_INT(back.steps[0].sizes[1], 100);
	KT_EQ_INT(back.steps[2].src_off, 2000);
	KT_EQ_INT(ks_plan_step_count(&back.steps[0]), 1000);
	KT_EQ_INT(ks_plan_param_size(KS_PARAM_B16), 2);
	KT_EQ_INT(ks_plan_param_size(KS_PARAM_NULL), 8);
	ks_plan_clear(&back);
	cJSON_Delete(j);
	free(text);

	/* one element past the end of out (1000 floats) */
	plan.steps[2].sizes[0] = 501;
	KT_EQ_INT(ks_plan_step_check(&plan.steps[2], 2, &plan), KS_EINVALID);
	KT_ASSERT(strstr(ks_error_msg(), "leaves buffer"));
	j = ks_plan_to_json(&plan);
	KT_EQ_INT(ks_plan_from_json(&back, j), KS_EINVALID);
	cJSON_Delete(j);
	plan.steps[2].sizes[0] = 500;
	/* a stride that wraps around 2^64 */
	plan.steps[0].dstride[0] = UINT64_MAX / 4;
	KT_EQ_INT(ks_plan_step_check(&plan.steps[0], 0, &plan), KS_EINVALID);
	plan.steps[0].dstride[0] = 100;
	plan.steps[1].kernel = 1;
	KT_EQ_INT(ks_plan_step_check(&plan.steps[1], 1, &plan), KS_EINVALID);
	plan.steps[1].kernel = 0;
	plan.steps[2].width = 3;
	KT_EQ_INT(ks_plan_step_check(&plan.steps[2], 2, &plan), KS_EINVALID);
	plan.steps[2].width = 4;
	plan.steps[2].off = 2;
	KT_EQ_INT(ks_plan_step_check(&plan.steps[2], 2, &plan), KS_EINVALID);
	plan.steps[2].off = 2000;
	/* a view pointer past its buffer */
	plan.kernels[0].params[0].off = plan.bufs[0].bytes + 1;
	j = ks_plan_to_json(&plan);
	KT_EQ_INT(ks_plan_from_json(&back, j), KS_EINVALID);
	cJSON_Delete(j);
	ks_plan_clear(&plan);
	ks_env_free(&env);
	ks_problem_set_free(s);
}

static const kt_test tests[] = {
	KT(test_default_plan_resolves), KT(test_an_oracle_input_is_not_filled_at_random), KT(test_multi_kernel_plan_with_scratch_and_json_roundtrip),
	KT(test_bad_geometry_and_values_are_named), KT(test_launch_parse_errors),
	KT(test_plan_expressions_are_bounded), KT(test_scratch_limit),
	KT(test_tensor_sizes_are_checked_at_build_time), KT(test_numbers_out_of_range),
	KT(test_plan_from_json_is_strict), KT(test_launch_text_is_capped),
	KT(test_steps_and_views_roundtrip_and_are_checked), { 0 }
};
KT_MAIN("plan", tests)
