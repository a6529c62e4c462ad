/* utf8: UTF-8 text from untrusted sources (commit subjects, author names, team names) made safe
 * to print and to put in JSON, and measured in terminal columns. Independent of the locale: the
 * width of a code point is 2 for the East Asian wide and fullwidth ranges (CJK ideographs, kana,
 * Hangul syllables, fullwidth forms, most emoji), 0 for combining marks and zero-width
 * characters, 1 otherwise. Pure functions. */
#ifndef KS_UTF8_H
#define KS_UTF8_H

#include <stddef.h>
#include <stdint.h>

/* Decodes the code point at s (n bytes available, n > 0) into *cp and returns its length in
 * bytes. An invalid, overlong, surrogate or truncated sequence decodes as U+FFFD of length 1. */
size_t ks_utf8_decode(uint32_t *cp, const char *s, size_t n);

/* 1 when s[0..n) is valid UTF-8 (no overlong forms, no surrogates, nothing above U+10FFFF). */
int ks_utf8_valid(const char *s, size_t n);

/* A copy of s with every invalid byte replaced by U+FFFD, so that it is valid UTF-8. Caller
 * frees. */
char *ks_utf8_clean(const char *s);

/* The columns code point cp takes on a terminal: 0, 1 or 2 (see above). */
int ks_utf8_cp_width(uint32_t cp);

/* The columns the text s takes. */
size_t ks_utf8_width(const char *s);

/* The number of code points in s. */
size_t ks_utf8_length(const char *s);

/* The byte length of the longest prefix of s made of whole code points that takes at most `cols`
 * columns (and at most `max_cps` code points when max_cps is not 0); *width (may be NULL) gets
 * its width in columns. */
size_t ks_utf8_prefix(const char *s, size_t cols, size_t max_cps, size_t *width);

#endif
