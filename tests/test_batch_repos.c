/* batch on real repositories (issue 13): `score batch --compile-only` end to end on git
 * repositories shaped like a real hackathon's: pull requests whose commits are all after the
 * deadline on a base branch holding the organizers' example, a pull request branched from an old
 * base commit and one that merged the base, team names written in commit subjects (a CJK one and
 * a subject that is not UTF-8), submission files at the root, in submit/ and under src/ with an
 * iteration infix, repositories that lack an object, a GEAK-eval result folder committed instead
 * of a submission, -q, and the compile-only wording. Every case's batch.json and leaderboard row
 * are asserted. */
#include "batchtest.h"
#include "util/utf8.h"

#include <ctype.h>

#define SUB "reflexion_oneshot_tritonbench"
#define PATTERN "sub/" SUB "_<N>.json"

/* Commits with an author of its own and a message from a file, so that any bytes can be a
 * subject (brackets, quotes, CJK, bytes that are not UTF-8). */
static void commit_by(const char *repo, const char *date, const char *subject, const char *author)
{
	char *msg = tmp("commit-message.txt");
	put("commit-message.txt", subject);
	/* a message declared Latin-1 is stored as given: git would otherwise repair its bytes */
	sh("cd '%s' && git add -A && GIT_AUTHOR_NAME='%s' GIT_AUTHOR_DATE='%s' GIT_COMMITTER_DATE='%s' "
	   "git -c i18n.commitEncoding=ISO-8859-1 commit -q --allow-empty -F '%s'", repo, author, date,
	   date, msg);
	ks_free(msg);
}

/* A bare repository whose HEAD is main, as a forge's is. */
static void init_hub(const char *dir)
{
	sh("git -c init.defaultBranch=main init -q --bare '%s'", dir);
}

/* The leaderboard.json line of a team. */
static const cJSON *board_row(const cJSON *lb, const char *team)
{
	const cJSON *t;
	cJSON_ArrayForEach(t, get(lb, "teams"))
		if (!strcmp(gets_(t, "team"), team))
			return t;
	KT_FAIL("team %s not in the leaderboard", team);
	return NULL;
}

static cJSON *record(const char *folder)
{
	char rel[512];
	snprintf(rel, sizeof(rel), "results/%s/batch.json", folder);
	return json_file(rel);
}

/* work/: main holds the organizers' example submission (its commit is returned; caller frees),
 * branch "late" a team's commit after the deadline, branch "ontime" one before it. */
static char *late_and_ontime(void)
{
	char *base;
	init_repo("work");
	put_fixture("good.json", "work/sub/" SUB "_1.json");
	commit("work", "2025-08-20T10:00:00Z", "organizer example");
	base = git_out("work", "main");
	sh("cd work && git checkout -q -b late");
	put_fixture("sub.json", "work/sub/" SUB "_5.json");
	commit("work", "2025-08-26T10:00:00Z", "[Team Late] submission");
	sh("cd work && git checkout -q main && git checkout -q -b ontime");
	put_fixture("sub.json", "work/sub/" SUB "_2.json");
	commit("work", "2025-08-22T10:00:00Z", "[Team Ontime] submission");
	return base;
}

/* The base branch holds the organizers' example submission; one pull request's commits are all
 * after the deadline: it is late, listed and not scored, never given the organizers' commit. The
 * same rule holds in manifest mode for a pull-request ref. */
static void test_late_pull_request_is_not_scored_on_the_base(void)
{
	cJSON *rep, *rec, *lb;
	const cJSON *row;
	char *base;
	if (!have_git())
		KT_SKIP("git is not installed");
	base = late_and_ontime();
	init_hub("hub.git");
	sh("cd work && git push -q ../hub.git main late:refs/pull/1/head ontime:refs/pull/2/head");

	/* late is not a failure of the batch: exit 0 */
	KT_EQ_INT(batch("--compile-only --json --pull-requests hub.git --deadline " DEADLINE
			" --submission '" PATTERN "'"), 0);
	rep = report();
	KT_EQ_STR(gets_(report_team(rep, "Team Late"), "status"), "late");
	KT_EQ_STR(gets_(report_team(rep, "Team Ontime"), "status"), "scored");
	KT_EQ_STR(gets_(report_team(rep, "Team Ontime"), "file"), "sub/" SUB "_2.json");
	KT_EQ_INT(get(rep, "late")->valuedouble, 1);
	KT_EQ_INT(get(rep, "failed")->valuedouble, 0);
	cJSON_Delete(rep);
	KT_CONTAINS(g_err, "1 scored, 0 already scored, 1 late, 0 failed");

	rec = record("Team_Late");
	KT_EQ_STR(gets_(rec, "status"), "late");
	KT_EQ_STR(gets_(rec, "reason"), "no_commit_before_deadline");
	KT_CONTAINS(gets_(rec, "detail"), "no commit of its own at or before the deadline");
	KT_ASSERT(cJSON_IsNull(get(rec, "commit")));
	KT_EQ_STR(gets_(rec, "base"), "HEAD");
	KT_EQ_STR(gets_(rec, "base_commit"), base);
	KT_EQ_INT(get(rec, "later_commits_total")->valuedouble, 1);
	KT_EQ_STR(gets_(cJSON_GetArrayItem(get(rec, "later_commits"), 0), "subject"), "[Team Late] submission");
	KT_EQ_STR(gets_(rec, "name_source"), "subject");
	KT_ASSERT(!exists("results/Team_Late/score.json"));
	cJSON_Delete(rec);
	lb = json_file("results/leaderboard.json");
	row = board_row(lb, "Team Late");
	KT_EQ_STR(gets_(row, "status"), "late");
	KT_EQ_STR(gets_(row, "reason"), "no_commit_before_deadline");
	KT_ASSERT(cJSON_IsNull(get(row, "commit")));
	KT_ASSERT(cJSON_IsNull(get(row, "compile_accuracy")));
	KT_EQ_INT(get(row, "rank")->valuedouble, 2);
	KT_EQ_STR(gets_(board_row(lb, "Team Ontime"), "status"), "scored");
	cJSON_Delete(lb);

	/* manifest mode, a pull-request ref: the same rule */
	put("m.json", "{\"schema\": \"kscore.batch/1\", \"deadline\": \"" DEADLINE "\", \"submission\": \""
	    PATTERN "\", \"teams\": [{\"name\": \"late\", \"repo\": \"hub.git\", \"ref\": \"refs/pull/1/head\"}]}");
	KT_EQ_INT(batch("--compile-only --json --out res-m m.json"), 0);
	rep = report();
	KT_EQ_STR(gets_(report_team(rep, "late"), "status"), "late");
	cJSON_Delete(rep);
	rec = json_file("res-m/late/batch.json");
	KT_EQ_STR(gets_(rec, "status"), "late");
	KT_EQ_STR(gets_(rec, "base_commit"), base);
	cJSON_Delete(rec);
	ks_free(base);
}

