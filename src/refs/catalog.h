/* catalog: what `score problems` shows (src/cli/cmd_problems.c) — lists the suites and problems of reference_tests/, and exports their
 * agent instructions as a GEAK-style JSON array (`instruction`, `file`, `difficulty`), so an agent
 * can be pointed at the suite directly and its answers scored as they come back. */
#ifndef KS_CATALOG_H
#define KS_CATALOG_H

#include <cJSON.h>
#include "load/problem.h"
#include "load/sets/set.h"
#include "refs/prompt.h"

/* The export of every problem in set, its instruction in lang (refs/prompt.h), with GEAK field
 * names and `suite`, `language`: `file` is "<name>.py" for Triton and for the hackathon suite,
 * whose GEAK-eval names keep their suffix, and "<name>.cu" otherwise. A Triton export leaves out
 * the problems without a Python entry. Caller frees. */
cJSON *ks_catalog_prompts(const ks_problem_set *set, ks_prompt_lang lang);

/* One line-oriented listing entry per problem as JSON (name, suite, difficulty, dims, dtypes,
 * cases, perf sizes, peak, description). Caller frees. */
cJSON *ks_catalog_list(const ks_problem_set *set);

/* The golden launch plans `score` resolves, as data ("kscore.plans/1", `score problems --plans`):
 * per problem its golden source (shared preludes included), kernel names, tolerance and sha256,
 * and per case (correctness, then perf) the environment (sm_count, dims, lets), the scalar
 * arguments, every buffer (dtype, role, count, shape, fill and input distribution, output
 * tolerance), every launch (kernel, grid, block, shared bytes, typed arguments), bytes and flops.
 * Tools that check the goldens independently (tests/gpu/validate_goldens.py) read this instead of
 * evaluating the spec themselves, so the two never drift. The expressions use each problem's
 * sm_count (ks_problem_set_sm_count). A case that cannot be resolved has "error". Caller frees. */
cJSON *ks_catalog_plans(const ks_problem_set *set);

/* What a problem set read from its source holds (load/sets/set.h), as `score problems --refs DIR
 * --json` prints it ("kscore.problem-source/1"): the format and root; per problem its name, suite,
 * file, perf script (null: none), level and number (KernelBench), Triton kernels, entry functions,
 * test function and imports; per file it could not use, the path and the reason. Caller frees. */
cJSON *ks_catalog_source(const ks_problem_source *src);

#endif
