/* manifest: what `score batch` scores (docs/batch.md): the manifest's teams or pull-request
 * settings, the deadline and its time format, and the names and result folders of teams.
 *
 * A manifest lists teams (a repository, a ref and the submission's path or pattern), or names one
 * repository whose pull-request heads are the teams (ks_manifest_add_pull_teams makes them once
 * the repository is fetched). Pure data: nothing here touches git or the network. */
#ifndef KS_MANIFEST_H
#define KS_MANIFEST_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "repos.h"

#define KS_MANIFEST_NO_DEADLINE INT64_MIN

typedef struct {
	char *name;           /* shown in score.json, the leaderboard and uploads */
	char *folder;         /* <out>/<folder>/: the name made safe for a folder, unique */
	char *repo;           /* location as given (may hold credentials: print ks_repo_redact) */
	char *ref;            /* branch, tag, commit id or full ref; "HEAD": the default branch */
	char *submission;     /* path or pattern in the repository; NULL: the manifest's default */
	unsigned long pull;   /* pull-request number; 0 outside pull-request mode */
	char *head_subject;   /* pull-request mode: the head commit's subject */
} ks_manifest_team;

typedef struct {
	int64_t deadline;     /* seconds since the epoch; KS_MANIFEST_NO_DEADLINE when not given */
	char *submission;     /* the default path or pattern; NULL when not given */
	ks_manifest_team *teams;
	size_t nteams;
	/* pull-request mode ("pull_requests" in the manifest or --pull-requests) */
	char *pull_repo;
	char **map_numbers, **map_number_names;  /* pull-request number (decimal) -> team name */
	size_t nmap_numbers;
	char **map_subjects, **map_subject_names; /* head subject -> team name */
	size_t nmap_subjects;
	unsigned long *exclude;                   /* pull requests not to score */
	size_t nexclude;
} ks_manifest;

/* Parses a manifest ("kscore.batch/1", docs/batch.md). `name` names it in messages; relative
 * local repository paths are taken relative to `dir` (the manifest's folder). Unknown keys are an
 * error (keys starting with '_' are comments). A manifest has "teams" or "pull_requests", not
 * both; team names must be unique as folders. Fails with KS_EINVALID, naming the key and the
 * team. Caller frees with ks_manifest_free. */
int ks_manifest_parse(ks_manifest **out, const char *text, size_t len, const char *name,
		      const char *dir);

/* Reads and parses a manifest file (KS_ENOTFOUND / KS_EIO when it cannot be read). */
int ks_manifest_load(ks_manifest **out, const char *path);

/* An empty manifest (no deadline, no teams), for pull-request mode without a manifest file.
 * Caller frees with ks_manifest_free. */
ks_manifest *ks_manifest_new(void);

/* Pull-request mode: adds one team per pull request, in the order given, except excluded ones.
 * A team is named by the manifest's maps (by number first, then by head subject), else by its
 * head commit's subject (control characters become spaces, runs of spaces one, at most 128
 * bytes; "pr-N" when empty). Two pull requests with the same folder name: the later one becomes
 * "<name> #N" in folder "<folder>-prN", with a warning on `warn` (may be NULL). */
void ks_manifest_add_pull_teams(ks_manifest *m, const ks_repo_pull *prs, size_t n, FILE *warn);

void ks_manifest_free(ks_manifest *m);

/* Parses an RFC 3339 time, "2025-08-24T23:59:59Z" or with an offset "+02:00" / "-0500" (a space
 * may replace the 'T'; no fractions). KS_EINVALID with a message otherwise. */
int ks_manifest_parse_time(int64_t *out, const char *text);

/* Formats t as "YYYY-MM-DDTHH:MM:SSZ" (UTC) into out[32]. */
void ks_manifest_format_time(char out[32], int64_t t);

/* The folder name of a team name: letters, digits, '-' and '_' kept, every other byte (spaces,
 * dots, slashes, UTF-8) becomes '_', runs of '_' become one, no leading '-' or '_', at most 64
 * bytes; "team" when nothing is left; names starting with "leaderboard" get a "team-" prefix so
 * that they cannot collide with the leaderboard files. Caller frees. */
char *ks_manifest_folder_name(const char *name);

#endif
