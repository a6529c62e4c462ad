/* End-to-end tests of a new user's first day on a machine without a GPU (issue: "a new user's
 * first day"): what `score` says before, during and after a run, and the `--json` contract. */
#include "clitest.h"
#include "util/jsonutil.h"

#define REFS "--compile-only --refs tests/fixtures/problems "

/* How many lines of text hold needle. */
static int lines_with(const char *text, const char *needle)
{
	int n = 0;
	const char *p = text, *nl;
	while (*p) {
		size_t len;
		char line[8192];
		nl = strchr(p, '\n');
		len = nl ? (size_t)(nl - p) : strlen(p);
		snprintf(line, sizeof(line), "%.*s", (int)(len < sizeof(line) ? len : sizeof(line) - 1), p);
		n += strstr(line, needle) != NULL;
		p += len + (nl != NULL);
	}
	return n;
}

static void test_an_unwritable_result_folder_is_found_before_scoring(void)
{
	char args[16384];
	/* nobody, root included, creates a folder in /proc: the run must say so before any work, not
	 * after the whole run (every result lost) */
	snprintf(args, sizeof(args), REFS "-o /proc/kscore-cannot/r tests/fixtures/cli/sub.json");
	KT_EQ_INT(score(args), 74);
	KT_CONTAINS(g_err, "cannot create the result folder /proc/kscore-cannot/r");
	/* nothing was read or scored: the file's entry warnings never came */
	KT_NOT_CONTAINS(g_err, "duplicate");
	KT_NOT_CONTAINS(g_err, "writing results");
	/* a missing parent that can be made is no error, and the probe leaves nothing behind */
	snprintf(args, sizeof(args), REFS "-q -o '%s/new/deeper/r' tests/fixtures/cli/sub.json", kt_tmpdir());
	KT_EQ_INT(score(args), 1);
	KT_ASSERT(there("new/deeper/r/score.json"));
}

static void test_json_summary_is_a_contract(void)
{
	char args[16384], *rec;
	cJSON *j = NULL, *sj = NULL;
	const cJSON *subs, *s, *k, *rk;
	int i;

	put_file("broken.json", "[{\"file\": \"vadd.py\", \"predict\": \"x\"},\n  {oops]");
	/* the scored input's default folder is beside it: a copy in the test's folder */
	snprintf(args, sizeof(args), "cp tests/fixtures/cli/sub.json '%s/sub.json'", kt_tmpdir());
	KT_EQ_INT(system(args), 0);
	snprintf(args, sizeof(args), REFS "--json '%s/sub.json' '%s/broken.json' '%s/missing.json'", kt_tmpdir(),
		 kt_tmpdir(), kt_tmpdir());
	KT_EQ_INT(score(args), 65);
	KT_EQ_INT(ks_json_parse(&j, g_out, strlen(g_out), 64, "stdout"), 0);
	KT_EQ_STR(cJSON_GetObjectItem(j, "schema")->valuestring, "kscore.score-summary/1");
	KT_EQ_STR(cJSON_GetObjectItem(j, "mode")->valuestring, "compile-only");
	subs = cJSON_GetObjectItem(j, "submissions");
	KT_EQ_INT(cJSON_GetArraySize(subs), 3);

	/* a scored input: error null, and call/exec null as in its score.json (nothing was run) */
	s = cJSON_GetArrayItem(subs, 0);
	KT_ASSERT(cJSON_IsNull(cJSON_GetObjectItem(s, "error")));
	rec = slurp("sub/score.json");
	KT_EQ_INT(ks_json_parse(&sj, rec, strlen(rec), 64, "score.json"), 0);
	/* the run's mode and why there is no GPU, as the record says them */
	KT_EQ_STR(cJSON_GetObjectItem(sj, "mode")->valuestring, "compile-only");
	KT_ASSERT(cJSON_GetObjectItem(j, "no_gpu_reason") != NULL);
	KT_EQ_INT(cJSON_IsNull(cJSON_GetObjectItem(j, "no_gpu_reason")),
		  cJSON_IsNull(cJSON_GetObjectItem(sj, "no_gpu_reason")));
	k = cJSON_GetObjectItem(s, "kernels");
	rk = cJSON_GetObjectItem(sj, "kernels");
	KT_EQ_INT(cJSON_GetArraySize(k), cJSON_GetArraySize(rk));
	for (i = 0; i < cJSON_GetArraySize(k); i++) {
		const cJSON *a = cJSON_GetArrayItem(k, i), *b = cJSON_GetArrayItem(rk, i);
		KT_ASSERT(cJSON_IsNull(cJSON_GetObjectItem(a, "call")));
		KT_ASSERT(cJSON_IsNull(cJSON_GetObjectItem(a, "exec")));
		KT_EQ_INT(cJSON_IsTrue(cJSON_GetObjectItem(a, "compiled")), cJSON_IsTrue(cJSON_GetObjectItem(b, "compiled")));
		KT_EQ_STR(cJSON_GetObjectItem(a, "reason")->valuestring, cJSON_GetObjectItem(b, "reason")->valuestring);
		KT_EQ_STR(cJSON_GetObjectItem(a, "language")->valuestring, cJSON_GetObjectItem(b, "language")->valuestring);
	}
	/* a file that cannot be parsed, and one that does not exist: an error key each */
	s = cJSON_GetArrayItem(subs, 1);
	KT_CONTAINS(cJSON_GetObjectItem(s, "error")->valuestring, "broken.json:2:");
	s = cJSON_GetArrayItem(subs, 2);
	KT_CONTAINS(cJSON_GetObjectItem(s, "error")->valuestring, "missing.json");
	KT_ASSERT(cJSON_IsNull(cJSON_GetObjectItem(s, "summary")));
	KT_ASSERT(cJSON_IsArray(cJSON_GetObjectItem(s, "kernels")));
	ks_free(rec);
	cJSON_Delete(sj);
	cJSON_Delete(j);
}

