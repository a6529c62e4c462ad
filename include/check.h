/* check: the "run and check" stage. For every entry it matches the problem, picks the launch plan
 * (entry field, code comment, or the problem's default), compiles candidates and golden kernels in
 * one parallel batch, then runs each candidate on every correctness case and checks it against the
 * golden outputs (DESIGN §4.5): fresh seeded inputs for every run, poisoned outputs, guard bands,
 * an element-wise comparison, inputs unchanged, and a re-run on the first seed's inputs that must
 * agree. Sets call, exec and the first failure's reason for each entry. */
#ifndef KS_CHECK_H
#define KS_CHECK_H

#include <stddef.h>
#include "compile.h"
#include "problem.h"
#include "result.h"
#include "runner.h"
#include "submission.h"

typedef struct {
	const ks_problem_set *problems;
	ks_compile_options compile;   /* arch is replaced by the device's own when a runner is given */
	uint64_t seed;                /* the session's base seed */
	ks_plan_limits limits;
	size_t max_log_excerpt;       /* bytes of the compile log kept in results */
	void (*progress)(void *ud, size_t done, size_t total, const char *what);
	void *progress_ud;
	int compile_only;             /* no runner because compile-only was asked for, not for lack of a GPU */
} ks_check_options;

#define KS_CHECK_OPTIONS_INIT { NULL, KS_COMPILE_OPTIONS_INIT, 0, KS_PLAN_LIMITS_INIT, 4096, NULL, NULL }

/* Scores entries[0..n): out[i] is filled for entries[i] (pass[i] says which file it came from).
 * With runner == NULL (no GPU) entries are compiled only: compiled is set, reason NOT_RUN for those
 * that compiled. Never fails as a whole; every problem is recorded in its entry's result. Also
 * returns the compiled candidates' images to the caller through `images` when not NULL (one per
 * entry, NULL where there is none), for the timing stage. */
typedef struct {
	void *cubin;
	size_t len;
	char **lowered;
	size_t nlowered;
	ks_launch launch;             /* the plan the candidate uses */
	const ks_problem *problem;
} ks_candidate_image;

void ks_check_entries(ks_kernel_result *out, ks_candidate_image *images, const ks_entry *const *entries,
		      const size_t *pass, size_t n, ks_runner *runner, const ks_check_options *opts);

void ks_candidate_image_clear(ks_candidate_image *img);

/* The reason a failed run is charged with: fault, timeout, crash, or launch_error. */
ks_reason ks_check_run_failure(const ks_run_result *res);

/* Checks one finished candidate run against the golden run on the same inputs: guard bands,
 * inputs unchanged (bytes, or checksums where either side fetched only checksums), outputs within
 * tolerance. Returns OK or the first failure's reason with *detail (caller frees). Used for
 * correctness cases and for the verified timed runs of the timing stage. */
ks_reason ks_check_run(char **detail, const ks_run_result *res, const ks_plan *plan,
		       const ks_fetch_mode *fetch, const ks_golden_run *g, const ks_problem *p);

#endif
