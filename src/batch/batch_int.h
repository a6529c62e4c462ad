/* batch_int: the insides of a batch run, shared by its two files only:
 *   batch.c       the run: teams, results folder, locks, the loop, leaderboard, Slurm, report
 *   batch_team.c  one team: fetch (once per repository), commit, file, score, its batch.json
 * Everything a run owns lives in one bt_batch, passed to every function; names are bt_<what>. */
#ifndef KS_BATCH_INT_H
#define KS_BATCH_INT_H

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
	char *warning;        /* the fetch failed but an earlier fetch is in the cache */
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
	double scored_s;                  /* time spent on teams that were scored, for the ETA */
	size_t nscored_timed;
	cJSON *jteams;                    /* the --json report's teams */
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

/* Fetches, chooses the commit, reads and scores team idx, writes its batch.json, prints its line
 * and reloads its leaderboard row. Fails (message set) only when the results cannot be written. */
int bt_process_team(bt_batch *b, size_t idx);

void bt_progress_clear(const bt_batch *b);

#endif