/* A hub made with `git init --bare` into which main was pushed: its HEAD names refs/heads/master,
 * which does not exist. The base falls back to main, so the late pull request is late and never
 * scored on the organizers' example. A hub with neither main nor master fails every pull request
 * with bad_base, saying how to name the base; --base or pull_requests.base names it. */
static void test_base_of_a_hub_whose_head_names_no_branch(void)
{
	cJSON *rep, *rec, *lb;
	char *base;
	if (!have_git())
		KT_SKIP("git is not installed");
	base = late_and_ontime();
	sh("git -c init.defaultBranch=master init -q --bare hub.git && cd work && "
	   "git push -q ../hub.git main late:refs/pull/1/head ontime:refs/pull/2/head");

	KT_EQ_INT(batch("--compile-only --json --pull-requests hub.git --deadline " DEADLINE
			" --submission '" PATTERN "'"), 0);
	rep = report();
	KT_EQ_STR(gets_(report_team(rep, "Team Late"), "status"), "late");
	KT_EQ_STR(gets_(report_team(rep, "Team Ontime"), "status"), "scored");
	cJSON_Delete(rep);
	rec = record("Team_Late");
	KT_ASSERT(cJSON_IsNull(get(rec, "commit")));  /* not the organizers' commit */
	KT_EQ_STR(gets_(rec, "base"), "refs/heads/main");
	KT_EQ_STR(gets_(rec, "base_commit"), base);
	KT_ASSERT(!exists("results/Team_Late/score.json"));
	cJSON_Delete(rec);
	rec = record("Team_Ontime");
	KT_EQ_STR(gets_(rec, "file"), "sub/" SUB "_2.json");
	KT_EQ_STR(gets_(rec, "base_commit"), base);
	cJSON_Delete(rec);

	/* neither main nor master: no pull request is scored, each says how to name the base */
	sh("git -c init.defaultBranch=master init -q --bare hub2.git && cd work && "
	   "git push -q ../hub2.git main:trunk late:refs/pull/1/head ontime:refs/pull/2/head");
	KT_EQ_INT(batch("--compile-only --json --out res2 --pull-requests hub2.git --deadline " DEADLINE
			" --submission '" PATTERN "'"), 1);
	rep = report();
	KT_EQ_STR(gets_(report_team(rep, "Team Late"), "reason"), "bad_base");
	KT_EQ_STR(gets_(report_team(rep, "Team Ontime"), "reason"), "bad_base");
	KT_EQ_INT(get(rep, "failed")->valuedouble, 2);
	cJSON_Delete(rep);
	rec = json_file("res2/Team_Ontime/batch.json");
	KT_EQ_STR(gets_(rec, "status"), "failed");
	KT_ASSERT(cJSON_IsNull(get(rec, "commit")));
	KT_CONTAINS(gets_(rec, "detail"), "refs/heads/main");
	KT_CONTAINS(gets_(rec, "detail"), "--base");
	KT_CONTAINS(gets_(rec, "detail"), "\"base\"");
	cJSON_Delete(rec);
	KT_ASSERT(!exists("res2/Team_Ontime/score.json"));
	lb = json_file("res2/leaderboard.json");
	KT_EQ_STR(gets_(board_row(lb, "Team Late"), "reason"), "bad_base");
	KT_EQ_STR(gets_(board_row(lb, "Team Ontime"), "status"), "failed");
	cJSON_Delete(lb);

	/* named on the command line, then in the manifest */
	KT_EQ_INT(batch("--compile-only --json --out res2 --base trunk --pull-requests hub2.git --deadline "
			DEADLINE " --submission '" PATTERN "'"), 0);
	rep = report();
	KT_EQ_STR(gets_(report_team(rep, "Team Late"), "status"), "late");
	KT_EQ_STR(gets_(report_team(rep, "Team Ontime"), "status"), "scored");
	cJSON_Delete(rep);
	rec = json_file("res2/Team_Ontime/batch.json");
	KT_EQ_STR(gets_(rec, "base"), "trunk");
	KT_EQ_STR(gets_(rec, "file"), "sub/" SUB "_2.json");
	cJSON_Delete(rec);
	put("pr2.json", "{\"schema\": \"kscore.batch/1\", \"deadline\": \"" DEADLINE "\", \"submission\": \""
	    PATTERN "\", \"pull_requests\": {\"repo\": \"hub2.git\", \"base\": \"trunk\"}}");
	KT_EQ_INT(batch("--compile-only --json --out res3 pr2.json"), 0);
	rep = report();
	KT_EQ_STR(gets_(report_team(rep, "Team Late"), "status"), "late");
	cJSON_Delete(rep);
	/* --base goes with pull-request mode only */
	put("m.json", "{\"schema\": \"kscore.batch/1\", \"deadline\": \"" DEADLINE "\", \"submission\": \""
	    PATTERN "\", \"teams\": [{\"name\": \"t\", \"repo\": \"hub2.git\", \"ref\": \"refs/pull/2/head\"}]}");
	KT_EQ_INT(batch("--compile-only --out res4 --base trunk m.json"), 64);
	KT_CONTAINS(g_err, "--base");
	/* a team of teams with a pull-request ref: the same rule, naming the team's own "base" */
	KT_EQ_INT(batch("--compile-only --json --out res4 m.json"), 1);
	rep = report();
	KT_EQ_STR(gets_(report_team(rep, "t"), "reason"), "bad_base");
	KT_CONTAINS(gets_(report_team(rep, "t"), "detail"), "\"base\"");
	cJSON_Delete(rep);
	ks_free(base);
}

/* Two pull requests branched from an old base commit that holds the organizers' example. "Old"
 * commits only notes before the deadline: its tree still holds the example, which is not its
 * own. "Merge" adds iteration 2, then merges the base, which meanwhile added iteration 9: only
 * the team's own file counts. */
