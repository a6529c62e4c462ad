/* pattern: the submission path patterns of `score batch` (docs/batch.md). A pattern is a path
 * relative to a repository; '*' in any component matches any run of characters other than '/',
 * and "<N>" in the last component (once) matches a decimal integer, so that "out/r_<N>.json"
 * selects the file with the highest N. Pure string functions: walking a tree with them is
 * repos.c's. Names come from teams' trees, so matching is bounded in steps and a hostile name
 * fails to match instead of making it slow. */
#ifndef KS_PATTERN_H
#define KS_PATTERN_H

#include <stddef.h>

/* Checks a pattern's syntax: not empty, relative, no "." or ".." components, no empty component,
 * at most one "<N>" and only in the last component, at most 8 '*'. KS_EINVALID with a message
 * naming the pattern otherwise. */
int ks_pattern_check(const char *spec);

/* 1 when spec holds a '*' or "<N>", 0 when it is a plain path. */
int ks_pattern_has_wildcard(const char *spec);

/* Matches one path component `name` against one pattern component. Returns 1 on a match and then,
 * when the pattern has "<N>", *number points into name at the digits and *ndigits is their count
 * (else *number is NULL); 0 when it does not match or matching takes too many steps. */
int ks_pattern_match(const char **number, size_t *ndigits, const char *pattern, const char *name);

/* Compares two decimal digit strings of any length as integers (leading zeros ignored): -1, 0, 1. */
int ks_pattern_cmp_number(const char *a, size_t na, const char *b, size_t nb);

#endif
