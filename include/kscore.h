/* kscore.h: the public API of libkscore, the scorer of GPU-kernel submissions (docs/api.md).
 *
 * A program that embeds the scorer (a leaderboard service, a binding over ctypes, an organizer's
 * own tool) includes this header alone and links with `pkg-config --cflags --libs kscore`. Every
 * other header of the tree is private and may change between versions; this one changes only with
 * KSCORE_VERSION_MAJOR (or grows, with MINOR).
 *
 * Conventions (as in libgit2): every name is prefixed `kscore_` / `KSCORE_`; a function returns 0
 * or a negative KSCORE_E* status and then kscore_error_message() says why, per thread; results come
 * back through out-parameters, first in the list; objects the library allocates are freed with the
 * matching _free or _close function; option structs start with a version and are initialised with
 * their _INIT macro, so a program built against an older header keeps working. Strings passed in are
 * borrowed for the duration of the call unless a comment says otherwise.
 *
 * What the library does with a submission is what `score` does (DESIGN: compiled in a sandbox, run
 * in a separate GPU worker, checked against the golden outputs outside that process, timed, judged
 * against the measured roofline) and the result folder it writes is the one `score` writes
 * (docs/results.md). The process that calls it must not have initialised CUDA before it opens a
 * session: the scorer forks and execs its helpers. */
#ifndef KSCORE_H
#define KSCORE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KSCORE_VERSION_MAJOR 0
#define KSCORE_VERSION_MINOR 1
#define KSCORE_VERSION_PATCH 0
#define KSCORE_VERSION "0.1.0"
/* One number that grows with every release: major * 10000 + minor * 100 + patch. */
#define KSCORE_VERSION_NUMBER (KSCORE_VERSION_MAJOR * 10000 + KSCORE_VERSION_MINOR * 100 + KSCORE_VERSION_PATCH)

/* Status codes. */
enum {
	KSCORE_OK = 0,
	KSCORE_ERROR = -1,        /* a failure with no more precise code */
	KSCORE_EINVALID = -2,     /* malformed input or options; the message names the file and reason */
	KSCORE_ENOTFOUND = -3,    /* a file, folder or problem does not exist */
	KSCORE_ELIMIT = -4,       /* a size, depth or count limit was exceeded */
	KSCORE_EIO = -5,          /* reading or writing the filesystem failed */
	KSCORE_EUNSUPPORTED = -8, /* the machine lacks what is needed (a GPU with require_gpu) */
	KSCORE_EREFUSED = -9      /* an output folder exists and is not one kscore wrote */
};

/* The version of the library linked ("0.1.0"), which may differ from KSCORE_VERSION of the header
 * a program was built with. Static storage. */
const char *kscore_version(void);

/* The calling thread's message for the last failure of a kscore_ function; "" when there was none.
 * Owned by the library, valid until the thread's next kscore_ call. */
const char *kscore_error_message(void);

/* ---- problems ------------------------------------------------------------------------------ */

typedef struct kscore_problems kscore_problems;

typedef struct {
	unsigned version;
	const char *refs;  /* the reference problems folder; NULL: found as `score` finds it */
	const char *suite; /* one suite (hackathon, level1, ...); NULL: every suite */
} kscore_problems_options;

#define KSCORE_PROBLEMS_OPTIONS_VERSION 1
#define KSCORE_PROBLEMS_OPTIONS_INIT { KSCORE_PROBLEMS_OPTIONS_VERSION, NULL, NULL }

/* Opens a problem set: every problem folder below refs (docs/problem-format.md), validated. A
 * problem that fails to load is skipped and counted by kscore_problems_errors. Fails with
 * KSCORE_ENOTFOUND when there is no such folder, KSCORE_EINVALID when it holds no valid problem.
 * opts may be NULL (the defaults). Free *out with kscore_problems_free. */
int kscore_problems_open(kscore_problems **out, const kscore_problems_options *opts);

/* How many problems loaded; the name and suite of problem i (< count), owned by the set. */
size_t kscore_problems_count(const kscore_problems *p);
const char *kscore_problems_name(const kscore_problems *p, size_t i);
const char *kscore_problems_suite(const kscore_problems *p, size_t i);

