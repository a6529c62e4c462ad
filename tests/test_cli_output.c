/* End-to-end tests of result folders (issue 9): kscore replaces only what it wrote, never an
 * input: --out, the default folder, batch's results folder and baseline --out. */
#include "clitest.h"

/* Runs `score ARGS` from inside dir (a folder of the test), with the binary and the fixture
 * problems given absolutely ("%R" in ARGS stands for the problems folder). Returns the exit
 * status; stderr is in g_err. */
static int score_in(const char *dir, const char *args)
{
	char *b = realpath(bin(), NULL), *refs = realpath("tests/fixtures/problems", NULL), *cmd, *a, *r;
	int st;
	if (!b || !refs)
		KT_FAIL("cannot find the score binary or the fixture problems");
	a = ks_strdup(args);
	while ((r = strstr(a, "%R")) != NULL) {
		*r = '\0';
		cmd = ks_asprintf("%s'%s'%s", a, refs, r + 2);
		ks_free(a);
		a = cmd;
	}
	cmd = ks_asprintf("cd '%s' && XDG_CACHE_HOME='%s/cache' '%s' %s >'%s/stdout' 2>'%s/stderr'", dir,
			  kt_tmpdir(), b, a, kt_tmpdir(), kt_tmpdir());
	st = system(cmd);
	ks_free(cmd);
	ks_free(a);
	free(b);
	free(refs);
	{
		char *t = slurp("stderr");
		snprintf(g_err, sizeof(g_err), "%s", t);
		ks_free(t);
	}
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void copy_good(const char *rel)
{
	char cmd[8800];
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s/%s')\" && cp tests/fixtures/cli/good.json '%s/%s'",
		 kt_tmpdir(), rel, kt_tmpdir(), rel);
	KT_EQ_INT(system(cmd), 0);
}

static void test_out_folder_that_is_not_kscores_is_refused(void)
{
	char args[8192], *t;
	put_file("otest/important.txt", "keep me");
	put_file("otest/sub/deeper.txt", "me too");
	snprintf(args, sizeof(args), "--compile-only --refs tests/fixtures/problems -o '%s/otest' "
		 "tests/fixtures/cli/good.json", kt_tmpdir());
	KT_EQ_INT(score(args), 73);
	KT_CONTAINS(g_err, "otest exists and is not a kscore result folder");
	KT_CONTAINS(g_err, "choose another --out");
	t = slurp("otest/important.txt");
	KT_EQ_STR(t, "keep me");
	ks_free(t);
	KT_ASSERT(there("otest/sub/deeper.txt"));
	KT_ASSERT(!there("otest/score.json"));
	/* a regular file is not a result folder either */
	put_file("precious.txt", "keep me");
	snprintf(args, sizeof(args), "--compile-only --refs tests/fixtures/problems -o '%s/precious.txt' "
		 "tests/fixtures/cli/good.json", kt_tmpdir());
	KT_EQ_INT(score(args), 73);
	KT_CONTAINS(g_err, "precious.txt exists and is not a kscore result folder");
	t = slurp("precious.txt");
	KT_EQ_STR(t, "keep me");
	ks_free(t);
}

static void test_out_folder_holding_the_submission_is_refused(void)
{
	char dir[4400], *t;
	copy_good("work/X.json");
	snprintf(dir, sizeof(dir), "%s/work", kt_tmpdir());
	/* -o $PWD, the folder that holds the submission being scored */
	KT_EQ_INT(score_in(dir, "--compile-only --refs %R -o \"$PWD\" X.json"), 73);
	KT_CONTAINS(g_err, "holds the input X.json");
	t = slurp("work/X.json");
	KT_CONTAINS(t, "predict");
	ks_free(t);
	/* -o . and the submission itself */
	KT_EQ_INT(score_in(dir, "--compile-only --refs %R -o . X.json"), 73);
	KT_EQ_INT(score_in(dir, "--compile-only --refs %R -o X.json X.json"), 73);
	KT_CONTAINS(g_err, "is the input");
	/* the working directory, even when it holds no input */
	copy_good("other/Y.json");
	KT_EQ_INT(score_in(dir, "--compile-only --refs %R -o \"$PWD\" ../other/Y.json"), 73);
	KT_CONTAINS(g_err, "is the working directory");
	/* inside the reference problems (a copy: a failure must not write into the repository) */
	{
		char cmd[8800];
		snprintf(cmd, sizeof(cmd), "cp -R tests/fixtures/problems '%s/refs'", kt_tmpdir());
		KT_EQ_INT(system(cmd), 0);
	}
	KT_EQ_INT(score_in(dir, "--compile-only --refs ../refs -o ../refs/out X.json"), 73);
	KT_CONTAINS(g_err, "inside the input folder");
	KT_ASSERT(!there("refs/out"));
	t = slurp("work/X.json");
	KT_CONTAINS(t, "predict");
	ks_free(t);
	KT_ASSERT(!there("work/score.json"));
}

