/* check: the "run and check" stage. On whichever GPU lane takes an entry prepared by
 * session/prepare.h (a compiled CUDA kernel, or a Triton answer it traces first), it runs the
 * candidate on every correctness case and checks it against the golden outputs (DESIGN §4.5):
 * fresh seeded inputs for every run, poisoned outputs, guard bands, an element-wise comparison,
 * inputs unchanged, and a re-run on the first seed's inputs that must agree. Sets call, exec and
 * the first failure's reason for each entry. It also keeps the run's compiled golden kernels
 * (ks_golden_store). */
#ifndef KS_CHECK_H
#define KS_CHECK_H

#include <stddef.h>
#include "lang/cuda/compile.h"
#include "load/problem.h"
#include "run/candidate.h"
#include "run/result.h"
#include "run/runner.h"
#include "load/submission.h"

typedef struct {
	const ks_problem_set *problems;
	ks_compile_options compile;   /* arch: the GPU's own (every lane has the same) or --arch */
	uint64_t seed;                /* the session's base seed */
	ks_plan_limits limits;
	size_t max_log_excerpt;       /* bytes of the compile log kept in results */
	int compile_only;             /* no GPU because compile-only was asked for, not for lack of one */
} ks_check_options;

#define KS_CHECK_DEFAULT_MAX_LOG_EXCERPT 4096

#define KS_CHECK_OPTIONS_INIT                                                                    \
	{ .compile = KS_COMPILE_OPTIONS_INIT, .limits = KS_PLAN_LIMITS_INIT,                      \
	  .max_log_excerpt = KS_CHECK_DEFAULT_MAX_LOG_EXCERPT }

/* The compiled golden kernels of a session: each problem's compiled once, then registered with
 * every runner (one per lane thread) that checks or times one of its candidates. Thread-safe. */
typedef struct ks_golden_store ks_golden_store;

ks_golden_store *ks_golden_store_new(void);
void ks_golden_store_free(ks_golden_store *s);

/* Stores the outcome of p's golden compile (a copy: g stays the caller's); a failed compile is
 * reported on stderr once and kept as such. */
void ks_golden_store_put(ks_golden_store *s, const ks_problem *p, const ks_compile_job *g);

/* 1 when p's golden compile is in the store (compiled or failed). */
int ks_golden_store_has(ks_golden_store *s, const ks_problem *p);

/* Registers p's golden kernels with runner (the caller's own) unless it has them already. 0, or
 * KS_ERROR with a message when they did not compile. */
int ks_golden_store_register(ks_golden_store *s, ks_runner *runner, const ks_problem *p);

/* p's compiled golden kernels as an image (a view, valid while the store lives; its launch is
 * empty). KS_ENOTFOUND when they were not compiled or did not compile. */
int ks_golden_store_image(ks_candidate_image *img, ks_golden_store *s, const ks_problem *p);

/* Checks one entry on `runner` in the calling thread (runs it on every correctness case against
 * the golden outputs, DESIGN §4.5) and sets call, exec, the cases and the reason. A Triton answer
 * is traced first, on the runner's GPU (run/candidate.h), unless an earlier check traced it. */
void ks_check_entry(ks_kernel_result *r, ks_candidate_image *img, ks_runner *runner,
		    ks_golden_store *store, const ks_check_options *o);

/* Records the outcome of one run of a case into cr (passed, or reason and detail, which it takes:
 * NULL says the reason's name). A scored case's failure is the kernel's (ks_kernel_result_fail,
 * with the case's label and seed when label is given); an extended case's (cr->extended) stays in
 * its case result: it never changes call, exec, the reason or the score. */
void ks_check_case_outcome(ks_kernel_result *r, ks_case_result *cr, ks_reason why, char *detail,
			   const char *label);

/* Clears what ks_check_entry set, so the entry can be checked again on another GPU (the GPU it ran
 * on failed). */
void ks_check_reset(ks_kernel_result *r);

/* The reason a failed run is charged with: fault, timeout, crash, or launch_error. */
ks_reason ks_check_run_failure(const ks_run_result *res);

/* Checks one finished candidate run against the golden run on the same inputs: guard bands,
 * inputs unchanged (bytes, or checksums where either side fetched only checksums), outputs within
 * tolerance. Returns OK or the first failure's reason with *detail (caller frees). Used for
 * correctness cases and for the verified timed runs of the timing stage. */
ks_reason ks_check_run(char **detail, const ks_run_result *res, const ks_plan *plan,
		       const ks_fetch_mode *fetch, const ks_golden_run *g, const ks_problem *p);

#endif
