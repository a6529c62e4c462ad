/* batch tests: `score batch` end to end (--compile-only, as CI has no GPU) on real git repositories that each test builds
 * with the git command-line tool: several teams, a bare repository with pull-request refs,
 * commits after the deadline, a missing and a malformed file, an unreachable repository, resume
 * after a deleted result and after a kill, --rescore, and no secret in any file or log. */
#include "batchtest.h"
#include "batch/batch.h"
#include "batch/batch_int.h"
#include "util/buf.h"
#include "util/errors.h"
#include "util/fsutil.h"
#include "util/jsonutil.h"
#include "util/mem.h"

#include <dirent.h>
#include <stdarg.h>
#include <time.h>

#define PATTERN "sub/reflexion_oneshot_tritonbench_<N>.json"

/* Six teams in repos/ and manifest.json naming them by relative paths:
 *  Alpha Team: iterations 2, 10 and 9 before the deadline (10 wins), then iteration 11 after it;
 *  bravo: on tag "final", the file with a compile error; main has a later commit;
 *  charlie: no submission file; delta: a malformed one; echo: no repository at all;
 *  foxtrot: every commit after the deadline. */
static void make_teams(void)
{
	init_repo("repos/alpha");
	put_fixture("sub.json", "repos/alpha/sub/reflexion_oneshot_tritonbench_2.json");
	commit("repos/alpha", "2025-08-20T10:00:00Z", "iteration 2");
	put_fixture("good.json", "repos/alpha/sub/reflexion_oneshot_tritonbench_10.json");
	put_fixture("sub.json", "repos/alpha/sub/reflexion_oneshot_tritonbench_9.json");
	commit("repos/alpha", "2025-08-23T10:00:00Z", "iterations 9 and 10");
	put_fixture("sub.json", "repos/alpha/sub/reflexion_oneshot_tritonbench_11.json");
	commit("repos/alpha", "2025-08-25T08:00:00Z", "too late");

	init_repo("repos/bravo");
	put_fixture("sub.json", "repos/bravo/sub/reflexion_oneshot_tritonbench_1.json");
	commit("repos/bravo", "2025-08-21T10:00:00Z", "bravo final");
	sh("cd repos/bravo && git tag final");
	commit("repos/bravo", "2025-08-22T10:00:00Z", "after the tag");

	init_repo("repos/charlie");
	put("repos/charlie/README.md", "no submission here");
	commit("repos/charlie", "2025-08-22T10:00:00Z", "readme");

	init_repo("repos/delta");
	put("repos/delta/sub/reflexion_oneshot_tritonbench_1.json", "[{\"file\": \"vadd.py\", oops");
	commit("repos/delta", "2025-08-21T10:00:00Z", "broken");

	init_repo("repos/foxtrot");
	put_fixture("good.json", "repos/foxtrot/sub/reflexion_oneshot_tritonbench_1.json");
	commit("repos/foxtrot", "2025-08-26T10:00:00Z", "late start");

	put("manifest.json",
	    "{\"schema\": \"kscore.batch/1\", \"deadline\": \"" DEADLINE "\",\n"
	    " \"submission\": \"" PATTERN "\",\n"
	    " \"_comment\": \"keys starting with _ are comments\",\n"
	    " \"teams\": [\n"
	    "  {\"name\": \"Alpha Team\", \"repo\": \"repos/alpha\"},\n"
	    "  {\"name\": \"bravo\", \"repo\": \"repos/bravo\", \"ref\": \"final\"},\n"
	    "  {\"name\": \"charlie\", \"repo\": \"repos/charlie\", \"ref\": \"main\"},\n"
	    "  {\"name\": \"delta\", \"repo\": \"repos/delta\"},\n"
	    "  {\"name\": \"echo\", \"repo\": \"repos/echo\"},\n"
	    "  {\"name\": \"foxtrot\", \"repo\": \"repos/foxtrot\"}\n"
	    " ]}\n");
}

/* One team, "solo", in repos/solo, and m.json naming it. */
static void make_solo(void)
{
	init_repo("repos/solo");
	put_fixture("good.json", "repos/solo/s.json");
	commit("repos/solo", "2025-08-20T10:00:00Z", "solo");
	put("m.json", "{\"schema\": \"kscore.batch/1\", \"deadline\": \"" DEADLINE "\", "
	    "\"submission\": \"s.json\", \"teams\": [{\"name\": \"solo\", \"repo\": \"repos/solo\"}]}");
}

/* ---- end to end through the score binary ---- */

static void test_usage_and_manifest_errors(void)
{
	KT_EQ_INT(batch("--help"), 0);
	KT_CONTAINS(g_out, "Usage: score batch");
	KT_CONTAINS(g_out, "--pull-requests");
	KT_CONTAINS(g_out, "Exit status");
	KT_EQ_INT(batch(""), 64);
	KT_CONTAINS(g_err, "no MANIFEST");
	KT_EQ_INT(batch("--bogus m.json"), 64);
	KT_EQ_INT(batch("--compile-only --require-gpu m.json"), 64);
	KT_EQ_INT(batch("a.json b.json"), 64);
	KT_EQ_INT(batch("--compile-only missing.json"), 65);
	KT_CONTAINS(g_err, "missing.json");
	put("bad.json", "{\"schema\": \"kscore.batch/1\", \"teams\": [{\"name\": \"x\"}]}");
	KT_EQ_INT(batch("--compile-only bad.json"), 65);
	KT_CONTAINS(g_err, "\"repo\"");
	put("nodeadline.json", "{\"schema\": \"kscore.batch/1\", \"submission\": \"s.json\", "
	    "\"teams\": [{\"name\": \"x\", \"repo\": \"r\"}]}");
	KT_EQ_INT(batch("--compile-only nodeadline.json"), 65);
	KT_CONTAINS(g_err, "deadline");
	KT_EQ_INT(batch("--compile-only --deadline 2025-13-01T00:00:00Z nodeadline.json"), 64);
	/* a local time without its offset: refused, saying what is missing and how to write it */
	KT_EQ_INT(batch("--compile-only --deadline 2025-08-24T23:59:59 nodeadline.json"), 64);
	KT_CONTAINS(g_err, "--deadline: \"2025-08-24T23:59:59\" has no UTC offset");
	KT_CONTAINS(g_err, "2025-08-24T23:59:59+08:00");
	KT_EQ_INT(batch("--compile-only --deadline " DEADLINE " --team nobody nodeadline.json"), 64);
	KT_CONTAINS(g_err, "nobody");
	/* an upload without an endpoint is a configuration error, before anything is scored */
	KT_EQ_INT(batch("--compile-only --deadline " DEADLINE " --upload --upload-config /dev/null/x "
			"nodeadline.json"), 78);
	KT_ASSERT(!exists("results/x"));
	/* results that cannot be written */
	put("file", "not a folder");
	KT_EQ_INT(batch("--compile-only --deadline " DEADLINE " --out file/results nodeadline.json"), 74);
	KT_CONTAINS(g_err, "file/results");
}

