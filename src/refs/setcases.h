/* setcases: `score problems --refs DIR --cases` (src/cli/cmd_problems.c): the oracle run over an
 * imported problem set (load/sets/oracle.h), each problem's cases as the set's own code makes
 * them, or the reason it makes none; what an organizer runs first on a set. */
#ifndef KS_SETCASES_H
#define KS_SETCASES_H

#include <stdint.h>
#include <cJSON.h>
#include "load/sets/oracle.h"
#include "load/sets/set.h"

typedef struct {
	const char *only;          /* comma-separated problem names; NULL: every problem */
	uint64_t seed;             /* the seed the set's code runs under */
	ks_oracle_options oracle;
} ks_setcases_options;

#define KS_SETCASES_OPTIONS_INIT { .oracle = KS_ORACLE_OPTIONS_INIT }

/* Runs the oracle on every problem of src (or those `only` names, in the set's order) and returns
 * "kscore.problem-cases/1" in *out (caller frees): the format, root, seed, the helper's versions,
 * per problem its name, file, status ("ok" or the oracle's), reason, seconds, notes, the cases
 * (index, kind, entry, every argument's and return value's description, what it wrote), the
 * counts of correctness and perf cases kscore's problem model keeps and the cases it refused, with
 * why; and a summary: problems run, with cases, without, and the reasons of those without grouped
 * by their first words. Returns 0, or an error (message set) when the oracle cannot start or a
 * name in `only` is not a problem of the set; a problem that fails is a result, not an error. */
int ks_setcases_run(cJSON **out, const ks_problem_source *src, const ks_setcases_options *o);

/* The text listing of what ks_setcases_run returned: one line per problem (its status, counts of
 * cases, the first case's call with shapes and dtypes, or the reason), then the summary. Caller
 * frees. */
char *ks_setcases_text(const cJSON *cases);

#endif
