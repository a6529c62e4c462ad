/* refbase: a problem set's reference implementations as the timing baseline (`--baseline
 * reference=DIR`). GEAK-eval and the hackathon's leaderboard rank by speedup over the reference
 * implementation, not over kscore's golden kernel. Each problem's reference (the code above the
 * separator of DIR's TritonBench-G file of the same name, as a GEAK entry carries it) is scored
 * first in the same session, as a Triton answer: traced, replayed, checked and timed by the
 * same protocol as every answer. Its median per perf case is then each answer's baseline; the golden
 * kernel is still timed beside every answer, so both speedups are reported. The references are
 * trusted code but get no privilege: a reference that fails a case has no time there, and the
 * answers' records say so. */
#ifndef KS_REFBASE_H
#define KS_REFBASE_H

#include <stddef.h>
#include <cJSON.h>
#include "load/problem.h"
#include "load/submission.h"
#include "run/result.h"

typedef struct ks_refbase ks_refbase;

/* The references of the problems of ps that dir holds, as one submission of Triton entries (one
 * pass named for dir). dir is a TritonBench-G folder as GEAK-eval ships it (reference/<name>.py, or
 * the .py files themselves). *missing receives the names of ps's problems dir has no reference
 * for, comma-separated (caller frees; NULL when none). Fails with KS_ENOTFOUND / KS_EINVALID
 * (message names dir) when dir is not such a folder or holds none of ps's problems. With nonly > 0
 * only the problems named in only are taken (those a run's answers name: a reference is scored
 * only where it is a baseline). Caller frees *out with ks_submission_free. */
int ks_refbase_submission(ks_submission **out, char **missing, const ks_problem_set *ps, const char *dir,
			  const char *const *only, size_t nonly);

/* The baseline from the references' results (r, n: the scored submission above): per problem,
 * the median time of each perf case that was timed, or why there is none (the reference's own
 * verdict). missing is copied (may be NULL). Caller frees with ks_refbase_free. */
ks_refbase *ks_refbase_new(const char *dir, const ks_kernel_result *r, size_t n, const char *missing);

/* Marks r as judged over the references and gives each of its perf cases the reference's median
 * (reference_ms; 0 where the reference has none: the case then counts in no speedup over the
 * reference), before judge/roofline.h's ks_judge_kernel. A problem without a timed reference
 * sets r->reference_note to why. */
void ks_refbase_apply(const ks_refbase *b, ks_kernel_result *r);

/* One line for people: "the reference implementations in DIR: 9 of 10 timed (int4_matmul: ...)".
 * Static storage of b. */
const char *ks_refbase_describe(const ks_refbase *b);

/* The "baseline" record of score.json for this baseline (kind "reference", the folder, each
 * problem's verdict and medians). Caller owns it. */
cJSON *ks_refbase_json(const ks_refbase *b);

void ks_refbase_free(ks_refbase *b);

#endif
