/* Tests of catalog: what `score problems` lists, exports and dumps (the resolved golden plans). */
#include "ktest.h"
#include "refs/catalog.h"
#include "util/errors.h"
#include "util/fsutil.h"
#include "util/jsonutil.h"
#include "util/mem.h"

static ks_problem_set *fixtures(void)
{
	const char *root = getenv("KSCORE_ROOT");
	char *refs = ks_asprintf("%s/tests/fixtures/problems", root && *root ? root : ".");
	ks_problem_set *set = NULL;
	KT_EQ_INT(ks_problem_set_load(&set, refs, NULL), 0);
	KT_EQ_INT(set->nerrors, 0);
	ks_free(refs);
	return set;
}

static const cJSON *named(const cJSON *arr, const char *key, const char *name)
{
	const cJSON *it;
	cJSON_ArrayForEach(it, arr)
	{
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(it, key);
		if (cJSON_IsString(v) && !strcmp(v->valuestring, name))
			return it;
	}
	KT_FAIL("no %s \"%s\"", key, name);
	return NULL;
}

static double num(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	KT_ASSERT_MSG(cJSON_IsNumber(v), "%s is not a number", key);
	return v->valuedouble;
}

static const char *str(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	KT_ASSERT_MSG(cJSON_IsString(v), "%s is not a string", key);
	return v->valuestring;
}

static void test_listing(void)
{
	ks_problem_set *set = fixtures();
	cJSON *a = ks_catalog_list(set);
	const cJSON *v = named(a, "name", "vadd"), *t;
	KT_EQ_INT(cJSON_GetArraySize(a), 2);
	KT_EQ_STR(str(v, "suite"), "demo");
	KT_EQ_INT((int)num(v, "difficulty"), 1);
	KT_EQ_STR(str(v, "description"), "c[i] = a[i] + b[i]");
	t = cJSON_GetObjectItemCaseSensitive(v, "tensors");
	KT_EQ_INT(cJSON_GetArraySize(t), 3); /* the scalar n is not a tensor */
	KT_EQ_STR(cJSON_GetArrayItem(t, 0)->valuestring, "a f32 in");
	KT_EQ_STR(cJSON_GetArrayItem(t, 2)->valuestring, "c f32 out");
	KT_EQ_INT((int)num(v, "correctness_cases"), 3);
	KT_EQ_INT(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(v, "perf_cases")), 1);
	KT_EQ_STR(str(v, "peak"), "f32");
	KT_EQ_STR(str(v, "bytes"), "12 * n");
	KT_EQ_STR(str(v, "flops"), "n");
	cJSON_Delete(a);
	ks_problem_set_free(set);
}

static void test_prompt_export_names_files_per_suite(void)
{
	/* the hackathon suite's GEAK-eval file names keep their .py suffix; others are .cu */
	const char *root = getenv("KSCORE_ROOT");
	char *cmd = ks_asprintf("mkdir -p '%s/refs' && cp -r '%s/tests/fixtures/problems/demo' "
				"'%s/refs/hackathon'",
				kt_tmpdir(), root ? root : ".", kt_tmpdir());
	char *refs = ks_asprintf("%s/refs", kt_tmpdir());
	ks_problem_set *set = NULL;
	cJSON *a;
	KT_EQ_INT(system(cmd), 0);
	KT_EQ_INT(ks_problem_set_load(&set, refs, NULL), 0);
	a = ks_catalog_prompts(set);
	KT_EQ_INT(cJSON_GetArraySize(a), 2);
	KT_EQ_STR(str(named(a, "file", "vadd.py"), "suite"), "hackathon");
	KT_ASSERT(strlen(str(named(a, "file", "rowsum.py"), "instruction")) > 0);
	KT_EQ_INT((int)num(named(a, "file", "vadd.py"), "difficulty"), 1);
	cJSON_Delete(a);
	ks_problem_set_free(set);
	ks_free(cmd);
	ks_free(refs);
	set = fixtures();
	a = ks_catalog_prompts(set);
	named(a, "file", "vadd.cu");
	cJSON_Delete(a);
	ks_problem_set_free(set);
}

