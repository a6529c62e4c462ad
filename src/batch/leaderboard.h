/* leaderboard: the ranked teams of a batch (docs/batch.md, "Ranking rule"). A row is read back
 * from a team's result folder (batch.json and score.json), rows are ranked by one total rule, and
 * written as <out>/leaderboard.json and leaderboard.csv, or printed as a table. */
#ifndef KS_LEADERBOARD_H
#define KS_LEADERBOARD_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cJSON.h>
#include "batch/manifest.h"
#include "report/unscored.h"

/* A team's status, in batch.json, the leaderboard and the --json report. The names are stable. */
typedef enum {
	KS_LEADERBOARD_NOT_SCORED = 0, /* "not_scored": never processed (no batch.json) */
	KS_LEADERBOARD_SCORED,         /* "scored" */
	KS_LEADERBOARD_ALREADY_SCORED, /* "already_scored": a run's report only; the record says scored */
	KS_LEADERBOARD_FAILED,         /* "failed": recorded with its reason */
	KS_LEADERBOARD_INCOMPLETE,     /* "incomplete": a record without a usable status or score.json */
	KS_LEADERBOARD_LATE            /* "late": no commit of its own at or before the deadline */
} ks_leaderboard_status;

/* The stable name of a status ("scored", ...). */
const char *ks_leaderboard_status_name(ks_leaderboard_status s);

/* The status of a name; KS_LEADERBOARD_INCOMPLETE for NULL or an unknown name. */
ks_leaderboard_status ks_leaderboard_status_parse(const char *name);

/* One leaderboard line. */
typedef struct {
	char *team, *folder;
	ks_leaderboard_status status;
	char *reason;          /* why it failed; NULL otherwise */
	char *name_source;     /* batch.json's name_source ("manifest", "subject", ...); NULL if none */
	char *note;            /* named "pr-N": the head commit's subject, kept as a note; else NULL */
	char *mode;            /* "gpu", "compile-only"; NULL without a result */
	char *commit;          /* NULL when none was chosen */
	int has_result;        /* a complete result folder exists */
	int gpu;               /* its result was measured on a GPU */
	double score;          /* summary.score; NaN when absent */
	double exec_accuracy, call_accuracy, compile_accuracy; /* NaN when absent */
	long kernels, suspicious;
	ks_unscored unscored;  /* answers its run could not score for their language (with a result) */
	int64_t commit_time;   /* KS_MANIFEST_NO_DEADLINE when none */
	size_t rank;           /* 1-based, set by ks_leaderboard_rank */
} ks_leaderboard_row;

/* Sorts rows by the ranking rule and numbers them 1..n (docs/batch.md):
 *  1. results measured on a GPU, then compile-only results, then teams without a result;
 *  2. GPU results: summary.score (a present score beats an absent one), then exec accuracy, then
 *     call accuracy, each higher first; compile-only results: compile accuracy, higher first;
 *  3. the earlier commit time (the team that got there first);
 *  4. the team name, then the folder name, bytewise: folders are unique, so the order is total
 *     and no two teams share a rank. */
void ks_leaderboard_rank(ks_leaderboard_row *rows, size_t n);

/* Reads a team's line from <out_dir>/<folder>/batch.json and score.json (not_scored when there
 * is no batch.json). Never fails; caller frees with ks_leaderboard_row_clear. */
void ks_leaderboard_row_load(ks_leaderboard_row *row, const char *out_dir, const char *team,
			     const char *folder);
void ks_leaderboard_row_clear(ks_leaderboard_row *row);

/* Writes <out_dir>/leaderboard.json and leaderboard.csv (each atomically) from ranked rows;
 * `deadline` is KS_MANIFEST_NO_DEADLINE when there is none. */
int ks_leaderboard_write(const char *out_dir, const ks_leaderboard_row *rows, size_t n,
			 int64_t deadline);

/* Prints ranked rows as a table on f (rank, team, status, result, commit); a result says how many
 * answers its run could not score for their language. */
void ks_leaderboard_print(FILE *f, const ks_leaderboard_row *rows, size_t n);

/* Reads and parses a JSON record of at most max bytes (batch.json, score.json): NULL when it is
 * missing, unreadable or not JSON (the thread's error is cleared). Caller frees with cJSON_Delete. */
cJSON *ks_leaderboard_read_json(const char *path, size_t max);

#endif
