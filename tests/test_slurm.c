/* Tests of the shard assignment and the Slurm scripts, then `score batch --shard/--collect` and
 * `--slurm` end to end: the last against a real single-node Slurm cluster (tests/slurm/cluster.sh),
 * skipped by name where Slurm is not installed. */
#include "ktest.h"
#include "batchtest.h"
#include "util/errors.h"
#include "util/fsutil.h"
#include "util/jsonutil.h"
#include "util/mem.h"
#include "batch/shard.h"
#include "batch/slurm.h"

#include <signal.h>
#include <stdarg.h>
#include <sys/stat.h>

static void test_shard_parse(void)
{
	ks_shard s;
	KT_EQ_INT(ks_shard_parse(&s, "0/4"), 0);
	KT_EQ_INT(s.index, 0);
	KT_EQ_INT(s.count, 4);
	KT_EQ_INT(ks_shard_parse(&s, "9999/10000"), 0);
	KT_ASSERT(ks_shard_parse(&s, "4/4") < 0);
	KT_CONTAINS(ks_error_msg(), "below N");
	KT_ASSERT(ks_shard_parse(&s, "0/0") < 0);
	KT_ASSERT(ks_shard_parse(&s, "-1/4") < 0);
	KT_ASSERT(ks_shard_parse(&s, "1/") < 0);
	KT_ASSERT(ks_shard_parse(&s, "/3") < 0);
	KT_ASSERT(ks_shard_parse(&s, "1/3x") < 0);
	KT_ASSERT(ks_shard_parse(&s, " 1/3") < 0);
	KT_ASSERT(ks_shard_parse(&s, "99999999999/3") < 0);
	KT_ASSERT(ks_shard_parse(&s, "1/10001") < 0);
	KT_ASSERT(ks_shard_parse(&s, NULL) < 0);
}

/* Every key lands in exactly one shard, shares differ by at most one, and the assignment does
 * not depend on the order the keys come in. */
static void test_shard_select_partitions_stably(void)
{
	const char *keys[] = { "delta", "alpha", "echo", "charlie", "bravo", "golf", "foxtrot" };
	const char *rev[] = { "foxtrot", "golf", "bravo", "charlie", "echo", "alpha", "delta" };
	size_t n = 7, i, j;
	unsigned k;
	int seen[7] = { 0 }, in[7], in2[7];
	for (k = 0; k < 3; k++) {
		ks_shard s = { k, 3 };
		size_t count = 0;
		ks_shard_select(in, keys, n, s);
		ks_shard_select(in2, rev, n, s);
		for (i = 0; i < n; i++) {
			count += (size_t)in[i];
			seen[i] += in[i];
			for (j = 0; j < n; j++)
				if (!strcmp(keys[i], rev[j]))
					KT_ASSERT_MSG(in[i] == in2[j], "%s changes shard with the order", keys[i]);
		}
		KT_ASSERT_MSG(count == 2 || count == 3, "shard %u has %zu teams", k, count);
	}
	for (i = 0; i < n; i++)
		KT_EQ_INT(seen[i], 1);
	/* sorted round-robin: alpha (1st) in shard 0, bravo (2nd) in shard 1 */
	{
		ks_shard s1 = { 1, 3 };
		ks_shard_select(in, keys, n, s1);
		KT_EQ_INT(in[4], 1);  /* bravo */
		KT_EQ_INT(in[1], 0);  /* alpha */
	}
}

