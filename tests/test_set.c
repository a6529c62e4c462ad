/* Tests of the problem-set readers (src/load/sets/): the format detected, TritonBench-G and
 * KernelBench fixtures written in their layouts (tests/fixtures/sets/, kscore's own files), every
 * file that is not a problem kept with its reason, the lookup by an answer's key, the caps, and
 * `score problems --refs` on an imported set. Where the field's sets are beside the repository
 * (../shared/problem-sets/), the reader is also run over them. */
#include "ktest.h"
#include "clitest.h"
#include "load/sets/set.h"
#include "util/errors.h"
#include "util/fsutil.h"

#include <stdarg.h>
#include "util/mem.h"

static char *fx(const char *rel)
{
	return ks_asprintf("%s/tests/fixtures/sets/%s", getenv("KSCORE_ROOT"), rel);
}

/* `score ARGS` with printf-style arguments (clitest.h's score). */
static int cli_run(const char *fmt, ...) KS_PRINTF(1, 2);
static int cli_run(const char *fmt, ...)
{
	char args[8192];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(args, sizeof(args), fmt, ap);
	va_end(ap);
	return score(args);
}

static const ks_set_skip *skipped(const ks_problem_source *s, const char *file)
{
	size_t i;
	for (i = 0; i < s->nskipped; i++)
		if (strstr(s->skipped[i].path, file))
			return &s->skipped[i];
	return NULL;
}

static void test_formats_are_detected(void)
{
	ks_set_format f;
	char *tb = fx("tritonbench-g"), *kb = fx("kernelbench"), *lv = fx("kernelbench/level1"),
	     *ref = fx("tritonbench-g/reference"), *refs = ks_asprintf("%s/reference_tests", getenv("KSCORE_ROOT"));
	KT_EQ_INT(ks_set_detect(&f, tb), 0);
	KT_EQ_INT(f, KS_SET_TRITONBENCH_G);
	KT_EQ_INT(ks_set_detect(&f, ref), 0);
	KT_EQ_INT(f, KS_SET_TRITONBENCH_G);
	KT_EQ_INT(ks_set_detect(&f, kb), 0);
	KT_EQ_INT(f, KS_SET_KERNELBENCH);
	KT_EQ_INT(ks_set_detect(&f, lv), 0);
	KT_EQ_INT(f, KS_SET_KERNELBENCH);
	KT_EQ_INT(ks_set_detect(&f, refs), 0);
	KT_EQ_INT(f, KS_SET_KSCORE);
	KT_EQ_INT(ks_set_detect(&f, kt_tmpdir()), KS_EINVALID);
	KT_CONTAINS(ks_error_msg(), "not a problem set kscore reads");
	KT_EQ_INT(ks_set_detect(&f, "/nonexistent-kscore-set"), KS_ENOTFOUND);
	ks_free(tb);
	ks_free(kb);
	ks_free(lv);
	ks_free(ref);
	ks_free(refs);
}

static void test_tritonbench_fixtures(void)
{
	ks_problem_source *s = NULL;
	const ks_set_problem *p;
	char *dir = fx("tritonbench-g");
	KT_EQ_INT(ks_set_read(&s, dir, NULL), 0);
	KT_EQ_INT((int)s->n, 6);
	/* a dict-returning test, its perf script found in perf/ */
	KT_ASSERT((p = ks_set_find(s, "add_dict.py")) != NULL);
	KT_EQ_STR(p->suite, "tritonbench-g");
	KT_EQ_INT((int)p->nkernels, 1);
	KT_EQ_STR(p->kernels[0], "add_kernel");
	KT_EQ_INT((int)p->nentries, 1);
	KT_EQ_STR(p->entries[0], "add");
	KT_EQ_STR(p->test_fn, "test_add");
	KT_ASSERT(p->perf_path && strstr(p->perf_path, "perf/add_dict_perf.py"));
	KT_ASSERT(strstr(p->reference, "def add(x, y)") && !strstr(p->reference, "test_add"));
	KT_ASSERT(strstr(p->test_code, "result_gold = test_add()"));
	/* a list-returning test whose entry is an alias of an autograd Function; autotune over jit */
	KT_ASSERT((p = ks_set_find(s, "scale_list")) != NULL);
	KT_EQ_STR(p->kernels[0], "scale_kernel");
	KT_EQ_STR(p->entries[0], "scale");
	KT_ASSERT(p->perf_path == NULL);
	/* an in-place entry; a test that raises when run is still a problem (the oracle says why) */
	KT_ASSERT((p = ks_set_find(s, "fill_inplace")) != NULL);
	KT_EQ_STR(p->entries[0], "fill_");
	KT_ASSERT(ks_set_find(s, "raises") != NULL);
	/* what is not a problem, with its reason */
	KT_EQ_INT((int)s->nskipped, 3);
	KT_CONTAINS(skipped(s, "no_test.py")->reason, "no test code");
	KT_CONTAINS(skipped(s, "main_only.py")->reason, "__main__");
	KT_CONTAINS(skipped(s, "not_a_reference.py")->reason, "146 '#'");
	KT_ASSERT(ks_set_find(s, "no_test") == NULL);
	KT_ASSERT(ks_set_find(s, "nothing") == NULL);
	ks_set_free(s);
	ks_free(dir);
}

