/* scoreopts tests: the shared scoring options parse as `score` documents them, reject bad values
 * with the option's name, and become the pipeline's options. */
#include "ktest.h"
#include "scoreopts.h"
#include "nvtool.h"
#include "sanitize.h"
#include "errors.h"
#include "mem.h"

/* Parses argv with getopt_long as a command would; returns the first non-1 result of
 * ks_scoreopts_parse (0 or an error) or 1 when every option was a scoring option. */
static int run(ks_scoreopts *o, int argc, char **argv)
{
	static const struct option lopts[] = { KS_SCOREOPTS_LONGOPTS, { 0, 0, 0, 0 } };
	int c, r = 1;
	ks_scoreopts_init(o);
	optind = 1;
	opterr = 0;
	while (r == 1 && (c = getopt_long(argc, argv, KS_SCOREOPTS_SHORTOPTS, lopts, NULL)) != -1)
		r = ks_scoreopts_parse(o, c, optarg);
	return r;
}

static void test_defaults(void)
{
	ks_scoreopts o;
	ks_scoreopts_init(&o);
	KT_EQ_STR(o.arch, "sm_90a");
	KT_EQ_INT(o.nks, 1);
	KT_EQ_INT(o.ks[0], 1);
	KT_NEAR(o.kernel_timeout, 10, 0);
	KT_NEAR(o.compile_timeout, 60, 0);
	KT_EQ_INT(o.compile_memory, 8192);
	KT_ASSERT(o.jobs >= 1);
	KT_EQ_INT(o.up.max_retries, -1);
	KT_EQ_INT(ks_scoreopts_finish(&o), 0);
	KT_ASSERT(!o.seed_given);
}

static void test_values_are_parsed(void)
{
	char *argv[] = { "x", "-r", "refs", "--suite", "hackathon", "-k", "1,5,10", "--compile-only",
			 "--arch", "sm_80", "--device", "2", "--seed", "0x10", "-j", "3", "--cache-dir", "c",
			 "--no-cache", "--kernel-timeout", "2.5", "--compile-timeout", "30",
			 "--compile-memory", "512", "--upload", "--endpoint", "https://lb.example.org/x",
			 "--upload-mode", "gradio", "--upload-config", "u.json", "--token-file", "t",
			 "--ca-bundle", "ca.pem", "--spool", "sp", "--no-timing", "--config", "sc.json",
			 "--recalibrate", NULL };
	ks_scoreopts o;
	ks_pipeline_options po;
	KT_EQ_INT(run(&o, (int)(sizeof(argv) / sizeof(argv[0])) - 1, argv), 1);
	KT_EQ_STR(o.refs, "refs");
	KT_EQ_STR(o.suite, "hackathon");
	KT_EQ_INT(o.nks, 3);
	KT_EQ_INT(o.ks[2], 10);
	KT_ASSERT(o.compile_only && o.no_cache && o.upload);
	KT_EQ_STR(o.arch, "sm_80");
	KT_EQ_INT(o.device, 2);
	KT_EQ_INT(o.seed, 16);
	KT_ASSERT(o.seed_given);
	KT_EQ_INT(o.jobs, 3);
	KT_NEAR(o.kernel_timeout, 2.5, 0);
	KT_EQ_INT(o.compile_memory, 512);
	KT_EQ_STR(o.up.endpoint, "https://lb.example.org/x");
	KT_EQ_INT(o.up.mode, KS_UPLOAD_GRADIO);
	KT_EQ_STR(o.upload_config, "u.json");
	KT_EQ_STR(o.up.token_file, "t");
	KT_EQ_STR(o.up.spool_dir, "sp");
	KT_EQ_INT(ks_scoreopts_finish(&o), 0);
	KT_EQ_INT(o.seed, 16); /* a given seed is kept */
	ks_scoreopts_pipeline(&po, &o, "R", NULL);
	KT_EQ_STR(po.refs, "R");
	KT_EQ_STR(po.suite, "hackathon");
	KT_ASSERT(po.compile_only && !po.require_gpu && !po.progress);
	KT_EQ_INT(po.jobs, 3);
	KT_EQ_INT(po.nks, 3);
	KT_ASSERT(po.cache_dir == NULL);
	KT_NEAR(po.compile_timeout_s, 30, 0);
	KT_ASSERT(po.no_timing && po.recalibrate);
	KT_EQ_STR(po.config, "sc.json");
}