static void test_pull_requests_from_an_old_base_commit(void)
{
	cJSON *rep, *rec, *lb;
	char *c1, *c3, *merge;
	if (!have_git())
		KT_SKIP("git is not installed");
	init_repo("work");
	put_fixture("good.json", "work/sub/" SUB "_1.json");
	commit("work", "2025-08-01T10:00:00Z", "organizer example");
	c1 = git_out("work", "HEAD");
	put("work/docs.md", "how to submit");
	commit("work", "2025-08-10T10:00:00Z", "organizer docs");
	sh("cd work && git checkout -q -b old %s", c1);
	put("work/notes.txt", "notes");
	commit("work", "2025-08-22T10:00:00Z", "[Team Old] notes");
	put_fixture("sub.json", "work/sub/" SUB "_3.json");
	commit("work", "2025-08-26T10:00:00Z", "[Team Old] too late");
	sh("cd work && git checkout -q -b merging %s", c1);
	put_fixture("sub.json", "work/sub/" SUB "_2.json");
	commit("work", "2025-08-21T10:00:00Z", "[Team Merge] iteration 2");
	sh("cd work && git checkout -q main");
	put_fixture("good.json", "work/sub/" SUB "_9.json");
	commit("work", "2025-08-23T10:00:00Z", "organizer: more examples");
	c3 = git_out("work", "HEAD");
	sh("cd work && git checkout -q merging && GIT_AUTHOR_DATE=2025-08-23T12:00:00Z "
	   "GIT_COMMITTER_DATE=2025-08-23T12:00:00Z git merge -q -m '[Team Merge] merge the base' main");
	merge = git_out("work", "HEAD");
	init_hub("hub.git");
	sh("cd work && git push -q ../hub.git main old:refs/pull/3/head merging:refs/pull/4/head");

	KT_EQ_INT(batch("--compile-only --json --pull-requests hub.git --deadline " DEADLINE
			" --submission '" PATTERN "'"), 1);
	rep = report();
	KT_EQ_STR(gets_(report_team(rep, "Team Old"), "status"), "failed");
	KT_EQ_STR(gets_(report_team(rep, "Team Old"), "reason"), "base_file_only");
	KT_EQ_STR(gets_(report_team(rep, "Team Merge"), "status"), "scored");
	cJSON_Delete(rep);
	rec = record("Team_Old");
	KT_EQ_STR(gets_(rec, "commit_subject"), "[Team Old] notes");  /* its own commit... */
	KT_EQ_STR(gets_(rec, "fork_point"), c1);
	KT_EQ_INT(get(rec, "base_files_left_out")->valuedouble, 1);    /* ...but not its own file */
	KT_CONTAINS(gets_(rec, "detail"), "the base's own");
	KT_EQ_INT(get(rec, "later_commits_total")->valuedouble, 1);    /* the organizers' are not listed */
	cJSON_Delete(rec);
	rec = record("Team_Merge");
	KT_EQ_STR(gets_(rec, "commit"), merge);
	KT_EQ_STR(gets_(rec, "fork_point"), c3);
	KT_EQ_STR(gets_(rec, "file"), "sub/" SUB "_2.json");          /* not the base's iteration 9 */
	KT_EQ_INT(get(rec, "base_files_left_out")->valuedouble, 2);
	cJSON_Delete(rec);
	lb = json_file("results/leaderboard.json");
	KT_EQ_STR(gets_(board_row(lb, "Team Merge"), "status"), "scored");
	KT_EQ_STR(gets_(board_row(lb, "Team Merge"), "commit"), merge);
	KT_EQ_STR(gets_(board_row(lb, "Team Old"), "status"), "failed");
	KT_EQ_STR(gets_(board_row(lb, "Team Old"), "reason"), "base_file_only");
	cJSON_Delete(lb);
	ks_free(c1);
	ks_free(c3);
	ks_free(merge);
}

/* The table's team column: every row's status starts at the same column, counted in characters
 * of their terminal width. */
static void assert_aligned(const char *table)
{
	static const char *const statuses[] = { "scored", "failed", "late", "not_scored", "incomplete" };
	const char *line = table;
	size_t rows = 0;
	while (*line) {
		const char *end = strchr(line, '\n');
		char *l = ks_strndup(line, end ? (size_t)(end - line) : strlen(line));
		size_t w, n = ks_utf8_prefix(l, 34, 0, &w), i;
		int ok = 0;
		if (isdigit((unsigned char)l[0])) {
			for (i = 0; i < sizeof(statuses) / sizeof(statuses[0]); i++)
				ok |= l[n] == ' ' && !strncmp(l + n + 1, statuses[i], strlen(statuses[i]));
			KT_ASSERT_MSG(w == 34 && ok, "misaligned row: %s", l);
			rows++;
		}
		ks_free(l);
		line = end ? end + 1 : line + strlen(line);
	}
	KT_ASSERT(rows > 0);
}

/* Subjects of every kind: the manifest's map first, then a team name written in the subject,
 * else pr-N with the subject kept as a note; a CJK name and a subject that is not UTF-8. */
