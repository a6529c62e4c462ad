/* Tests of catalog: what `score problems` lists, exports and dumps (the resolved golden plans). */
#include "ktest.h"
#include "refs/catalog.h"
#include "util/errors.h"
#include "util/fsutil.h"
#include "util/jsonutil.h"
#include "util/mem.h"

/* tests/fixtures/<dir>: `problems` (the shared fixtures, no Python entries) or `pyproblems` (the
 * same two problems, vadd with a python section and an instruction with a `## Launch` and a
 * `## Triton answers` section). */
static ks_problem_set *fixtures_in(const char *dir)
{
	const char *root = getenv("KSCORE_ROOT");
	char *refs = ks_asprintf("%s/tests/fixtures/%s", root && *root ? root : ".", dir);
	ks_problem_set *set = NULL;
	KT_EQ_INT(ks_problem_set_load(&set, refs, NULL), 0);
	KT_EQ_INT(set->nerrors, 0);
	ks_free(refs);
	return set;
}

static ks_problem_set *fixtures(void)
{
	return fixtures_in("problems");
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
	KT_ASSERT(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(v, "python")));
	cJSON_Delete(a);
	ks_problem_set_free(set);
	/* a problem with a Python entry lists its call */
	set = fixtures_in("pyproblems");
	a = ks_catalog_list(set);
	KT_EQ_STR(str(named(a, "name", "vadd"), "python"), "c = vadd(a, b, alpha=2.5)");
	KT_ASSERT(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(named(a, "name", "rowsum"), "python")));
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
	a = ks_catalog_prompts(set, KS_PROMPT_CUDA);
	KT_EQ_INT(cJSON_GetArraySize(a), 2);
	KT_EQ_STR(str(named(a, "file", "vadd.py"), "suite"), "hackathon");
	KT_ASSERT(strlen(str(named(a, "file", "rowsum.py"), "instruction")) > 0);
	KT_EQ_INT((int)num(named(a, "file", "vadd.py"), "difficulty"), 1);
	cJSON_Delete(a);
	ks_problem_set_free(set);
	ks_free(cmd);
	ks_free(refs);
	set = fixtures();
	a = ks_catalog_prompts(set, KS_PROMPT_CUDA);
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


static const char *instruction_of(const cJSON *a, const char *file)
{
	return str(named(a, "file", file), "instruction");
}

/* The CUDA export is instruction.md and the include note, without the `## Triton answers` section
 * (it does not concern CUDA answers). */
static void test_cuda_prompt_leaves_out_the_triton_section(void)
{
	ks_problem_set *set = fixtures_in("pyproblems");
	cJSON *a = ks_catalog_prompts(set, KS_PROMPT_CUDA);
	const char *t = instruction_of(a, "vadd.cu");
	KT_CONTAINS(t, "Write a CUDA kernel vadd(a, b, c, n)");
	KT_CONTAINS(t, "## Launch\n\nOne thread per element");
	KT_NOT_CONTAINS(t, "Triton");
	KT_CONTAINS(t, "grid cdiv(n, 256), block 256.\n\nIncludes: ");
	KT_EQ_STR(str(named(a, "file", "vadd.cu"), "language"), "cuda");
	KT_EQ_INT(cJSON_GetArraySize(a), 2);
	cJSON_Delete(a);
	ks_problem_set_free(set);
}

/* The Triton export: the call the scorer makes, every argument's torch type and how it is passed,
 * the note, the cases in words, the accuracy, the rules, then the statement without the CUDA
 * launch contract. A problem without a Python entry is left out. */
