/* model: what the static site shows, read from result folders (web_export). The loader accepts a
 * batch's results folder (team folders with score.json and batch.json, leaderboard.json) or
 * single-run result folders (score.json), tolerates any missing or malformed field (a number
 * that is absent is NaN, a string NULL), ranks the teams by the leaderboard's rule
 * (ks_leaderboard_rank) and lists the problems. Nothing here is trusted: every string is printed
 * through html.h. */
#ifndef KS_EXPORT_MODEL_H
#define KS_EXPORT_MODEL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cJSON.h>
#include "report/unscored.h"

typedef struct {
	char *label;
	double ms, ms_min, ms_max, golden_ms, speedup, bytes, flops, gbps, tflops, floor_ms,
	       roofline_fraction;
	long runs, golden_runs, verified;
	int suspicious;
	char *why;
} ks_export_perf;

typedef struct {
	char *name;
	long registers, shared, local;
} ks_export_fn;

typedef struct {
	char *label, *reason, *detail;
} ks_export_case;                /* a correctness run that failed */

typedef struct {
	long pass, index;
	char *file, *problem;
	int compiled, call, exec;      /* call and exec: -1 when not run (compile-only) */
	char *reason, *detail, *extraction, *launch_source, *compile_log, *timing_error;
	ks_export_fn *fns;
	size_t nfns;
	ks_export_perf *perf;
	size_t nperf;
	ks_export_case *failed;        /* failed correctness runs (the first few) */
	size_t nfailed;
	long ncases;                   /* correctness runs in all */
	double speedup, speedup_geomean, roofline_fraction, score;
	int suspicious;
	char *suspicious_why;
	char *entry_sha256;
	char *code;                    /* the extracted CUDA source, when it could be found */
	char *code_note;               /* why there is no code, or where it came from */
	char *output;                  /* device output (the GEAK record's stdout), when any */
	int output_truncated;          /* it printed more than was kept */
	char *diagnosis;               /* --profile's diagnosis, one sentence a line; NULL when none */
} ks_export_kernel;

typedef struct {
	char *id, *time, *subject;
	int ancestor;                  /* contained in the scored commit although dated later */
} ks_export_commit;

typedef struct {
	char *name, *slug;             /* slug: unique, [A-Za-z0-9_-], names team-<slug>.html */
	char *dir;                     /* the folder it was read from (NULL: leaderboard line only) */
	int in_batch;                  /* from a batch (batch.json or the leaderboard) */
	char *status, *reason, *detail;
	char *mode;                    /* "gpu", "compile-only"; NULL without a result */
	int has_result, gpu;
	size_t rank;
	double score, exec_acc, call_acc, compile_acc, geomean, fast_1, fast_2, roofline;
	long nkernels, nsuspicious;
	ks_unscored unscored;          /* answers its run could not score for their language */
	char *unscored_note;           /* the note that says so (ks_unscored_note); NULL: none */
	char *commit, *commit_time, *commit_subject;
	int64_t commit_epoch;          /* INT64_MIN when none */
	char *repository, *ref, *file, *deadline, *fetched_at, *fetch_warning;
	char *deadline_given;          /* batch.json's deadline as the manifest gave it (its offset) */
	long pull_request;             /* 0 outside pull-request mode */
	ks_export_commit *later;
	size_t nlater;
	long later_total;
	char *created, *scorer_version, *seed, *submission_path, *submission_sha256, *no_gpu_reason;
	char *device_name, *device_uuid, *driver_cuda, *compute_capability, *arch, *nvrtc;
	double wall_seconds;
	cJSON *ceilings;               /* the score.json "ceilings" object, or NULL */
	cJSON *protocol;               /* timing.protocol and timing.roofline, or NULL */
	char *golden_times;
	char *baseline_kind;           /* score.json's baseline: "golden" or "reference"; NULL: none */
	char *baseline_text;           /* what it says of it */
	ks_export_kernel *kernels;
	size_t nk;
	int code_found;                /* kernels with code attached */
} ks_export_team;

typedef struct {
	ks_export_team *teams;         /* ranked: teams[i].rank == i + 1 */
	size_t nteams;
	char **problems;               /* every problem named by a kernel, sorted */
	size_t nproblems;
	char *deadline;                /* from the leaderboard or the teams' batch.json (UTC) */
	char *deadline_given;          /* as the manifest gave it, with its offset; NULL: unknown */
	char *generated;               /* when the site was written (UTC) */
	int batch;                     /* some input was a batch's results */
} ks_export_model;

typedef struct {
	int no_code;                   /* leave the submitted code out of the pages */
	const char *cache_dir;         /* where a batch's repository mirrors are [default cache] */
	FILE *log;                     /* warnings ("file: reason"); NULL: silent */
	size_t *unreadable;            /* counts the files that could not be used; may be NULL */
} ks_export_load_options;

#define KS_EXPORT_LOAD_OPTIONS_INIT { 0, NULL, NULL, NULL }

/* Reads every input: a folder holding score.json is one result (a team); any other folder is a
 * batch's results (its team folders, and the teams its leaderboard.json lists). A file or part
 * that cannot be read is a warning on opts->log and the team shows what was readable. Fails with
 * KS_ENOTFOUND / KS_EINVALID (message names the input) when an input is not a folder or holds
 * no result at all. Caller frees with ks_export_model_free. */
int ks_export_model_load(ks_export_model **out, const char *const *inputs, size_t ninputs,
			 const ks_export_load_options *opts);

void ks_export_model_free(ks_export_model *m);

/* Attaches the extracted code to a team's kernels (code.c): from the submission file a single
 * run names (as given, then beside the result folder), or from the batch's repository mirror at
 * the scored commit. A kernel gets code only when its entry's sha256 matches, so a file edited
 * since it was scored shows no code rather than the wrong code; code_note says why. */
void ks_export_code_attach(ks_export_team *t, const ks_export_load_options *opts);

/* The kernel of team t that counts on `problem`: the highest score, then speedup, then the first;
 * NULL when the team has no kernel for it. */
const ks_export_kernel *ks_export_best_kernel(const ks_export_team *t, const char *problem);

/* Short verdict of a kernel: "correct", "failed", "suspicious", "compiled", "not compiled". */
const char *ks_export_verdict(const ks_export_kernel *k);

#endif
