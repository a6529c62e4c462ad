/* catalog: what `score problems` shows (src/cmd_problems.c) — lists the suites and problems of reference_tests/, and exports their
 * agent instructions as a GEAK-style JSON array (`instruction`, `file`, `difficulty`), so an agent
 * can be pointed at the suite directly and its answers scored as they come back. */
#ifndef KS_CATALOG_H
#define KS_CATALOG_H

#include <cJSON.h>
#include "problem.h"

/* The export of every problem in set (GEAK field names; `file` is "<name>.py" for the hackathon
 * suite, whose GEAK-eval names keep their suffix, and "<name>.cu" otherwise). Caller frees. */
cJSON *ks_catalog_prompts(const ks_problem_set *set);

/* One line-oriented listing entry per problem as JSON (name, suite, difficulty, dims, dtypes,
 * cases, perf sizes, peak, description). Caller frees. */
cJSON *ks_catalog_list(const ks_problem_set *set);

#endif