static void test_triton_prompt_says_what_to_write(void)
{
	ks_problem_set *set = fixtures_in("pyproblems");
	cJSON *a = ks_catalog_prompts(set, KS_PROMPT_TRITON);
	const char *t;
	KT_EQ_INT(cJSON_GetArraySize(a), 1); /* rowsum has no python section */
	KT_EQ_STR(str(named(a, "file", "vadd.py"), "language"), "triton");
	KT_EQ_STR(str(named(a, "file", "vadd.py"), "suite"), "demo");
	t = instruction_of(a, "vadd.py");
	KT_CONTAINS(t, "# vadd (Triton)\n");
	KT_CONTAINS(t, "```python\nc = vadd(a, b, alpha=2.5)\n```");
	KT_CONTAINS(t, "It returns `c`: a new contiguous torch.float32 tensor");
	KT_CONTAINS(t, "| `a` | positional argument 1 | torch.float32 tensor | `[n]` | input, read only |");
	KT_CONTAINS(t, "| `c` | returned by the entry | torch.float32 tensor | `[n]` | output, write every element |");
	KT_CONTAINS(t, "| `n` | not passed (read it from the shapes) | Python int | scalar (`= n`) |");
	KT_CONTAINS(t, "| `alpha=2.5` | keyword `alpha` | constant |");
	KT_CONTAINS(t, "As torch.add(a, b) on float32 vectors.");
	KT_CONTAINS(t, "- n=1\n- n=1000\n- n=4097\n");
	KT_CONTAINS(t, "Timed (checked as well");
	KT_CONTAINS(t, "- n=4194304\n");
	KT_CONTAINS(t, "- `c`: `|c - ref| <= 1e-06 + 1e-06 * |ref|` per element");
	KT_CONTAINS(t, "refuses the answer (`host_op`)");
	KT_CONTAINS(t, "imports of " KS_PROMPT_TRITON_IMPORTS);
	/* the statement, its heading one level down, without the CUDA launch contract */
	KT_CONTAINS(t, "## The problem statement\n");
	KT_CONTAINS(t, "Write a CUDA kernel vadd(a, b, c, n) computing c[i] = a[i] + b[i].\n");
	KT_NOT_CONTAINS(t, "One thread per element");
	KT_NOT_CONTAINS(t, "Triton answers define");
	KT_NOT_CONTAINS(t, "Includes: ");
	KT_NOT_CONTAINS(t, "more than 2^31");
	cJSON_Delete(a);
	ks_problem_set_free(set);
}

/* Every shipped problem has a Python entry, and its Triton instruction names the entry's call;
 * the in-place and made-by-the-entry conventions are said in words; it ends with Triton's rules
 * and holds none of CUDA's compile rules. */
static void test_triton_prompts_of_the_shipped_problems(void)
{
	const char *root = getenv("KSCORE_ROOT");
	char *refs = ks_asprintf("%s/reference_tests", root && *root ? root : ".");
	ks_problem_set *set = NULL;
	cJSON *a;
	const char *t;
	int i;
	KT_EQ_INT(ks_problem_set_load(&set, refs, NULL), 0);
	KT_EQ_INT(set->nerrors, 0);
	a = ks_catalog_prompts(set, KS_PROMPT_TRITON);
	KT_EQ_INT(cJSON_GetArraySize(a), (int)set->n);
	t = instruction_of(a, "rotary_transform.py");
	KT_CONTAINS(t, "out = apply_rotary(x, cos, sin, seqlen_offsets=seqlen_offset, interleaved=False)");
	KT_CONTAINS(t, "- batch=1, seqlen=300, nheads=2, headdim=64, rotary_dim=32, seqlen_ro=500, offset=50: "
		       "positions past seqlen_ro are left unrotated (rows 150-299)\n");
	t = instruction_of(a, "embedding_triton_kernel.py");
	KT_CONTAINS(t, "embedding(input_ids, weight, vob_start_id, vob_end_id, out)\n```");
	KT_CONTAINS(t, "It writes `out` in place (passed in, allocated by the scorer) and returns nothing.");
	t = instruction_of(a, "matrix_transpose.py");
	KT_CONTAINS(t, "out = wrapper(m, n)");
	KT_CONTAINS(t, "`matrix` is not passed: the entry makes it itself");
	KT_CONTAINS(t, "- `out`: exact, bit for bit.");
	t = instruction_of(a, "layernorm_residual_bf16.py");
	KT_CONTAINS(t, "It writes `h`, `y` in place");
	t = instruction_of(a, "l2_norm_triton1.py");
	KT_CONTAINS(t, "y = _l2_norm_fwd(x, eps=eps)");
	KT_CONTAINS(t, "| `eps` | keyword `eps` | Python float | scalar (1e-06) |");
	KT_NOT_CONTAINS(t, "kscore-launch: {"); /* the CUDA launch contract is left out */
	/* each prompt states Triton's rules, last, and none of CUDA's compile rules (NVRTC, device
	 * code only), while the statement's other rules stay */
	for (i = 0; i < cJSON_GetArraySize(a); i++) {
		const char *u = str(cJSON_GetArrayItem(a, i), "instruction"), *end = "Answer with the Python source only.\n";
		KT_NOT_CONTAINS(u, "NVRTC");
		KT_NOT_CONTAINS(u, "Device code only");
		KT_ASSERT_MSG(strlen(u) > strlen(end) && !strcmp(u + strlen(u) - strlen(end), end),
			      "%s does not end with the Triton rules", str(cJSON_GetArrayItem(a, i), "file"));
	}
	t = instruction_of(a, "softmax_f32.py");
	KT_CONTAINS(t, "- Performance: timed at `16384 x 8192`");
	KT_CONTAINS(t, "- Write every output element, nothing outside `y`");
	cJSON_Delete(a);
	ks_problem_set_free(set);
	ks_free(refs);
}