static void test_scripts_quote_and_depend(void)
{
	const char *args[] = { "/srv/teams.json", "--out", "/srv/res", "--team", "O'Brien; rm -rf /" };
	const char *opts[] = { "--partition=gpu", "--time=02:00:00" };
	ks_slurm_options o = KS_SLURM_OPTIONS_INIT;
	char *a = NULL, *c = NULL;
	o.score_bin = "/opt/kscore/bin/score";
	o.workdir = "/srv";
	o.script_dir = "/srv/res/slurm";
	o.batch_args = args;
	o.nbatch_args = 5;
	o.sbatch_opts = opts;
	o.nsbatch_opts = 2;
	o.shards = 4;
	KT_EQ_INT(ks_slurm_scripts(&a, &c, &o), 0);
	KT_ASSERT(!strncmp(a, "#!/bin/sh\n", 10));
	KT_CONTAINS(a, "#SBATCH --array=0-3\n");
	KT_CONTAINS(a, "#SBATCH --gres=gpu:1\n");
	KT_CONTAINS(a, "#SBATCH --chdir=/srv\n");
	KT_CONTAINS(a, "#SBATCH --output=/srv/res/slurm/shard-%a.log\n");
	KT_CONTAINS(a, "#SBATCH --partition=gpu\n#SBATCH --time=02:00:00\n");
	KT_CONTAINS(a, "exec '/opt/kscore/bin/score' batch '/srv/teams.json' '--out' '/srv/res' '--team' "
		    "'O'\\''Brien; rm -rf /' --no-fetch --shard \"$SLURM_ARRAY_TASK_ID/4\"\n");
	KT_NOT_CONTAINS(c, "--array");
	KT_NOT_CONTAINS(c, "--gres");
	KT_CONTAINS(c, "#SBATCH --partition=gpu\n");
	KT_CONTAINS(c, "#SBATCH --output=/srv/res/slurm/collect.log\n");
	KT_CONTAINS(c, " --no-fetch --collect\n");
	ks_free(a);
	ks_free(c);

	o.gpus = -1;
	KT_EQ_INT(ks_slurm_scripts(&a, &c, &o), 0);
	KT_CONTAINS(a, "#SBATCH --exclusive\n");
	KT_NOT_CONTAINS(a, "--gres");
	ks_free(a);
	ks_free(c);
	o.gpus = 0;
	KT_EQ_INT(ks_slurm_scripts(&a, &c, &o), 0);
	KT_NOT_CONTAINS(a, "--gres");
	KT_NOT_CONTAINS(a, "--exclusive");
	ks_free(a);
	ks_free(c);
}

static void test_scripts_refuse_what_sbatch_would_misread(void)
{
	const char *bad_opt[] = { "--partition=gpu\n#SBATCH --uid=0" };
	const char *not_opt[] = { "partition=gpu" };
	ks_slurm_options o = KS_SLURM_OPTIONS_INIT;
	char *a = NULL, *c = NULL;
	o.score_bin = "/bin/score";
	o.workdir = "/srv";
	o.script_dir = "/srv/res/slurm";
	o.sbatch_opts = bad_opt;
	o.nsbatch_opts = 1;
	KT_ASSERT(ks_slurm_scripts(&a, &c, &o) < 0);
	KT_CONTAINS(ks_error_msg(), "control character");
	KT_ASSERT(a == NULL && c == NULL);
	o.sbatch_opts = not_opt;
	KT_ASSERT(ks_slurm_scripts(&a, &c, &o) < 0);
	KT_CONTAINS(ks_error_msg(), "starts with '-'");
	o.nsbatch_opts = 0;
	o.workdir = "relative/dir";
	KT_ASSERT(ks_slurm_scripts(&a, &c, &o) < 0);
	KT_CONTAINS(ks_error_msg(), "absolute");
	o.workdir = "/srv/with space";
	KT_ASSERT(ks_slurm_scripts(&a, &c, &o) < 0);
	o.workdir = "/srv";
	o.shards = 0;
	KT_ASSERT(ks_slurm_scripts(&a, &c, &o) < 0);
}

static void test_submit_without_sbatch(void)
{
	ks_slurm_jobs j;
	setenv("PATH", kt_tmpdir(), 1);
	KT_EQ_INT(ks_slurm_submit(&j, "/nonexistent/a.sh", "/nonexistent/c.sh"), KS_EUNSUPPORTED);
	KT_CONTAINS(ks_error_msg(), "sbatch not found");
	KT_ASSERT(j.array_id == NULL);
}

/* A stand-in sbatch that records its arguments shows the dependency wiring and the id parsing
 * (cluster ids "id;cluster" included); the real cluster comes below. */
