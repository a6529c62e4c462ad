/* Tests of the public API (include/kscore.h, src/api/kscore.c): the version, problem sets, a
 * session that scores the bundled example (compile-only here), the result folder read back, the
 * refusals of folders kscore did not write, and the site. tests/install.sh builds a program
 * against the installed header and pkg-config file; these tests the calls themselves. */
#include "ktest.h"
#include "kscore.h"
#include "util/fsutil.h"
#include "util/mem.h"

static const char *root(void)
{
	const char *r = getenv("KSCORE_ROOT");
	KT_ASSERT_MSG(r && *r, "KSCORE_ROOT is not set");
	return r;
}

static char *path(const char *rel)
{
	return ks_asprintf("%s/%s", kt_tmpdir(), rel);
}

/* Scores the bundled example into OUT (below the test's folder) in a compile-only session. */
static void score_example(kscore_summary *sum, const char *out)
{
	kscore_session_options so = KSCORE_SESSION_OPTIONS_INIT;
	kscore_session *s = NULL;
	char *refs = ks_asprintf("%s/reference_tests", root());
	char *sub = ks_asprintf("%s/submissions/example/reflexion_oneshot_tritonbench_4.json", root());
	char *cache = path("cache"), *o = path(out);
	so.refs = refs;
	so.compile_only = 1;
	so.cache_dir = cache;
	so.quiet = 1;
	KT_EQ_INT(kscore_session_open(&s, &so), KSCORE_OK);
	KT_EQ_INT(kscore_session_has_gpu(s), 0);
	KT_EQ_INT(kscore_session_score(sum, s, sub, "example", o), KSCORE_OK);
	kscore_session_close(s);
	ks_free(refs);
	ks_free(sub);
	ks_free(cache);
	ks_free(o);
}

static void test_version_agrees_with_the_build(void)
{
	char num[32];
	KT_EQ_STR(kscore_version(), KSCORE_VERSION);
	KT_EQ_STR(KSCORE_VERSION, KS_VERSION); /* the Makefile's VERSION */
	snprintf(num, sizeof(num), "%d.%d.%d", KSCORE_VERSION_MAJOR, KSCORE_VERSION_MINOR, KSCORE_VERSION_PATCH);
	KT_EQ_STR(num, KSCORE_VERSION);
	KT_EQ_INT(KSCORE_VERSION_NUMBER, KSCORE_VERSION_MAJOR * 10000 + KSCORE_VERSION_MINOR * 100 + KSCORE_VERSION_PATCH);
}

static void test_problems_open_lists_and_filters(void)
{
	kscore_problems_options po = KSCORE_PROBLEMS_OPTIONS_INIT;
	kscore_problems *p = NULL;
	char *refs = ks_asprintf("%s/reference_tests", root());
	size_t i, all;
	po.refs = refs;
	KT_EQ_INT(kscore_problems_open(&p, &po), KSCORE_OK);
	all = kscore_problems_count(p);
	KT_ASSERT(all > 10);
	for (i = 0; i < all; i++)
		KT_ASSERT(kscore_problems_name(p, i) && kscore_problems_suite(p, i));
	KT_ASSERT(kscore_problems_name(p, all) == NULL);
	KT_EQ_INT((int)kscore_problems_errors(p), 0);
	kscore_problems_free(p);
	po.suite = "hackathon";
	KT_EQ_INT(kscore_problems_open(&p, &po), KSCORE_OK);
	KT_EQ_INT((int)kscore_problems_count(p), 10);
	for (i = 0; i < 10; i++)
		KT_EQ_STR(kscore_problems_suite(p, i), "hackathon");
	kscore_problems_free(p);
	po.suite = "no-such-suite";
	KT_EQ_INT(kscore_problems_open(&p, &po), KSCORE_EINVALID);
	KT_ASSERT(p == NULL);
	KT_CONTAINS(kscore_error_message(), "no valid problem");
	ks_free(refs);
}