static void test_export_language_from_the_command_line(void)
{
	const char *bin = getenv("KSCORE_BIN"), *root = getenv("KSCORE_ROOT");
	char *out = ks_asprintf("%s/p.json", kt_tmpdir()), *cmd, *text = NULL;
	cJSON *j = NULL;
	if (!bin)
		KT_SKIP("KSCORE_BIN is not set (run through tests/run.sh)");
	cmd = ks_asprintf("'%s' problems --refs '%s/tests/fixtures/pyproblems' --export-prompts '%s' "
			  "--language triton 2>'%s/err'",
			  bin, root ? root : ".", out, kt_tmpdir());
	KT_EQ_INT(system(cmd), 0);
	KT_EQ_INT(ks_fs_read(&text, NULL, out, 16u << 20), 0);
	KT_EQ_INT(ks_json_parse(&j, text, strlen(text), 64, out), 0);
	KT_EQ_INT(cJSON_GetArraySize(j), 1);
	KT_EQ_STR(str(cJSON_GetArrayItem(j, 0), "file"), "vadd.py");
	cJSON_Delete(j);
	ks_free(text);
	text = NULL;
	{
		char *err = ks_asprintf("%s/err", kt_tmpdir());
		KT_EQ_INT(ks_fs_read(&text, NULL, err, 1u << 20), 0);
		KT_CONTAINS(text, "wrote 1 Triton instructions");
		KT_CONTAINS(text, "problems without a Python entry left out");
		ks_free(err);
		ks_free(text);
	}
	ks_free(cmd);
	cmd = ks_asprintf("'%s' problems --refs '%s/tests/fixtures/problems' --export-prompts '%s' "
			  "--language rust 2>/dev/null",
			  bin, root ? root : ".", out);
	KT_EQ_INT(WEXITSTATUS(system(cmd)), 64);
	ks_free(cmd);
	cmd = ks_asprintf("'%s' problems --refs '%s/tests/fixtures/problems' --language triton 2>/dev/null",
			  bin, root ? root : ".");
	KT_EQ_INT(WEXITSTATUS(system(cmd)), 64); /* nothing to apply it to */
	ks_free(cmd);
	ks_free(out);
}

static const kt_test tests[] = {
	KT(test_listing),
	KT(test_prompt_export_names_files_per_suite),
	KT(test_plans_resolve_every_case),
	KT(test_plans_from_the_command_line),
	KT(test_cuda_prompt_leaves_out_the_triton_section),
	KT(test_triton_prompt_says_what_to_write),
	KT(test_triton_prompts_of_the_shipped_problems),
	KT(test_export_language_from_the_command_line),
	{ NULL, NULL }
};

KT_MAIN("catalog", tests)