/* How many problem folders failed to load, and why folder i failed (owned by the set). */
size_t kscore_problems_errors(const kscore_problems *p);
const char *kscore_problems_error(const kscore_problems *p, size_t i);

void kscore_problems_free(kscore_problems *p);

/* ---- scoring -------------------------------------------------------------------------------- */

typedef struct kscore_session kscore_session;

typedef struct {
	unsigned version;
	const char *refs;      /* reference problems folder; NULL: found as `score` finds it */
	const char *suite;     /* NULL: every suite */
	int compile_only;      /* never start a GPU worker: compile and check launch plans only */
	int require_gpu;       /* fail with KSCORE_EUNSUPPORTED instead of falling back to compile-only */
	const char *devices;   /* "0", "0,1,2,3" or "all" as `score --devices`; NULL: GPU 0 */
	const char *cache_dir; /* compile cache and calibration; NULL: the default (~/.cache/kscore) */
	int no_cache;          /* no compile cache at all */
	unsigned long long seed; /* the inputs' base seed; 0: a fresh random seed */
	int no_timing;         /* check correctness only */
	int jobs;              /* parallel compiles; 0: one per CPU */
	int quiet;             /* 1: no warnings on stderr about unreadable entries */
	/* version 2: speedups and scores over the problems' reference implementations in this
	 * TritonBench-G folder, scored first in the session (`score --baseline reference=DIR`);
	 * NULL: over the golden kernel. Fails the open with KSCORE_EINVALID / KSCORE_ENOTFOUND when
	 * the folder holds no reference of a loaded problem. */
	const char *reference_dir;
} kscore_session_options;

/* Version 1 (without reference_dir) is still accepted. */
#define KSCORE_SESSION_OPTIONS_VERSION 2
#define KSCORE_SESSION_OPTIONS_INIT { KSCORE_SESSION_OPTIONS_VERSION, NULL, NULL, 0, 0, NULL, NULL, 0, 0, 0, 0, 0, NULL }

/* Opens a scoring session: loads the problems and, unless compile_only, starts the GPU workers of
 * the devices listed. Every submission scored in one session shares its golden results, compile
 * cache and workers, so score many files through one session. Without a usable GPU (and without
 * require_gpu) the session scores in compile-only mode; kscore_session_has_gpu says so. Fails with
 * KSCORE_EINVALID for bad options or no valid problem, KSCORE_EUNSUPPORTED with require_gpu and no
 * GPU. opts may be NULL. Close *out with kscore_session_close. */
int kscore_session_open(kscore_session **out, const kscore_session_options *opts);

/* 1 when the session runs kernels on a GPU, 0 in compile-only mode. */
int kscore_session_has_gpu(const kscore_session *s);

/* What one scored submission came to (the "summary" of its score.json). Counts are exact; a rate
 * or speedup that does not apply (compile-only mode, no correct kernel) is negative. */
typedef struct {
	unsigned version;
	size_t kernels;          /* entries scored (duplicates not counted) */
	size_t correct;          /* exec-correct kernels (compiled ones in compile-only mode) */
	size_t suspicious;       /* kernels rejected by the roofline or timer checks */
	double compile_accuracy; /* fraction of the problems whose entry compiled */
	double call_accuracy;    /* -1 in compile-only mode */
	double exec_accuracy;    /* -1 in compile-only mode */
	double score;            /* sum of speedups of correct, non-suspicious kernels; -1: none */
	double geomean_speedup;  /* -1: none */
	int bad_input;           /* 1: some file or entry of the submission could not be read */
} kscore_summary;

#define KSCORE_SUMMARY_VERSION 1
#define KSCORE_SUMMARY_INIT { KSCORE_SUMMARY_VERSION, 0, 0, 0, -1, -1, -1, -1, -1, 0 }

/* Scores one submission (a GEAK JSON file, JSON Lines, gzip, or a folder of such files as passes)
 * as `score FILE --team TEAM --out OUT_DIR` does, writing the result folder out_dir (replaced
 * whole if kscore wrote it before; refused with KSCORE_EREFUSED if it exists and is not kscore's,
 * or is, holds or lies inside the submission). team may be NULL. summary may be NULL; when given,
 * its version must be set (KSCORE_SUMMARY_INIT). Entries that cannot be read are scored as
 * failures and set bad_input; the call fails only when the submission cannot be read at all
 * (KSCORE_ENOTFOUND / KSCORE_EINVALID) or the folder cannot be written (KSCORE_EIO). */