static void test_default_folder_that_is_not_kscores_is_refused(void)
{
	char args[16384], *t;
	copy_good("X.json");
	put_file("X/notes.txt", "an unrelated folder that happens to be called X");
	snprintf(args, sizeof(args), "--compile-only --refs tests/fixtures/problems '%s/X.json'", kt_tmpdir());
	KT_EQ_INT(score(args), 73);
	KT_CONTAINS(g_err, "X exists and is not a kscore result folder");
	t = slurp("X/notes.txt");
	KT_CONTAINS(t, "unrelated");
	ks_free(t);
	KT_ASSERT(!there("X/score.json"));
	/* a link at the output path is never followed into a removal */
	put_file("target/keep.txt", "x");
	{
		char l[4400], target[4400];
		snprintf(l, sizeof(l), "%s/lnk", kt_tmpdir());
		snprintf(target, sizeof(target), "%s/target", kt_tmpdir());
		KT_EQ_INT(symlink(target, l), 0);
	}
	snprintf(args, sizeof(args), "--compile-only --refs tests/fixtures/problems -o '%s/lnk' '%s/X.json'",
		 kt_tmpdir(), kt_tmpdir());
	KT_EQ_INT(score(args), 73);
	KT_CONTAINS(g_err, "symbolic link");
	KT_ASSERT(there("target/keep.txt"));
}

static void test_kscore_folders_are_marked_and_replaced_whole(void)
{
	char args[8192], *t;
	/* a folder written by a version before marks: kscore's files and its score.json */
	put_file("old/score.json", "{\n\t\"schema\":\t\"kscore.score/1\",\n\t\"team\":\t\"before\"\n}\n");
	put_file("old/out.json_results_3.json", "[]");
	put_file("old/exec/gen_perf/stale.json", "{}");
	snprintf(args, sizeof(args), "--compile-only --refs tests/fixtures/problems --team now -o '%s/old' "
		 "tests/fixtures/cli/good.json", kt_tmpdir());
	KT_EQ_INT(score(args), 0);
	KT_ASSERT(!there("old/out.json_results_3.json"));
	KT_ASSERT(!there("old/exec/gen_perf/stale.json"));
	t = slurp("old/.kscore-result");
	KT_CONTAINS(t, "\"schema\": \"kscore.outdir/1\"");
	KT_CONTAINS(t, "\"kind\": \"result\"");
	KT_CONTAINS(t, "kscore ");
	ks_free(t);
	t = slurp("old/score.json");
	KT_CONTAINS(t, "\"now\"");
	ks_free(t);
	/* marked now: a user's file left in it goes with the next run, and nothing is left beside it */
	put_file("old/mine.txt", "x");
	KT_EQ_INT(score(args), 0);
	KT_ASSERT(!there("old/mine.txt"));
	KT_ASSERT(there("old/score.json"));
	{
		char **v = NULL, dir[4400];
		size_t n = 0, i;
		snprintf(dir, sizeof(dir), "%s", kt_tmpdir());
		KT_EQ_INT(ks_fs_list(&v, &n, dir, 1), 0);
		for (i = 0; i < n; i++)
			KT_ASSERT_MSG(!strstr(v[i], ".tmp-") && !strstr(v[i], ".old-"), "leftover %s", v[i]);
		ks_free_strv(v, n);
	}
	/* an empty folder is fine */
	put_file("empty/.keep", "");
	{
		char p[4400];
		snprintf(p, sizeof(p), "%s/empty/.keep", kt_tmpdir());
		unlink(p);
	}
	snprintf(args, sizeof(args), "--compile-only --refs tests/fixtures/problems -o '%s/empty' "
		 "tests/fixtures/cli/good.json", kt_tmpdir());
	KT_EQ_INT(score(args), 0);
	KT_ASSERT(there("empty/score.json"));
}