static void test_submit_wires_the_dependency(void)
{
	char path[8800], log[4400], buf[512] = "";
	ks_slurm_jobs j;
	FILE *f;
	snprintf(log, sizeof(log), "%s/calls", kt_tmpdir());
	snprintf(path, sizeof(path), "#!/bin/sh\necho \"$@\" >> '%s'\n"
		 "case \"$*\" in *dependency*) echo '78;clusterA' ;; *) echo 77 ;; esac\n", log);
	kt_write("sbatch", path, strlen(path));
	snprintf(path, sizeof(path), "%s/sbatch", kt_tmpdir());
	chmod(path, 0755);
	setenv("PATH", kt_tmpdir(), 1);
	KT_EQ_INT(ks_slurm_submit(&j, "/x/array.sh", "/x/collect.sh"), 0);
	KT_EQ_STR(j.array_id, "77");
	KT_EQ_STR(j.collect_id, "78");
	f = fopen(log, "r");
	KT_ASSERT(f);
	KT_ASSERT(fread(buf, 1, sizeof(buf) - 1, f) > 0);
	fclose(f);
	KT_EQ_STR(buf, "--parsable /x/array.sh\n--parsable --dependency=afterany:77 /x/collect.sh\n");
	ks_slurm_jobs_clear(&j);

	snprintf(path, sizeof(path), "#!/bin/sh\necho 'sbatch: error: invalid partition' >&2\nexit 1\n");
	kt_write("sbatch", path, strlen(path));
	KT_ASSERT(ks_slurm_submit(&j, "/x/array.sh", "/x/collect.sh") < 0);
	KT_CONTAINS(ks_error_msg(), "invalid partition");
	ks_slurm_jobs_clear(&j);
}

/* ---- end to end: the score binary on real git repositories ---- */

/* Five teams, each a repository with one submission before the deadline; manifest.json. */
static void make_teams(void)
{
	const char *names[] = { "alpha", "bravo", "charlie", "delta", "echo" };
	char *m = ks_strdup("{\"schema\": \"kscore.batch/1\", \"deadline\": \"2025-08-24T23:59:59Z\", "
			    "\"submission\": \"sub.json\", \"teams\": [");
	size_t i;
	for (i = 0; i < 5; i++) {
		char *next;
		sh("mkdir -p repos/%s && cd repos/%s && git -c init.defaultBranch=main init -q . && "
		   "cp '%s/tests/fixtures/cli/%s' sub.json && git add -A && "
		   "GIT_AUTHOR_DATE=2025-08-20T10:00:00Z GIT_COMMITTER_DATE=2025-08-20T10:00:00Z "
		   "git commit -q -m 'submission'", names[i], names[i], root(), i % 2 ? "sub.json" : "good.json");
		next = ks_asprintf("%s%s{\"name\": \"%s\", \"repo\": \"repos/%s\"}", m, i ? ", " : "",
				   names[i], names[i]);
		ks_free(m);
		m = next;
	}
	{
		char *full = ks_asprintf("%s]}\n", m);
		kt_write("manifest.json", full, strlen(full));
		ks_free(full);
	}
	ks_free(m);
}

/* batch() with environment assignments env (may be NULL) in front, its output left in
 * stdout.txt and stderr.txt. */
