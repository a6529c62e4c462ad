/* batch_status tests: a batch keeps its status file in the results folder, and `score batch
 * --status` reads the folder as it is (teams scored, failed and still to do, every run's state:
 * running, finished, or gone when its process is not running or its heartbeat stopped), never
 * taking the batch's lock and writing nothing. */
#include "batchtest.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>

/* Three teams: two that score, one without its file. */
static void make_three(void)
{
	const char *names[] = { "alpha", "bravo" };
	int i;
	for (i = 0; i < 2; i++) {
		char *repo = ks_asprintf("repos/%s", names[i]), *file = ks_asprintf("repos/%s/s.json", names[i]);
		init_repo(repo);
		put_fixture("good.json", file);
		commit(repo, "2025-08-20T10:00:00Z", "final");
		ks_free(repo);
		ks_free(file);
	}
	init_repo("repos/charlie");
	put("repos/charlie/README.md", "nothing to score");
	commit("repos/charlie", "2025-08-20T10:00:00Z", "readme");
	put("m.json", "{\"schema\": \"kscore.batch/1\", \"deadline\": \"" DEADLINE "\", \"submission\": \"s.json\", "
	    "\"teams\": [{\"name\": \"alpha\", \"repo\": \"repos/alpha\"}, {\"name\": \"bravo\", \"repo\": "
	    "\"repos/bravo\"}, {\"name\": \"charlie\", \"repo\": \"repos/charlie\"}]}");
}

/* Every file below results/ with its size and modification time, one line each. */
static char *snapshot(void)
{
	char *cmd = ks_asprintf("cd '%s' && find results -printf '%%p %%s %%T@\\n' | sort > snap.txt", kt_tmpdir());
	KT_EQ_INT(system(cmd), 0);
	ks_free(cmd);
	return slurp("snap.txt");
}

static void put_status(const char *name, const char *state, int index, int count, long pid, const char *host,
		       double age, const char *team)
{
	char *text, *path = ks_asprintf("results/%s", name);
	double now = (double)time(NULL);
	text = ks_asprintf("{\"schema\": \"kscore.batch-status/1\", \"state\": \"%s\", \"shard\": {\"index\": %d, "
			   "\"count\": %d}, \"pid\": %ld, \"host\": \"%s\", \"started_epoch\": %.0f, "
			   "\"updated_epoch\": %.0f, \"updated_at\": \"x\", \"heartbeat_seconds\": 30, \"teams\": "
			   "[\"%s\"], \"done\": 0, \"scored\": 0, \"kernels\": 0, \"scoring_seconds\": 0}",
			   state, index, count, pid, host, now - age - 60, now - age, team);
	put(path, text);
	ks_free(text);
	ks_free(path);
}

static void test_status_reads_the_results_and_changes_nothing(void)
{
	char *before, *after, *lock, host[256] = "";
	cJSON *st, *rec;
	pid_t dead;
	int fd;
	if (!have_git())
		KT_SKIP("git is not installed");
	make_three();
	/* before any run: every team to do, no run known */
	KT_EQ_INT(batch("--status m.json"), 0);
	KT_CONTAINS(g_out, "3 teams: 0 scored, 0 late, 0 failed, 3 still to do");
	KT_CONTAINS(g_out, "no run has written its status");
	KT_ASSERT(!exists("results"));
	KT_EQ_INT(batch("--compile-only m.json"), 1);
	/* the run's own status file: finished, its teams and kernels */
	rec = json_file("results/.status.json");
	KT_EQ_STR(gets_(rec, "schema"), "kscore.batch-status/1");
	KT_EQ_STR(gets_(rec, "state"), "finished");
	KT_EQ_INT(cJSON_GetArraySize(get(rec, "teams")), 3);
	KT_EQ_INT(get(rec, "done")->valuedouble, 3);
	KT_EQ_INT(get(rec, "scored")->valuedouble, 2);
	KT_EQ_INT(get(rec, "failed")->valuedouble, 1);
	KT_ASSERT(get(rec, "kernels")->valuedouble >= 4);
	cJSON_Delete(rec);

	/* while another batch holds the lock, and without writing anything */
	before = snapshot();
	lock = tmp("results/.lock");
	fd = open(lock, O_RDWR);
	KT_ASSERT(fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0);
	KT_EQ_INT(batch("--status m.json"), 0);
	KT_CONTAINS(g_out, "3 teams: 2 scored, 0 late, 1 failed, 0 still to do");
	KT_CONTAINS(g_out, "whole batch: finished, 3 of 3 teams done");
	KT_CONTAINS(g_out, "kernels per minute");
	KT_EQ_INT(batch("--status --json m.json"), 0);
	KT_ASSERT(ks_json_parse(&st, g_out, strlen(g_out), 16, "status") == 0);
	KT_EQ_STR(gets_(st, "schema"), "kscore.batch-progress/1");
	KT_EQ_INT(get(get(st, "teams"), "to_do")->valuedouble, 0);
	KT_EQ_INT(get(get(st, "teams"), "failed")->valuedouble, 1);
	KT_EQ_STR(gets_(cJSON_GetArrayItem(get(st, "runs"), 0), "state"), "finished");
	cJSON_Delete(st);
	flock(fd, LOCK_UN);
	close(fd);
	ks_free(lock);
	after = snapshot();
	KT_EQ_STR(after, before);
	ks_free(before);
	ks_free(after);

	/* shards: one killed (its process is gone), one silent on another node, one alive */
	dead = fork();
	if (dead == 0)
		_exit(0);
	waitpid(dead, NULL, 0);
	gethostname(host, sizeof(host) - 1);
	put_status(".status-shard-0-of-3.json", "running", 0, 3, (long)dead, host, 5, "delta");
	put_status(".status-shard-1-of-3.json", "running", 1, 3, 1, "another-node", 600, "echo");
	put_status(".status-shard-2-of-3.json", "running", 2, 3, (long)getpid(), host, 5, "foxtrot");
	KT_EQ_INT(batch("--status m.json"), 0);
	KT_CONTAINS(g_out, "6 teams: 2 scored, 0 late, 1 failed, 3 still to do");
	KT_CONTAINS(g_out, "shard 0/3: gone (process");
	KT_CONTAINS(g_out, "is not running");
	KT_CONTAINS(g_out, "shard 1/3: gone (no heartbeat for ");
	KT_CONTAINS(g_out, "shard 2/3: running");
	/* with other modes it is a usage error */
	KT_EQ_INT(batch("--status --shard 0/2 m.json"), 64);
}

static const kt_test tests[] = {
	KT(test_status_reads_the_results_and_changes_nothing),
	{ NULL, NULL }
};

KT_MAIN("batch_status", tests)