static void test_teams_end_to_end(void)
{
	cJSON *rep, *rec, *score, *lb;
	const cJSON *t, *later;
	char *alpha_final, *alpha_tip, *bravo_tag;
	if (!have_git())
		KT_SKIP("git is not installed");
	make_teams();
	alpha_final = git_out("repos/alpha", "HEAD~1");
	alpha_tip = git_out("repos/alpha", "HEAD");
	bravo_tag = git_out("repos/bravo", "final");

	KT_EQ_INT(batch("--compile-only --json manifest.json"), 1); /* some teams failed, recorded */
	rep = report();
	KT_EQ_INT(get(rep, "scored")->valuedouble, 2);
	KT_EQ_INT(get(rep, "failed")->valuedouble, 3);
	KT_EQ_INT(get(rep, "late")->valuedouble, 1);
	KT_EQ_STR(gets_(rep, "mode"), "compile-only");
	t = report_team(rep, "Alpha Team");
	KT_EQ_STR(gets_(t, "status"), "scored");
	KT_EQ_STR(gets_(t, "file"), "sub/reflexion_oneshot_tritonbench_10.json"); /* 10 beats 9 and 2 */
	KT_EQ_STR(gets_(t, "commit"), alpha_final);
	KT_EQ_STR(gets_(report_team(rep, "bravo"), "commit"), bravo_tag);
	KT_EQ_STR(gets_(report_team(rep, "charlie"), "reason"), "missing_file");
	KT_CONTAINS(gets_(report_team(rep, "charlie"), "detail"), PATTERN);
	KT_EQ_STR(gets_(report_team(rep, "delta"), "reason"), "malformed_file");
	KT_CONTAINS(gets_(report_team(rep, "delta"), "detail"), "reflexion_oneshot_tritonbench_1.json:1:");
	KT_EQ_STR(gets_(report_team(rep, "echo"), "reason"), "unreachable");
	KT_CONTAINS(gets_(report_team(rep, "echo"), "detail"), "repos/echo");
	KT_EQ_STR(gets_(report_team(rep, "foxtrot"), "reason"), "no_commit_before_deadline");
	KT_EQ_STR(gets_(report_team(rep, "foxtrot"), "status"), "late");
	cJSON_Delete(rep);
	KT_CONTAINS(g_err, "Alpha Team: scored");
	KT_CONTAINS(g_err, "1 later commit not scored");
	KT_CONTAINS(g_err, "delta: failed: malformed_file");
	KT_CONTAINS(g_err, "2 scored, 0 already scored, 1 late, 3 failed");
	KT_CONTAINS(g_err, "foxtrot: late: team foxtrot, ref HEAD: repository ");

	/* the team's record: where the result came from, and the commit after the deadline */
	rec = json_file("results/Alpha_Team/batch.json");
	KT_EQ_STR(gets_(rec, "schema"), "kscore.batch-team/1");
	KT_EQ_STR(gets_(rec, "team"), "Alpha Team");
	KT_EQ_STR(gets_(rec, "status"), "scored");
	KT_ASSERT(cJSON_IsNull(get(rec, "reason")));
	KT_EQ_STR(gets_(rec, "ref"), "HEAD");
	KT_EQ_STR(gets_(rec, "ref_commit"), alpha_tip);
	KT_EQ_STR(gets_(rec, "commit"), alpha_final);
	KT_EQ_STR(gets_(rec, "commit_time"), "2025-08-23T10:00:00Z");
	KT_EQ_STR(gets_(rec, "commit_subject"), "iterations 9 and 10");
	KT_EQ_STR(gets_(rec, "deadline"), DEADLINE);
	KT_EQ_STR(gets_(rec, "submission"), PATTERN);
	KT_EQ_STR(gets_(rec, "file"), "sub/reflexion_oneshot_tritonbench_10.json");
	score = json_file("results/Alpha_Team/score.json");
	KT_EQ_STR(gets_(get(rec, "scorer"), "version"), gets_(get(score, "scorer"), "version"));
	cJSON_Delete(score);
	KT_ASSERT(gets_(rec, "fetched_at") != NULL);
	KT_CONTAINS(gets_(rec, "repository"), "/repos/alpha");
	KT_EQ_INT(strlen(gets_(rec, "submission_sha256")), 64);
	later = get(rec, "later_commits");
	KT_EQ_INT(cJSON_GetArraySize(later), 1);
	KT_EQ_STR(gets_(cJSON_GetArrayItem(later, 0), "id"), alpha_tip);
	KT_EQ_STR(gets_(cJSON_GetArrayItem(later, 0), "subject"), "too late");
	KT_EQ_STR(gets_(cJSON_GetArrayItem(later, 0), "time"), "2025-08-25T08:00:00Z");
	KT_ASSERT(cJSON_IsFalse(get(cJSON_GetArrayItem(later, 0), "ancestor_of_scored")));

	/* score.json: the team, and the submission named by repository, commit and file */
	score = json_file("results/Alpha_Team/score.json");
	KT_EQ_STR(gets_(score, "team"), "Alpha Team");
	KT_CONTAINS(gets_(get(score, "submission"), "path"), "@");
	KT_CONTAINS(gets_(get(score, "submission"), "path"), alpha_final);
	KT_CONTAINS(gets_(get(score, "submission"), "path"), ":sub/reflexion_oneshot_tritonbench_10.json");
	KT_EQ_STR(gets_(get(score, "submission"), "sha256"), gets_(rec, "submission_sha256"));
	KT_EQ_INT(cJSON_GetArraySize(get(score, "kernels")), 2); /* good.json, not sub.json (5) */
	cJSON_Delete(score);
	cJSON_Delete(rec);

	/* a failed team: a record with the reason and no score */
	rec = json_file("results/charlie/batch.json");
	KT_EQ_STR(gets_(rec, "status"), "failed");
	KT_EQ_STR(gets_(rec, "reason"), "missing_file");
	KT_ASSERT(cJSON_IsString(get(rec, "commit")));
	KT_ASSERT(!exists("results/charlie/score.json"));
	cJSON_Delete(rec);
	rec = json_file("results/foxtrot/batch.json");
	KT_EQ_STR(gets_(rec, "status"), "late");
	KT_ASSERT(cJSON_IsNull(get(rec, "commit")));
	KT_EQ_INT(get(rec, "later_commits_total")->valuedouble, 1);
	cJSON_Delete(rec);

	/* the leaderboard: the compile-only results, not by accuracy but by commit (earlier first),
	 * then name; then the failed teams, earlier commit first, those without a commit last, by name */
	lb = json_file("results/leaderboard.json");
	{
		const char *order[] = { "bravo", "Alpha Team", "delta", "charlie", "echo", "foxtrot" };
		size_t i;
		t = get(lb, "teams");
		KT_EQ_INT(cJSON_GetArraySize(t), 6);
		for (i = 0; i < 6; i++) {
			KT_EQ_STR(gets_(cJSON_GetArrayItem(t, (int)i), "team"), order[i]);
			KT_EQ_INT(get(cJSON_GetArrayItem(t, (int)i), "rank")->valuedouble, i + 1);
		}
		KT_NEAR(get(cJSON_GetArrayItem(t, 1), "compile_accuracy")->valuedouble, 1.0, 1e-9);
		KT_EQ_STR(gets_(cJSON_GetArrayItem(t, 3), "reason"), "missing_file");
		KT_EQ_STR(gets_(cJSON_GetArrayItem(t, 5), "status"), "late");
		KT_EQ_STR(gets_(cJSON_GetArrayItem(t, 0), "name_source"), "manifest");
	}
	cJSON_Delete(lb);
	{
		char *csv = slurp("results/leaderboard.csv");
		KT_CONTAINS(csv, "\r\n2,Alpha Team,Alpha_Team,scored,compile-only,,,,1,2,0,");
		ks_free(csv);
	}

	/* an earlier --deadline moves the choice back to iteration 2 */
	KT_EQ_INT(batch("--compile-only --json --deadline 2025-08-21T00:00:00Z --team 'Alpha Team' "
			"manifest.json"), 0);
	rep = report();
	KT_EQ_INT(cJSON_GetArraySize(get(rep, "teams")), 1);
	KT_EQ_STR(gets_(report_team(rep, "Alpha Team"), "file"), "sub/reflexion_oneshot_tritonbench_2.json");
	KT_EQ_INT(get(report_team(rep, "Alpha Team"), "later_commits")->valuedouble, 2);
	cJSON_Delete(rep);
	rec = json_file("results/Alpha_Team/batch.json");
	KT_EQ_STR(gets_(rec, "previous_commit"), alpha_final);
	KT_ASSERT(cJSON_IsTrue(get(rec, "previous_commit_in_history")));
	cJSON_Delete(rec);
	/* --team leaves the other teams' results and keeps them on the leaderboard */
	KT_ASSERT(exists("results/bravo/score.json"));
	lb = json_file("results/leaderboard.json");
	KT_EQ_INT(cJSON_GetArraySize(get(lb, "teams")), 6);
	cJSON_Delete(lb);
	ks_free(alpha_final);
	ks_free(alpha_tip);
	ks_free(bravo_tag);
}

