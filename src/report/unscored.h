/* unscored: the answers of a result that this run could not score because of their language or
 * the toolchain their language needs (docs/results.md, "Answers this run could not score").
 *
 * A team whose answers are all Triton (Python) gets a score of zero on every leaderboard, like a
 * team whose kernels all fail: an organizer must be told which it is. The batch's lines, its
 * --json report, the leaderboard files and the site all say it with the same note, built here
 * from score.json's kernel records: "10 of 10 answers are Triton (Python), which this run could
 * not score". Which reasons count is decided in one table (unscored.c). Pure functions; the
 * counts live in a fixed-size struct, so nothing is allocated but the notes. */
#ifndef KS_UNSCORED_H
#define KS_UNSCORED_H

#include <stddef.h>
#include <cJSON.h>

#define KS_UNSCORED_MAX_LANGUAGES 8   /* further languages are counted under the last */
#define KS_UNSCORED_MAX_NAME 48       /* bytes of a language's name, its NUL included */

typedef struct {
	char name[KS_UNSCORED_MAX_NAME]; /* as people read it: "Triton (Python)", "Python" */
	size_t n;
} ks_unscored_language;

#define KS_UNSCORED_MAX_CAUSE 96       /* bytes of the cause, its NUL included */

typedef struct {
	size_t answers;        /* answers that count: every entry but the duplicates */
	size_t unscored;       /* of them, those not scored for their language or its toolchain */
	ks_unscored_language lang[KS_UNSCORED_MAX_LANGUAGES];
	size_t nlang;
	char cause[KS_UNSCORED_MAX_CAUSE]; /* why this host could not run them, as read from the first
					     * not_run answer's detail ("this host has no usable GPU");
					     * "" when no detail says it (not_cuda: no tracer for it) */
} ks_unscored;

#define KS_UNSCORED_INIT { 0 }

/* Counts one kernel record: its reason ("not_cuda", ...), its language as score.json records it
 * (NULL when the record has none: the language is then read from the detail, "the answer is
 * Triton (Python), not CUDA: ..."), and its detail. A duplicate (reason "duplicate") is no answer. */
void ks_unscored_add(ks_unscored *u, const char *reason, const char *language, const char *detail);

/* Counts every kernel of a score.json (its "kernels" array; anything else is ignored). */
void ks_unscored_add_score(ks_unscored *u, const cJSON *score);

/* Adds b's counts to a: a batch's total over its teams. */
void ks_unscored_merge(ks_unscored *a, const ks_unscored *b);

/* The note an organizer reads: "10 of 10 answers are Triton (Python), which this run could not
 * score", or with several languages "7 of 10 answers are Triton (Python) and 1 is Python, which
 * ...", followed by the cause when one is known ("...: this host has no usable GPU", "...:
 * compile-only run, tracing Triton answers needs a GPU"): a not-run answer is no compile failure.
 * NULL when every answer could be scored. Caller frees. */
char *ks_unscored_note(const ks_unscored *u);

/* The languages and their counts, most first: "28 Triton (Python), 2 Python"; NULL when none.
 * Caller frees. */
char *ks_unscored_languages(const ks_unscored *u);

#endif
