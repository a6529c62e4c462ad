#include "ktest.h"
#include "util/errors.h"
#include "util/fsutil.h"
#include "util/mem.h"
#include "load/problem.h"

#define FIX "tests/fixtures/problems"

static void test_loads_fixture_suite(void)
{
	ks_problem_set *s = NULL;
	const ks_problem *p;
	KT_EQ_INT(ks_problem_set_load(&s, FIX, NULL), 0);
	KT_EQ_INT(s->nerrors, 0);
	KT_EQ_INT(s->n, 2);
	p = ks_problem_set_find(s, "vadd");
	KT_ASSERT(p);
	KT_EQ_STR(p->suite, "demo");
	KT_EQ_INT(p->nargs, 4);
	KT_EQ_INT(p->args[2].role, KS_ROLE_OUT);
	KT_EQ_INT(p->args[1].dist.kind, KS_DIST_UNIFORM);
	KT_EQ_INT(p->ncorrectness, 3);
	KT_EQ_INT(p->correctness[1].seeds, 3);
	KT_EQ_INT(p->correctness[0].seeds, 2); /* the minimum */
	KT_EQ_STR(p->correctness[1].label, "n=1000");
	KT_EQ_INT(p->correctness[2].dist[0].kind, KS_DIST_NORMAL);
	KT_EQ_INT(p->nperf, 1);
	KT_EQ_INT(strlen(p->sha256), 64);
	KT_CONTAINS(p->golden_src, "__global__");
	p = ks_problem_set_find(s, "rowsum");
	KT_ASSERT(p);
	KT_EQ_INT(p->golden_launch.nkernels, 2);
	KT_EQ_INT(p->launch.nkernels, 1);
	KT_NEAR(p->args[1].atol, 1e-4, 0);     /* per-output override */
	KT_NEAR(p->args[1].rtol, 1e-5, 0);     /* problem default */
	KT_ASSERT(!ks_problem_set_find(s, "nope"));
	ks_problem_set_free(s);
}

static void test_env_and_counts(void)
{
	ks_problem_set *s = NULL;
	const ks_problem *p;
	ks_env env = KS_ENV_INIT;
	uint64_t n = 0;
	int64_t v = 0;
	KT_EQ_INT(ks_problem_set_load(&s, FIX, "demo"), 0);
	p = ks_problem_set_find(s, "rowsum");
	KT_EQ_INT(ks_problem_env(&env, p, &p->correctness[2]), 0);
	KT_ASSERT(ks_env_get(&env, "chunks", &v));
	KT_EQ_INT(v, 2); /* cdiv(257, 256) */
	KT_EQ_INT(ks_problem_arg_count(&n, p, &p->args[0], &env), 0);
	KT_EQ_INT(n, 33 * 257);
	ks_env_free(&env);
	ks_problem_set_free(s);
}