static void test_team_names_from_subjects(void)
{
	static const struct {
		const char *subject, *author, *name, *source;
	} prs[] = {
		{ "add perf result", "Ada", "pr-1", "number" },
		{ "Update prompt_for_reflection.py", "Bo", "pr-2", "number" },
		{ "feat(kernels): add optimized Triton kernels and tuned configs for all ten [Team Aca]",
		  "Cy", "Team Aca", "subject" },
		{ "yuyu", "Di", "yuyu", "subject" },
		{ "team: Delta", "Ed", "Delta", "subject" },
		{ "Team Echo", "Fa", "Team Echo", "subject" },
		{ "[Team \xE7\x81\xAB\xE7\xAE\xAD\xE9\x98\x9F] \xE6\x9C\x80\xE7\xBB\x88\xE6\x8F\x90\xE4\xBA\xA4",
		  "Gu", "Team \xE7\x81\xAB\xE7\xAE\xAD\xE9\x98\x9F", "subject" },
		{ "caf\xE9", "Hu", "caf\xEF\xBF\xBD", "subject" },
		{ "whatever you say", "Io", "Mapped", "manifest" },
	};
	size_t i;
	cJSON *rep, *lb;
	if (!have_git())
		KT_SKIP("git is not installed");
	init_repo("work");
	put("work/README.md", "hackathon");
	commit("work", "2025-08-19T10:00:00Z", "base");
	init_hub("hub.git");
	sh("git -C work push -q ../hub.git main");
	for (i = 0; i < sizeof(prs) / sizeof(prs[0]); i++) {
		char rel[128];
		sh("cd work && git checkout -q main && git checkout -q -b b%zu", i + 1);
		snprintf(rel, sizeof(rel), "work/sub/" SUB "_%zu.json", i + 1);
		put_fixture("good.json", rel);
		commit_by("work", "2025-08-22T10:00:00Z", prs[i].subject, prs[i].author);
		sh("cd work && git push -q ../hub.git b%zu:refs/pull/%zu/head", i + 1, i + 1);
	}
	put("pr.json", "{\"schema\": \"kscore.batch/1\", \"deadline\": \"2025-08-24T23:59:59+08:00\", "
	    "\"submission\": \"" PATTERN "\", \"pull_requests\": {\"repo\": \"hub.git\", "
	    "\"teams_by_number\": {\"9\": \"Mapped\"}}}");
	KT_EQ_INT(batch("--compile-only pr.json"), 0);
	KT_ASSERT_MSG(ks_utf8_valid(g_out, strlen(g_out), NULL), "stdout is not UTF-8");
	KT_ASSERT_MSG(ks_utf8_valid(g_err, strlen(g_err), NULL), "stderr is not UTF-8");
	KT_CONTAINS(g_out, "Team \xE7\x81\xAB\xE7\xAE\xAD\xE9\x98\x9F ");
	assert_aligned(g_out);
	lb = json_file("results/leaderboard.json");
	for (i = 0; i < sizeof(prs) / sizeof(prs[0]); i++) {
		const cJSON *row = board_row(lb, prs[i].name);
		char *folder = ks_strdup(gets_(row, "folder")), rel[256];
		cJSON *rec;
		KT_EQ_STR(gets_(row, "status"), "scored");
		KT_EQ_STR(gets_(row, "name_source"), prs[i].source);
		snprintf(rel, sizeof(rel), "results/%s/batch.json", folder);
		rec = json_file(rel);
		KT_EQ_STR(gets_(rec, "team"), prs[i].name);
		KT_EQ_STR(gets_(rec, "name_source"), prs[i].source);
		KT_EQ_INT(get(rec, "pull_request")->valuedouble, i + 1);
		if (!strcmp(prs[i].source, "number")) {
			KT_EQ_STR(gets_(row, "note"), prs[i].subject);  /* the subject, kept as a note */
			KT_EQ_STR(gets_(rec, "head_subject"), prs[i].subject);
		}
		cJSON_Delete(rec);
		ks_free(folder);
	}
	cJSON_Delete(lb);
	{
		cJSON *score = json_file("results/Team/score.json");  /* the CJK team's folder */
		KT_EQ_STR(gets_(score, "team"), "Team \xE7\x81\xAB\xE7\xAE\xAD\xE9\x98\x9F");
		cJSON_Delete(score);
	}

	/* --name-from chooses another rule; the manifest's map still comes first */
	KT_EQ_INT(batch("--compile-only --json --name-from author --out res-author pr.json"), 0);
	rep = report();
	KT_EQ_STR(gets_(report_team(rep, "Ada"), "name_source"), "author");
	KT_EQ_STR(gets_(report_team(rep, "Mapped"), "name_source"), "manifest");
	cJSON_Delete(rep);
	KT_EQ_INT(batch("--compile-only --json --name-from subject --out res-subject pr.json"), 0);
	rep = report();
	KT_EQ_STR(gets_(report_team(rep, "add perf result"), "name_source"), "subject");
	cJSON_Delete(rep);
	KT_EQ_INT(batch("--compile-only --name-from nobody pr.json"), 64);
}

/* Where files really are: at the root, in submit/, under src/ with an iteration infix, and one
 * team's own path; several patterns in order, "**" and "{a,b}". */
static void test_submission_layouts(void)
{
	static const struct {
		const char *team, *file;
	} expect[] = {
		{ "root", SUB "_4.json" },
		{ "submit", "submit/" SUB "_3.json" },
		{ "infix", "src/iter1_4/" SUB "_4.json" },
		{ "own", "final/sub_2.json" },
	};
	cJSON *rep, *lb;
	size_t i;
	if (!have_git())
		KT_SKIP("git is not installed");
	init_repo("root");
	put_fixture("good.json", "root/" SUB "_4.json");
	put_fixture("sub.json", "root/" SUB "_3.json");
	commit("root", "2025-08-22T10:00:00Z", "files at the root");
	init_repo("submit");
	put_fixture("sub.json", "submit/submit/" SUB "_2.json");
	put_fixture("good.json", "submit/submit/" SUB "_3.json");
	put_fixture("sub.json", "submit/examples/" SUB "_7.json");  /* not looked at: submit/ matched */
	commit("submit", "2025-08-22T10:00:00Z", "files in submit");
	init_repo("infix");
	put_fixture("sub.json", "infix/src/iter1_3/" SUB "_3.json");
	put_fixture("good.json", "infix/src/iter1_4/" SUB "_4.json");
	commit("infix", "2025-08-22T10:00:00Z", "iterations under src");
	init_repo("own");
	put_fixture("sub.json", "own/out/sub_1.json");
	put_fixture("good.json", "own/final/sub_2.json");
	commit("own", "2025-08-22T10:00:00Z", "own layout");
	put("m.json", "{\"schema\": \"kscore.batch/1\", \"deadline\": \"" DEADLINE "\",\n"
	    " \"submission\": [\"submit/" SUB "_<N>.json\", \"**/" SUB "_<N>.json\"],\n"
	    " \"teams\": [{\"name\": \"root\", \"repo\": \"root\"}, {\"name\": \"submit\", \"repo\": \"submit\"},\n"
	    "  {\"name\": \"infix\", \"repo\": \"infix\"},\n"
	    "  {\"name\": \"own\", \"repo\": \"own\", \"submission\": \"{out,final}/sub_<N>.json\"}]}");
	KT_EQ_INT(batch("--compile-only --json m.json"), 0);
	rep = report();
	lb = json_file("results/leaderboard.json");
	for (i = 0; i < sizeof(expect) / sizeof(expect[0]); i++) {
		cJSON *rec = record(expect[i].team);
		KT_EQ_STR(gets_(report_team(rep, expect[i].team), "status"), "scored");
		KT_EQ_STR(gets_(rec, "file"), expect[i].file);
		KT_EQ_STR(gets_(board_row(lb, expect[i].team), "status"), "scored");
		KT_NEAR(get(board_row(lb, expect[i].team), "compile_accuracy")->valuedouble, 1.0, 1e-9);
		if (strcmp(expect[i].team, "own")) {
			KT_ASSERT(cJSON_IsArray(get(rec, "submission")));
			KT_EQ_INT(cJSON_GetArraySize(get(rec, "submission")), 2);
		} else {
			KT_EQ_STR(gets_(rec, "submission"), "{out,final}/sub_<N>.json");
		}
		cJSON_Delete(rec);
	}
	cJSON_Delete(lb);
	cJSON_Delete(rep);
	/* the same patterns given on the command line, repeated */
	KT_EQ_INT(batch("--compile-only --json --rescore --team infix --submission 'submit/" SUB "_<N>.json' "
			"--submission '**/" SUB "_<N>.json' m.json"), 0);
	rep = report();
	KT_EQ_STR(gets_(report_team(rep, "infix"), "file"), "src/iter1_4/" SUB "_4.json");
	cJSON_Delete(rep);
	KT_EQ_INT(batch("--compile-only --submission 'a/{b' m.json"), 64);
	KT_CONTAINS(g_err, "a/{b");
}