static void test_pull_requests_end_to_end(void)
{
	cJSON *rep, *rec;
	const cJSON *t;
	if (!have_git())
		KT_SKIP("git is not installed");
	init_repo("work");
	put("work/README.md", "hackathon");
	commit("work", "2025-08-19T10:00:00Z", "base");
	sh("git init -q --bare hub.git && git -C work push -q ../hub.git main");
	/* three pull requests; the commit subject is the team name, as the hackathon asked */
	sh("cd work && git checkout -q -b a");
	put_fixture("good.json", "work/sub/reflexion_oneshot_tritonbench_3.json");
	commit("work", "2025-08-21T10:00:00Z", "Team Alpha");
	put_fixture("sub.json", "work/sub/reflexion_oneshot_tritonbench_4.json");
	commit("work", "2025-08-26T10:00:00Z", "Team Alpha");  /* after the deadline */
	sh("cd work && git push -q ../hub.git a:refs/pull/1/head && git checkout -q main && git checkout -q -b b");
	put_fixture("sub.json", "work/sub/reflexion_oneshot_tritonbench_1.json");
	commit("work", "2025-08-22T10:00:00Z", "bravo");
	sh("cd work && git push -q ../hub.git b:refs/pull/2/head && git checkout -q main && git checkout -q -b c");
	put("work/notes.txt", "forgot the file");
	commit("work", "2025-08-22T10:00:00Z", "Charlie");
	sh("cd work && git push -q ../hub.git c:refs/pull/3/head");

	KT_EQ_INT(batch("--compile-only --json --pull-requests hub.git --deadline " DEADLINE
			" --submission '" PATTERN "'"), 1);
	rep = report();
	KT_EQ_INT(cJSON_GetArraySize(get(rep, "teams")), 3);
	t = report_team(rep, "Team Alpha");
	KT_EQ_STR(gets_(t, "status"), "scored");
	KT_EQ_STR(gets_(t, "file"), "sub/reflexion_oneshot_tritonbench_3.json");
	KT_EQ_INT(get(t, "later_commits")->valuedouble, 1);
	KT_EQ_STR(gets_(report_team(rep, "bravo"), "status"), "scored");
	KT_EQ_STR(gets_(report_team(rep, "Charlie"), "reason"), "missing_file");
	cJSON_Delete(rep);
	rec = json_file("results/Team_Alpha/batch.json");
	KT_EQ_INT(get(rec, "pull_request")->valuedouble, 1);
	KT_EQ_STR(gets_(rec, "ref"), "refs/pull/1/head");
	KT_EQ_STR(gets_(rec, "head_subject"), "Team Alpha");
	cJSON_Delete(rec);

	/* a manifest maps a pull request to another name and excludes one */
	put("pr.json", "{\"schema\": \"kscore.batch/1\", \"deadline\": \"" DEADLINE "\", "
	    "\"submission\": \"" PATTERN "\", \"pull_requests\": {\"repo\": \"hub.git\", "
	    "\"teams_by_number\": {\"2\": \"Bravo Renamed\"}, \"exclude\": [3]}}");
	KT_EQ_INT(batch("--compile-only --json --out res2 pr.json"), 0);
	rep = report();
	KT_EQ_INT(cJSON_GetArraySize(get(rep, "teams")), 2);
	KT_EQ_STR(gets_(report_team(rep, "Bravo Renamed"), "status"), "scored");
	KT_ASSERT(exists("res2/Bravo_Renamed/score.json"));
	KT_ASSERT(!exists("res2/Charlie"));
	cJSON_Delete(rep);
}

