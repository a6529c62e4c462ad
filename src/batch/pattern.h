/* pattern: the submission path patterns of `score batch` (docs/batch.md). A pattern is a path
 * relative to a repository:
 *   '*'     in a component matches any run of characters other than '/';
 *   '**'    as a whole component matches any number of folders, none included (inside a
 *           component it is two '*');
 *   {a,b}   alternatives (nested braces allowed, an empty one too: "{,submit/}x.json"), which
 *           may span components; a pattern is expanded into its alternatives first;
 *   <N>     in the last component (once) matches a decimal integer, so that "out/r_<N>.json"
 *           selects the file with the highest N.
 * Pure string functions: walking a tree with them is repos.c's. Names come from teams' trees, so
 * matching is bounded in steps and a hostile name fails to match instead of making it slow. */
#ifndef KS_PATTERN_H
#define KS_PATTERN_H

#include <stddef.h>

#define KS_PATTERN_MAX_ALTERNATIVES 64  /* expansions of one pattern's braces */
#define KS_PATTERN_MAX_LEN 1024         /* bytes of one pattern */

/* Expands a pattern's braces into its alternatives, in the order written, and checks each: not
 * empty, relative, no "." or ".." components, no empty component, a "**" component never last,
 * at most one "<N>" and only in the last component, at most 8 '*'. Fails with
 * KS_EINVALID and a message naming the pattern (unbalanced braces, more than
 * KS_PATTERN_MAX_ALTERNATIVES alternatives, or one of the above). Caller frees *out with
 * ks_free_strv(*out, *n). */
int ks_pattern_expand(char ***out, size_t *n, const char *spec);

/* ks_pattern_expand's checks, without keeping the alternatives. KS_EINVALID with a message. */
int ks_pattern_check(const char *spec);

/* 1 when spec holds a '*', "<N>" or '{', 0 when it is a plain path. */
int ks_pattern_has_wildcard(const char *spec);

/* 1 when a path component is "**". */
int ks_pattern_is_globstar(const char *component);

/* Matches one path component `name` against one pattern component. Returns 1 on a match and then,
 * when the pattern has "<N>", *number points into name at the digits and *ndigits is their count
 * (else *number is NULL); 0 when it does not match or matching takes too many steps. */
int ks_pattern_match(const char **number, size_t *ndigits, const char *pattern, const char *name);

/* Compares two decimal digit strings of any length as integers (leading zeros ignored): -1, 0, 1. */
int ks_pattern_cmp_number(const char *a, size_t na, const char *b, size_t nb);

#endif
