/* nearest: the "did you mean" of a mistyped name (a command, a problem), chosen by edit distance so
 * that a user who typed `exprot` or `softmx` is told the name they meant instead of only that
 * theirs is unknown. */
#ifndef KS_NEAREST_H
#define KS_NEAREST_H

#include <stddef.h>

#define KS_NEAREST_MAX_LEN 128 /* longer words and names are never compared (the cost is len^2) */

/* The optimal-string-alignment distance between a and b (insertions, deletions, substitutions and
 * swaps of two neighbours, each 1), ASCII letters compared without case; SIZE_MAX when either is
 * longer than KS_NEAREST_MAX_LEN bytes. */
size_t ks_nearest_distance(const char *a, const char *b);

/* The name of names[0..n) closest to word, when it is close enough to be a typing slip: at most
 * one edit per three characters of word (at least one), and not word itself; the first of equal
 * ones. NULL when none is. Borrows names; NULL entries are skipped. */
const char *ks_nearest_name(const char *word, const char *const *names, size_t n);

#endif
