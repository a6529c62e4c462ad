/* slurm: a batch as a Slurm job array. `score batch --slurm` writes two batch scripts into
 * OUT/slurm/ (one job array of N shards, each running `score batch ... --shard I/N --no-fetch`,
 * and one collect job running `score batch ... --collect`) and submits them with sbatch, the
 * collect job depending on the array with `afterany`, so a failed shard still yields a
 * leaderboard that lists its teams. kscore never schedules anything itself: Slurm does. */
#ifndef KS_SLURM_H
#define KS_SLURM_H

#include <stddef.h>

typedef struct {
	const char *score_bin;              /* absolute path of the score binary the jobs run */
	const char *workdir;                /* absolute; every job runs there (--chdir) */
	const char *script_dir;             /* absolute; scripts and job logs go there */
	const char *const *batch_args;      /* `score batch` arguments every job gets */
	size_t nbatch_args;
	const char *const *sbatch_opts;     /* --slurm-option values: one #SBATCH line each */
	size_t nsbatch_opts;
	unsigned shards;                    /* the array's size, 1..KS_SHARD_MAX */
	int gpus;                           /* per shard: 0 none, 1 one GPU, -1 a whole node */
	const char *job_name;               /* prefix of both jobs' names */
} ks_slurm_options;

#define KS_SLURM_OPTIONS_INIT { .shards = 1, .gpus = 1, .job_name = "kscore" }

typedef struct {
	char *array_id;    /* the job array's id, as sbatch --parsable printed it */
	char *collect_id;  /* the collect job's id */
} ks_slurm_jobs;

/* Checks an --slurm-option value: one sbatch option starting with "-", no control characters.
 * Returns 0 or KS_EINVALID with a message. */
int ks_slurm_option_check(const char *opt);

/* Writes the text of both batch scripts into *array_script and *collect_script (caller frees).
 * Every argument is quoted for the shell; nothing of the options is interpreted. Returns 0 or
 * KS_EINVALID (an option that fails ks_slurm_option_check, shards out of range). */
int ks_slurm_scripts(char **array_script, char **collect_script, const ks_slurm_options *o);

/* Submits the two scripts (paths) with the sbatch found in PATH, the collect job with
 * --dependency=afterany:<array>. Fills *out (caller clears with ks_slurm_jobs_clear). Returns 0,
 * KS_EUNSUPPORTED when sbatch is not installed, or KS_ERROR with sbatch's own message when it
 * refused a script (if the collect job is refused, the array's id is still in *out). */
int ks_slurm_submit(ks_slurm_jobs *out, const char *array_path, const char *collect_path);

void ks_slurm_jobs_clear(ks_slurm_jobs *jobs);

#endif
