/* Tests of the shard assignment and of the Slurm scripts (the cluster itself is exercised
 * end to end in test_batch_slurm.c). */
#include "ktest.h"
#include "errors.h"
#include "mem.h"
#include "shard.h"
#include "slurm.h"

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
 * (cluster ids "id;cluster" included); the real cluster is in test_batch_slurm.c. */
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

static const kt_test tests[] = {
	KT(test_shard_parse), KT(test_shard_select_partitions_stably), KT(test_scripts_quote_and_depend),
	KT(test_scripts_refuse_what_sbatch_would_misread), KT(test_submit_without_sbatch),
	KT(test_submit_wires_the_dependency), { 0 }
};
KT_MAIN("slurm", tests)