static int run_batch(const char *env, const char *args)
{
	char *b = bin(), *cmd = ks_asprintf("cd '%s' && %s XDG_CACHE_HOME='%s/cache' HOME='%s' '%s' batch --refs "
					     "'%s/tests/fixtures/problems' %s >stdout.txt 2>stderr.txt", kt_tmpdir(),
					     env ? env : "", kt_tmpdir(), kt_tmpdir(), b, root(), args);
	int st = system(cmd);
	ks_free(cmd);
	ks_free(b);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static const char *status_of(const cJSON *lb, const char *team)
{
	const cJSON *rows = cJSON_GetObjectItemCaseSensitive(lb, "teams"), *r;
	cJSON_ArrayForEach(r, rows) {
		const cJSON *t = cJSON_GetObjectItemCaseSensitive(r, "team");
		const cJSON *s = cJSON_GetObjectItemCaseSensitive(r, "status");
		if (cJSON_IsString(t) && !strcmp(t->valuestring, team))
			return cJSON_IsString(s) ? s->valuestring : "?";
	}
	return NULL;
}

static int team_scored(const char *team)
{
	char *rel = ks_asprintf("results/%s/batch.json", team), *text = slurp_or_null(rel);
	int ok = text && strstr(text, "\"status\":\t\"scored\"") != NULL;
	if (text && !ok)
		ok = strstr(text, "\"status\": \"scored\"") != NULL;
	ks_free(text);
	ks_free(rel);
	return ok;
}

/* Shards split the teams between them, each scoring only its own, none writing the leaderboard;
 * --collect builds it, listing a team whose shard never ran as failed; a shard run again skips
 * what it scored. */
static void test_shards_and_collect_without_a_scheduler(void)
{
	const char *teams[] = { "alpha", "bravo", "charlie", "delta", "echo" };
	int scored_by[5] = { 0 }, i, s;
	cJSON *lb;
	make_teams();
	/* fetch once, as on a login node */
	KT_EQ_INT(run_batch(NULL, "manifest.json --compile-only --shard 0/1 -q"), 0);
	sh("rm -rf results");
	for (s = 0; s < 2; s++) {
		char args[128];
		snprintf(args, sizeof(args), "manifest.json --compile-only --no-fetch --shard %d/3", s);
		KT_EQ_INT(run_batch(NULL, args), 0);
		for (i = 0; i < 5; i++)
			if (team_scored(teams[i]) && !scored_by[i])
				scored_by[i] = s + 1;
	}
	{
		char *lbp = ks_asprintf("%s/results/leaderboard.json", kt_tmpdir());
		KT_ASSERT_MSG(!ks_fs_exists(lbp), "a shard wrote the leaderboard");
		ks_free(lbp);
	}
	/* sorted round-robin over 3 shards: alpha, delta -> 0; bravo, echo -> 1; charlie -> 2 */
	KT_EQ_INT(scored_by[0], 1);
	KT_EQ_INT(scored_by[3], 1);
	KT_EQ_INT(scored_by[1], 2);
	KT_EQ_INT(scored_by[4], 2);
	KT_EQ_INT(scored_by[2], 0);

	KT_EQ_INT(run_batch(NULL, "manifest.json --compile-only --collect --json"), 1);
	lb = json_file("results/leaderboard.json");
	KT_EQ_STR(status_of(lb, "alpha"), "scored");
	KT_EQ_STR(status_of(lb, "charlie"), "failed");
	cJSON_Delete(lb);
	{
		char *csv = slurp("results/leaderboard.csv");
		KT_ASSERT(csv);
		KT_CONTAINS(csv, "not_scored");
		ks_free(csv);
	}

	/* shard 2 now runs; shard 0 again skips what it has */
	KT_EQ_INT(run_batch(NULL, "manifest.json --compile-only --no-fetch --shard 2/3"), 0);
	KT_ASSERT(team_scored("charlie"));
	KT_EQ_INT(run_batch(NULL, "manifest.json --compile-only --no-fetch --shard 0/3"), 0);
	{
		char *err = slurp("stderr.txt");
		KT_CONTAINS(err, "2 already scored");
		ks_free(err);
	}
	KT_EQ_INT(run_batch(NULL, "manifest.json --compile-only --collect"), 0);
	lb = json_file("results/leaderboard.json");
	KT_EQ_STR(status_of(lb, "charlie"), "scored");
	cJSON_Delete(lb);
	/* usage errors */
	KT_EQ_INT(run_batch(NULL, "manifest.json --shard 3/3"), 64);
	KT_EQ_INT(run_batch(NULL, "manifest.json --shard 0/2 --collect"), 64);
	KT_EQ_INT(run_batch(NULL, "manifest.json --dry-run"), 64);
	KT_EQ_INT(run_batch(NULL, "manifest.json --shards 2"), 64);
}

static void test_slurm_dry_run_prints_the_scripts(void)
{
	char *out;
	make_teams();
	KT_EQ_INT(run_batch(NULL, "manifest.json --compile-only --slurm --shards 2 --dry-run "
			    "--slurm-option=--partition=debug --slurm-option --time=10"), 0);
	out = slurp("stdout.txt");
	KT_ASSERT(out);
	KT_CONTAINS(out, "#SBATCH --array=0-1\n");
	KT_CONTAINS(out, "#SBATCH --partition=debug\n#SBATCH --time=10\n");
	KT_CONTAINS(out, "'manifest.json' '--compile-only' --no-fetch --shard \"$SLURM_ARRAY_TASK_ID/2\"");
	KT_CONTAINS(out, "--no-fetch --collect\n");
	KT_NOT_CONTAINS(out, "--gres");         /* compile-only shards need no GPU */
	KT_NOT_CONTAINS(out, "'--slurm");       /* none of --slurm's own options reach the jobs */
	KT_NOT_CONTAINS(out, "'--dry-run'");
	KT_NOT_CONTAINS(out, "'--shards'");
	KT_NOT_CONTAINS(out, "'--time=10'");
	ks_free(out);
	/* --devices: a whole node per shard for all, enough GPUs for a list */
	KT_EQ_INT(run_batch(NULL, "manifest.json --slurm --shards 2 --dry-run --devices all"), 0);
	out = slurp("stdout.txt");
	KT_CONTAINS(out, "#SBATCH --exclusive\n#SBATCH --nodes=1\n");
	KT_NOT_CONTAINS(out, "--gres");
	KT_CONTAINS(out, "'--devices' 'all'");
	ks_free(out);
	KT_EQ_INT(run_batch(NULL, "manifest.json --slurm --shards 2 --dry-run --devices 0,2"), 0);
	out = slurp("stdout.txt");
	KT_CONTAINS(out, "#SBATCH --gres=gpu:3\n");
	ks_free(out);
	{
		char *p = ks_asprintf("%s/results/slurm/shards.sh", kt_tmpdir());
		KT_ASSERT_MSG(!ks_fs_exists(p), "--dry-run wrote the scripts");
		ks_free(p);
	}
}

static char g_cluster[4200];

static void cluster_stop(void)
{
	char cmd[8600];
	if (!g_cluster[0])
		return;
	snprintf(cmd, sizeof(cmd), "sh '%s/tests/slurm/cluster.sh' stop '%s' >/dev/null 2>&1", root(),
		 g_cluster);
	if (system(cmd) != 0)
		fprintf(stderr, "warning: could not stop the Slurm cluster in %s\n", g_cluster);
	g_cluster[0] = 0;
}

static void on_alarm(int sig)
{
	(void)sig;
	cluster_stop();
	_exit(1);
}

/* Waits until none of the jobs is queued or running. */
static void wait_jobs(const char *env, const char *ids)
{
	int i;
	for (i = 0; i < 600; i++) {
		char cmd[8800];
		snprintf(cmd, sizeof(cmd), "cd '%s' && %s squeue -h -j %s 2>/dev/null | grep -q .",
			 kt_tmpdir(), env, ids);
		if (system(cmd) != 0)
			return;
		usleep(200000);
	}
	KT_FAIL("jobs %s did not finish in 120 s", ids);
}

static char *job_ids(void)
{
	cJSON *j = json_file("results/slurm/jobs.json");
	char *ids = ks_asprintf("%s,%s",
				cJSON_GetObjectItemCaseSensitive(j, "array_job")->valuestring,
				cJSON_GetObjectItemCaseSensitive(j, "collect_job")->valuestring);
	cJSON_Delete(j);
	return ids;
}

/* The real thing: a 3-shard array on GPUs (--gres=gpu:1; the cluster's GPUs are stand-ins, and
 * the shards fall back to compile-only), the collect job after it; one shard cancelled before it
 * ran still leaves a leaderboard that lists its teams as failed; submitting again resumes. */
static void test_slurm_cluster_array_collect_and_resume(void)
{
	char env[4400], *cmd, *ids, *text;
	const char *teams[] = { "alpha", "bravo", "charlie", "delta", "echo" };
	cJSON *lb;
	int rc, i;

	snprintf(g_cluster, sizeof(g_cluster), "%s/cluster", kt_tmpdir());
	cmd = ks_asprintf("sh '%s/tests/slurm/cluster.sh' start '%s' >'%s.out' 2>&1", root(), g_cluster,
			  g_cluster);
	rc = system(cmd);
	ks_free(cmd);
	if (WIFEXITED(rc) && WEXITSTATUS(rc) == 77) {
		g_cluster[0] = 0;
		KT_SKIP("Slurm is not installed (slurmctld, slurmd, slurm-client, munge)");
	}
	atexit(cluster_stop);
	signal(SIGALRM, on_alarm);
	if (!WIFEXITED(rc) || WEXITSTATUS(rc) != 0) {
		char *why = slurp_or_null("cluster.out");
		KT_FAIL("the Slurm cluster did not start: %s", why ? why : "");
	}
	snprintf(env, sizeof(env), "SLURM_CONF='%s/slurm.conf'", g_cluster);
	make_teams();

	/* held, so that shard 1 can be cancelled before it runs */
	rc = run_batch(env, "manifest.json --slurm --shards 3 --slurm-option=--hold");
	text = slurp("stderr.txt");
	KT_ASSERT_MSG(rc == 0, "--slurm exited %d: %s", rc, text ? text : "");
	ks_free(text);
	text = slurp("stdout.txt");
	KT_CONTAINS(text, "submitted job array");
	ks_free(text);
	text = slurp("results/slurm/shards.sh");
	KT_CONTAINS(text, "#SBATCH --gres=gpu:1\n");
	ks_free(text);
	ids = job_ids();
	{
		char *arr = ks_strndup(ids, strcspn(ids, ","));
		sh("%s scancel %s_1 && %s scontrol release %s", env, arr, env, arr);
		sh("%s scontrol release %s", env, ids + strlen(arr) + 1);
		ks_free(arr);
	}
	wait_jobs(env, ids);
	ks_free(ids);
	lb = json_file("results/leaderboard.json");
	/* shard 1 holds bravo and echo */
	KT_EQ_STR(status_of(lb, "bravo"), "failed");
	KT_EQ_STR(status_of(lb, "echo"), "failed");
	KT_EQ_STR(status_of(lb, "alpha"), "scored");
	KT_EQ_STR(status_of(lb, "charlie"), "scored");
	cJSON_Delete(lb);
	text = slurp("results/slurm/shard-0.log");
	KT_ASSERT_MSG(text != NULL, "no log of shard 0");
	KT_CONTAINS(text, "shard 0/3 done");
	ks_free(text);

	/* again: shards 0 and 2 skip what they scored, shard 1 scores its teams */
	rc = run_batch(env, "manifest.json --slurm --shards 3");
	KT_EQ_INT(rc, 0);
	ids = job_ids();
	wait_jobs(env, ids);
	ks_free(ids);
	lb = json_file("results/leaderboard.json");
	for (i = 0; i < 5; i++)
		KT_ASSERT_MSG(status_of(lb, teams[i]) && !strcmp(status_of(lb, teams[i]), "scored"),
			      "%s: %s", teams[i], status_of(lb, teams[i]) ? status_of(lb, teams[i]) : "absent");
	cJSON_Delete(lb);
	text = slurp("results/slurm/shard-0.log");
	KT_CONTAINS(text, "already scored");
	ks_free(text);
	cluster_stop();
}

static const kt_test tests[] = {
	KT(test_shard_parse), KT(test_shard_select_partitions_stably), KT(test_scripts_quote_and_depend),
	KT(test_scripts_refuse_what_sbatch_would_misread), KT(test_submit_without_sbatch),
	KT(test_submit_wires_the_dependency), KT(test_shards_and_collect_without_a_scheduler),
	KT(test_slurm_dry_run_prints_the_scripts), KT(test_slurm_cluster_array_collect_and_resume), { 0 }
};
KT_MAIN("slurm", tests)
