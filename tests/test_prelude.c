/* Tests of prelude: device code shared between reference problems, put in front of golden.cu. */
#include "ktest.h"
#include "load/prelude.h"
#include "lang/cuda/compile.h"
#include "util/errors.h"
#include "util/fsutil.h"
#include "util/jsonutil.h"
#include "util/mem.h"
#include "load/problem.h"
#include "util/sandbox.h"

/* <tmp>/refs/<suite>/<name> with a _shared folder beside the suites; returns the problem folder. */
static char *tree(void)
{
	char *shared = ks_asprintf("%s/refs/_shared", kt_tmpdir());
	char *dir = ks_asprintf("%s/refs/s/p", kt_tmpdir()), *f;
	ks_fs_mkdir_p(shared, 0755);
	ks_fs_mkdir_p(dir, 0755);
	f = ks_path_join(shared, "one.cuh");
	ks_fs_write_atomic(f, "// one\n#define ONE 1", 20);
	ks_free(f);
	f = ks_path_join(shared, "two.cuh");
	ks_fs_write_atomic(f, "// two\n", 7);
	ks_free(f);
	ks_free(shared);
	return dir;
}

/* Applies the prelude of spec_text to "GOLDEN\n"; returns the status, the result in *out. */
static int apply(char **out, const char *dir, const char *spec_text)
{
	cJSON *spec = NULL;
	size_t len = 7;
	int rc;
	*out = ks_strdup("GOLDEN\n");
	KT_EQ_INT(ks_json_parse(&spec, spec_text, strlen(spec_text), 8, "spec"), 0);
	rc = ks_prelude_apply(out, &len, spec, dir, "golden.cu", "x/problem.json");
	KT_EQ_INT(len, strlen(*out));
	cJSON_Delete(spec);
	return rc;
}

static void test_without_the_key_nothing_changes(void)
{
	char *dir = tree(), *s;
	KT_EQ_INT(apply(&s, dir, "{\"name\": \"p\"}"), 0);
	KT_EQ_STR(s, "GOLDEN\n");
	ks_free(s);
	ks_free(dir);
}

static void test_defines_then_sources_then_golden(void)
{
	char *dir = tree(), *s;
	KT_EQ_INT(apply(&s, dir,
			"{\"golden_prelude\": {\"source\": \"one.cuh\", "
			"\"defines\": {\"GW_AB\": \"bf16\", \"GW_B_KMAJOR\": 1, \"NEG\": -3}}}"),
		  0);
	KT_EQ_STR(s, "#define GW_AB bf16\n#define GW_B_KMAJOR 1\n#define NEG -3\n"
		     "#line 1 \"_shared/one.cuh\"\n// one\n#define ONE 1\n"
		     "#line 1 \"golden.cu\"\nGOLDEN\n");
	ks_free(s);
	KT_EQ_INT(apply(&s, dir, "{\"golden_prelude\": {\"source\": [\"two.cuh\", \"one.cuh\"]}}"), 0);
	KT_EQ_STR(s, "#line 1 \"_shared/two.cuh\"\n// two\n"
		     "#line 1 \"_shared/one.cuh\"\n// one\n#define ONE 1\n"
		     "#line 1 \"golden.cu\"\nGOLDEN\n");
	ks_free(s);
	ks_free(dir);
}

