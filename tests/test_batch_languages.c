/* A batch with a team of Triton answers (issue 23, item 4), end to end with `score batch
 * --compile-only` on git repositories: that team's zeros are not its kernels' failures, and every
 * place an organizer looks says so with one note (the team's line on stderr, -q, --json,
 * leaderboard.json and .csv, the site's leaderboard, team page and provenance page) and the batch
 * ends with a summary line. A team of CUDA answers gets no note. */
#include "batchtest.h"

#define NOTE "1 of 2 answers is Triton (Python) and 1 is Python, which this run could not score: compile-only run, " \
	     "tracing Triton answers needs a GPU"

static void teams(void)
{
	init_repo("tri");
	put_fixture("triton.json", "tri/s.json");
	commit("tri", "2025-08-22T10:00:00Z", "triton answers");
	init_repo("cu");
	put_fixture("good.json", "cu/s.json");
	commit("cu", "2025-08-22T10:00:00Z", "cuda answers");
	put("m.json", "{\"schema\": \"kscore.batch/1\", \"deadline\": \"" DEADLINE "\", \"submission\": "
	    "\"s.json\", \"teams\": [{\"name\": \"Tri\", \"repo\": \"tri\"}, {\"name\": \"Cu\", \"repo\": \"cu\"}]}");
}

/* The line of text that holds what (caller frees). */
static char *line_of(const char *text, const char *what)
{
	const char *p = strstr(text, what), *start;
	if (!p)
		KT_FAIL("no line holds \"%s\" in:\n%s", what, text);
	for (start = p; start > text && start[-1] != '\n'; start--)
		;
	return ks_strndup(start, strcspn(start, "\n"));
}

static void test_team_of_triton_answers_is_noted_everywhere(void)
{
	cJSON *rep, *lb;
	const cJSON *t;
	char *csv, *page, *line;
	if (!have_git())
		KT_SKIP("git is not installed");
	teams();
	KT_EQ_INT(batch("--compile-only m.json"), 0);
	/* the table on stdout */
	line = line_of(g_out, " Tri ");
	KT_CONTAINS(line, "compile 0 (2 not scored)");
	ks_free(line);
	/* the team's line, and the batch's last word */
	KT_CONTAINS(g_err, "Tri: scored: commit ");
	KT_CONTAINS(g_err, "s.json; " NOTE "\n");
	line = line_of(g_err, "Cu: scored: commit ");
	KT_NOT_CONTAINS(line, "could not score");
	ks_free(line);
	KT_CONTAINS(g_err, "score batch: warning: 1 of 2 teams have answers this run could not score (2 answers: "
		    "1 Triton (Python), 1 Python)");

	lb = json_file("results/leaderboard.json");
	cJSON_ArrayForEach(t, get(lb, "teams")) {
		if (!strcmp(gets_(t, "team"), "Tri")) {
			KT_EQ_INT(get(t, "unscored_answers")->valuedouble, 2);
			KT_EQ_STR(gets_(t, "unscored_note"), NOTE);
		} else {
			KT_EQ_INT(get(t, "unscored_answers")->valuedouble, 0);
			KT_ASSERT(cJSON_IsNull(get(t, "unscored_note")));
		}
	}
	cJSON_Delete(lb);
	csv = slurp("results/leaderboard.csv");
	KT_CONTAINS(csv, ",2,\"" NOTE "\"\r\n");
	ks_free(csv);

	/* the site: the leaderboard's status column and the paragraph above it, the team's page, the
	 * provenance page, the data files */
	page = slurp("results/site/index.html");
	KT_CONTAINS(page, "<span class=\"warn unscored\">" NOTE "</span>");
	/* the rule says compile-only results are not ranked by accuracy */
	KT_CONTAINS(page, "compile-only results are not ranked by accuracy");
	KT_CONTAINS(page, "id=\"unscored\"><strong>1 team</strong> has answers this run could not score");
	ks_free(page);
	page = slurp("results/site/team-Tri.html");
	KT_CONTAINS(page, "<dt>Not scored</dt><dd><span class=\"warn unscored\">" NOTE "</span>");
	/* a Triton answer this host could not trace is "not run", not a red "not compiled" */
	KT_CONTAINS(page, "<span class=\"badge b-notrun\">not run</span>");
	ks_free(page);
	page = slurp("results/site/team-Cu.html");
	KT_NOT_CONTAINS(page, "Not scored");
	ks_free(page);
	page = slurp("results/site/provenance.html");
	KT_CONTAINS(page, "<h2 id=\"unscored\">Answers not scored</h2>");
	KT_CONTAINS(page, "<td>" NOTE "</td>");
	ks_free(page);
	lb = json_file("results/site/data/leaderboard.json");
	cJSON_ArrayForEach(t, get(lb, "teams"))
		if (!strcmp(gets_(t, "team"), "Tri")) {
			KT_EQ_STR(gets_(t, "unscored_note"), NOTE);
			/* none of its answers could be checked here: not measured, not 0% */
			KT_ASSERT(cJSON_IsNull(get(t, "compile_accuracy")));
		}
	cJSON_Delete(lb);
	csv = slurp("results/site/data/leaderboard.csv");
	KT_CONTAINS(csv, ",unscored_answers,unscored_note\r\n");
	KT_CONTAINS(csv, ",2,\"" NOTE "\"\r\n");
	ks_free(csv);

	/* --json, on a resumed batch (both already scored): the note comes from the result */
	KT_EQ_INT(batch("--compile-only --json m.json"), 0);
	rep = report();
	t = report_team(rep, "Tri");
	KT_EQ_STR(gets_(t, "status"), "already_scored");
	KT_EQ_INT(get(t, "unscored_answers")->valuedouble, 2);
	KT_EQ_STR(gets_(t, "unscored_note"), NOTE);
	KT_ASSERT(cJSON_IsNull(get(report_team(rep, "Cu"), "unscored_note")));
	KT_EQ_INT(get(rep, "unscored_teams")->valuedouble, 1);
	KT_EQ_INT(get(rep, "unscored_answers")->valuedouble, 2);
	cJSON_Delete(rep);
	KT_CONTAINS(g_err, "Tri: already scored: commit ");
	KT_CONTAINS(g_err, "; " NOTE "\n");

	/* -q: no line for a scored team, but this one needs a look */
	KT_EQ_INT(batch("--compile-only -q --rescore m.json"), 0);
	KT_EQ_STR(g_out, "");
	KT_CONTAINS(g_err, "Tri: warning: " NOTE "\n");
	KT_NOT_CONTAINS(g_err, "Cu");
	KT_CONTAINS(g_err, "score batch: warning: 1 of 2 teams have answers this run could not score");
}

static const kt_test tests[] = {
	KT(test_team_of_triton_answers_is_noted_everywhere),
	{ 0 }
};
KT_MAIN("batch_languages", tests)
