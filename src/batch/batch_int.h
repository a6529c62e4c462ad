/* batch_int: the insides of a batch run, shared by its files only:
 *   batch.c         the run: teams, results folder, locks, the loop, Slurm, report
 *   batch_team.c    one team: fetch (once per repository), commit, file, queued for scoring, its
 *                   batch.json and leaderboard line as soon as it is scored
 *   batch_status.c  the run's status file, and `--status`, which reads the results folder
 * Everything a run owns lives in one bt_batch, passed to every function; names are bt_<what>.
 *
 * Teams are fetched and read one after the other in the calling thread and queued into the
 * session's one queue (pipeline.h), a few ahead of the lanes; each team's results are written, in
 * the session's finisher thread, as soon as its own kernels are done. What both threads touch (the
 * counts, the rows, the report, the lines on stderr, the leaderboard, the status file) is under
 * bt_batch's mu. */
#ifndef KS_BATCH_INT_H
#define KS_BATCH_INT_H

#include <pthread.h>
#include <stddef.h>
#include <cJSON.h>
#include "batch/batch.h"
#include "batch/leaderboard.h"
#include "batch/manifest.h"
#include "report/outdir.h"
#include "session/pipeline.h"
#include "batch/repos.h"
#include "upload/upload_setup.h"

#define BT_MAX_RECORD_BYTES (1024u << 20)

/* A repository, opened and fetched once per run however many teams use it. */
typedef struct {
	char *location;       /* canonical (ks_repo_locate): one slot however a manifest writes it */
	ks_repo *repo;        /* NULL when it could not be opened */
	char *error;          /* why it cannot be used (open or fetch failed, nothing cached) */
	const char *reason;   /* the reason code that goes with error */
	char *warning;        /* the fetch failed but an earlier fetch is in the cache, or what the
			       * repository lacks: in every team's record, printed once a batch */
	int warned;           /* the warning was printed (b->mu held) */
} bt_repo_slot;

typedef struct {
	ks_batch_options o;
	ks_scoreopts so;                  /* o.so, with the upload log hook set */
	int *in_shard;                    /* per team: 1 when this run's shard holds it */
	int shard_lock_fd, lock_fd;

	ks_manifest *m;
	ks_pipeline *pl;
	ks_upload_setup *up;
	char *cache, *compile_cache, *refs;
	char problems_sha[65];
	const char *mode;                 /* "gpu" or "compile-only" */
	bt_repo_slot **slots;             /* each allocated on its own: outcomes point at them */
	size_t nslots;
	ks_leaderboard_row *rows;         /* in manifest order */
	size_t ndone, ntodo, nscored, nskipped, nfailed, nlate;
	cJSON *jteams;                    /* the --json report's teams */
	/* the teams in the session's queue */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	size_t inflight, ahead;           /* teams queued and not written yet; the most at once */
	char *fatal;                      /* a team's results could not be written: the batch stops */
	double t_start, t_first;          /* the run's start; when its first team was queued */
	size_t kernels;                   /* kernels of the teams scored in this run */
	size_t nstarted;                  /* teams the calling thread has taken up */
	const ks_manifest_team *prog_team;/* what the progress line is about */
	const char *prog_stage;
	struct bt_upload *uploads;        /* scored teams to upload (by the calling thread) */
	/* the status file (batch_status.c) */
	char *status_path;
	pthread_t heartbeat;
	int heartbeat_on, stopping;
} bt_batch;

/* The repository of a location, opened and (unless --no-fetch) fetched on first use. */
bt_repo_slot *bt_get_repo(bt_batch *b, const char *location);
void bt_slots_free(bt_batch *b);

/* The team's submission paths or patterns: its own, else the manifest's default. */
const ks_manifest_paths *bt_team_paths(const bt_batch *b, const ks_manifest_team *t);

/* <out>/<folder>. Caller frees. */
char *bt_team_dir(const bt_batch *b, const ks_manifest_team *t);

/* The rule for a team's folder (outdir.h): kscore's to replace, never an input. in[] holds the
 * inputs and must outlive *oo. */
void bt_team_outdir(const bt_batch *b, ks_outdir_options *oo, const char *in[4]);

/* Fetches, chooses the commit and reads team idx. A team to be scored is queued into the session
 * (it is finished later, in the finisher thread: its batch.json written, its line printed, its
 * leaderboard row reloaded, the leaderboard written); any other (failed, late, already scored) is
 * finished here. Fails (message set) only when the results cannot be written; a team queued whose
 * results cannot be written sets b->fatal. */
int bt_process_team(bt_batch *b, size_t idx);

/* Uploads the teams scored since the last call (in the calling thread, never the finisher). */
void bt_drain_uploads(bt_batch *b);
void bt_uploads_free(bt_batch *b);

/* Ranks the rows and writes the leaderboard (b->mu held, or no other thread running). */
int bt_write_leaderboard(bt_batch *b);

void bt_progress_clear(const bt_batch *b);

/* batch_file.c: what a commit holds beside the submission pattern.
 * 1 when a file is GEAK-eval's result by its name (<out>_results_<pass>.json, _perf_,
 * _all_passes.json, passk.txt) or by its JSON (entries with pass_num / call_status / exec_status
 * and no "predict", or a speed_up and efficiency summary): an evaluation's output, not answers. */
int bt_geak_name(const char *path);
int bt_geak_content(const char *data, size_t len);
/* GEAK-eval's result files of commit id, at most 4 (*paths: caller frees with ks_free_strv). */
int bt_geak_list(char ***paths, size_t *n, ks_repo *r, const char *id);
/* When no file matched `spec`: the submission-shaped files of commit id that it does not reach
 * (its file names in any folder, or the hackathon's default patterns; GEAK's result files left
 * out), named with the pattern that finds them and how to give it. NULL when there are none.
 * Caller frees. */
char *bt_files_elsewhere(ks_repo *r, const char *id, const ks_manifest_paths *spec);

/* The status file OUT/.status.json (OUT/.status-shard-I-of-N.json for a shard): what this run is
 * doing, for `score batch --status` (b->mu held). state: "running", "finished" or "failed". */
/* The name of this run's status file in the results folder (a shard's own, or the batch's).
 * Caller frees. */
char *bt_status_name(const bt_batch *b);
void bt_status_write(bt_batch *b, const char *state);

/* Starts (and bt_status_stop stops) a thread that rewrites the status file every
 * KS_BATCH_HEARTBEAT_S seconds while the run goes on, so a reader can tell a run that is alive. */
void bt_status_start(bt_batch *b);
void bt_status_stop(bt_batch *b, const char *state);

/* --status: prints what the results folder says (teams scored, late, failed and to do, kernels per
 * minute, the time left, each run's state). Reads only; returns an exit code. */
int bt_status_report(bt_batch *b);

#endif