int kscore_session_score(kscore_summary *summary, kscore_session *s, const char *submission_path,
			 const char *team, const char *out_dir);

/* Stops the session's workers and frees it. NULL is fine. */
void kscore_session_close(kscore_session *s);

/* ---- results -------------------------------------------------------------------------------- */

typedef struct kscore_result kscore_result;

/* One kernel of a result. Strings are owned by the result. */
typedef struct {
	const char *problem;   /* the problem's name */
	int pass;              /* the pass (file of a folder) it came from */
	int compiled;          /* 1 or 0 */
	int call;              /* 1, 0, or -1 when it was not run (compile-only) */
	int exec;              /* 1, 0, or -1 when it was not run */
	const char *reason;    /* "ok" or the failure (compile_error, mismatch, ...; docs/results.md) */
	const char *language;  /* "cuda", "triton", ... */
	double speedup;        /* golden time / candidate time over the perf cases; -1: none */
	int suspicious;        /* 1: the timing beat the roofline or the timer floor */
} kscore_kernel;

/* Reads the score.json of a result folder (written by `score` or kscore_session_score). Fails with
 * KSCORE_ENOTFOUND when there is none, KSCORE_EINVALID when it is not a kscore score record. Free
 * *out with kscore_result_free. */
int kscore_result_open(kscore_result **out, const char *result_dir);

/* The team named when it was scored (NULL when none), its summary, its kernels. */
const char *kscore_result_team(const kscore_result *r);
void kscore_result_summary(kscore_summary *out, const kscore_result *r);
size_t kscore_result_kernels(const kscore_result *r);
/* Kernel i (< kscore_result_kernels) into *out; KSCORE_ENOTFOUND past the end. */
int kscore_result_kernel(kscore_kernel *out, const kscore_result *r, size_t i);

void kscore_result_free(kscore_result *r);

/* ---- batch and site ------------------------------------------------------------------------- */

typedef struct {
	unsigned version;
	const char *out_dir;   /* the results folder; NULL: "results" */
	const char *cache_dir; /* repository mirrors and compile cache; NULL: the default */
	int no_fetch;          /* score the mirrors as cached, fetch nothing */
	int compile_only;
	const char *devices;   /* as kscore_session_options.devices */
	int no_site;           /* no static site in out_dir/site/ */
	int quiet;             /* no per-team lines on stderr */
} kscore_batch_options;

#define KSCORE_BATCH_OPTIONS_VERSION 1
#define KSCORE_BATCH_OPTIONS_INIT { KSCORE_BATCH_OPTIONS_VERSION, NULL, NULL, 0, 0, NULL, 0, 0 }

/* Scores every team of a batch manifest (docs/batch.md) as `score batch MANIFEST` does: fetched,
 * chosen at the deadline, scored, ranked into out_dir/leaderboard.json, and the site written.
 * Returns the exit status `score batch` documents (0 every team scored, 1 some could not be, ...),
 * or KSCORE_EINVALID for options it cannot take. opts may be NULL. */
int kscore_batch_run(const char *manifest_path, const kscore_batch_options *opts);

typedef struct {
	unsigned version;
	int no_code;           /* leave submitted code out of the pages */
	const char *cache_dir; /* a batch's repository mirrors, for the code; NULL: the default */
} kscore_export_options;

#define KSCORE_EXPORT_OPTIONS_VERSION 1
#define KSCORE_EXPORT_OPTIONS_INIT { KSCORE_EXPORT_OPTIONS_VERSION, 0, NULL }

/* Writes the static leaderboard site of result folders (single results or a batch's results
 * folder) into site_dir, as `score export` does (docs/export.md). Refused with KSCORE_EREFUSED when
 * site_dir exists and is not a site kscore wrote, or is or holds an input; KSCORE_ENOTFOUND when an
 * input holds no result. opts may be NULL. */
int kscore_export_site(const char *site_dir, const char *const *result_dirs, size_t nresult_dirs,
		       const kscore_export_options *opts);

#ifdef __cplusplus
}
#endif

#endif