static void test_problems_open_errors(void)
{
	kscore_problems_options po = KSCORE_PROBLEMS_OPTIONS_INIT;
	kscore_problems *p = NULL;
	char *nowhere = path("nowhere");
	po.refs = nowhere;
	KT_ASSERT(kscore_problems_open(&p, &po) < 0);
	KT_CONTAINS(kscore_error_message(), "nowhere");
	po.version = 99;
	KT_EQ_INT(kscore_problems_open(&p, &po), KSCORE_EINVALID);
	KT_CONTAINS(kscore_error_message(), "version 99");
	ks_free(nowhere);
}

static void test_session_scores_the_example_and_the_result_reads_back(void)
{
	kscore_summary sum = KSCORE_SUMMARY_INIT, back = KSCORE_SUMMARY_INIT;
	kscore_result *r = NULL;
	kscore_kernel k;
	char *out = path("out");
	size_t i, compiled = 0;
	score_example(&sum, "out");
	KT_EQ_INT((int)sum.kernels, 10);
	KT_ASSERT(sum.compile_accuracy > 0.5 && sum.compile_accuracy <= 1.0);
	KT_NEAR(sum.call_accuracy, -1, 0); /* compile-only: not run */
	KT_NEAR(sum.exec_accuracy, -1, 0);
	KT_NEAR(sum.score, -1, 0);
	KT_EQ_INT(sum.bad_input, 0);
	KT_EQ_INT(kscore_result_open(&r, out), KSCORE_OK);
	KT_EQ_STR(kscore_result_team(r), "example");
	KT_EQ_INT((int)kscore_result_kernels(r), 10);
	kscore_result_summary(&back, r);
	KT_NEAR(back.compile_accuracy, sum.compile_accuracy, 1e-12);
	KT_EQ_INT((int)back.correct, (int)sum.correct);
	for (i = 0; i < 10; i++) {
		KT_EQ_INT(kscore_result_kernel(&k, r, i), KSCORE_OK);
		KT_ASSERT(*k.problem && *k.reason && *k.language);
		KT_EQ_INT(k.call, -1);
		KT_EQ_INT(k.exec, -1);
		compiled += (size_t)k.compiled;
	}
	/* compile accuracy is per problem; the example has one entry per problem */
	KT_NEAR((double)compiled / 10.0, sum.compile_accuracy, 1e-12);
	KT_EQ_INT(kscore_result_kernel(&k, r, 10), KSCORE_ENOTFOUND);
	kscore_result_free(r);
	ks_free(out);
}

static void test_a_folder_kscore_did_not_write_is_refused_and_kept(void)
{
	kscore_session_options so = KSCORE_SESSION_OPTIONS_INIT;
	kscore_session *s = NULL;
	char *refs = ks_asprintf("%s/reference_tests", root());
	char *sub = ks_asprintf("%s/submissions/example/reflexion_oneshot_tritonbench_4.json", root());
	char *mine = path("mine"), *file = path("mine/notes.txt"), *text = NULL;
	ks_fs_mkdir_p(mine, 0755);
	KT_EQ_INT(ks_fs_write_atomic(file, "keep me", 7), 0);
	so.refs = refs;
	so.compile_only = 1;
	so.no_cache = 1;
	so.quiet = 1;
	KT_EQ_INT(kscore_session_open(&s, &so), KSCORE_OK);
	KT_EQ_INT(kscore_session_score(NULL, s, sub, NULL, mine), KSCORE_EREFUSED);
	KT_CONTAINS(kscore_error_message(), "mine");
	KT_EQ_INT(ks_fs_read(&text, NULL, file, 64), 0);
	KT_EQ_STR(text, "keep me");
	kscore_session_close(s);
	ks_free(text);
	ks_free(refs);
	ks_free(sub);
	ks_free(mine);
	ks_free(file);
}

