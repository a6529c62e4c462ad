/* scoreopts tests: the shared scoring options parse as `score` documents them, reject bad values
 * with the option's name, and become the pipeline's options. */
#include "ktest.h"
#include "session/scoreopts.h"
#include "nvtool/nvtool.h"
#include "nvtool/sanitize.h"
#include "util/errors.h"
#include "util/mem.h"
#include "load/plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	KT_EQ_STR(o.pipeline.compile.arch, "sm_90a");
	KT_EQ_INT(o.pipeline.nks, 1);
	KT_EQ_INT(o.pipeline.ks[0], 1);
	KT_NEAR(o.pipeline.runner.kernel_timeout_s, 10, 0);
	KT_NEAR(o.pipeline.runner.trace_timeout_s, 120, 0); /* each case's */
	KT_NEAR(o.pipeline.compile.timeout_s, 60, 0);
	KT_EQ_INT(o.pipeline.compile.memory_mb, 8192);
	KT_ASSERT(o.pipeline.compile.jobs >= 1);
	KT_EQ_INT(o.up.max_retries, -1);
	KT_EQ_INT(ks_scoreopts_finish(&o), 0);
	KT_ASSERT(!o.seed_given);
}

static void test_values_are_parsed(void)
{
	char *argv[] = { "x", "-r", "refs", "--suite", "hackathon", "-k", "1,5,10", "--compile-only",
			 "--arch", "sm_80", "--device", "2", "--seed", "0x10", "-j", "3", "--cache-dir", "c",
			 "--no-cache", "--kernel-timeout", "2.5", "--trace-timeout", "45", "--compile-timeout", "30",
			 "--compile-memory", "512", "--upload", "--endpoint", "https://lb.example.org/x",
			 "--upload-mode", "gradio", "--upload-config", "u.json", "--token-file", "t",
			 "--ca-bundle", "ca.pem", "--spool", "sp", "--no-timing", "--config", "sc.json",
			 "--recalibrate", NULL };
	ks_scoreopts o;
	ks_pipeline_options po;
	KT_EQ_INT(run(&o, (int)(sizeof(argv) / sizeof(argv[0])) - 1, argv), 1);
	KT_EQ_STR(o.refs, "refs");
	KT_EQ_STR(o.pipeline.suite, "hackathon");
	KT_EQ_INT(o.pipeline.nks, 3);
	KT_EQ_INT(o.pipeline.ks[2], 10);
	KT_ASSERT(o.pipeline.compile_only && o.no_cache && o.upload);
	KT_EQ_STR(o.pipeline.compile.arch, "sm_80");
	KT_EQ_INT(o.pipeline.device, 2);
	KT_EQ_INT(o.pipeline.seed, 16);
	KT_ASSERT(o.seed_given);
	KT_EQ_INT(o.pipeline.compile.jobs, 3);
	KT_NEAR(o.pipeline.runner.kernel_timeout_s, 2.5, 0);
	KT_NEAR(o.pipeline.runner.trace_timeout_s, 45, 0);
	KT_EQ_INT(o.pipeline.compile.memory_mb, 512);
	KT_EQ_STR(o.up.endpoint, "https://lb.example.org/x");
	KT_EQ_INT(o.up.mode, KS_UPLOAD_GRADIO);
	KT_EQ_STR(o.upload_config, "u.json");
	KT_EQ_STR(o.up.token_file, "t");
	KT_EQ_STR(o.up.spool_dir, "sp");
	KT_EQ_INT(ks_scoreopts_finish(&o), 0);
	KT_EQ_INT(o.pipeline.seed, 16); /* a given seed is kept */
	ks_scoreopts_pipeline(&o, "R", NULL);
	po = o.pipeline;
	KT_EQ_STR(po.refs, "R");
	KT_EQ_STR(po.suite, "hackathon");
	KT_ASSERT(po.compile_only && !po.require_gpu && !po.progress);
	KT_EQ_INT(po.compile.jobs, 3);
	KT_EQ_INT(po.nks, 3);
	KT_ASSERT(po.compile.cache_dir == NULL);
	KT_NEAR(po.compile.timeout_s, 30, 0);
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
		{ "--trace-timeout", "-1", "--trace-timeout" },
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

static void test_baseline_reference_names_a_folder(void)
{
	ks_scoreopts o;
	char *file[] = { "x", "--baseline=golden.json", NULL }, *ref[] = { "x", "--baseline=reference=refs/tb", NULL };
	char *bare[] = { "x", "--baseline=reference", NULL }, *dot[] = { "x", "--baseline=./reference", NULL };
	char *both[] = { "x", "--baseline=reference=R", "--baseline", NULL };
	KT_EQ_INT(run(&o, 2, file), 1);
	KT_ASSERT(o.pipeline.use_baseline && o.pipeline.reference_dir == NULL);
	KT_EQ_STR(o.pipeline.baseline, "golden.json");
	KT_EQ_INT(run(&o, 2, ref), 1);
	KT_ASSERT(!o.pipeline.use_baseline && o.pipeline.baseline == NULL);
	KT_EQ_STR(o.pipeline.reference_dir, "refs/tb");
	KT_EQ_INT(run(&o, 2, bare), KS_EINVALID);
	KT_CONTAINS(ks_error_msg(), "--baseline reference=DIR");
	/* a stored baseline file of that name */
	KT_EQ_INT(run(&o, 2, dot), 1);
	KT_ASSERT(o.pipeline.use_baseline && o.pipeline.reference_dir == NULL);
	/* the last --baseline wins, as for every option */
	KT_EQ_INT(run(&o, 3, both), 1);
	KT_ASSERT(o.pipeline.use_baseline && o.pipeline.reference_dir == NULL);
}

/* One option with one value; returns ks_scoreopts_parse's result. */
static int one(ks_scoreopts *o, const char *opt, const char *val)
{
	char *argv[] = { "x", (char *)opt, (char *)val, NULL };
	return run(o, 3, argv);
}

/* --arch is checked when it is given: a typo used to become a compile error on every kernel. */
static void test_arch_must_be_a_real_architecture(void)
{
	static const char *good[] = { "sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_90a", "sm_100a",
				      "sm_100f", "sm_103a", "sm_110f", "sm_120", "sm_120a", "sm_121f", NULL };
	static const char *bad[] = { "sm_1", "sm_90a;rm", "sm_90b", "sm_89a", "sm_90f", "sm_", "sm_9",
				     "sm_999", "sm_090", "sm_91", "sm_90aa", "sm_90 ", " sm_90", "compute_90",
				     "lto_90", "SM_90", "", "sm_80a", NULL };
	ks_scoreopts o;
	size_t i;
	for (i = 0; good[i]; i++) {
		KT_ASSERT_MSG(one(&o, "--arch", good[i]) == 1, "--arch %s refused: %s", good[i], ks_error_msg());
		KT_EQ_STR(o.pipeline.compile.arch, good[i]);
	}
	for (i = 0; bad[i]; i++) {
		KT_ASSERT_MSG(one(&o, "--arch", bad[i]) == KS_EINVALID, "--arch \"%s\" accepted", bad[i]);
		KT_CONTAINS(ks_error_msg(), "is not a GPU architecture");
	}
}

/* Numbers are digits only, range-checked: -1 used to wrap to 2^64-1. */
static void test_numbers_are_strict(void)
{
	static const struct {
		const char *opt, *val;
	} bad[] = {
		{ "--seed", "-1" }, { "--seed", "18446744073709551616" }, { "--seed", "" }, { "--seed", " 5" },
		{ "--seed", "+5" }, { "--seed", "5x" }, { "--seed", "0x" }, { "--seed", "1e3" },
		{ "--device", "4294967296" }, { "--device", "+1" }, { "-j", "4294967297" }, { "-j", "-1" },
		{ "--compile-memory", "-1" }, { "--compile-memory", "18446744073709551615" },
		{ "--max-scratch", "0" }, { "--max-scratch", "-1" }, { "--max-scratch", "2T" },
		{ "--max-scratch", "1Q" }, { "--max-scratch", "G" }, { "--max-scratch", "16777216T" },
		{ NULL, NULL }
	};
	ks_scoreopts o;
	size_t i;
	for (i = 0; bad[i].opt; i++)
		KT_ASSERT_MSG(one(&o, bad[i].opt, bad[i].val) == KS_EINVALID, "%s \"%s\" accepted", bad[i].opt,
			      bad[i].val);
	KT_EQ_INT(one(&o, "--seed", "18446744073709551615"), 1);
	KT_ASSERT(o.pipeline.seed == UINT64_MAX);
	KT_EQ_INT(one(&o, "--seed", "0xFFFFFFFFFFFFFFFF"), 1);
	KT_ASSERT(o.pipeline.seed == UINT64_MAX);
	KT_EQ_INT(one(&o, "--seed", "010"), 1);
	KT_EQ_INT(o.pipeline.seed, 10); /* decimal, not octal */
	KT_EQ_INT(one(&o, "--seed", "-1"), KS_EINVALID);
	KT_CONTAINS(ks_error_msg(), "--seed takes an integer from 0 to 2^64-1");
	KT_EQ_INT(one(&o, "--device", "3"), 1);
	KT_EQ_INT(o.pipeline.device, 3);
}

/* -k: every item a positive integer, none empty, none twice. */
static void test_pass_at_k_list(void)
{
	static const char *bad[] = { "1,,5", "1,5,", ",1", ",", "", "0", "1,x", "1, 5", "5,5", "1,2,1",
				     "100001", "99999999999999999999", NULL };
	ks_scoreopts o;
	size_t i;
	for (i = 0; bad[i]; i++)
		KT_ASSERT_MSG(one(&o, "-k", bad[i]) == KS_EINVALID, "-k \"%s\" accepted", bad[i]);
	KT_EQ_INT(one(&o, "-k", "1,,5"), KS_EINVALID);
	KT_CONTAINS(ks_error_msg(), "empty item");
	KT_EQ_INT(one(&o, "-k", "5,1,5"), KS_EINVALID);
	KT_CONTAINS(ks_error_msg(), "-k lists 5 twice");
	KT_EQ_INT(one(&o, "-k", "10,1,100000"), 1);
	KT_EQ_INT(o.pipeline.nks, 3);
	KT_EQ_INT(o.pipeline.ks[0], 10);
	KT_EQ_INT(o.pipeline.ks[2], 100000);
	KT_EQ_INT(one(&o, "-k", "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,"
		      "28,29,30,31,32"), 1);
	KT_EQ_INT(o.pipeline.nks, 32);
	KT_EQ_INT(one(&o, "-k", "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,"
		      "28,29,30,31,32,33"), KS_EINVALID);
}

/* --max-scratch: bytes with binary suffixes, passed to the pipeline. */
static void test_max_scratch(void)
{
	ks_scoreopts o;
	ks_pipeline_options po;
	ks_scoreopts_init(&o);
	KT_ASSERT(o.pipeline.runner.limits.max_scratch_bytes == (4ull << 30));
	KT_EQ_INT(one(&o, "--max-scratch", "1048576"), 1);
	KT_ASSERT(o.pipeline.runner.limits.max_scratch_bytes == 1048576);
	KT_EQ_INT(one(&o, "--max-scratch", "512M"), 1);
	KT_ASSERT(o.pipeline.runner.limits.max_scratch_bytes == (512ull << 20));
	KT_EQ_INT(one(&o, "--max-scratch", "16GiB"), 1);
	KT_ASSERT(o.pipeline.runner.limits.max_scratch_bytes == (16ull << 30));
	KT_EQ_INT(one(&o, "--max-scratch", "64k"), 1);
	KT_ASSERT(o.pipeline.runner.limits.max_scratch_bytes == (64ull << 10));
	KT_EQ_INT(one(&o, "--max-scratch", "1T"), 1);
	KT_ASSERT(o.pipeline.runner.limits.max_scratch_bytes == (1ull << 40));
	ks_scoreopts_pipeline(&o, "R", NULL);
	po = o.pipeline;
	KT_ASSERT(po.runner.limits.max_scratch_bytes == (1ull << 40));
}

/* --devices LIST|all (and --device, the same option): lanes for the pipeline and the Slurm shard. */
static void test_devices(void)
{
	static const char *bad[] = { "", ",", "0,", ",0", "0,,1", "all,1", "1,all", "ALL", "-1", "+1", "1024",
				     "0x1", "1 ", "99999999999999999999", NULL };
	char many[512] = "";
	ks_scoreopts o;
	ks_pipeline_options po;
	size_t i;

	ks_scoreopts_init(&o);
	ks_scoreopts_pipeline(&o, "R", NULL);
	po = o.pipeline;
	KT_EQ_INT(po.ndevices, 0);   /* one lane on --device's default, 0 */
	KT_ASSERT(!po.devices_all && !po.mixed_gpus);
	KT_EQ_INT(po.device, 0);
	KT_EQ_INT(ks_scoreopts_slurm_gpus(&o), 1);

	KT_EQ_INT(one(&o, "--devices", "2,0,2"), 1);
	KT_EQ_INT(o.pipeline.ndevices, 3);
	KT_EQ_INT(o.pipeline.devices[0], 2);
	KT_EQ_INT(o.pipeline.devices[1], 0);
	KT_EQ_INT(o.pipeline.devices[2], 2);
	KT_EQ_INT(o.pipeline.device, 2);
	KT_EQ_INT(ks_scoreopts_slurm_gpus(&o), 3); /* ordinals 0..2 must exist in the allocation */
	ks_scoreopts_pipeline(&o, "R", NULL);
	po = o.pipeline;
	KT_EQ_INT(po.ndevices, 3);
	KT_EQ_INT(po.devices[2], 2);

	KT_EQ_INT(one(&o, "--device", "0,0"), 1); /* a synonym, lists and all */
	KT_EQ_INT(o.pipeline.ndevices, 2);
	KT_EQ_INT(ks_scoreopts_slurm_gpus(&o), 1);
	KT_EQ_INT(one(&o, "--devices", "all"), 1);
	KT_ASSERT(o.pipeline.devices_all);
	KT_EQ_INT(o.pipeline.ndevices, 0);
	KT_EQ_INT(ks_scoreopts_slurm_gpus(&o), -1); /* a whole node */
	ks_scoreopts_pipeline(&o, "R", NULL);
	po = o.pipeline;
	KT_ASSERT(po.devices_all && po.ndevices == 0);
	{
		char *argv[] = { "x", "--devices", "all", "--device", "1", "--mixed-gpus", "--compile-only", NULL };
		KT_EQ_INT(run(&o, 6, argv), 1);
		KT_ASSERT(!o.pipeline.devices_all && o.pipeline.ndevices == 1 && o.pipeline.devices[0] == 1 &&
			  o.pipeline.mixed_gpus);
		KT_EQ_INT(run(&o, 7, argv), 1);
		KT_EQ_INT(ks_scoreopts_slurm_gpus(&o), 0);
		ks_scoreopts_pipeline(&o, "R", NULL);
		po = o.pipeline;
		KT_ASSERT(po.mixed_gpus);
	}

	for (i = 0; bad[i]; i++) {
		KT_ASSERT_MSG(one(&o, "--devices", bad[i]) == KS_EINVALID, "--devices \"%s\" accepted", bad[i]);
		KT_CONTAINS(ks_error_msg(), "--devices takes a device ordinal from 0 to 1023");
	}
	KT_EQ_INT(one(&o, "--device", "x"), KS_EINVALID);
	KT_CONTAINS(ks_error_msg(), "--device takes");
	/* at most 64 lanes */
	for (i = 0; i < 64; i++)
		snprintf(many + strlen(many), sizeof(many) - strlen(many), "%s%zu", i ? "," : "", i % 8);
	KT_EQ_INT(one(&o, "--devices", many), 1);
	KT_EQ_INT(o.pipeline.ndevices, 64);
	strcat(many, ",0");
	KT_EQ_INT(one(&o, "--devices", many), KS_EINVALID);
	KT_CONTAINS(ks_error_msg(), "at most 64");
	KT_EQ_INT(one(&o, "--devices", "1023"), 1);
	KT_EQ_INT(ks_scoreopts_slurm_gpus(&o), 1024);
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
	ks_scoreopts_pipeline(&o, "R", NULL);
	po = o.pipeline;
	KT_EQ_INT((int)po.nvtool.sanitize, KS_SAN_MEMCHECK | KS_SAN_RACECHECK);
	KT_EQ_INT(po.nvtool.profile, KS_PROFILE_SLOW);
	KT_EQ_INT(run(&o, 4, a2), 1);
	ks_scoreopts_pipeline(&o, "R", NULL);
	po = o.pipeline;
	KT_EQ_INT((int)po.nvtool.sanitize, 0);
	KT_EQ_INT(po.nvtool.profile, KS_PROFILE_ALL);
	KT_EQ_INT(run(&o, 1, a3), 1);
	KT_EQ_INT(o.sanitize, -1);
	ks_scoreopts_pipeline(&o, "R", NULL);
	po = o.pipeline;
	KT_EQ_INT((int)po.nvtool.sanitize, KS_SANITIZE_DEFAULT_SCORE ? KS_SAN_MEMCHECK : 0);
	KT_EQ_INT(po.nvtool.profile, KS_PROFILE_NEVER);
	KT_EQ_INT(run(&o, 2, bad1), KS_EINVALID);
	KT_CONTAINS(ks_error_msg(), "--sanitize");
	KT_EQ_INT(run(&o, 2, bad2), KS_EINVALID);
	KT_CONTAINS(ks_error_msg(), "--profile");
}

/* The help text of the options, as `score --help` prints it. Caller frees. */
static char *usage_text(void)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	KT_ASSERT(f != NULL);
	ks_scoreopts_usage(f);
	fclose(f);
	return text;
}