/* A repository that lacks an unrelated blob is fetched object by object and scored; one that
 * lacks the submission's own blob fails that team alone, naming the object and the cause; a
 * pull-request repository that lacks a blob still gives every team. */
static void test_repositories_missing_an_object(void)
{
	cJSON *rep, *rec, *lb;
	char *blob, *own;
	if (!have_git())
		KT_SKIP("git is not installed");
	init_repo("holey");
	put_fixture("good.json", "holey/s.json");
	put("holey/unrelated.txt", "nobody reads this");
	sh("cd holey && git -c core.compression=0 add -A && GIT_COMMITTER_DATE=2025-08-22T10:00:00Z "
	   "git -c core.compression=0 commit -q -m holey");
	blob = git_out("holey", "HEAD:unrelated.txt");
	sh("rm holey/.git/objects/%.2s/%s", blob, blob + 2);
	init_repo("broken");
	put_fixture("good.json", "broken/s.json");
	sh("cd broken && git -c core.compression=0 add -A && GIT_COMMITTER_DATE=2025-08-22T10:00:00Z "
	   "git -c core.compression=0 commit -q -m broken");
	own = git_out("broken", "HEAD:s.json");
	sh("rm broken/.git/objects/%.2s/%s", own, own + 2);
	put("m.json", "{\"schema\": \"kscore.batch/1\", \"deadline\": \"" DEADLINE "\", \"submission\": "
	    "\"s.json\", \"teams\": [{\"name\": \"holey\", \"repo\": \"holey\"}, "
	    "{\"name\": \"broken\", \"repo\": \"broken\"}]}");
	KT_EQ_INT(batch("--compile-only --json m.json"), 1);
	rep = report();
	KT_EQ_STR(gets_(report_team(rep, "holey"), "status"), "scored");
	KT_EQ_STR(gets_(report_team(rep, "broken"), "reason"), "missing_object");
	cJSON_Delete(rep);
	rec = record("holey");
	KT_EQ_STR(gets_(rec, "status"), "scored");
	KT_CONTAINS(gets_(rec, "fetch_warning"), blob);
	KT_CONTAINS(gets_(rec, "fetch_warning"), "unrelated.txt");
	cJSON_Delete(rec);
	rec = record("broken");
	KT_EQ_STR(gets_(rec, "status"), "failed");
	KT_EQ_STR(gets_(rec, "reason"), "missing_object");
	KT_EQ_STR(gets_(rec, "missing_object"), own);
	KT_CONTAINS(gets_(rec, "detail"), own);
	KT_CONTAINS(gets_(rec, "detail"), "s.json");
	KT_CONTAINS(gets_(rec, "detail"), "lacked that object when it was fetched");
	cJSON_Delete(rec);
	lb = json_file("results/leaderboard.json");
	KT_EQ_STR(gets_(board_row(lb, "holey"), "status"), "scored");
	KT_EQ_STR(gets_(board_row(lb, "broken"), "reason"), "missing_object");
	cJSON_Delete(lb);
	/* a frozen batch from the mirror says the same */
	KT_EQ_INT(batch("--compile-only --json --no-fetch m.json"), 1);
	rep = report();
	KT_EQ_STR(gets_(report_team(rep, "holey"), "status"), "already_scored");
	KT_CONTAINS(gets_(report_team(rep, "holey"), "fetch_warning"), blob);
	KT_CONTAINS(gets_(report_team(rep, "broken"), "detail"), "lacked that object");
	cJSON_Delete(rep);
	/* fetched again (every ref up to date): what the repositories lack is still known, the cause
	 * still right, and the warning still in the records */
	KT_EQ_INT(batch("--compile-only --json --rescore m.json"), 1);
	rep = report();
	KT_EQ_STR(gets_(report_team(rep, "holey"), "status"), "scored");
	KT_CONTAINS(gets_(report_team(rep, "holey"), "fetch_warning"), blob);
	KT_CONTAINS(gets_(report_team(rep, "broken"), "detail"), "lacked that object when it was fetched");
	cJSON_Delete(rep);
	rec = record("holey");
	KT_CONTAINS(gets_(rec, "fetch_warning"), "unrelated.txt");
	cJSON_Delete(rec);
	rec = record("broken");
	KT_EQ_STR(gets_(rec, "missing_object"), own);
	KT_NOT_CONTAINS(gets_(rec, "detail"), "incomplete");
	KT_CONTAINS(gets_(rec, "fetch_warning"), own);
	cJSON_Delete(rec);

	/* pull-request mode: the hub lacks a blob of its main branch */
	init_repo("work");
	put("work/big-unrelated.bin", "organizers' data");
	commit("work", "2025-08-19T10:00:00Z", "base");
	init_hub("hub.git");
	sh("git -C work push -q ../hub.git main && cd work && git checkout -q -b a");
	put_fixture("good.json", "work/sub/" SUB "_1.json");
	commit("work", "2025-08-22T10:00:00Z", "[Team A] go");
	sh("cd work && git push -q ../hub.git a:refs/pull/1/head");
	ks_free(blob);
	blob = git_out("work", "main:big-unrelated.bin");
	sh("rm hub.git/objects/%.2s/%s", blob, blob + 2);
	KT_EQ_INT(batch("--compile-only --json --out res-pr --pull-requests hub.git --deadline " DEADLINE
			" --submission '" PATTERN "'"), 0);
	rep = report();
	KT_EQ_STR(gets_(report_team(rep, "Team A"), "status"), "scored");
	KT_CONTAINS(gets_(report_team(rep, "Team A"), "fetch_warning"), blob);
	cJSON_Delete(rep);
	lb = json_file("res-pr/leaderboard.json");
	KT_EQ_STR(gets_(board_row(lb, "Team A"), "status"), "scored");
	cJSON_Delete(lb);
	ks_free(blob);
	ks_free(own);
}