/* rowsum's golden plan is two kernels and a scratch buffer: every expression resolved. */
static void test_plans_resolve_every_case(void)
{
	ks_problem_set *set = fixtures();
	cJSON *root, *bufs;
	const cJSON *p, *c, *env, *l, *args, *b;

	ks_problem_set_sm_count(set, 78);
	root = ks_catalog_plans(set);
	KT_EQ_STR(str(root, "schema"), "kscore.plans/1");
	p = named(cJSON_GetObjectItemCaseSensitive(root, "problems"), "name", "rowsum");
	KT_EQ_STR(str(p, "suite"), "demo");
	KT_EQ_INT(strlen(str(p, "sha256")), 64);
	KT_CONTAINS(str(p, "golden_source"), "__global__ void partial(");
	KT_EQ_INT(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(p, "kernels")), 2);
	KT_EQ_STR(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(p, "dims"), 1)->valuestring, "cols");
	KT_EQ_INT(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(p, "cases")), 4); /* 3 + 1 perf */
	c = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(p, "cases"), 1);
	KT_EQ_STR(str(c, "kind"), "correctness");
	KT_ASSERT(cJSON_GetObjectItemCaseSensitive(c, "error") == NULL);
	env = cJSON_GetObjectItemCaseSensitive(c, "env");
	KT_EQ_INT((int)num(env, "sm_count"), 78);
	KT_EQ_INT((int)num(env, "rows"), 7);
	KT_EQ_INT((int)num(env, "cols"), 1000);
	KT_EQ_INT((int)num(env, "chunks"), 4); /* let chunks = cdiv(cols, 256) */
	KT_EQ_INT((int)num(c, "bytes"), 4 * 7 * 1000 + 4 * 7);
	KT_EQ_INT((int)num(c, "flops"), 7000);
	bufs = cJSON_GetObjectItemCaseSensitive(c, "bufs");
	b = named(bufs, "name", "x");
	KT_EQ_STR(str(b, "role"), "in");
	KT_EQ_STR(str(b, "fill"), "random");
	KT_EQ_STR(str(cJSON_GetObjectItemCaseSensitive(b, "dist"), "kind"), "normal");
	KT_EQ_INT(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(b, "shape"), 0)->valueint, 7);
	KT_EQ_INT(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(b, "shape"), 1)->valueint, 1000);
	b = named(bufs, "name", "y");
	KT_NEAR(num(b, "atol"), 1e-4, 0); /* the output's own tolerance */
	KT_EQ_STR(str(b, "fill"), "poison");
	b = named(bufs, "name", "part");
	KT_EQ_STR(str(b, "role"), "scratch");
	KT_EQ_INT((int)num(b, "count"), 28);
	l = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(c, "launches"), 0);
	KT_EQ_STR(str(l, "kernel"), "partial");
	KT_EQ_INT(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(l, "grid"), 0)->valueint, 4);
	KT_EQ_INT(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(l, "grid"), 1)->valueint, 7);
	KT_EQ_INT(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(l, "block"), 0)->valueint, 256);
	args = cJSON_GetObjectItemCaseSensitive(l, "args");
	KT_EQ_INT(cJSON_GetArraySize(args), 5);
	KT_EQ_STR(str(cJSON_GetArrayItem(args, 0), "buf"), "x");
	KT_EQ_STR(str(cJSON_GetArrayItem(args, 1), "buf"), "part");
	KT_EQ_INT((int)num(cJSON_GetArrayItem(args, 4), "i32"), 4);
	l = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(c, "launches"), 1);
	KT_EQ_STR(str(l, "kernel"), "finish");
	KT_EQ_INT(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(l, "block"), 0)->valueint, 32);
	/* a case's dist override and the scalars */
	p = named(cJSON_GetObjectItemCaseSensitive(root, "problems"), "name", "vadd");
	c = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(p, "cases"), 2);
	b = named(cJSON_GetObjectItemCaseSensitive(c, "bufs"), "name", "a");
	KT_NEAR(num(cJSON_GetObjectItemCaseSensitive(b, "dist"), "std"), 1000, 0);
	b = named(cJSON_GetObjectItemCaseSensitive(c, "bufs"), "name", "b");
	KT_EQ_STR(str(cJSON_GetObjectItemCaseSensitive(b, "dist"), "kind"), "uniform");
	KT_NEAR(num(cJSON_GetObjectItemCaseSensitive(b, "dist"), "lo"), -2, 0);
	{
		const cJSON *n = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(c, "scalars"),
								   "n");
		KT_EQ_STR(str(n, "type"), "i32");
		KT_EQ_INT((int)num(n, "value"), 4097);
	}
	KT_EQ_INT((int)num(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(p, "cases"), 3), "seeds"), 2);
	cJSON_Delete(root);
	ks_problem_set_free(set);
}

static void test_plans_from_the_command_line(void)
{
	const char *bin = getenv("KSCORE_BIN"), *root = getenv("KSCORE_ROOT");
	char *out = ks_asprintf("%s/plans.json", kt_tmpdir()), *cmd, *text = NULL;
	cJSON *j = NULL;
	if (!bin)
		KT_SKIP("KSCORE_BIN is not set (run through tests/run.sh)");
	cmd = ks_asprintf("'%s' problems --refs '%s/tests/fixtures/problems' --plans '%s' --sm-count 66 "
			  "2>/dev/null",
			  bin, root ? root : ".", out);
	KT_EQ_INT(system(cmd), 0);
	KT_EQ_INT(ks_fs_read(&text, NULL, out, 16u << 20), 0);
	KT_EQ_INT(ks_json_parse(&j, text, strlen(text), 64, out), 0);
	KT_EQ_INT((int)num(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "problems"), 0), "sm_count"), 66);
	ks_free(cmd);
	cmd = ks_asprintf("'%s' problems --refs '%s/tests/fixtures/problems' --plans '%s' --sm-count 0 "
			  "2>/dev/null",
			  bin, root ? root : ".", out);
	KT_EQ_INT(WEXITSTATUS(system(cmd)), 64);
	cJSON_Delete(j);
	ks_free(text);
	ks_free(cmd);
	ks_free(out);
}

static const kt_test tests[] = {
	KT(test_listing),
	KT(test_prompt_export_names_files_per_suite),
	KT(test_plans_resolve_every_case),
	KT(test_plans_from_the_command_line),
	{ NULL, NULL }
};

KT_MAIN("catalog", tests)