/* Writes a problem folder with the given spec text and a trivial golden kernel. */
static const char *make_problem(const char *name, const char *spec)
{
	static char dir[4200];
	char path[4400];
	FILE *f;
	snprintf(dir, sizeof(dir), "%s/suite/%s", kt_tmpdir(), name);
	KT_EQ_INT(ks_fs_mkdir_p(dir, 0755), 0);
	snprintf(path, sizeof(path), "%s/problem.json", dir);
	f = fopen(path, "w");
	fputs(spec, f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/golden.cu", dir);
	f = fopen(path, "w");
	fputs("extern \"C\" __global__ void k(float *y, int n) {}\n", f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/instruction.md", dir);
	f = fopen(path, "w");
	fputs("do it\n", f);
	fclose(f);
	return dir;
}

#define GOOD_ARGS "\"args\": [ { \"name\": \"y\", \"type\": \"f32*\", \"role\": \"out\", \"shape\": [\"n\"] }," \
		  " { \"name\": \"n\", \"type\": \"i32\", \"value\": \"n\" } ]"
#define GOOD_TAIL "\"tolerance\": {\"atol\": 0, \"rtol\": 0}, \"bytes\": \"4*n\"," \
		  " \"cases\": {\"correctness\": [{\"n\": 4}]}"

static const char *load_err(const char *name, const char *spec)
{
	ks_problem *p = NULL;
	const char *dir = make_problem(name, spec);
	if (ks_problem_load(&p, dir, "suite") == 0)
		KT_FAIL("spec for %s should be rejected", name);
	return ks_error_msg();
}

static void test_valid_minimal_spec(void)
{
	ks_problem *p = NULL;
	const char *dir = make_problem("ok", "{\"name\": \"ok\", \"dims\": [\"n\"], " GOOD_ARGS ","
					     " \"launch\": {\"kernel\": \"k\", \"grid\": [1], \"block\": [32]}, " GOOD_TAIL "}");
	KT_EQ_INT(ks_problem_load(&p, dir, "suite"), 0);
	KT_EQ_STR(p->peak, "none");
	KT_EQ_INT(p->difficulty, -1);
	ks_problem_free(p);
}

static void test_sm_count_is_the_devices(void)
{
	/* a persistent kernel's grid: min(blocks, sm_count); 132 until a device is known */
	ks_problem_set *s = NULL;
	ks_problem *p = NULL;
	ks_env env = KS_ENV_INIT;
	int64_t v = 0;
	make_problem("pers", "{\"name\": \"pers\", \"dims\": [\"n\"], \"let\": {\"g\": "
			     "\"min(cdiv(n, 256), 2 * sm_count)\"}, " GOOD_ARGS ", \"launch\": {\"kernel\": \"k\", "
			     "\"grid\": [\"g\"], \"block\": [256]}, " GOOD_TAIL "}");
	{
		char root[4200];
		snprintf(root, sizeof(root), "%s", kt_tmpdir());
		KT_EQ_INT(ks_problem_set_load(&s, root, "suite"), 0);
	}
	p = (ks_problem *)ks_problem_set_find(s, "pers");
	KT_ASSERT(p);
	KT_EQ_INT(p->sm_count, KS_PROBLEM_DEFAULT_SM_COUNT);
	{
		ks_case c = p->correctness[0];
		char *d = c.dims[0];
		c.dims[0] = "1000000";
		KT_EQ_INT(ks_problem_env(&env, p, &c), 0);
		KT_ASSERT(ks_env_get(&env, "g", &v));
		KT_EQ_INT(v, 264);
		ks_env_free(&env);
		ks_problem_set_sm_count(s, 114);
		KT_EQ_INT(ks_problem_env(&env, p, &c), 0);
		KT_ASSERT(ks_env_get(&env, "g", &v));
		KT_EQ_INT(v, 228);
		ks_env_free(&env);
		ks_problem_set_sm_count(s, 0); /* ignored */
		KT_EQ_INT(p->sm_count, 114);
		c.dims[0] = d;
	}
	ks_problem_set_free(s);
}

static void test_rejects_bad_specs(void)
{
	KT_CONTAINS(load_err("sm", "{\"name\": \"sm\", \"dims\": [\"sm_count\"], " GOOD_ARGS ", "
			     "\"launch\": {\"kernel\": \"k\", \"grid\": [1], \"block\": [32]}, " GOOD_TAIL "}"),
		    "reserved");
	KT_CONTAINS(load_err("a", "{\"name\": \"b\"}"), "but the folder is \"a\"");
	KT_CONTAINS(load_err("c", "{\"name\": \"c\", \"dims\": [\"n\"], " GOOD_ARGS ", \"launch\": "
			     "{\"kernel\": \"k\", \"grid\": [\"m\"], \"block\": [32]}, " GOOD_TAIL "}"),
		    "unknown name \"m\"");
	KT_CONTAINS(load_err("d", "{\"name\": \"d\", \"dims\": [\"n\"], \"args\": [ { \"name\": \"y\", "
			     "\"type\": \"f32*\", \"role\": \"out\", \"shape\": [\"n * q\"] } ], \"launch\": "
			     "{\"kernel\": \"k\", \"grid\": [1], \"block\": [32]}, " GOOD_TAIL "}"),
		    "unknown name \"q\"");
	KT_CONTAINS(load_err("e", "{\"name\": \"e\", \"dims\": [\"n\"], " GOOD_ARGS ", \"launch\": "
			     "{\"kernel\": \"k\", \"grid\": [1], \"block\": [32]}, \"tolerance\": {\"atol\": 0, "
			     "\"rtol\": 0}, \"cases\": {\"correctness\": [{\"n\": 4}]}}"),
		    "missing \"bytes\"");
	KT_CONTAINS(load_err("f", "{\"name\": \"f\", \"dims\": [\"n\"], \"args\": [ { \"name\": \"n\", "
			     "\"type\": \"f32*\", \"role\": \"out\", \"shape\": [\"n\"] } ], \"launch\": "
			     "{\"kernel\": \"k\", \"grid\": [1], \"block\": [32]}, " GOOD_TAIL "}"),
		    "used twice");
	KT_CONTAINS(load_err("g", "{\"name\": \"g\", \"dims\": [\"n\", \"m\"], " GOOD_ARGS ", \"launch\": "
			     "{\"kernel\": \"k\", \"grid\": [1], \"block\": [32]}, " GOOD_TAIL "}"),
		    "no value for dim \"m\"");
	KT_CONTAINS(load_err("h", "{\"name\": \"h\", \"dims\": [\"n\"], " GOOD_ARGS ", \"launch\": "
			     "{\"kernel\": \"k\", \"grid\": [1], \"block\": [32], \"args\": [\"y\", \"zz\"]}, "
			     GOOD_TAIL "}"),
		    "argument 2 \"zz\"");
	KT_CONTAINS(load_err("i", "{\"name\": \"i\", \"dims\": [\"n\"], \"args\": [ { \"name\": \"y\", "
			     "\"type\": \"f32*\", \"role\": \"in\", \"shape\": [\"n\"] } ], \"launch\": "
			     "{\"kernel\": \"k\", \"grid\": [1], \"block\": [32]}, " GOOD_TAIL "}"),
		    "no out or inout tensor");
	KT_CONTAINS(load_err("j", "{\"name\": \"j\", \"dims\": [\"n\"], " GOOD_ARGS ", \"launch\": "
			     "{\"kernel\": \"k\", \"grid\": [1], \"block\": [32]}, \"tolerance\": {\"atol\": 0, "
			     "\"rtol\": 0}, \"bytes\": \"4*n\", \"cases\": {\"correctness\": [{\"n\": -4}]}}"),
		    "negative");
	KT_CONTAINS(load_err("k2", "{\"name\": \"k2\", \"dims\": [\"n\"], " GOOD_ARGS ", \"launch\": "
			     "{\"kernel\": \"k\", \"grid\": [1], \"block\": [32]}, \"tolerance\": {\"atol\": 0, "
			     "\"rtol\": 0}, \"bytes\": \"4*n\", \"cases\": {\"correctness\": [{\"n\": \"1 << 40\"}]}}"),
		    "bytes of tensors");
	KT_CONTAINS(load_err("l", "{\"name\": \"l\", \"dims\": [\"n\"], " GOOD_ARGS ", \"launch\": "
			     "{\"kernel\": \"k\", \"grid\": [1], \"block\": [32]}, \"peak\": \"f32\", " GOOD_TAIL "}"),
		    "no \"flops\"");
	KT_CONTAINS(load_err("m", "{\"name\": \"m\", \"dims\": [\"n\"], \"args\": [ { \"name\": \"y\", "
			     "\"type\": \"f32*\", \"role\": \"out\", \"shape\": [\"n\"], \"dist\": {\"kind\": "
			     "\"normal\"} } ], \"launch\": {\"kernel\": \"k\", \"grid\": [1], \"block\": [32]}, "
			     GOOD_TAIL "}"),
		    "an output has no dist");
	KT_CONTAINS(load_err("n", "not json"), "invalid JSON");
}

/* Dist parameters and float scalars must be finite: 1e400 reads as infinity, which the plan cannot
 * carry to a worker (JSON has no infinity: the worker got null and refused every run of the
 * problem). Found by fuzz_problem; an argument's dist and a case's override alike. */
static void test_infinite_dist_parameters_are_refused(void)
{
	const char *m;
	m = load_err("inf1", "{\"name\": \"inf1\", \"dims\": [\"n\"], \"args\": [ { \"name\": \"x\", "
		     "\"type\": \"f32*\", \"role\": \"in\", \"shape\": [\"n\"], \"dist\": {\"kind\": "
		     "\"normal\", \"mean\": 1e400} }, { \"name\": \"y\", \"type\": \"f32*\", \"role\": "
		     "\"out\", \"shape\": [\"n\"] } ], \"launch\": {\"kernel\": \"k\", \"grid\": [1], "
		     "\"block\": [32]}, " GOOD_TAIL "}");
	KT_CONTAINS(m, "inf1/problem.json");
	KT_CONTAINS(m, "x");
	KT_CONTAINS(m, "finite mean and std");
	m = load_err("inf2", "{\"name\": \"inf2\", \"dims\": [\"n\"], \"args\": [ { \"name\": \"x\", "
		     "\"type\": \"f32*\", \"role\": \"in\", \"shape\": [\"n\"] }, { \"name\": \"y\", "
		     "\"type\": \"f32*\", \"role\": \"out\", \"shape\": [\"n\"] } ], \"launch\": "
		     "{\"kernel\": \"k\", \"grid\": [1], \"block\": [32]}, \"tolerance\": {\"atol\": 0, "
		     "\"rtol\": 0}, \"bytes\": \"4*n\", \"cases\": {\"correctness\": [{\"n\": 4, \"dist\": "
		     "{\"x\": {\"kind\": \"uniform\", \"lo\": -1e400, \"hi\": 1}}}]}}");
	KT_CONTAINS(m, "inf2/problem.json");
	KT_CONTAINS(m, "finite lo and hi");
	/* a float scalar likewise, and an f32 one beyond f32's range */
	m = load_err("inf3", "{\"name\": \"inf3\", \"dims\": [\"n\"], \"args\": [ { \"name\": \"y\", "
		     "\"type\": \"f32*\", \"role\": \"out\", \"shape\": [\"n\"] }, { \"name\": \"eps\", "
		     "\"type\": \"f32\", \"value\": 1e39 } ], \"launch\": {\"kernel\": \"k\", \"grid\": [1], "
		     "\"block\": [32]}, " GOOD_TAIL "}");
	KT_CONTAINS(m, "inf3/problem.json");
	KT_CONTAINS(m, "arg eps");
	KT_CONTAINS(m, "must be finite");
}

/* Sizes are computed with checked arithmetic: a tensor of 2^62 f32 elements is 2^64 bytes, which
 * used to wrap to 0 and pass every size check (and `score check-refs`). */
static void test_sizes_that_wrap_are_refused(void)
{
	const char *m;
	m = load_err("wrap", "{\"name\": \"wrap\", \"dims\": [\"n\"], \"args\": [ { \"name\": \"y\", "
		     "\"type\": \"f32*\", \"role\": \"out\", \"shape\": [\"n\"] } ], \"launch\": "
		     "{\"kernel\": \"k\", \"grid\": [1], \"block\": [32]}, \"tolerance\": {\"atol\": 0, "
		     "\"rtol\": 0}, \"bytes\": \"4\", \"cases\": {\"correctness\": [{\"n\": 4}], "
		     "\"perf\": [{\"n\": \"1 << 62\", \"label\": \"huge\"}]}}");
	KT_CONTAINS(m, "wrap/problem.json");
	KT_CONTAINS(m, "case huge, arg y");
	KT_CONTAINS(m, "overflows");
	/* two tensors of 2^63 bytes each: each product fits, their sum wraps */
	m = load_err("wrap2", "{\"name\": \"wrap2\", \"dims\": [\"n\"], \"args\": [ { \"name\": \"x\", "
		     "\"type\": \"u8*\", \"role\": \"in\", \"shape\": [\"n\", 2] }, { \"name\": \"y\", "
		     "\"type\": \"u8*\", \"role\": \"out\", \"shape\": [\"n\", 2] } ], \"launch\": "
		     "{\"kernel\": \"k\", \"grid\": [1], \"block\": [32]}, \"tolerance\": {\"atol\": 0, "
		     "\"rtol\": 0}, \"bytes\": \"4\", \"cases\": {\"correctness\": [{\"n\": \"1 << 62\"}]}}");
	KT_CONTAINS(m, "arg y");
	KT_CONTAINS(m, "overflows");
}

/* JSON numbers that no integer type holds are refused, not cast (undefined behaviour). */
static void test_numbers_too_large_for_integers_are_refused(void)
{
	KT_CONTAINS(load_err("big", "{\"name\": \"big\", \"dims\": [\"n\"], " GOOD_ARGS ", \"launch\": "
			     "{\"kernel\": \"k\", \"grid\": [1e40], \"block\": [32]}, " GOOD_TAIL "}"),
		    "1e+40 is not an integer");
	KT_CONTAINS(load_err("big2", "{\"name\": \"big2\", \"dims\": [\"n\"], " GOOD_ARGS ", \"launch\": "
			     "{\"kernel\": \"k\", \"grid\": [1], \"block\": [32]}, \"tolerance\": {\"atol\": 0, "
			     "\"rtol\": 0}, \"bytes\": \"4*n\", \"cases\": {\"correctness\": [{\"n\": 1e40}]}}"),
		    "dim n must be an integer");
	KT_CONTAINS(load_err("big3", "{\"name\": \"big3\", \"difficulty\": 1e12, \"dims\": [\"n\"], " GOOD_ARGS
			     ", \"launch\": {\"kernel\": \"k\", \"grid\": [1], \"block\": [32]}, " GOOD_TAIL "}"),
		    "\"difficulty\" must be an integer from");
	KT_CONTAINS(load_err("big4", "{\"name\": \"big4\", \"dims\": [\"n\"], \"let\": {\"q\": -1e300}, "
			     GOOD_ARGS ", \"launch\": {\"kernel\": \"k\", \"grid\": [1], \"block\": [32]}, "
			     GOOD_TAIL "}"),
		    "let \"q\" must name an expression");
}

/* A case naming a dim twice is refused (it used to keep the last value and leak the first: found
 * by the problem fuzz target, fuzz/regress/problem/case-dim-twice-leaks.json). */
static void test_a_dim_given_twice_is_refused(void)
{
	KT_CONTAINS(load_err("twice", "{\"name\": \"twice\", \"dims\": [\"n\"], " GOOD_ARGS ", \"launch\": "
			     "{\"kernel\": \"k\", \"grid\": [1], \"block\": [32]}, \"tolerance\": {\"atol\": 0, "
			     "\"rtol\": 0}, \"bytes\": \"4*n\", \"cases\": {\"correctness\": [{\"n\": 8, \"n\": 16}]}}"),
		    "dim n is given twice");
}

static void test_set_reports_bad_folders_and_keeps_good_ones(void)
{
	ks_problem_set *s = NULL;
	char root[4200];
	make_problem("good", "{\"name\": \"good\", \"dims\": [\"n\"], " GOOD_ARGS ", \"launch\": "
		     "{\"kernel\": \"k\", \"grid\": [1], \"block\": [32]}, " GOOD_TAIL "}");
	make_problem("bad", "{\"name\": \"bad\"}");
	snprintf(root, sizeof(root), "%s", kt_tmpdir());
	KT_EQ_INT(ks_problem_set_load(&s, root, NULL), 0);
	KT_EQ_INT(s->n, 1);
	KT_EQ_INT(s->nerrors, 1);
	KT_CONTAINS(s->errors[0], "bad/problem.json");
	ks_problem_set_free(s);
}


/* A spec with tensors x (in), w (in), y (out) and the scalar n, whose `python` section is py. */
static const char *py_spec(const char *name, const char *py)
{
	static char spec[4096];
	snprintf(spec, sizeof(spec),
		 "{\"name\": \"%s\", \"dims\": [\"n\"], \"args\": ["
		 " { \"name\": \"x\", \"type\": \"f32*\", \"role\": \"in\", \"shape\": [\"n\"] },"
		 " { \"name\": \"w\", \"type\": \"f32*\", \"role\": \"in\", \"shape\": [\"n\"] },"
		 " { \"name\": \"y\", \"type\": \"f32*\", \"role\": \"out\", \"shape\": [\"n\"] },"
		 " { \"name\": \"n\", \"type\": \"i32\", \"value\": \"n\" } ],"
		 " \"launch\": {\"kernel\": \"k\", \"grid\": [1], \"block\": [32]}, %s%s" GOOD_TAIL "}",
		 name, py ? py : "", py ? ", " : "");
	return spec;
}

static void test_python_entry_loads(void)
{
	ks_problem *p = NULL;
	cJSON *j;
	char *s;
	const char *dir = make_problem("pyok", py_spec("pyok", "\"python\": {\"entry\": \"scale\", "
		"\"args\": [\"x\", {\"const\": 2.5}], \"kwargs\": {\"weight\": \"w\", \"n\": \"n\", "
		"\"fast\": {\"const\": false}, \"mode\": {\"const\": \"rows\"}, \"extra\": {\"const\": null}}, "
		"\"returns\": \"y\", \"made_by_entry\": [], \"note\": \"y = x * w\"}"));
	KT_EQ_INT(ks_problem_load(&p, dir, "suite"), 0);
	KT_EQ_STR(p->python.entry, "scale");
	KT_EQ_INT(p->python.nargs, 2);
	KT_EQ_INT(p->python.args[0].kind, KS_PYARG_NAME);
	KT_EQ_STR(p->python.args[0].ref, "x");
	KT_ASSERT(p->python.args[0].key == NULL);
	KT_EQ_INT(p->python.args[1].kind, KS_PYARG_CONST);
	KT_EQ_STR(p->python.args[1].json, "2.5");
	KT_EQ_INT(p->python.nkwargs, 5);
	KT_EQ_STR(p->python.kwargs[0].key, "weight");
	KT_EQ_STR(p->python.kwargs[2].json, "false");
	KT_EQ_STR(p->python.returns, "y");
	KT_EQ_STR(p->python.note, "y = x * w");
	/* the entry object of a trace request (the helper protocol), in the section's order */
	j = ks_problem_python_json(p);
	s = cJSON_PrintUnformatted(j);
	KT_EQ_STR(s, "{\"name\":\"scale\",\"args\":[\"x\",{\"const\":2.5}],\"kwargs\":{\"weight\":\"w\","
		     "\"n\":\"n\",\"fast\":{\"const\":false},\"mode\":{\"const\":\"rows\"},\"extra\":{\"const\":"
		     "null}},\"returns\":\"y\",\"made_by_entry\":[]}");
	cJSON_free(s);
	cJSON_Delete(j);
	ks_problem_free(p);

	/* in place (returns null), an input the entry makes itself */
	dir = make_problem("pyinplace", py_spec("pyinplace", "\"python\": {\"entry\": \"fill\", "
		"\"args\": [\"n\", \"w\", \"y\"], \"returns\": null, \"made_by_entry\": [\"x\"]}"));
	KT_EQ_INT(ks_problem_load(&p, dir, "suite"), 0);
	KT_ASSERT(p->python.returns == NULL);
	KT_EQ_INT(p->python.nmade, 1);
	j = ks_problem_python_json(p);
	s = cJSON_PrintUnformatted(j);
	KT_EQ_STR(s, "{\"name\":\"fill\",\"args\":[\"n\",\"w\",\"y\"],\"kwargs\":{},\"returns\":null,"
		     "\"made_by_entry\":[\"x\"]}");
	cJSON_free(s);
	cJSON_Delete(j);
	ks_problem_free(p);
}

static void test_python_entry_is_optional(void)
{
	ks_problem *p = NULL;
	const char *dir = make_problem("pynone", py_spec("pynone", NULL));
	KT_EQ_INT(ks_problem_load(&p, dir, "suite"), 0);
	KT_ASSERT(p->python.entry == NULL);
	KT_ASSERT(ks_problem_python_json(p) == NULL);
	ks_problem_free(p);
	dir = make_problem("pynull", py_spec("pynull", "\"python\": null"));
	KT_EQ_INT(ks_problem_load(&p, dir, "suite"), 0);
	KT_ASSERT(p->python.entry == NULL);
	ks_problem_free(p);
}

/* The spec's version covers the section: a changed entry is a new spec. */
static void test_python_section_is_part_of_the_spec_version(void)
{
	ks_problem *a = NULL, *b = NULL;
	const char *dir = make_problem("pysha", py_spec("pysha", "\"python\": {\"entry\": \"f\", "
		"\"args\": [\"x\", \"w\"], \"returns\": \"y\", \"note\": \"one\"}"));
	KT_EQ_INT(ks_problem_load(&a, dir, "suite"), 0);
	dir = make_problem("pysha", py_spec("pysha", "\"python\": {\"entry\": \"f\", "
		"\"args\": [\"x\", \"w\"], \"returns\": \"y\", \"note\": \"two\"}"));
	KT_EQ_INT(ks_problem_load(&b, dir, "suite"), 0);
	KT_ASSERT(strcmp(a->sha256, b->sha256) != 0);
	ks_problem_free(a);
	ks_problem_free(b);
}

/* Each way a section can contradict the spec is refused, naming the problem and the field. */
static void test_python_entry_must_match_the_spec(void)
{
	static const struct {
		const char *py, *want;
	} bad[] = {
		{ "\"args\": [\"x\", \"q\"], \"returns\": \"y\"", "python.args[1]: \"q\" is not an argument" },
		{ "\"args\": [\"x\", \"w\"], \"kwargs\": {\"again\": \"x\"}, \"returns\": \"y\"",
		  "python.kwargs.again: x is passed twice" },
		{ "\"args\": [\"x\", \"w\"], \"returns\": \"x\"", "python.returns: \"x\" is not an out tensor" },
		{ "\"args\": [\"x\", \"w\"], \"returns\": \"n\"", "python.returns: \"n\" is not an out tensor" },
		{ "\"args\": [\"x\", \"w\", \"y\"], \"returns\": \"y\"", "python.returns: y is returned, so it" },
		{ "\"args\": [\"w\"], \"returns\": \"y\", \"made_by_entry\": [\"y\"]",
		  "python.made_by_entry: \"y\" is not an in tensor" },
		{ "\"args\": [\"x\", \"w\"], \"returns\": \"y\", \"made_by_entry\": [\"x\"]",
		  "python.made_by_entry: x is made by the entry, so it is not passed too" },
		{ "\"args\": [\"x\"], \"returns\": \"y\"", "python: input w is neither passed to f nor in made_by_entry" },
		{ "\"args\": [\"x\", \"w\"], \"returns\": null", "python: output y is neither returned nor passed" },
		{ "\"args\": [\"x\", \"w\"]", "python.returns: missing" },
		{ "\"args\": [\"x\", \"w\"], \"returns\": \"y\", \"retruns\": 1", "unknown field \"retruns\"" },
	};
	size_t i;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char name[32], py[512];
		const char *m;
		snprintf(name, sizeof(name), "pybad%zu", i);
		snprintf(py, sizeof(py), "\"python\": {\"entry\": \"f\", %s}", bad[i].py);
		m = load_err(name, py_spec(name, py));
		KT_CONTAINS(m, name);
		KT_CONTAINS(m, "/problem.json");
		KT_CONTAINS(m, bad[i].want);
	}
}

#define DOMAIN_SPEC(name, cases) \
	"{\"name\": \"" name "\", \"dims\": [\"n\"], " GOOD_ARGS ", \"launch\": {\"kernel\": \"k\", " \
	"\"grid\": [1], \"block\": [32]}, \"tolerance\": {\"atol\": 0, \"rtol\": 0}, \"bytes\": \"4*n\", " \
	"\"domain\": [{\"rule\": \"n > 0\", \"message\": \"no empty rows\"}, " \
	"{\"rule\": \"n * 4 < 65536\", \"message\": \"the reference refuses rows of 64 KiB\"}], " \
	"\"cases\": " cases "}"

/* A scored case outside the domain is refused at load, naming the file, the case (its list and
 * index in problem.json) and the rule with its message and values. */
static void test_a_scored_case_outside_the_domain_is_refused(void)
{
	const char *m = load_err("dom1", DOMAIN_SPEC("dom1", "{\"correctness\": [{\"n\": 4}, {\"n\": 16384}]}"));
	KT_CONTAINS(m, "dom1/problem.json");
	KT_CONTAINS(m, "correctness case 1 (n=16384) is outside the domain");
	KT_CONTAINS(m, "rule \"n * 4 < 65536\" does not hold (n=16384)");
	KT_CONTAINS(m, "the reference refuses rows of 64 KiB");
	KT_CONTAINS(m, "\"extended\": true");
	m = load_err("dom2", DOMAIN_SPEC("dom2", "{\"correctness\": [{\"n\": 4}], \"perf\": [{\"n\": 0}]}"));
	KT_CONTAINS(m, "perf case 0 (n=0)");
	KT_CONTAINS(m, "rule \"n > 0\"");
	/* every correctness case extended leaves nothing to score */
	m = load_err("dom3", DOMAIN_SPEC("dom3", "{\"correctness\": [{\"n\": 16384, \"extended\": true}]}"));
	KT_CONTAINS(m, "no scored correctness cases");
	m = load_err("dom4", DOMAIN_SPEC("dom4", "{\"correctness\": [{\"n\": 4, \"extended\": 1}]}"));
	KT_CONTAINS(m, "correctness case 0");
	KT_CONTAINS(m, "extended");
}

/* Extended cases leave the scored lists: every stage that runs, times or counts scored cases sees
 * none of them; they keep their place in the file and the rule they break. */
static void test_extended_cases_are_kept_apart(void)
{
	ks_problem *p = NULL;
	const char *dir = make_problem("dom5", DOMAIN_SPEC("dom5", "{\"correctness\": [{\"n\": 4}, "
							     "{\"n\": 16384, \"extended\": true}, {\"n\": 7}], \"perf\": "
							     "[{\"n\": 20000, \"extended\": true}, {\"n\": 8000}, "
							     "{\"n\": 9, \"extended\": true, \"label\": \"inside\"}]}"));
	KT_EQ_INT(ks_problem_load(&p, dir, "suite"), 0);
	KT_EQ_INT(p->ncorrectness, 2);
	KT_EQ_STR(p->correctness[1].label, "n=7");
	KT_EQ_INT(p->correctness[1].index, 2);
	KT_EQ_INT(p->correctness[1].outside, -1);
	KT_EQ_INT(p->nperf, 1);
	KT_EQ_STR(p->perf[0].label, "n=8000");
	KT_EQ_INT(p->perf[0].index, 1);
	KT_EQ_INT(p->nextended, 3);
	KT_EQ_STR(p->extended[0].label, "n=16384");
	KT_EQ_INT(p->extended[0].perf, 0);
	KT_EQ_INT(p->extended[0].index, 1);
	KT_EQ_INT(p->extended[0].outside, 1);
	KT_EQ_STR(p->extended[1].label, "n=20000");
	KT_EQ_INT(p->extended[1].perf, 1);
	KT_EQ_INT(p->extended[1].index, 0);
	KT_EQ_INT(p->extended[2].outside, -1); /* an extended case may lie inside */
	KT_EQ_INT(p->extended[2].seeds, 2);
	KT_ASSERT(ks_problem_case(p, KS_CASE_EXTENDED, 1) == &p->extended[1]);
	KT_ASSERT(ks_problem_case(p, KS_CASE_PERF, 0) == &p->perf[0]);
	KT_ASSERT(ks_problem_case(p, KS_CASE_CORRECTNESS, 1) == &p->correctness[1]);
	KT_ASSERT(ks_problem_case(p, KS_CASE_EXTENDED, 3) == NULL);
	KT_ASSERT(ks_problem_case(p, KS_CASE_PERF, 1) == NULL);
	KT_EQ_INT(p->domain.n, 2);
	ks_problem_free(p);
}

static const kt_test tests[] = {
	KT(test_loads_fixture_suite), KT(test_env_and_counts), KT(test_valid_minimal_spec),
	KT(test_rejects_bad_specs), KT(test_set_reports_bad_folders_and_keeps_good_ones),
	KT(test_sm_count_is_the_devices), KT(test_sizes_that_wrap_are_refused),
	KT(test_infinite_dist_parameters_are_refused),
	KT(test_numbers_too_large_for_integers_are_refused), KT(test_a_dim_given_twice_is_refused),
	KT(test_python_entry_loads), KT(test_python_entry_is_optional),
	KT(test_python_section_is_part_of_the_spec_version), KT(test_python_entry_must_match_the_spec),
	KT(test_a_scored_case_outside_the_domain_is_refused), KT(test_extended_cases_are_kept_apart), { 0 }
};
KT_MAIN("problem", tests)