/* GEAK-eval's result folder committed instead of a submission: said so, and what is needed. */
static void test_geak_result_folder(void)
{
	cJSON *rep, *rec, *lb;
	if (!have_git())
		KT_SKIP("git is not installed");
	init_repo("geak");
	put("geak/src/out.json_results_0.json",
	    "[{\"pass_num\": 0, \"file_name\": \"sin_kernel.py\", \"call_status\": 1, \"exec_status\": 0,"
	    " \"stdout\": \"None\", \"stderr\": \"None\", \"difficulty\": -1}]");
	put("geak/src/out.json_perf_0.json", "{\"speed_up\": [1.1], \"efficiency\": [90.0]}");
	put("geak/src/out.jsonpassk.txt", "Call Accuracy: 100.0\n");
	commit("geak", "2025-08-22T10:00:00Z", "add perf result");
	put("m.json", "{\"schema\": \"kscore.batch/1\", \"deadline\": \"" DEADLINE "\", \"submission\": "
	    "\"**/" SUB "_<N>.json\", \"teams\": [{\"name\": \"geak\", \"repo\": \"geak\"}, "
	    "{\"name\": \"pointed\", \"repo\": \"geak\", \"submission\": \"src/out.json_results_<N>.json\"}, "
	    "{\"name\": \"star\", \"repo\": \"geak\", \"submission\": \"src/*_<N>.json\"}]}");
	KT_EQ_INT(batch("--compile-only --json m.json"), 1);
	rep = report();
	KT_EQ_STR(gets_(report_team(rep, "geak"), "reason"), "geak_results_not_submission");
	KT_EQ_STR(gets_(report_team(rep, "pointed"), "reason"), "geak_results_not_submission");
	KT_EQ_STR(gets_(report_team(rep, "star"), "reason"), "geak_results_not_submission");
	cJSON_Delete(rep);
	KT_NOT_CONTAINS(g_err, "missing field");
	KT_NOT_CONTAINS(g_err, "expected a JSON array");
	rec = record("geak");
	KT_EQ_STR(gets_(rec, "status"), "failed");
	KT_CONTAINS(gets_(rec, "detail"), "src/out.json_perf_0.json");
	KT_CONTAINS(gets_(rec, "detail"), "GEAK-eval's result files");
	KT_CONTAINS(gets_(rec, "detail"), "{\"file\", \"predict\"}");
	cJSON_Delete(rec);
	rec = record("pointed");
	KT_EQ_STR(gets_(rec, "file"), "src/out.json_results_0.json");
	KT_ASSERT(!exists("results/pointed/score.json"));
	cJSON_Delete(rec);
	lb = json_file("results/leaderboard.json");
	KT_EQ_STR(gets_(board_row(lb, "geak"), "reason"), "geak_results_not_submission");
	KT_EQ_STR(gets_(board_row(lb, "pointed"), "status"), "failed");
	cJSON_Delete(lb);
}

/* With no "submission" anywhere, the default patterns find the layouts of the real hackathon
 * repository: the guide's submit/<name>_4.json and src/<name>_iter1_4.json (the run in the
 * name); a GEAK-eval result that the name matches is still refused by its content. */
static void test_default_submission_finds_the_real_layouts(void)
{
	cJSON *rep, *rec;
	if (!have_git())
		KT_SKIP("git is not installed");
	init_repo("guide");
	put_fixture("sub.json", "guide/submit/" SUB "_3.json");
	put_fixture("good.json", "guide/submit/" SUB "_4.json");
	commit("guide", "2025-08-22T10:00:00Z", "submission");
	init_repo("named");
	put_fixture("sub.json", "named/src/" SUB "_iter1_3.json");
	put_fixture("good.json", "named/src/" SUB "_iter1_4.json");
	commit("named", "2025-08-22T10:00:00Z", "submission");
	init_repo("result");
	put("result/submit/" SUB "_1.json", "[{\"pass_num\": 0, \"file_name\": \"sin_kernel.py\", "
	    "\"call_status\": 1, \"exec_status\": 0}]");
	commit("result", "2025-08-22T10:00:00Z", "evaluation");
	put("m.json", "{\"schema\": \"kscore.batch/1\", \"deadline\": \"" DEADLINE "\", \"teams\": ["
	    "{\"name\": \"guide\", \"repo\": \"guide\"}, {\"name\": \"named\", \"repo\": \"named\"}, "
	    "{\"name\": \"result\", \"repo\": \"result\"}]}");
	KT_EQ_INT(batch("--compile-only --json m.json"), 1);
	rep = report();
	KT_EQ_STR(gets_(report_team(rep, "guide"), "status"), "scored");
	KT_EQ_STR(gets_(report_team(rep, "named"), "status"), "scored");
	KT_EQ_STR(gets_(report_team(rep, "result"), "reason"), "geak_results_not_submission");
	cJSON_Delete(rep);
	rec = record("guide");
	KT_EQ_STR(gets_(rec, "file"), "submit/" SUB "_4.json");
	cJSON_Delete(rec);
	rec = record("named");
	KT_EQ_STR(gets_(rec, "file"), "src/" SUB "_iter1_4.json");
	KT_ASSERT(cJSON_IsArray(get(rec, "submission")));
	cJSON_Delete(rec);
}

/* A pattern that misses the team's submission: the detail names the submission-shaped files
 * outside it and the pattern that finds them, beside GEAK's result files or alone. */
