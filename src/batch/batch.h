/* batch: the run engine of `score batch` (DESIGN §7; docs/batch.md), scoring every team of a
 * hackathon from its git repository. The command (src/cli/cmd_batch.c) parses the options; the
 * manifest is manifest.h's, the ranking leaderboard.h's, the repositories repos.h's.
 *
 * For each team the repository is fetched into a cache, the newest commit at or before the
 * deadline is chosen, the submission is read from that commit's tree and scored by one shared
 * ks_pipeline into <out>/<team>/, and <out>/<team>/batch.json records where it came from.
 * <out>/leaderboard.json and .csv rank the teams after every team. A team that cannot be scored
 * is recorded with its reason and the batch goes on; a batch that is stopped at any point resumes
 * without re-scoring what it finished. */
#ifndef KS_BATCH_H
#define KS_BATCH_H

#include <stddef.h>
#include <stdio.h>
#include "batch/leaderboard.h"
#include "batch/manifest.h"
#include "session/scoreopts.h"
#include "batch/shard.h"

#define KS_BATCH_DEFAULT_OUT "results"  /* --out */
#define KS_BATCH_DEFAULT_MAX_SHARDS 16  /* --slurm without --shards: one shard per team, at most this */
#define KS_BATCH_HEARTBEAT_S 30         /* a running batch rewrites its status file at least this often */

typedef struct {
	ks_scoreopts so;              /* scoring and upload options, finished (ks_scoreopts_finish) */
	const char *out;              /* the results folder */
	const char *manifest_path;    /* NULL: pull-request mode from the command line alone */
	/* command-line overrides of the manifest (NULL, 0 or -1: not given) */
	const char *pull_repo, *deadline;
	const char *base;             /* --base: the base of every pull request (pull-request mode) */
	const char *const *submissions;  /* --submission, repeated: tried in order */
	size_t nsubmissions;
	int name_from;                /* --name-from (ks_manifest_name_from), -1: the manifest's */
	const char *only_team;        /* --team: a name or folder; NULL: every team */
	int rescore, json, quiet, no_fetch;
	int no_site;                  /* --no-site: no static site in OUT/site/ (web_export) */
	/* Writes the static site of the results folder once every team is scored (the command passes
	 * the export stage's writer: the batch engine never includes the stages after it). Returns 0
	 * or -1 with the error message set; NULL: no site. */
	int (*write_site)(const char *results_dir, const char *cache_dir, FILE *log);
	int color;                    /* colour the per-team lines on stderr */
	int progress;                 /* show the progress line on stderr (a terminal) */
	/* a share of the teams (--shard), the leaderboard alone (--collect), or a Slurm job array */
	int sharded, collect, slurm, dry_run;
	int status;                   /* --status: report what the results folder says, change nothing */
	ks_shard shard;
	unsigned nshards;             /* --shards; 0: one per team, at most KS_BATCH_DEFAULT_MAX_SHARDS */
	const char *const *sbatch_opts;
	size_t nsbatch_opts;
	const char *const *job_args;  /* the command line for the Slurm jobs, without --slurm's own */
	size_t njob_args;
} ks_batch_options;

/* Runs a batch: loads the teams, checks the results folder, fetches, scores and ranks, prints
 * per-team lines and the counts on stderr and the table (or with json the kscore.batch-report/1
 * object) on stdout. Returns an exit code (cli.h): 0 every team scored (or already scored, or
 * late: no commit of its own at or before the deadline),
 * KS_EXIT_SOME some teams could not be scored (each is recorded), KS_EXIT_NO_GPU compile-only
 * results without --compile-only, KS_EXIT_USAGE, KS_EXIT_DATAERR (manifest or problems),
 * KS_EXIT_UNAVAILABLE, KS_EXIT_CANTCREAT (a folder that is not kscore's), KS_EXIT_IOERR,
 * KS_EXIT_CONFIG (upload configuration). */
int ks_batch_run(const ks_batch_options *o);

#endif