static void test_kernelbench_fixtures(void)
{
	ks_problem_source *s = NULL;
	const ks_set_problem *p;
	char *dir = fx("kernelbench");
	KT_EQ_INT(ks_set_read(&s, dir, NULL), 0);
	KT_EQ_INT((int)s->n, 2);
	KT_ASSERT((p = ks_set_find(s, "1_Scale")) != NULL);
	KT_EQ_INT(p->level, 1);
	KT_EQ_INT(p->number, 1);
	KT_EQ_STR(p->suite, "kernelbench-level1");
	KT_EQ_STR(p->entries[0], "Model");
	/* KernelBench's run layout names problems by level and number */
	KT_ASSERT(ks_set_find(s, "level_2_problem_7_sample_0_kernel.py") == &s->problems[1]);
	KT_ASSERT(ks_set_find(s, "level_1_problem_7_sample_0_kernel.py") == NULL);
	KT_ASSERT(ks_set_find(s, "level_x_problem_1") == NULL);
	KT_CONTAINS(skipped(s, "2_NoInit.py")->reason, "get_inputs(), get_init_inputs()");
	KT_CONTAINS(skipped(s, "notes.py")->reason, "<number>_<Name>.py");
	ks_set_free(s);
	ks_free(dir);
}

static void test_caps_and_bad_files(void)
{
	ks_set_limits lim = KS_SET_LIMITS_INIT;
	ks_problem_source *s = NULL;
	char *lv = ks_asprintf("%s/level1", kt_tmpdir()), *big, *bin, *dir = fx("tritonbench-g");
	ks_fs_mkdir_p(lv, 0755);
	big = ks_asprintf("%s/1_Big.py", lv);
	bin = ks_asprintf("%s/2_Bin.py", lv);
	KT_EQ_INT(ks_fs_write_atomic(big, "class Model: pass\n# padding padding padding\n", 45), 0);
	KT_EQ_INT(ks_fs_write_atomic(bin, "class Model:\xff\n", 14), 0);
	lim.max_file_bytes = 32;
	KT_EQ_INT(ks_set_read(&s, lv, &lim), 0);
	KT_EQ_INT((int)s->n, 0);
	KT_CONTAINS(skipped(s, "1_Big.py")->reason, "larger than the cap");
	ks_set_free(s);
	lim.max_file_bytes = KS_SET_DEFAULT_MAX_FILE_BYTES;
	KT_EQ_INT(ks_set_read(&s, lv, &lim), 0);
	KT_CONTAINS(skipped(s, "2_Bin.py")->reason, "not UTF-8");
	ks_set_free(s);
	lim.max_files = 2;
	KT_EQ_INT(ks_set_read(&s, dir, &lim), KS_ELIMIT);
	KT_ASSERT(s == NULL);
	ks_free(lv);
	ks_free(big);
	ks_free(bin);
	ks_free(dir);
}

static void test_score_problems_lists_an_imported_set(void)
{
	char *dir = fx("tritonbench-g");
	KT_EQ_INT(cli_run("problems --refs '%s'", dir), 0);
	KT_CONTAINS(g_out, "add_dict");
	KT_CONTAINS(g_out, "6 problems (tritonbench-g), 3 files not used");
	KT_CONTAINS(g_err, "no_test.py: not used: no test code");
	KT_EQ_INT(cli_run("problems --refs '%s' --json", dir), 0);
	KT_CONTAINS(g_out, "\"schema\":\t\"kscore.problem-source/1\"");
	KT_CONTAINS(g_out, "\"test_function\":\t\"test_add\"");
	KT_EQ_INT(cli_run("problems --refs '%s' --export-prompts p.json", dir), 64);
	KT_CONTAINS(g_err, "tritonbench-g problem set");
	ks_free(dir);
	dir = fx("kernelbench/level2");
	KT_EQ_INT(cli_run("problems --refs '%s'", dir), 0);
	KT_CONTAINS(g_out, "7_Fused");
	ks_free(dir);
}

/* The field's own sets, where they lie beside the repository: every file is read, and each one
 * not used has a reason (the one TritonBench-G file whose result_gold is set under __main__). */
static void test_the_shared_sets_read_whole(void)
{
	ks_problem_source *s = NULL;
	char *tb = ks_asprintf("%s/../shared/problem-sets/tritonbench-g", getenv("KSCORE_ROOT")),
	     *kb = ks_asprintf("%s/../shared/problem-sets/kernelbench", getenv("KSCORE_ROOT"));
	size_t perf = 0, i;
	if (!ks_fs_is_dir(tb) || !ks_fs_is_dir(kb)) {
		ks_free(tb);
		ks_free(kb);
		KT_SKIP("the shared problem sets are not beside the repository");
	}
	KT_EQ_INT(ks_set_read(&s, tb, NULL), 0);
	KT_EQ_INT((int)(s->n + s->nskipped), 184);
	KT_ASSERT(s->n >= 180);
	for (i = 0; i < s->n; i++) {
		KT_ASSERT_MSG(s->problems[i].nkernels > 0 && s->problems[i].nentries > 0, "%s", s->problems[i].name);
		perf += s->problems[i].perf_path != NULL;
	}
	KT_ASSERT(perf >= 180);
	for (i = 0; i < s->nskipped; i++)
		KT_ASSERT(*s->skipped[i].reason);
	KT_ASSERT(ks_set_find(s, "sin_kernel.py") != NULL);
	ks_set_free(s);
	KT_EQ_INT(ks_set_read(&s, kb, NULL), 0);
	KT_EQ_INT((int)s->n, 270);
	KT_ASSERT(ks_set_find(s, "level_1_problem_19_sample_0_kernel.py") != NULL);
	ks_set_free(s);
	ks_free(tb);
	ks_free(kb);
}

static const kt_test tests[] = {
	KT(test_formats_are_detected),
	KT(test_tritonbench_fixtures),
	KT(test_kernelbench_fixtures),
	KT(test_caps_and_bad_files),
	KT(test_score_problems_lists_an_imported_set),
	KT(test_the_shared_sets_read_whole),
	{ NULL, NULL }
};

KT_MAIN("set", tests)