static void test_files_outside_the_pattern_are_named(void)
{
	cJSON *rec;
	if (!have_git())
		KT_SKIP("git is not installed");
	init_repo("beside");
	put_fixture("good.json", "beside/submit/" SUB "_4.json");
	put("beside/submit/run/gen_perf/sin_kernel_perf_data.json", "{\"speed_up\": [1.1], "
	    "\"efficiency\": [90.0]}");
	commit("beside", "2025-08-22T10:00:00Z", "both");
	init_repo("alone");
	put_fixture("good.json", "alone/submit/" SUB "_4.json");
	commit("alone", "2025-08-22T10:00:00Z", "submit only");
	put("m.json", "{\"schema\": \"kscore.batch/1\", \"deadline\": \"" DEADLINE "\", \"submission\": "
	    "\"" SUB "_<N>.json\", \"teams\": [{\"name\": \"beside\", \"repo\": \"beside\"}, "
	    "{\"name\": \"alone\", \"repo\": \"alone\"}]}");
	KT_EQ_INT(batch("--compile-only --json m.json"), 1);
	rec = record("beside");
	KT_EQ_STR(gets_(rec, "reason"), "geak_results_not_submission");
	KT_CONTAINS(gets_(rec, "detail"), "sin_kernel_perf_data.json");
	KT_CONTAINS(gets_(rec, "detail"), "outside the pattern the commit holds submit/" SUB "_4.json");
	KT_CONTAINS(gets_(rec, "detail"), "\"**/" SUB "_<N>.json\" finds");
	cJSON_Delete(rec);
	rec = record("alone");
	KT_EQ_STR(gets_(rec, "reason"), "missing_file");
	KT_CONTAINS(gets_(rec, "detail"), "submit/" SUB "_4.json");
	KT_CONTAINS(gets_(rec, "detail"), "\"**/" SUB "_<N>.json\" finds");
	cJSON_Delete(rec);
}

static size_t count_of(const char *hay, const char *needle)
{
	size_t n = 0;
	const char *p = hay;
	while ((p = strstr(p, needle)) != NULL) {
		n++;
		p += strlen(needle);
	}
	return n;
}

/* A commit that leaves the submission byte-identical (the same submission_sha256) reuses the
 * result scored from the earlier commit: not scored again, the record moved to the new commit
 * with the scored one kept as result_commit. A commit that changes it is scored. */
static void test_an_unchanged_submission_is_not_scored_again(void)
{
	cJSON *rep, *rec;
	char *first, *second, *score1, *score2;
	if (!have_git())
		KT_SKIP("git is not installed");
	init_repo("same");
	put_fixture("good.json", "same/submit/" SUB "_4.json");
	commit("same", "2025-08-21T10:00:00Z", "submission");
	first = git_out("same", "HEAD");
	put("m.json", "{\"schema\": \"kscore.batch/1\", \"deadline\": \"" DEADLINE "\", \"teams\": ["
	    "{\"name\": \"same\", \"repo\": \"same\"}]}");
	KT_EQ_INT(batch("--compile-only --json m.json"), 0);
	score1 = slurp("results/same/score.json");
	put("same/README.md", "notes, not the submission");
	commit("same", "2025-08-22T10:00:00Z", "readme");
	second = git_out("same", "HEAD");
	KT_EQ_INT(batch("--compile-only --json m.json"), 0);
	rep = report();
	KT_EQ_STR(gets_(report_team(rep, "same"), "status"), "already_scored");
	KT_EQ_STR(gets_(report_team(rep, "same"), "commit"), second);
	cJSON_Delete(rep);
	score2 = slurp("results/same/score.json");
	KT_EQ_STR(score2, score1);  /* the result itself was not rewritten */
	rec = record("same");
	KT_EQ_STR(gets_(rec, "commit"), second);
	KT_EQ_STR(gets_(rec, "result_commit"), first);
	KT_EQ_STR(gets_(rec, "commit_subject"), "readme");
	cJSON_Delete(rec);
	/* the submission changes: scored */
	put_fixture("sub.json", "same/submit/" SUB "_4.json");
	commit("same", "2025-08-23T10:00:00Z", "new answers");
	KT_EQ_INT(batch("--compile-only --json m.json"), 0);
	rep = report();
	KT_EQ_STR(gets_(report_team(rep, "same"), "status"), "scored");
	cJSON_Delete(rep);
	rec = record("same");
	KT_ASSERT(!cJSON_HasObjectItem(rec, "result_commit"));
	cJSON_Delete(rec);
	ks_free(score1);
	ks_free(score2);
	ks_free(first);
	ks_free(second);
}

/* What a repository lacks is a long sentence: printed once a batch, not on each of its teams'
 * lines; every team's record keeps it. */
static void test_a_repositorys_warning_is_printed_once(void)
{
	char *blob;
	cJSON *rec;
	if (!have_git())
		KT_SKIP("git is not installed");
	init_repo("holey");
	put_fixture("good.json", "holey/a/s.json");
	put_fixture("good.json", "holey/b/s.json");
	put("holey/unrelated.txt", "nobody reads this");
	sh("cd holey && git -c core.compression=0 add -A && GIT_COMMITTER_DATE=2025-08-22T10:00:00Z "
	   "git -c core.compression=0 commit -q -m holey");
	blob = git_out("holey", "HEAD:unrelated.txt");
	sh("rm holey/.git/objects/%.2s/%s", blob, blob + 2);
	put("m.json", "{\"schema\": \"kscore.batch/1\", \"deadline\": \"" DEADLINE "\", \"teams\": ["
	    "{\"name\": \"a\", \"repo\": \"holey\", \"submission\": \"a/s.json\"}, "
	    "{\"name\": \"b\", \"repo\": \"holey\", \"submission\": \"b/s.json\"}, "
	    "{\"name\": \"c\", \"repo\": \"holey\", \"submission\": \"a/s.json\"}]}");
	KT_EQ_INT(batch("--compile-only m.json"), 0);
	KT_EQ_INT((int)count_of(g_err, blob), 1);
	KT_EQ_INT((int)count_of(g_err, "scored: commit"), 3);
	rec = record("c");
	KT_CONTAINS(gets_(rec, "fetch_warning"), blob);
	cJSON_Delete(rec);
	ks_free(blob);
}

/* A team is named from the commit that is scored: a commit pushed after the deadline whose
 * subject names another team ("[Team Bidi] late") neither renames the team nor takes the other
 * team's name and folder. */