static void test_bad_session_options_are_named(void)
{
	kscore_session_options so = KSCORE_SESSION_OPTIONS_INIT;
	kscore_session *s = NULL;
	char *refs = ks_asprintf("%s/reference_tests", root());
	so.refs = refs;
	so.devices = "0,,1";
	KT_EQ_INT(kscore_session_open(&s, &so), KSCORE_EINVALID);
	KT_ASSERT(s == NULL);
	KT_CONTAINS(kscore_error_message(), "devices");
	so.devices = NULL;
	so.compile_only = 1;
	so.require_gpu = 1;
	KT_EQ_INT(kscore_session_open(&s, &so), KSCORE_EINVALID);
	so.require_gpu = 0;
	so.jobs = -3;
	KT_EQ_INT(kscore_session_open(&s, &so), KSCORE_EINVALID);
	KT_CONTAINS(kscore_error_message(), "jobs");
	so.jobs = 0;
	/* the reference baseline's folder is checked at open, as --baseline reference=DIR is */
	so.reference_dir = "no-such-folder";
	KT_ASSERT(kscore_session_open(&s, &so) < 0);
	KT_ASSERT(s == NULL);
	KT_CONTAINS(kscore_error_message(), "--baseline reference=no-such-folder");
	ks_free(refs);
}

/* A program built against version 1 of the session options (no reference_dir) still opens a
 * session: the library reads no field past the version's end. */
static void test_version_1_session_options_still_open(void)
{
	struct {
		unsigned version;
		const char *refs, *suite;
		int compile_only, require_gpu;
		const char *devices, *cache_dir;
		int no_cache;
		unsigned long long seed;
		int no_timing, jobs, quiet;
	} v1 = { 1, NULL, NULL, 1, 0, NULL, NULL, 1, 0, 0, 0, 1 };
	kscore_session *s = NULL;
	char *refs = ks_asprintf("%s/reference_tests", root());
	v1.refs = refs;
	KT_EQ_INT(kscore_session_open(&s, (const kscore_session_options *)(const void *)&v1), KSCORE_OK);
	kscore_session_close(s);
	ks_free(refs);
}

static void test_result_open_refuses_what_is_not_a_score_record(void)
{
	kscore_result *r = NULL;
	char *dir = path("r"), *f = path("r/score.json");
	ks_fs_mkdir_p(dir, 0755);
	KT_EQ_INT(kscore_result_open(&r, dir), KSCORE_ENOTFOUND);
	KT_EQ_INT(ks_fs_write_atomic(f, "{\"schema\": \"other/1\", \"kernels\": []}", 36), 0);
	KT_EQ_INT(kscore_result_open(&r, dir), KSCORE_EINVALID);
	KT_CONTAINS(kscore_error_message(), "not a kscore score record");
	KT_EQ_INT(ks_fs_write_atomic(f, "[[[[", 4), 0);
	KT_EQ_INT(kscore_result_open(&r, dir), KSCORE_EINVALID);
	KT_ASSERT(r == NULL);
	ks_free(dir);
	ks_free(f);
}

static void test_export_writes_the_site_and_refuses_other_folders(void)
{
	kscore_summary sum = KSCORE_SUMMARY_INIT;
	char *out = path("out"), *site = path("site"), *index = path("site/index.html"), *mine = path("mine");
	char *keep = path("mine/x");
	const char *inputs[1];
	score_example(&sum, "out");
	inputs[0] = out;
	KT_EQ_INT(kscore_export_site(site, inputs, 1, NULL), KSCORE_OK);
	KT_ASSERT(ks_fs_exists(index));
	ks_fs_mkdir_p(mine, 0755);
	KT_EQ_INT(ks_fs_write_atomic(keep, "x", 1), 0);
	KT_EQ_INT(kscore_export_site(mine, inputs, 1, NULL), KSCORE_EREFUSED);
	KT_ASSERT(ks_fs_exists(keep));
	KT_EQ_INT(kscore_export_site(site, inputs, 0, NULL), KSCORE_EINVALID);
	ks_free(out);
	ks_free(site);
	ks_free(index);
	ks_free(mine);
	ks_free(keep);
}

static const kt_test tests[] = {
	KT(test_version_agrees_with_the_build),
	KT(test_problems_open_lists_and_filters),
	KT(test_problems_open_errors),
	KT(test_session_scores_the_example_and_the_result_reads_back),
	KT(test_a_folder_kscore_did_not_write_is_refused_and_kept),
	KT(test_bad_session_options_are_named),
	KT(test_result_open_refuses_what_is_not_a_score_record),
	KT(test_export_writes_the_site_and_refuses_other_folders),
	KT(test_version_1_session_options_still_open), { NULL, NULL }
};

KT_MAIN("api", tests)