static void test_a_wrapping_object_says_an_array_was_expected(void)
{
	char args[16384];
	put_file("wrapped.json", "{\"submissions\": [{\"file\": \"vadd.py\", \"predict\": \"x\"}]}\n");
	snprintf(args, sizeof(args), REFS "-q '%s/wrapped.json'", kt_tmpdir());
	KT_EQ_INT(score(args), 65);
	KT_CONTAINS(g_err, "wrapped.json: the file is one JSON object whose \"submissions\" holds an array");
	KT_CONTAINS(g_err, "an array of entries was expected");
	/* one entry of JSON Lines is still an entry */
	put_file("one.jsonl", "{\"file\": \"vadd.py\", \"predict\": \"x\"}\n");
	snprintf(args, sizeof(args), REFS "-q '%s/one.jsonl'", kt_tmpdir());
	KT_EQ_INT(score(args), 2);
	KT_NOT_CONTAINS(g_err, "was expected");
}

static void test_a_mistyped_command_is_named(void)
{
	KT_EQ_INT(score("exprot results/ --out site/"), 64);
	KT_CONTAINS(g_err, "'exprot' is neither a command nor a file; did you mean 'score export'?");
	KT_EQ_INT(score("bacth teams.json"), 64);
	KT_CONTAINS(g_err, "did you mean 'score batch'?");
	/* a file of that name is a submission, and a name far from every command is one too */
	KT_EQ_INT(score(REFS "no-such-team7.json"), 65);
	KT_CONTAINS(g_err, "no-such-team7.json: no such file or folder");
}

static void test_an_unknown_problem_gets_a_warning_and_a_suggestion(void)
{
	char args[16384];
	put_file("typo.json", "[{\"file\": \"vad.py\", \"predict\": \"x\"}, {\"file\": \"zzzz.py\", \"predict\": \"x\"}]");
	snprintf(args, sizeof(args), REFS "-q --json '%s/typo.json'", kt_tmpdir());
	KT_EQ_INT(score(args), 2);
	KT_CONTAINS(g_err, "typo.json: pass 0, entry 0: \"vad.py\" names no problem in the reference tests "
		    "(2 problems loaded); did you mean \"vadd\"?");
	KT_CONTAINS(g_err, "entry 1: \"zzzz.py\" names no problem in the reference tests (2 problems loaded)\n");
	KT_ASSERT(there("typo/score.json"));
}

static void test_many_duplicates_make_one_line(void)
{
	char *sub = ks_strdup("["), *t, args[16384];
	int i;
	for (i = 0; i < 300; i++) {
		t = ks_asprintf("%s%s{\"file\": \"vadd.py\", \"predict\": \"x\"}", sub, i ? ",\n" : "");
		ks_free(sub);
		sub = t;
	}
	t = ks_asprintf("%s]\n", sub);
	put_file("many.json", t);
	snprintf(args, sizeof(args), REFS "-q '%s/many.json'", kt_tmpdir());
	KT_EQ_INT(score(args), 2);
	KT_EQ_INT(lines_with(g_err, "duplicate"), 1);
	KT_CONTAINS(g_err, "many.json: 299 entries name an earlier entry's problem and are not counted: "
		    "entry 1 (duplicate of entry 0, \"vadd\"), ");
	KT_CONTAINS(g_err, "entry 5 (duplicate of entry 0, \"vadd\"), ...; only the first entry");
	ks_free(t);
	ks_free(sub);
}

