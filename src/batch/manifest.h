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
#include "batch/repos.h"

#define KS_MANIFEST_NO_DEADLINE INT64_MIN
#define KS_MANIFEST_MAX_NAME 128   /* characters (code points) of a team name */
#define KS_MANIFEST_MAX_PATHS 16   /* paths or patterns of one "submission" list */

/* The submission's patterns when neither the manifest nor --submission names one, tried in order:
 * the layouts of the real hackathon repository (docs/batch.md), in any folder: the guide's name
 * (submit/reflexion_oneshot_tritonbench_4.json), then the same with the run in the name
 * (src/reflexion_oneshot_tritonbench_iter1_4.json). GEAK-eval's result files never match them,
 * and a matched file is still refused when its content is one. */
#define KS_MANIFEST_DEFAULT_SUBMISSIONS                                                          \
	"**/reflexion_oneshot_tritonbench_<N>.json", "**/reflexion_oneshot_tritonbench_iter*_<N>.json"

/* How a pull request's team is named when the manifest does not map it (--name-from). */
typedef enum {
	KS_MANIFEST_NAME_DEFAULT = 0, /* a team name written in the head subject, else pr-<N> */
	KS_MANIFEST_NAME_SUBJECT,     /* the head commit's whole subject */
	KS_MANIFEST_NAME_AUTHOR,      /* the head commit's author name */
	KS_MANIFEST_NAME_NUMBER       /* pr-<N> */
} ks_manifest_name_from;

/* Which rule named a team (batch.json "name_source"). */
typedef enum {
	KS_MANIFEST_NAMED_BY_MANIFEST = 0, /* "manifest": a team of "teams", or a map of pull requests */
	KS_MANIFEST_NAMED_BY_SUBJECT,      /* "subject": a name written in the subject, or the subject */
	KS_MANIFEST_NAMED_BY_AUTHOR,       /* "author": the head commit's author name */
	KS_MANIFEST_NAMED_BY_NUMBER        /* "number": pr-<N> */
} ks_manifest_name_source;

/* A list of submission paths or patterns, tried in order. */
typedef struct {
	char **v;
	size_t n;
} ks_manifest_paths;

typedef struct {
	char *name;           /* shown in score.json, the leaderboard and uploads (valid UTF-8) */
	char *folder;         /* <out>/<folder>/: the name made safe for a folder, unique */
	char *repo;           /* location as given (may hold credentials: print ks_repo_redact) */
	char *ref;            /* branch, tag, commit id or full ref; "HEAD": the default branch */
	ks_manifest_paths submission; /* this team's paths or patterns; n == 0: the manifest's */
	char *base;           /* a ref whose history is not the team's own; NULL: the default rule
			       * (the default branch for a pull-request ref, none otherwise) */
	unsigned long pull;   /* pull-request number; 0 outside pull-request mode */
	char *head_subject;   /* pull-request mode: the head commit's subject */
	ks_manifest_name_source name_source;
} ks_manifest_team;

/* A pull request's entry of pull_requests.teams_by_number, beyond its name. */
typedef struct {
	ks_manifest_paths submission; /* n == 0: the default */
	char *base;                   /* NULL: pull_requests.base, else the default branch */
} ks_manifest_pull_override;

typedef struct {
	int64_t deadline;     /* seconds since the epoch; KS_MANIFEST_NO_DEADLINE when not given */
	char *deadline_given; /* the deadline as written, with its offset (shown beside UTC); NULL */
	ks_manifest_paths submission; /* the default paths or patterns; n == 0 when not given */
	ks_manifest_team *teams;
	size_t nteams;
	/* pull-request mode ("pull_requests" in the manifest or --pull-requests) */
	char *pull_repo;
	char *pull_base;                          /* the base of every pull request; NULL: HEAD */
	ks_manifest_name_from name_from;
	char **map_numbers, **map_number_names;  /* pull-request number (decimal) -> team name
						  * (NULL: named by name_from) */
	ks_manifest_pull_override *map_number_overrides; /* per map_numbers entry */
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
 * A team is named by the manifest's maps (by number first, then by head subject), else by
 * m->name_from: by default a team name written in the head subject
 * (ks_manifest_team_in_subject), else "pr-N"; or the whole subject, the author's name, or
 * "pr-N" (control characters become spaces, runs of spaces one, at most KS_MANIFEST_MAX_NAME
 * characters; "pr-N" when nothing is left). Two pull requests with the same folder name: the
 * later one becomes "<name> #N" in folder "<folder>-prN", with a warning on `warn` (may be
 * NULL). Each team gets its pull request's submission and base overrides. */
void ks_manifest_add_pull_teams(ks_manifest *m, const ks_repo_pull *prs, size_t n, FILE *warn);

void ks_manifest_free(ks_manifest *m);

/* The team name a commit subject states, the ways people write one: "[Team X]" or "(Team X)"
 * anywhere (the bracket's text), "team: X" or "team=X" anywhere (X), "Team X" at the start
 * ("Team X", up to a ':', ',', ';', '|', '(' or '[' and at most three words after "Team"), or a
 * subject that is one word and not a word of git's own ("update", "fix", "wip", ...). NULL when
 * it states none. Caller frees. */
char *ks_manifest_team_in_subject(const char *subject);

/* The stable names of the name rules: "manifest", "subject", "author", "number". */
const char *ks_manifest_name_source_name(ks_manifest_name_source s);

/* Parses "subject", "author" or "number" (--name-from, pull_requests.name_from): 0, or
 * KS_EINVALID with a message. */
int ks_manifest_name_from_parse(ks_manifest_name_from *out, const char *text);

/* Checks and copies a list of paths or patterns (pattern.h) into *out (replacing what it held):
 * 1 to KS_MANIFEST_MAX_PATHS of them. KS_EINVALID with a message naming the bad one. */
int ks_manifest_paths_set(ks_manifest_paths *out, const char *const *v, size_t n);
void ks_manifest_paths_clear(ks_manifest_paths *p);

/* Parses an RFC 3339 time, "2025-08-24T23:59:59Z" or with an offset "+02:00" / "-0500" (a space
 * may replace the 'T'; no fractions). KS_EINVALID with a message otherwise. */
int ks_manifest_parse_time(int64_t *out, const char *text);

/* Formats t as "YYYY-MM-DDTHH:MM:SSZ" (UTC) into out[32]. */
void ks_manifest_format_time(char out[32], int64_t t);

/* A name for people from untrusted text (a subject, an author): valid UTF-8, control
 * characters as spaces, runs of spaces as one, trimmed, at most KS_MANIFEST_MAX_NAME characters.
 * Caller frees. */
char *ks_manifest_clean_name(const char *text);

/* The folder name of a team name: letters, digits, '-' and '_' kept, every other byte (spaces,
 * dots, slashes, UTF-8) becomes '_', runs of '_' become one, no leading '-' or '_', at most 64
 * bytes; "team" when nothing is left; names starting with "leaderboard" get a "team-" prefix so
 * that they cannot collide with the leaderboard files. Caller frees. */
char *ks_manifest_folder_name(const char *name);

#endif
