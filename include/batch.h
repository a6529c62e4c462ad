/* batch: `score batch`, scoring every team of a hackathon from its git repository (DESIGN §7;
 * the manifest, deadline, resume and ranking rules are in docs/batch.md).
 *
 * A manifest lists teams (a repository, a ref and the submission's path or pattern), or names one
 * repository whose pull-request heads are the teams. For each team the repository is fetched into
 * a cache (repos.h), the newest commit at or before the deadline is chosen, the submission is read
 * from that commit's tree and scored by one shared ks_pipeline into <out>/<team>/, and
 * <out>/<team>/batch.json records where it came from. <out>/leaderboard.json and .csv rank the
 * teams after every team. A team that cannot be scored is recorded with its reason and the batch
 * goes on; a batch that is stopped at any point resumes without re-scoring what it finished. */
#ifndef KS_BATCH_H
#define KS_BATCH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "repos.h"

#define KS_BATCH_NO_DEADLINE INT64_MIN

typedef struct {
	char *name;           /* shown in score.json, the leaderboard and uploads */
	char *folder;         /* <out>/<folder>/: the name made safe for a folder, unique */
	char *repo;           /* location as given (may hold credentials: print ks_repo_redact) */
	char *ref;            /* branch, tag, commit id or full ref; "HEAD": the default branch */
	char *submission;     /* path or pattern in the repository; NULL: the manifest's default */
	unsigned long pull;   /* pull-request number; 0 outside pull-request mode */
	char *head_subject;   /* pull-request mode: the head commit's subject */
} ks_batch_team;

typedef struct {
	int64_t deadline;     /* seconds since the epoch; KS_BATCH_NO_DEADLINE when not given */
	char *submission;     /* the default path or pattern; NULL when not given */
	ks_batch_team *teams;
	size_t nteams;
	/* pull-request mode ("pull_requests" in the manifest or --pull-requests) */
	char *pull_repo;
	char **map_numbers, **map_number_names;  /* pull-request number (decimal) -> team name */
	size_t nmap_numbers;
	char **map_subjects, **map_subject_names; /* head subject -> team name */
	size_t nmap_subjects;
	unsigned long *exclude;                   /* pull requests not to score */
	size_t nexclude;
} ks_batch_manifest;

/* Parses a manifest ("kscore.batch/1", docs/batch.md). `name` names it in messages; relative
 * local repository paths are taken relative to `dir` (the manifest's folder). Unknown keys are an
 * error (keys starting with '_' are comments). A manifest has "teams" or "pull_requests", not
 * both; team names must be unique as folders. Fails with KS_EINVALID, naming the key and the
 * team. Caller frees with ks_batch_manifest_free. */
int ks_batch_manifest_parse(ks_batch_manifest **out, const char *text, size_t len, const char *name,
			    const char *dir);

/* Reads and parses a manifest file (KS_ENOTFOUND / KS_EIO when it cannot be read). */
int ks_batch_manifest_load(ks_batch_manifest **out, const char *path);

/* An empty manifest (no deadline, no teams), for pull-request mode without a manifest file. */
ks_batch_manifest *ks_batch_manifest_new(void);

/* Pull-request mode: adds one team per pull request, in the order given, except excluded ones.
 * A team is named by the manifest's maps (by number first, then by head subject), else by its
 * head commit's subject (control characters become spaces, runs of spaces one, at most 128
 * bytes; "pr-N" when empty). Two pull requests with the same folder name: the later one becomes
 * "<name> #N" in folder "<folder>-prN", with a warning on `warn` (may be NULL). */
void ks_batch_add_pull_teams(ks_batch_manifest *m, const ks_repo_pull *prs, size_t n, FILE *warn);

void ks_batch_manifest_free(ks_batch_manifest *m);

/* Parses an RFC 3339 time, "2025-08-24T23:59:59Z" or with an offset "+02:00" / "-0500" (a space
 * may replace the 'T'; no fractions). KS_EINVALID with a message otherwise. */
int ks_batch_parse_time(int64_t *out, const char *text);

/* Formats t as "YYYY-MM-DDTHH:MM:SSZ" (UTC) into out[32]. */
void ks_batch_format_time(char out[32], int64_t t);

/* The folder name of a team name: letters, digits, '-' and '_' kept, every other byte (spaces,
 * dots, slashes, UTF-8) becomes '_', runs of '_' become one, no leading '-' or '_', at most 64
 * bytes; "team" when nothing is left; names starting with "leaderboard" get a "team-" prefix so
 * that they cannot collide with the leaderboard files. Caller frees. */
char *ks_batch_folder_name(const char *name);

/* One leaderboard line. */
typedef struct {
	char *team, *folder;
	char *status;          /* "scored", "failed", "not_scored" (never processed), "incomplete" */
	char *reason;          /* why it failed; NULL otherwise */
	char *mode;            /* "gpu", "compile-only"; NULL without a result */
	char *commit;          /* NULL when none was chosen */
	int has_result;        /* a complete result folder exists */
	int gpu;               /* its result was measured on a GPU */
	double score;          /* summary.score; NaN when absent */
	double exec_accuracy, call_accuracy, compile_accuracy; /* NaN when absent */
	long kernels, suspicious;
	int64_t commit_time;   /* KS_BATCH_NO_DEADLINE when none */
	size_t rank;           /* 1-based, set by ks_batch_rank */
} ks_batch_row;

/* Sorts rows by the ranking rule and numbers them 1..n (docs/batch.md):
 *  1. results measured on a GPU, then compile-only results, then teams without a result;
 *  2. GPU results: summary.score (a present score beats an absent one), then exec accuracy, then
 *     call accuracy, each higher first; compile-only results: compile accuracy, higher first;
 *  3. the earlier commit time (the team that got there first);
 *  4. the team name, then the folder name, bytewise: folders are unique, so the order is total
 *     and no two teams share a rank. */
void ks_batch_rank(ks_batch_row *rows, size_t n);

/* Reads a team's line from <out_dir>/<folder>/batch.json and score.json ("not_scored" when there
 * is no batch.json). Never fails; caller frees with ks_batch_row_clear. */
void ks_batch_row_load(ks_batch_row *row, const char *out_dir, const ks_batch_team *t);
void ks_batch_row_clear(ks_batch_row *row);

/* Writes <out_dir>/leaderboard.json and leaderboard.csv (each atomically) from ranked rows. */
int ks_batch_leaderboard_write(const char *out_dir, const ks_batch_row *rows, size_t n,
			       int64_t deadline);

/* score batch [OPTIONS] [MANIFEST]. argv[0] is the subcommand's name ("batch"), so `score` calls
 * ks_batch_main(argc - 1, argv + 1). Exit codes: 0 every team scored (or already scored), 1 some
 * teams could not be scored (each is recorded with its reason), 3 no GPU (compile-only results),
 * 64 usage, 65 manifest invalid, 69 --require-gpu without a usable GPU, 74 results or the cache
 * not writable, 78 upload configuration unusable. */
int ks_batch_main(int argc, char **argv);

#endif