static void test_bad_values_are_usage_errors(void)
{
	struct {
		const char *opt, *val, *msg;
	} c[] = {
		{ "-k", "0", "-k" },          { "-k", "1,x", "-k" },
		{ "--arch", "compute_90", "--arch" }, { "--device", "-1", "--device" },
		{ "--seed", "abc", "--seed" }, { "-j", "0", "--jobs" },
		{ "--kernel-timeout", "0", "--kernel-timeout" }, { "--compile-timeout", "nan", "--compile-timeout" },
		{ "--compile-memory", "10", "--compile-memory" }, { "--upload-mode", "ftp", "--upload-mode" },
	};
	size_t i;
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		char *argv[] = { "x", (char *)c[i].opt, (char *)c[i].val, NULL };
		ks_scoreopts o;
		KT_EQ_INT(run(&o, 3, argv), KS_EINVALID);
		KT_CONTAINS(ks_error_msg(), c[i].msg);
	}
	{
		char *argv[] = { "x", "--compile-only", "--require-gpu", NULL };
		ks_scoreopts o;
		KT_EQ_INT(run(&o, 3, argv), 1);
		KT_EQ_INT(ks_scoreopts_finish(&o), KS_EINVALID);
		KT_CONTAINS(ks_error_msg(), "contradict");
	}
	{
		/* not a scoring option: left to the command */
		ks_scoreopts o;
		ks_scoreopts_init(&o);
		KT_EQ_INT(ks_scoreopts_parse(&o, 'o', "out"), 0);
	}
}

static void test_refs_and_cache_lookup(void)
{
	char *s;
	setenv("KSCORE_REFS", "/from/env", 1);
	s = ks_scoreopts_find_refs("given");
	KT_EQ_STR(s, "given");
	ks_free(s);
	s = ks_scoreopts_find_refs(NULL);
	KT_EQ_STR(s, "/from/env");
	ks_free(s);
	setenv("XDG_CACHE_HOME", "/xdg", 1);
	s = ks_scoreopts_default_cache();
	KT_EQ_STR(s, "/xdg/kscore");
	ks_free(s);
	unsetenv("XDG_CACHE_HOME");
	setenv("HOME", "/home/u", 1);
	s = ks_scoreopts_default_cache();
	KT_EQ_STR(s, "/home/u/.cache/kscore");
	ks_free(s);
}

/* --sanitize[=TOOLS], --no-sanitize and --profile[=WHEN]: the stage options reach the pipeline,
 * with the command's default (sanitize.h) when neither sanitize option is given. */
static void test_sanitize_and_profile_options(void)
{
	char *a1[] = { "x", "--sanitize=memcheck,racecheck", "--profile", NULL };
	char *a2[] = { "x", "--sanitize", "--no-sanitize", "--profile=all", NULL };
	char *a3[] = { "x", NULL };
	char *bad1[] = { "x", "--sanitize=leakcheck", NULL }, *bad2[] = { "x", "--profile=sometimes", NULL };
	ks_scoreopts o;
	ks_pipeline_options po;
	KT_EQ_INT(run(&o, 3, a1), 1);
	ks_scoreopts_pipeline(&po, &o, "R", NULL);
	KT_EQ_INT((int)po.sanitize, KS_SAN_MEMCHECK | KS_SAN_RACECHECK);
	KT_EQ_INT(po.profile, KS_PROFILE_SLOW);
	KT_EQ_INT(run(&o, 4, a2), 1);
	ks_scoreopts_pipeline(&po, &o, "R", NULL);
	KT_EQ_INT((int)po.sanitize, 0);
	KT_EQ_INT(po.profile, KS_PROFILE_ALL);
	KT_EQ_INT(run(&o, 1, a3), 1);
	KT_EQ_INT(o.sanitize, -1);
	ks_scoreopts_pipeline(&po, &o, "R", NULL);
	KT_EQ_INT((int)po.sanitize, KS_SANITIZE_DEFAULT_SCORE ? KS_SAN_MEMCHECK : 0);
	KT_EQ_INT(po.profile, KS_PROFILE_NEVER);
	KT_EQ_INT(run(&o, 2, bad1), KS_EINVALID);
	KT_CONTAINS(ks_error_msg(), "--sanitize");
	KT_EQ_INT(run(&o, 2, bad2), KS_EINVALID);
	KT_CONTAINS(ks_error_msg(), "--profile");
}

static const kt_test tests[] = {
	KT(test_defaults), KT(test_values_are_parsed), KT(test_bad_values_are_usage_errors),
	KT(test_refs_and_cache_lookup), KT(test_sanitize_and_profile_options), { 0 }
};
KT_MAIN("scoreopts", tests)