/* Runs `score ARGS` with its stderr on a pseudo-terminal (util-linux script(1)); what the terminal
 * showed is in g_err. Returns the exit status of script, -1 when there is no script(1). */
static int score_on_a_terminal(const char *args)
{
	char cmd[32768], path[4400], *text = NULL;
	int st;
	if (system("command -v script >/dev/null 2>&1") != 0)
		return -1;
	snprintf(path, sizeof(path), "%s/terminal", kt_tmpdir());
	snprintf(cmd, sizeof(cmd), "XDG_CACHE_HOME='%s/cache' script -qec \"%s %s >/dev/null\" /dev/null >'%s' 2>&1",
		 kt_tmpdir(), bin(), args, path);
	st = system(cmd);
	if (ks_fs_read(&text, NULL, path, sizeof(g_err) - 1) < 0)
		return -1;
	snprintf(g_err, sizeof(g_err), "%s", text);
	ks_free(text);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void test_progress_on_a_terminal_in_compile_only_mode(void)
{
	char args[16384];
	snprintf(args, sizeof(args), REFS "-o '%s/r' tests/fixtures/cli/sub.json", kt_tmpdir());
	if (score_on_a_terminal(args) < 0)
		KT_SKIP("no script(1) to give score a terminal");
	KT_CONTAINS(g_err, "[0 of 1 files] 1 of 5 kernels compiled (compile-only)");
	KT_CONTAINS(g_err, "[0 of 1 files] 5 of 5 kernels compiled (compile-only)");
	/* -q: none; and none when stderr is not a terminal */
	snprintf(args, sizeof(args), REFS "-q -o '%s/r' tests/fixtures/cli/sub.json", kt_tmpdir());
	score_on_a_terminal(args);
	KT_NOT_CONTAINS(g_err, "kernels compiled");
	snprintf(args, sizeof(args), REFS "-o '%s/r' tests/fixtures/cli/sub.json", kt_tmpdir());
	KT_EQ_INT(score(args), 1);
	KT_NOT_CONTAINS(g_err, "kernels compiled");
}

/* The synopses of `score --help` and of the man page name the options a first reader looks for. */
static void test_synopses_name_devices_language_and_plans(void)
{
	char *man = NULL, *syn, *end;
	KT_EQ_INT(score("--help"), 0);
	KT_CONTAINS(g_out, "       score calibrate [--devices LIST|all] [--force] [--json]\n");
	KT_CONTAINS(g_out, "       score problems [--suite NAME] [--json] [--export-prompts FILE [--language cuda|triton]]\n"
		    "                      [--plans FILE]\n");
	KT_EQ_INT(ks_fs_read(&man, NULL, "docs/score.1", 1u << 20), 0);
	syn = strstr(man, ".SH SYNOPSIS");
	KT_ASSERT(syn != NULL);
	end = strstr(syn + 1, ".SH ");
	KT_ASSERT(end != NULL);
	*end = 0;
	KT_CONTAINS(syn, ".B score calibrate\n.RB [ \\-\\-devices\n.IR LIST | all ]\n");
	KT_CONTAINS(syn, ".RB [ \\-\\-language\n.IR cuda | triton ]]\n");
	KT_CONTAINS(syn, ".RB [ \\-\\-plans\n.IR FILE ]\n");
	ks_free(man);
}

static const kt_test tests[] = {
	KT(test_an_unwritable_result_folder_is_found_before_scoring),
	KT(test_json_summary_is_a_contract),
	KT(test_a_wrapping_object_says_an_array_was_expected),
	KT(test_a_mistyped_command_is_named),
	KT(test_an_unknown_problem_gets_a_warning_and_a_suggestion),
	KT(test_many_duplicates_make_one_line),
	KT(test_progress_on_a_terminal_in_compile_only_mode),
	KT(test_synopses_name_devices_language_and_plans),
	{ 0 }
};
KT_MAIN("cli_firstday", tests)