/* The default the help gives for opt: the word after `marker` following opt's own line start
 * (it may sit on a continuation line), up to ')', ';', a space or the line's end. */
static void help_default(char *out, size_t n, const char *help, const char *opt, const char *marker)
{
	const char *p = strstr(help, opt), *d;
	size_t len;
	out[0] = '\0';
	KT_ASSERT_MSG(p != NULL, "the help does not list %s", opt);
	d = strstr(p, marker);
	KT_ASSERT_MSG(d != NULL, "the help gives no default for %s", opt);
	d += strlen(marker);
	len = strcspn(d, "); \n");
	KT_ASSERT(len > 0 && len < n);
	memcpy(out, d, len);
	out[len] = '\0';
}

/* --help states the defaults of the INIT macros: parsing nothing yields the documented constants,
 * and each default the help prints, parsed back through its own option, yields the same value.
 * A literal in the help that drifted from its constant (or a constant changed under a literal)
 * fails here. */
static void test_help_shows_the_init_defaults(void)
{
	ks_pipeline_options init = KS_PIPELINE_OPTIONS_INIT;
	ks_scoreopts d, o;
	char *help = usage_text();
	char v[64];
	unsigned mask = 0;

	/* nothing parsed: the pipeline's INIT defaults, nested ones included */
	ks_scoreopts_init(&d);
	KT_EQ_STR(d.pipeline.compile.arch, KS_COMPILE_DEFAULT_ARCH);
	KT_EQ_STR(d.pipeline.compile.arch, init.compile.arch);
	KT_NEAR(d.pipeline.compile.timeout_s, KS_COMPILE_DEFAULT_TIMEOUT_S, 0);
	KT_EQ_INT(d.pipeline.compile.memory_mb, KS_COMPILE_DEFAULT_MEMORY_MB);
	KT_NEAR(d.pipeline.runner.kernel_timeout_s, KS_RUNNER_DEFAULT_KERNEL_TIMEOUT_S, 0);
	KT_ASSERT(d.pipeline.runner.limits.max_scratch_bytes == KS_PLAN_DEFAULT_MAX_SCRATCH);
	KT_ASSERT(d.pipeline.runner.limits.max_scratch_bytes == init.runner.limits.max_scratch_bytes);
	KT_EQ_INT(d.pipeline.nks, 1);
	KT_EQ_INT(d.pipeline.ks[0], KS_PIPELINE_DEFAULT_K);
	KT_EQ_INT(d.pipeline.device, KS_PIPELINE_DEFAULT_DEVICE);
	KT_EQ_INT(d.pipeline.ndevices, 0);
	KT_EQ_INT(d.pipeline.nvtool.profile, KS_PROFILE_NEVER);
	KT_EQ_INT(d.pipeline.compile.max_source, init.compile.max_source);
	KT_EQ_INT(d.pipeline.runner.limits.guard, init.runner.limits.guard);

	/* each default in the help, given back to its option, is the value parsing nothing gives */
	help_default(v, sizeof(v), help, "--pass-at-k", "default: ");
	KT_EQ_INT(one(&o, "-k", v), 1);
	KT_EQ_INT(o.pipeline.nks, d.pipeline.nks);
	KT_EQ_INT(o.pipeline.ks[0], d.pipeline.ks[0]);
	help_default(v, sizeof(v), help, "--arch", "default: ");
	KT_EQ_STR(v, d.pipeline.compile.arch);
	help_default(v, sizeof(v), help, "--devices", "default: ");
	KT_EQ_INT(one(&o, "--devices", v), 1);
	KT_EQ_INT(o.pipeline.device, d.pipeline.device);
	help_default(v, sizeof(v), help, "--kernel-timeout", "default: ");
	KT_EQ_INT(one(&o, "--kernel-timeout", v), 1);
	KT_NEAR(o.pipeline.runner.kernel_timeout_s, d.pipeline.runner.kernel_timeout_s, 0);
	help_default(v, sizeof(v), help, "--trace-timeout", "default: ");
	KT_EQ_INT(one(&o, "--trace-timeout", v), 1);
	KT_NEAR(o.pipeline.runner.trace_timeout_s, d.pipeline.runner.trace_timeout_s, 0);
	help_default(v, sizeof(v), help, "--compile-timeout", "default: ");
	KT_EQ_INT(one(&o, "--compile-timeout", v), 1);
	KT_NEAR(o.pipeline.compile.timeout_s, d.pipeline.compile.timeout_s, 0);
	help_default(v, sizeof(v), help, "--compile-memory", "default: ");
	KT_EQ_INT(one(&o, "--compile-memory", v), 1);
	KT_EQ_INT(o.pipeline.compile.memory_mb, d.pipeline.compile.memory_mb);
	help_default(v, sizeof(v), help, "--max-scratch", "default: ");
	KT_EQ_INT(one(&o, "--max-scratch", v), 1);
	KT_ASSERT_MSG(o.pipeline.runner.limits.max_scratch_bytes == d.pipeline.runner.limits.max_scratch_bytes,
		      "--help says --max-scratch %s by default", v);
	/* --sanitize's default tools and --profile's default WHEN */
	help_default(v, sizeof(v), help, "--sanitize[", "default ");
	KT_EQ_INT(ks_sanitize_tools_parse(&mask, v), 0);
	{
		char *a[] = { "x", "--sanitize", NULL };
		KT_EQ_INT(run(&o, 2, a), 1);
		ks_scoreopts_pipeline(&o, "R", NULL);
		KT_EQ_INT((int)o.pipeline.nvtool.sanitize, (int)mask);
	}
	help_default(v, sizeof(v), help, "--profile[", "WHEN: ");
	{
		char *a[] = { "x", "--profile", NULL };
		char arg[80];
		KT_EQ_INT(run(&o, 2, a), 1);
		snprintf(arg, sizeof(arg), "--profile=%s", v);
		{
			char *b[] = { "x", arg, NULL };
			ks_scoreopts p;
			KT_EQ_INT(run(&p, 2, b), 1);
			KT_EQ_INT(p.pipeline.nvtool.profile, o.pipeline.nvtool.profile);
		}
	}
	free(help);
}

static const kt_test tests[] = {
	KT(test_defaults), KT(test_values_are_parsed), KT(test_bad_values_are_usage_errors),
	KT(test_arch_must_be_a_real_architecture), KT(test_numbers_are_strict),
	KT(test_pass_at_k_list), KT(test_max_scratch), KT(test_devices),
	KT(test_sanitize_and_profile_options), KT(test_help_shows_the_init_defaults), KT(test_baseline_reference_names_a_folder), { 0 }
};
KT_MAIN("scoreopts", tests)