/* Modification time of a file, in nanoseconds. */
static long long mtime(const char *rel)
{
	char *p = tmp(rel);
	struct stat st;
	if (stat(p, &st) < 0)
		KT_FAIL("stat %s", p);
	ks_free(p);
	return (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
}

static void test_resume_after_a_deleted_result_and_rescore(void)
{
	cJSON *rep;
	long long m_alpha, m_alpha_rec, m_delta;
	char *alpha_score;
	if (!have_git())
		KT_SKIP("git is not installed");
	make_teams();
	KT_EQ_INT(batch("--compile-only --json manifest.json"), 1);
	m_alpha = mtime("results/Alpha_Team/score.json");
	m_alpha_rec = mtime("results/Alpha_Team/batch.json");
	m_delta = mtime("results/delta/batch.json");
	alpha_score = slurp("results/Alpha_Team/score.json");
	sh("rm -rf results/bravo");

	/* only bravo is scored again; the others are reported and left untouched */
	KT_EQ_INT(batch("--compile-only --json manifest.json"), 1);
	rep = report();
	KT_EQ_STR(gets_(report_team(rep, "bravo"), "status"), "scored");
	KT_EQ_STR(gets_(report_team(rep, "Alpha Team"), "status"), "already_scored");
	KT_EQ_STR(gets_(report_team(rep, "delta"), "status"), "failed");
	KT_EQ_INT(get(rep, "scored")->valuedouble, 1);
	KT_EQ_INT(get(rep, "already_scored")->valuedouble, 1);
	cJSON_Delete(rep);
	KT_CONTAINS(g_err, "Alpha Team: already scored");
	KT_EQ_INT(mtime("results/Alpha_Team/score.json"), m_alpha);
	KT_EQ_INT(mtime("results/Alpha_Team/batch.json"), m_alpha_rec);
	KT_EQ_INT(mtime("results/delta/batch.json"), m_delta); /* an unchanged failure is not rewritten */
	{
		char *again = slurp("results/Alpha_Team/score.json");
		KT_EQ_STR(again, alpha_score);
		ks_free(again);
	}
	KT_ASSERT(exists("results/bravo/score.json"));

	/* a push after the deadline changes nothing scored, but the record lists it */
	commit("repos/alpha", "2025-08-27T10:00:00Z", "even later");
	KT_EQ_INT(batch("--compile-only --json manifest.json"), 1);
	rep = report();
	KT_EQ_STR(gets_(report_team(rep, "Alpha Team"), "status"), "already_scored");
	KT_EQ_INT(get(report_team(rep, "Alpha Team"), "later_commits")->valuedouble, 2);
	cJSON_Delete(rep);
	KT_EQ_INT(mtime("results/Alpha_Team/score.json"), m_alpha);
	{
		cJSON *rec = json_file("results/Alpha_Team/batch.json");
		KT_EQ_INT(cJSON_GetArraySize(get(rec, "later_commits")), 2);
		KT_EQ_STR(gets_(cJSON_GetArrayItem(get(rec, "later_commits"), 0), "subject"), "even later");
		cJSON_Delete(rec);
	}

	/* a new commit before the deadline (pushed late, back-dated) that changes the file is a new
	 * submission */
	put_fixture("good.json", "repos/bravo/sub/reflexion_oneshot_tritonbench_1.json");
	commit("repos/bravo", "2025-08-23T12:00:00Z", "dated back");
	sh("cd repos/bravo && git tag -f final");
	KT_EQ_INT(batch("--compile-only --json manifest.json"), 1);
	rep = report();
	KT_EQ_STR(gets_(report_team(rep, "bravo"), "status"), "scored");
	KT_EQ_STR(gets_(report_team(rep, "Alpha Team"), "status"), "already_scored");
	cJSON_Delete(rep);

	/* --rescore scores every team that can be scored again */
	KT_EQ_INT(batch("--compile-only --json --rescore manifest.json"), 1);
	rep = report();
	KT_EQ_STR(gets_(report_team(rep, "Alpha Team"), "status"), "scored");
	KT_EQ_STR(gets_(report_team(rep, "bravo"), "status"), "scored");
	KT_EQ_INT(get(rep, "scored")->valuedouble, 2);
	cJSON_Delete(rep);
	KT_ASSERT(mtime("results/Alpha_Team/score.json") != m_alpha);
	ks_free(alpha_score);
}

static void test_resume_after_a_kill(void)
{
	char *b, *cmd, *first;
	cJSON *rep;
	const cJSON *t;
	pid_t pid;
	int st, i, killed = 0;
	size_t done_before = 0, already = 0, scored = 0;
	const char *names[] = { "t0", "t1", "t2", "t3", "t4" };
	if (!have_git())
		KT_SKIP("git is not installed");
	/* five teams; the later ones submit more kernels so that the kill lands mid-batch */
	{
		ks_buf m = KS_BUF_INIT(1 << 20);
		ks_buf_puts(&m, "{\"schema\": \"kscore.batch/1\", \"deadline\": \"" DEADLINE "\", "
			    "\"submission\": \"s.json\", \"teams\": [");
		for (i = 0; i < 5; i++) {
			char dir[64], file[80];
			snprintf(dir, sizeof(dir), "repos/%s", names[i]);
			snprintf(file, sizeof(file), "%s/s.json", dir);
			init_repo(dir);
			put_fixture(i == 0 ? "good.json" : "sub.json", file);
			commit(dir, "2025-08-20T10:00:00Z", "submission");
			ks_buf_printf(&m, "%s{\"name\": \"%s\", \"repo\": \"%s\"}", i ? ", " : "", names[i], dir);
		}
		ks_buf_puts(&m, "]}");
		put("manifest.json", m.ptr);
		ks_buf_free(&m);
	}
	b = bin();
	cmd = ks_asprintf("cd '%s' && XDG_CACHE_HOME='%s/cache' exec '%s' batch --refs "
			  "'%s/tests/fixtures/problems' --compile-only --no-cache --jobs 1 manifest.json "
			  ">/dev/null 2>&1", kt_tmpdir(), kt_tmpdir(), b, root());
	pid = fork();
	if (pid == 0) {
		setpgid(0, 0);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	setpgid(pid, pid);
	/* SIGKILL the batch and its helpers as soon as the first team's record exists */
	first = tmp("results/t0/batch.json");
	for (i = 0; i < 60000 && !killed; i++) {
		if (ks_fs_exists(first)) {
			kill(-pid, SIGKILL);
			killed = 1;
			break;
		}
		if (waitpid(pid, &st, WNOHANG) == pid)
			KT_FAIL("the batch ended before it was killed");
		usleep(1000);
	}
	KT_ASSERT(killed);
	waitpid(pid, &st, 0);
	KT_ASSERT(WIFSIGNALED(st));
	for (i = 0; i < 5; i++) {
		char rel[64];
		snprintf(rel, sizeof(rel), "results/%s/batch.json", names[i]);
		done_before += exists(rel);
	}
	KT_ASSERT(done_before >= 1 && done_before < 5);

	/* the rerun scores exactly the teams without a record and leaves no half-written folder */
	KT_EQ_INT(batch("--compile-only --json manifest.json"), 0);
	rep = report();
	cJSON_ArrayForEach(t, get(rep, "teams")) {
		already += !strcmp(gets_(t, "status"), "already_scored");
		scored += !strcmp(gets_(t, "status"), "scored");
	}
	KT_EQ_INT(already, done_before);
	KT_EQ_INT(scored, 5 - done_before);
	KT_EQ_STR(gets_(report_team(rep, "t0"), "status"), "already_scored");
	cJSON_Delete(rep);
	{
		DIR *d;
		struct dirent *e;
		char *res = tmp("results");
		d = opendir(res);
		KT_ASSERT(d != NULL);
		while ((e = readdir(d)))
			KT_ASSERT_MSG(!strstr(e->d_name, ".tmp") && !strstr(e->d_name, ".old-"),
				      "leftover %s", e->d_name);
		closedir(d);
		ks_free(res);
	}
	for (i = 0; i < 5; i++) {
		char rel[64];
		snprintf(rel, sizeof(rel), "results/%s/score.json", names[i]);
		KT_ASSERT(exists(rel));
	}
	ks_free(first);
	ks_free(cmd);
	ks_free(b);
}

static void test_cache_is_used_when_a_repository_goes_away(void)
{
	cJSON *rep;
	if (!have_git())
		KT_SKIP("git is not installed");
	make_solo();
	KT_EQ_INT(batch("--compile-only --json m.json"), 0);
	KT_ASSERT(exists("cache/kscore/repos"));
	sh("mv repos/solo repos/moved");
	/* --no-fetch: a frozen batch from the cache alone */
	KT_EQ_INT(batch("--compile-only --json --no-fetch --rescore m.json"), 0);
	rep = report();
	KT_EQ_STR(gets_(report_team(rep, "solo"), "status"), "scored");
	cJSON_Delete(rep);
	/* a failed fetch falls back on the cached copy, and says so */
	KT_EQ_INT(batch("--compile-only --json --rescore m.json"), 0);
	rep = report();
	KT_EQ_STR(gets_(report_team(rep, "solo"), "status"), "scored");
	KT_CONTAINS(gets_(report_team(rep, "solo"), "fetch_warning"), "using the copy cached at");
	cJSON_Delete(rep);
	{
		cJSON *rec = json_file("results/solo/batch.json");
		KT_CONTAINS(gets_(rec, "fetch_warning"), "repos/solo");
		cJSON_Delete(rec);
	}
	/* gone from the network and from this (empty) cache: the run fails the team, but the result
	 * scored earlier is not deleted */
	KT_EQ_INT(batch("--compile-only --json --no-fetch --cache-dir other-cache m.json"), 1);
	rep = report();
	KT_EQ_STR(gets_(report_team(rep, "solo"), "reason"), "unreachable");
	KT_ASSERT(cJSON_IsTrue(get(report_team(rep, "solo"), "earlier_result_kept")));
	cJSON_Delete(rep);
	KT_ASSERT(exists("results/solo/score.json"));
	{
		cJSON *rec = json_file("results/solo/batch.json");
		KT_EQ_STR(gets_(rec, "status"), "scored");
		cJSON_Delete(rec);
	}
	/* an incomplete mirror (a fetch into it was stopped: its record has no fetch time) is not
	 * used, by --no-fetch nor after a failed fetch, and its state is named */
	sh("for d in cache/kscore/repos/*/; do printf '{\"schema\": \"kscore.mirror/1\"}' > "
	   "\"$d/kscore-mirror.json\"; done");
	KT_EQ_INT(batch("--compile-only --json --no-fetch --rescore m.json"), 1);
	rep = report();
	KT_EQ_STR(gets_(report_team(rep, "solo"), "reason"), "unreachable");
	KT_CONTAINS(gets_(report_team(rep, "solo"), "detail"), "is incomplete");
	KT_CONTAINS(gets_(report_team(rep, "solo"), "detail"), "--no-fetch");
	cJSON_Delete(rep);
	KT_EQ_INT(batch("--compile-only --json --rescore m.json"), 1);
	rep = report();
	KT_EQ_STR(gets_(report_team(rep, "solo"), "reason"), "unreachable");
	KT_CONTAINS(gets_(report_team(rep, "solo"), "detail"), "no cached copy is used");
	KT_CONTAINS(gets_(report_team(rep, "solo"), "detail"), "is incomplete");
	KT_NOT_CONTAINS(g_out, "using the copy cached at");
	cJSON_Delete(rep);
}

static int g_nservers;

/* Starts tests/upload_server.py on loopback; returns its pid and writes its URL. */
static pid_t start_server(char *url, size_t n)
{
	int fds[2];
	char line[64];
	ssize_t got = 0, r;
	pid_t pid;
	char *script, *record, *py = ks_asprintf("%s/tests/upload_server.py", root());
	put("server/script.json", "{\"responses\": [], \"default\": {\"status\": 200, \"json\": {\"ok\": true}}}");
	script = tmp("server/script.json");
	record = tmp("server/record.jsonl");
	if (pipe(fds) < 0)
		KT_FAIL("pipe");
	pid = fork();
	if (pid == 0) {
		dup2(fds[1], 1);
		close(fds[0]);
		close(fds[1]);
		execlp("python3", "python3", py, "--script", script, "--record", record, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	while (got < (ssize_t)sizeof(line) - 1 && (r = read(fds[0], line + got, sizeof(line) - 1 - (size_t)got)) > 0) {
		got += r;
		if (memchr(line, '\n', (size_t)got))
			break;
	}
	close(fds[0]);
	line[got > 0 ? got : 0] = 0;
	if (atoi(line) <= 0) {
		waitpid(pid, NULL, 0);
		KT_SKIP("python3 is not available for the loopback upload server");
	}
	snprintf(url, n, "http://127.0.0.1:%d/upload", atoi(line));
	g_nservers++;
	ks_free(py);
	ks_free(script);
	ks_free(record);
	return pid;
}

static void test_no_secret_in_any_file_or_log(void)
{
	char url[128], secret[64], gitsecret[64], args[8192], cmd[16384];
	unsigned long long r1, r2;
	pid_t server;
	FILE *f;
	if (!have_git())
		KT_SKIP("git is not installed");
	f = fopen("/dev/urandom", "rb");
	KT_ASSERT(f && fread(&r1, sizeof(r1), 1, f) == 1 && fread(&r2, sizeof(r2), 1, f) == 1);
	fclose(f);
	snprintf(secret, sizeof(secret), "tok%016llx", r1);
	snprintf(gitsecret, sizeof(gitsecret), "ghp%016llx", r2);
	make_teams();
	/* one more team whose (unreachable) URL carries a token */
	{
		char *m = slurp("manifest.json"), *p = strstr(m, "\n ]}");
		char *edited;
		KT_ASSERT(p != NULL);
		*p = 0;
		edited = ks_asprintf("%s,\n  {\"name\": \"golf\", \"repo\": \"http://golf:%s@127.0.0.1:1/g.git\"}\n ]}\n",
				     m, gitsecret);
		put("manifest.json", edited);
		ks_free(edited);
		ks_free(m);
	}
	server = start_server(url, sizeof(url));
	setenv("KSCORE_UPLOAD_TOKEN", secret, 1);
	snprintf(args, sizeof(args), "--compile-only --upload --endpoint %s --spool '%s/spool' manifest.json",
		 url, kt_tmpdir());
	KT_EQ_INT(batch(args), 1);
	/* compile-only results are never sent, and the run says so once */
	KT_CONTAINS(g_err, "score batch: upload: nothing will be sent: compile-only results have no score "
		    "(--compile-only)");
	KT_CONTAINS(g_err, "golf: failed: unreachable");
	KT_CONTAINS(g_err, "http://127.0.0.1:1/g.git");
	KT_ASSERT(exists("results/Alpha_Team/score.json"));
	/* a second run (resume) with --json too */
	snprintf(args, sizeof(args), "--compile-only --json --upload --endpoint %s --spool '%s/spool' "
		 "manifest.json", url, kt_tmpdir());
	KT_EQ_INT(batch(args), 1);
	{
		cJSON *rep = report();
		KT_EQ_STR(gets_(report_team(rep, "Alpha Team"), "upload"), "skipped"); /* compile-only: no score */
		cJSON_Delete(rep);
	}
	unsetenv("KSCORE_UPLOAD_TOKEN");
	kill(server, SIGTERM);
	waitpid(server, NULL, 0);
	/* every file the batch wrote or logged: results, cache, spool, stdout, stderr */
	snprintf(cmd, sizeof(cmd), "cd '%s' && grep -rlaF -e '%s' -e '%s' results cache stdout.txt stderr.txt "
		 "$(ls -d spool 2>/dev/null) >&2", kt_tmpdir(), secret, gitsecret);
	{
		int st = system(cmd);
		/* grep: 1 = searched everything, found nothing; 0 = found; 2 = could not search */
		KT_ASSERT_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 1, "a secret was found in the files "
			      "named above (grep status %d)", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	}
	/* and it did look at files that hold the team's repository URL */
	{
		cJSON *rec = json_file("results/golf/batch.json");
		KT_EQ_STR(gets_(rec, "repository"), "http://127.0.0.1:1/g.git");
		cJSON_Delete(rec);
	}
}

static void test_no_gpu_fallback_exit_code(void)
{
	if (access("/dev/nvidia0", F_OK) == 0 || access("/dev/nvidiactl", F_OK) == 0)
		KT_SKIP("this machine has a GPU; the fallback needs one without");
	if (!have_git())
		KT_SKIP("git is not installed");
	make_solo();
	KT_EQ_INT(batch("m.json"), 3);
	KT_CONTAINS(g_err, "no usable GPU");
	KT_ASSERT(exists("results/solo/score.json"));
	KT_EQ_INT(batch("--require-gpu m.json"), 69);
}

static void test_progress_on_a_terminal(void)
{
	char *b, *cmd, *out;
	if (!have_git())
		KT_SKIP("git is not installed");
	if (system("script --version >/dev/null 2>&1") != 0)
		KT_SKIP("script(1) is not installed to give the batch a terminal");
	make_teams();
	b = bin();
	cmd = ks_asprintf("cd '%s' && XDG_CACHE_HOME='%s/cache' script -qefc \"'%s' batch --refs "
			  "'%s/tests/fixtures/problems' --compile-only manifest.json\" /dev/null > tty.txt 2>&1; "
			  "XDG_CACHE_HOME='%s/cache' NO_COLOR=1 script -qefc \"'%s' batch --refs "
			  "'%s/tests/fixtures/problems' --compile-only --rescore manifest.json\" /dev/null > "
			  "tty-nocolor.txt 2>&1", kt_tmpdir(), kt_tmpdir(), b, root(), kt_tmpdir(), b, root());
	KT_ASSERT(system(cmd) != -1);
	out = slurp("tty.txt");
	KT_CONTAINS(out, "\r\033[K[1/6] Alpha Team: fetching");
	KT_CONTAINS(out, "Alpha Team: scoring");
	/* the second team is fetched while the first may still be scored: the time left comes once a
	 * team is scored */
	KT_CONTAINS(out, "[2/6] bravo: fetching");
	KT_CONTAINS(out, ", ETA ");
	KT_CONTAINS(out, "\033[32mscored");
	ks_free(out);
	out = slurp("tty-nocolor.txt");
	KT_CONTAINS(out, "[1/6] Alpha Team: fetching");
	KT_NOT_CONTAINS(out, "\033[32m");
	KT_NOT_CONTAINS(out, "\033[31m");
	ks_free(out);
	/* not a terminal: no progress line at all */
	KT_EQ_INT(batch("--compile-only manifest.json"), 1);
	KT_NOT_CONTAINS(g_err, "\033[K");
	KT_NOT_CONTAINS(g_err, "fetching");
	ks_free(cmd);
	ks_free(b);
}


static void put_pid(const char *fmt, long pid, const char *text)
{
	char rel[512];
	snprintf(rel, sizeof(rel), fmt, pid, pid);
	put(rel, text);
}

static int exists_pid(const char *fmt, long pid)
{
	char rel[512];
	snprintf(rel, sizeof(rel), fmt, pid, pid);
	return exists(rel);
}

/* What a kill -9 leaves, at any point, is finished or removed by the next run: temporaries of the
 * names kscore makes whose process is gone. A results folder that holds only such leftovers is
 * taken. A live process's temporary, and anything kscore does not make, are left alone. */
static void test_leftovers_of_killed_runs(void)
{
	long dead = kt_dead_pid(), live = (long)getpid();
	cJSON *rep;
	if (!have_git())
		KT_SKIP("git is not installed");
	make_solo();

	/* killed at the start of a run, while the new results folder was being marked */
	put_pid("fresh/.kscore-result.tmp.%ld", dead, "{\"schema\": \"kscore.ou");
	put("fresh/.lock", "");
	KT_EQ_INT(batch("--compile-only --json --out fresh m.json"), 0);
	KT_ASSERT(!exists_pid("fresh/.kscore-result.tmp.%ld", dead));
	KT_ASSERT(exists("fresh/solo/score.json"));
	/* the same name written by a live process, or a name kscore does not make: still refused */
	put_pid("fresh2/.kscore-result.tmp.%ld", live, "");
	KT_EQ_INT(batch("--compile-only --out fresh2 m.json"), 73);
	put_pid("fresh3/notes.tmp.%ld", dead, "mine");
	KT_EQ_INT(batch("--compile-only --out fresh3 m.json"), 73);
	KT_ASSERT(exists_pid("fresh3/notes.tmp.%ld", dead));

	/* leftovers beside and inside the results and in the repository cache */
	KT_EQ_INT(batch("--compile-only m.json"), 0);
	put_pid("results/site.tmp-%ld-0/.kscore-result.tmp.%ld", dead, "{\"schema\": \"kscore.outdir/1\", \"ki");
	put_pid("results/solo.tmp-%ld-0/.kscore-result", dead, "");
	put_pid("results/solo.tmp-%ld-1/.kscore-result.tmp.%ld", dead, "");
	put_pid("results/leaderboard.json.tmp.%ld", dead, "[");
	put_pid("results/.kscore-result.tmp.%ld", dead, "");
	put_pid("results/solo/batch.json.tmp.%ld", dead, "{");
	put_pid("results/.status.json.tmp.%ld", dead, "{\"schema\"");
	sh("for d in cache/kscore/repos/*/; do echo '{' > \"$d/kscore-mirror.json.tmp.%ld\"; done", dead);
	put_pid("results/solo.tmp-%ld-2/notes.txt", dead, "not kscore's");
	put_pid("results/solo.tmp-%ld-0/.kscore-result", live, "");
	KT_EQ_INT(batch("--compile-only --json m.json"), 0);
	rep = report();
	KT_EQ_STR(gets_(report_team(rep, "solo"), "status"), "already_scored");
	cJSON_Delete(rep);
	KT_ASSERT(!exists_pid("results/site.tmp-%ld-0", dead));
	KT_ASSERT(!exists_pid("results/solo.tmp-%ld-0", dead));
	KT_ASSERT(!exists_pid("results/solo.tmp-%ld-1", dead));
	KT_ASSERT(!exists_pid("results/leaderboard.json.tmp.%ld", dead));
	KT_ASSERT(!exists_pid("results/.kscore-result.tmp.%ld", dead));
	KT_ASSERT(!exists_pid("results/solo/batch.json.tmp.%ld", dead));
	KT_ASSERT(!exists_pid("results/.status.json.tmp.%ld", dead)); /* the live status file's */
	sh("! ls cache/kscore/repos/*/kscore-mirror.json.tmp.%ld", dead);
	KT_ASSERT(exists_pid("results/solo.tmp-%ld-2/notes.txt", dead));
	KT_ASSERT(exists_pid("results/solo.tmp-%ld-0/.kscore-result", live));

	/* killed between the two renames of a swap: the old folder is put back whole */
	sh("mv results/solo results/solo.old-%ld-0", dead);
	KT_EQ_INT(batch("--compile-only --json m.json"), 0);
	rep = report();
	KT_EQ_STR(gets_(report_team(rep, "solo"), "status"), "already_scored");
	cJSON_Delete(rep);
	KT_ASSERT(!exists_pid("results/solo.old-%ld-0", dead));
	KT_ASSERT(exists("results/solo/score.json"));

	/* killed while creating a mirror: removed when the mirror is next created */
	sh("h=$(printf %%s \"$(realpath repos/solo)\" | sha256sum | cut -c1-64) && "
	   "rm -rf cache/kscore/repos/$h && mkdir cache/kscore/repos/$h.tmp-%ld && "
	   "touch cache/kscore/repos/$h.tmp-%ld/HEAD", dead, dead);
	KT_EQ_INT(batch("--compile-only --json m.json"), 0);
	sh("h=$(printf %%s \"$(realpath repos/solo)\" | sha256sum | cut -c1-64) && "
	   "test -d cache/kscore/repos/$h && ! test -e cache/kscore/repos/$h.tmp-%ld", dead);
}

/* One repository written two ways in a manifest ("../x" from another folder, and its absolute
 * path) is one repository: opened and fetched once per run. */
static void test_one_repository_two_ways_is_fetched_once(void)
{
	bt_batch b;
	bt_repo_slot *s1, *s2;
	char *rel, *abs, *conf;
	cJSON *rep;
	if (!have_git())
		KT_SKIP("git is not installed");
	init_repo("repos/x");
	put_fixture("good.json", "repos/x/s.json");
	commit("repos/x", "2025-08-20T10:00:00Z", "x");
	memset(&b, 0, sizeof(b));
	b.cache = tmp("cache-unit");
	rel = tmp("conf/../repos/x");  /* what the manifest makes of "../repos/x" in conf/ */
	abs = tmp("repos/x");
	sh("mkdir -p conf");
	s1 = bt_get_repo(&b, rel);
	s2 = bt_get_repo(&b, abs);
	KT_ASSERT_MSG(s1->error == NULL, "%s", s1->error);
	KT_ASSERT(s1 == s2);
	KT_EQ_INT(b.nslots, 1);
	bt_slots_free(&b);
	ks_free(b.cache);

	conf = ks_asprintf("{\"schema\": \"kscore.batch/1\", \"deadline\": \"" DEADLINE "\", \"submission\": "
			   "\"s.json\", \"teams\": [{\"name\": \"a\", \"repo\": \"../repos/x\"}, "
			   "{\"name\": \"b\", \"repo\": \"%s\"}]}", abs);
	put("conf/m.json", conf);
	KT_EQ_INT(batch("--compile-only --json conf/m.json"), 0);
	rep = report();
	KT_EQ_STR(gets_(report_team(rep, "a"), "status"), "scored");
	KT_EQ_STR(gets_(report_team(rep, "b"), "status"), "scored");
	cJSON_Delete(rep);
	ks_free(conf);
	ks_free(rel);
	ks_free(abs);
}

static const kt_test tests[] = {
	KT(test_usage_and_manifest_errors), KT(test_teams_end_to_end),
	KT(test_pull_requests_end_to_end), KT(test_resume_after_a_deleted_result_and_rescore),
	KT(test_resume_after_a_kill), KT(test_cache_is_used_when_a_repository_goes_away),
	KT(test_no_secret_in_any_file_or_log), KT(test_no_gpu_fallback_exit_code),
	KT(test_progress_on_a_terminal), KT(test_leftovers_of_killed_runs),
	KT(test_one_repository_two_ways_is_fetched_once), { 0 }
};
KT_MAIN("batch", tests)