static void test_a_late_commit_does_not_rename_a_team(void)
{
	cJSON *rep, *rec;
	if (!have_git())
		KT_SKIP("git is not installed");
	init_repo("work");
	put("work/README.md", "hackathon");
	commit("work", "2025-08-19T10:00:00Z", "base");
	init_hub("hub.git");
	sh("git -C work push -q ../hub.git main && cd work && git checkout -q -b a");
	put_fixture("good.json", "work/sub/" SUB "_1.json");
	commit("work", "2025-08-22T10:00:00Z", "[Team Aca] final");
	put("work/notes.txt", "after the deadline");
	commit("work", "2025-08-26T10:00:00Z", "[Team Bidi] late");
	sh("cd work && git push -q ../hub.git a:refs/pull/1/head && git checkout -q main && "
	   "git checkout -q -b b");
	put_fixture("good.json", "work/sub/" SUB "_2.json");
	commit("work", "2025-08-22T11:00:00Z", "[Team Bidi] go");
	sh("cd work && git push -q ../hub.git b:refs/pull/2/head");
	KT_EQ_INT(batch("--compile-only --json --pull-requests hub.git --deadline " DEADLINE
			" --submission '" PATTERN "'"), 0);
	KT_NOT_CONTAINS(g_err, "both name team");
	rep = report();
	KT_EQ_STR(gets_(report_team(rep, "Team Aca"), "status"), "scored");
	KT_EQ_STR(gets_(report_team(rep, "Team Bidi"), "status"), "scored");
	KT_EQ_INT(cJSON_GetArraySize(get(rep, "teams")), 2);
	cJSON_Delete(rep);
	rec = json_file("results/Team_Aca/batch.json");
	KT_EQ_INT(get(rec, "pull_request")->valuedouble, 1);
	KT_EQ_STR(gets_(rec, "commit_subject"), "[Team Aca] final");
	KT_EQ_STR(gets_(rec, "head_subject"), "[Team Bidi] late");
	cJSON_Delete(rec);
}

/* A results folder whose pull request is now another folder's team (here: named by number
 * first, then by subject) is stale: moved to OUT/.stale/, so the leaderboard, the site's data
 * and --status count the pull requests once each; nothing is deleted. */
static void test_a_renamed_teams_old_folder_is_stale(void)
{
	cJSON *lb, *rep;
	if (!have_git())
		KT_SKIP("git is not installed");
	init_repo("work");
	put("work/README.md", "hackathon");
	commit("work", "2025-08-19T10:00:00Z", "base");
	init_hub("hub.git");
	sh("git -C work push -q ../hub.git main && cd work && git checkout -q -b a");
	put_fixture("good.json", "work/sub/" SUB "_1.json");
	commit("work", "2025-08-22T10:00:00Z", "[Team Aca] final");
	sh("cd work && git push -q ../hub.git a:refs/pull/1/head && git checkout -q main && "
	   "git checkout -q -b b");
	put_fixture("good.json", "work/sub/" SUB "_2.json");
	commit("work", "2025-08-22T11:00:00Z", "[Team Bidi] go");
	sh("cd work && git push -q ../hub.git b:refs/pull/2/head");
	KT_EQ_INT(batch("--compile-only --pull-requests hub.git --deadline " DEADLINE " --submission '"
			PATTERN "' --name-from number"), 0);
	KT_ASSERT(exists("results/pr-1/batch.json") && exists("results/pr-2/batch.json"));
	KT_EQ_INT(batch("--compile-only --pull-requests hub.git --deadline " DEADLINE " --submission '"
			PATTERN "'"), 0);
	KT_CONTAINS(g_err, "stale");
	KT_ASSERT(!exists("results/pr-1") && !exists("results/pr-2"));
	KT_ASSERT(exists("results/.stale/pr-1/batch.json") && exists("results/.stale/pr-2/score.json"));
	lb = json_file("results/leaderboard.json");
	KT_EQ_INT(cJSON_GetArraySize(get(lb, "teams")), 2);
	cJSON_Delete(lb);
	{
		char *text = slurp("results/site/data/leaderboard.json");
		KT_NOT_CONTAINS(text, "pr-1");
		KT_CONTAINS(text, "Team Aca");
		ks_free(text);
	}
	KT_EQ_INT(batch("--json --status --pull-requests hub.git --deadline " DEADLINE), 0);
	rep = report();
	KT_EQ_INT((int)get(get(rep, "teams"), "total")->valuedouble, 2);
	KT_EQ_INT((int)get(get(rep, "teams"), "scored")->valuedouble, 2);
	cJSON_Delete(rep);
}

/* -q prints only what went wrong; compile-only verdicts say compile-only, not "no GPU". */
static void test_quiet_and_compile_only_wording(void)
{
	char *results;
	if (!have_git())
		KT_SKIP("git is not installed");
	init_repo("good");
	put_fixture("good.json", "good/s.json");
	commit("good", "2025-08-22T10:00:00Z", "good");
	init_repo("empty");
	put("empty/README.md", "nothing");
	commit("empty", "2025-08-22T10:00:00Z", "nothing");
	put("m.json", "{\"schema\": \"kscore.batch/1\", \"deadline\": \"" DEADLINE "\", \"submission\": "
	    "\"s.json\", \"teams\": [{\"name\": \"good\", \"repo\": \"good\"}, {\"name\": \"empty\", "
	    "\"repo\": \"empty\"}]}");
	KT_EQ_INT(batch("--compile-only -q m.json"), 1);
	KT_EQ_STR(g_out, "");
	KT_NOT_CONTAINS(g_err, "good: scored");
	KT_NOT_CONTAINS(g_err, "already scored, ");
	KT_CONTAINS(g_err, "empty: failed: missing_file");
	KT_EQ_INT(batch("--compile-only -q m.json"), 1);  /* resumed: still only the failure */
	KT_NOT_CONTAINS(g_err, "good");
	results = slurp("results/good/out.json_results_0.json");
	KT_CONTAINS(results, "not run (compile-only)");
	KT_NOT_CONTAINS(results, "no GPU");
	ks_free(results);
}

static const kt_test tests[] = {
	KT(test_late_pull_request_is_not_scored_on_the_base), KT(test_base_of_a_hub_whose_head_names_no_branch),
	KT(test_pull_requests_from_an_old_base_commit),
	KT(test_team_names_from_subjects), KT(test_submission_layouts), KT(test_repositories_missing_an_object),
	KT(test_geak_result_folder), KT(test_default_submission_finds_the_real_layouts),
	KT(test_files_outside_the_pattern_are_named), KT(test_an_unchanged_submission_is_not_scored_again),
	KT(test_a_repositorys_warning_is_printed_once), KT(test_a_late_commit_does_not_rename_a_team),
	KT(test_a_renamed_teams_old_folder_is_stale), KT(test_quiet_and_compile_only_wording), { 0 }
};
KT_MAIN("batch_repos", tests)