static void test_bad_preludes_are_named_and_leave_the_source(void)
{
	static const char *const bad[] = {
		"{\"golden_prelude\": \"one.cuh\"}",
		"{\"golden_prelude\": {\"source\": \"../one.cuh\"}}",
		"{\"golden_prelude\": {\"source\": \"sub/one.cuh\"}}",
		"{\"golden_prelude\": {\"source\": \".hidden\"}}",
		"{\"golden_prelude\": {\"source\": []}}",
		"{\"golden_prelude\": {\"source\": [\"one.cuh\", 3]}}",
		"{\"golden_prelude\": {\"source\": \"one.cuh\", \"defines\": [\"A\"]}}",
		"{\"golden_prelude\": {\"source\": \"one.cuh\", \"defines\": {\"1A\": 1}}}",
		"{\"golden_prelude\": {\"source\": \"one.cuh\", \"defines\": {\"A\": \"x\\ny\"}}}",
		"{\"golden_prelude\": {\"source\": \"one.cuh\", \"defines\": {\"A\": \"x\\\\\"}}}",
		"{\"golden_prelude\": {\"source\": \"one.cuh\", \"defines\": {\"A\": 1.5}}}",
		"{\"golden_prelude\": {\"source\": \"one.cuh\", \"defines\": {\"A\": true}}}",
	};
	char *dir = tree(), *s;
	size_t i;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		KT_ASSERT_MSG(apply(&s, dir, bad[i]) == KS_EINVALID, "accepted: %s", bad[i]);
		KT_CONTAINS(ks_error_msg(), "x/problem.json");
		KT_CONTAINS(ks_error_msg(), "golden_prelude");
		KT_EQ_STR(s, "GOLDEN\n");
		ks_free(s);
	}
	KT_EQ_INT(apply(&s, dir, "{\"golden_prelude\": {\"source\": \"missing.cuh\"}}"), KS_ENOTFOUND);
	KT_CONTAINS(ks_error_msg(), "golden_prelude");
	KT_CONTAINS(ks_error_msg(), "missing.cuh");
	KT_EQ_STR(s, "GOLDEN\n");
	ks_free(s);
	ks_free(dir);
}

/* The shipped GEMM problems load with the shared GEMM in front of their entry kernels, and the
 * whole compiles (NVRTC only: no GPU needed). */
static void test_shipped_gemm_goldens_use_the_shared_source(void)
{
	const char *root = getenv("KSCORE_ROOT");
	char *refs = ks_asprintf("%s/reference_tests", root && *root ? root : ".");
	char *dir = ks_asprintf("%s/level1/gemm_bf16", refs);
	ks_problem *p = NULL;
	ks_compile_options co = KS_COMPILE_OPTIONS_INIT;
	ks_compile_job job;
	const char *names[] = { "gemm_bf16" }, *libexec = getenv("KSCORE_LIBEXEC");
	char *helper;

	KT_EQ_INT(ks_problem_load(&p, dir, "level1"), 0);
	KT_ASSERT(!strncmp(p->golden_src, "#define GW_AB bf16\n#define GW_B_KMAJOR 0\n", 40));
	KT_CONTAINS(p->golden_src, "#line 1 \"_shared/gemm_wgmma.cuh\"\n");
	KT_CONTAINS(p->golden_src, "#line 1 \"golden.cu\"\n");
	KT_CONTAINS(p->golden_src, "gw_gemm(A, B, C, M, N, K, 0, GwIdentity());");
	memset(&job, 0, sizeof(job));
	job.source = p->golden_src;
	job.names = names;
	job.nnames = 1;
	job.label = "gemm_bf16 golden";
	if (!libexec || !ks_sandbox_available())
		KT_SKIP("no compile helper or no Landlock here: the load was checked, not the compile");
	helper = ks_path_join(libexec, "kscore-compile");
	co.helper = helper;
	co.timeout_s = 120;
	KT_EQ_INT(ks_compile_run(&job, 1, &co), 0);
	KT_ASSERT_MSG(job.status == KS_COMPILE_OK, "%s", job.log ? job.log : "");
	ks_compile_job_clear(&job);
	ks_free(helper);
	ks_problem_free(p);
	ks_free(dir);
	ks_free(refs);
}

static const kt_test tests[] = {
	KT(test_without_the_key_nothing_changes),
	KT(test_defines_then_sources_then_golden),
	KT(test_bad_preludes_are_named_and_leave_the_source),
	KT(test_shipped_gemm_goldens_use_the_shared_source),
	{ NULL, NULL }
};

KT_MAIN("prelude", tests)