static void test_batch_results_folder_rule(void)
{
	char dir[4400], *t;
	snprintf(dir, sizeof(dir), "%s", kt_tmpdir());
	put_file("m.json", "{\"schema\": \"kscore.batch/1\", \"deadline\": \"2025-08-24T23:59:59Z\", "
		 "\"submission\": \"s.json\", \"teams\": [{\"name\": \"a\", \"repo\": \"nowhere\"}, "
		 "{\"name\": \"b\", \"repo\": \"nowhere\"}]}");
	/* a results folder kscore did not write */
	put_file("foreign/mine.txt", "keep me");
	KT_EQ_INT(score_in(dir, "batch --compile-only --refs %R --out foreign m.json"), 73);
	KT_CONTAINS(g_err, "foreign exists and is not a kscore batch results folder");
	KT_ASSERT(there("foreign/mine.txt"));
	KT_ASSERT(!there("foreign/leaderboard.json") && !there("foreign/a"));
	/* a new one is kscore's, marked, and the team folders in it too */
	KT_EQ_INT(score_in(dir, "batch --compile-only --refs %R m.json"), 1);
	t = slurp("results/.kscore-result");
	KT_CONTAINS(t, "\"kind\": \"batch\"");
	ks_free(t);
	t = slurp("results/a/.kscore-result");
	KT_CONTAINS(t, "\"kind\": \"result\"");
	ks_free(t);
	/* resumed: its own folders are replaced; a team folder someone else made is not */
	put_file("results/b/mine.txt", "keep me");
	{
		char p[4400];
		snprintf(p, sizeof(p), "%s/results/b/.kscore-result", kt_tmpdir());
		unlink(p);
	}
	KT_EQ_INT(score_in(dir, "batch --compile-only --refs %R m.json"), 73);
	KT_CONTAINS(g_err, "results/b exists and is not a kscore result folder");
	KT_ASSERT(there("results/b/mine.txt"));
	/* a result folder of `score` is not a batch's results folder */
	KT_EQ_INT(score_in(dir, "batch --compile-only --refs %R --out results/a m.json"), 73);
	KT_CONTAINS(g_err, "not a kscore batch results folder");
}

static void test_baseline_out_replaces_only_a_baseline(void)
{
	char dir[4400], *t;
	snprintf(dir, sizeof(dir), "%s", kt_tmpdir());
	put_file("precious.txt", "keep me");
	KT_EQ_INT(score_in(dir, "baseline --refs %R --out precious.txt"), 73);
	KT_CONTAINS(g_err, "precious.txt exists and is not a kscore file of schema \"kscore.baseline/1\"");
	t = slurp("precious.txt");
	KT_EQ_STR(t, "keep me");
	ks_free(t);
	/* an input is never a baseline's place, whatever it holds */
	{
		char cmd[8800];
		snprintf(cmd, sizeof(cmd), "cp -R tests/fixtures/problems '%s/refs'", kt_tmpdir());
		KT_EQ_INT(system(cmd), 0);
	}
	KT_EQ_INT(score_in(dir, "baseline --refs refs --out refs/demo/vadd/problem.json"), 73);
	put_file("sub/x.json", "{\"schema\": \"kscore.score/1\"}");
	KT_EQ_INT(score_in(dir, "baseline --refs %R --out sub/x.json"), 73);
	if (has_gpu())
		KT_SKIP("this machine has a GPU: an accepted --out would time every golden kernel");
	/* an earlier baseline file passes the rule (and then there is no GPU here) */
	put_file("b.json", "{\"schema\": \"kscore.baseline/1\", \"problems\": []}");
	KT_EQ_INT(score_in(dir, "baseline --refs %R --out b.json"), 69);
}

static const kt_test tests[] = {
	KT(test_out_folder_that_is_not_kscores_is_refused),
	KT(test_out_folder_holding_the_submission_is_refused),
	KT(test_default_folder_that_is_not_kscores_is_refused),
	KT(test_kscore_folders_are_marked_and_replaced_whole),
	KT(test_batch_results_folder_rule),
	KT(test_baseline_out_replaces_only_a_baseline),
	{ 0 }
};
KT_MAIN("cli_output", tests)
