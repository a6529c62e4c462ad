/* utf8: checks and repairs UTF-8. Every file kscore writes is valid UTF-8 whatever bytes the input
 * held (DESIGN §4.9), and code handed to the compiler must be text. "Valid" is Unicode's definition:
 * no overlong forms, no surrogates (U+D800..U+DFFF), nothing above U+10FFFF. NUL is valid UTF-8;
 * callers that cannot hold it check for it themselves.
 *
 * Text from untrusted sources (commit subjects, author names, team names) is also measured in
 * terminal columns, independently of the locale: the width of a code point is 2 for the East Asian
 * wide and fullwidth ranges (CJK ideographs, kana, Hangul syllables, fullwidth forms, most emoji),
 * 0 for combining marks and zero-width characters, 1 otherwise. Pure functions. */
#ifndef KS_UTF8_H
#define KS_UTF8_H

#include <stddef.h>
#include <stdint.h>

/* A decoder fed one byte at a time, for scanners that see their input in pieces. */
typedef struct {
	unsigned need;           /* continuation bytes still expected */
	unsigned char lo, hi;    /* the range the next continuation byte must fall in */
} ks_utf8_state;

#define KS_UTF8_STATE_INIT { 0, 0x80, 0xBF }

/* Feeds byte c. Returns 1 when it completes a character, 0 when the character needs more bytes,
 * -1 when c cannot start or continue a character. After -1 the state is reset: a c that failed as
 * a continuation byte may still start the next character, and the caller decides whether to feed
 * it again. */
int ks_utf8_step(ks_utf8_state *st, unsigned char c);

/* 1 when s[0..n) is valid UTF-8; else 0, with *bad (if not NULL) set to the offset of the first
 * byte that is not part of a valid character (the start of a broken or truncated sequence). */
int ks_utf8_valid(const char *s, size_t n, size_t *bad);

/* Where byte offset `off` of s lies for a person: 1-based line and column, the column counted in
 * characters (continuation bytes do not count). */
void ks_utf8_position(const char *s, size_t off, size_t *line, size_t *col);

/* A copy of s[0..n) in which every invalid sequence (its longest prefix that could have begun a
 * character, or one stray byte) is replaced by U+FFFD; valid text is copied unchanged. NUL bytes
 * are kept. Returns the copy (NUL-terminated; caller frees with ks_free) and its length in
 * *outlen when not NULL. */
char *ks_utf8_sanitize(const char *s, size_t n, size_t *outlen);

/* Decodes the code point at s (n bytes available, n > 0) into *cp and returns its length in
 * bytes. An invalid, overlong, surrogate or truncated sequence decodes as U+FFFD of length 1. */
size_t ks_utf8_decode(uint32_t *cp, const char *s, size_t n);

/* ks_utf8_sanitize of the NUL-terminated s (no length back). Caller frees. */
char *ks_utf8_clean(const char *s);

/* Untrusted text made safe to show on a terminal and to store: as ks_utf8_sanitize, and every
 * control character but newline and tab (NUL, ESC and so every escape sequence, carriage return,
 * DEL) written as \xNN, every C1 control (U+0080..U+009F, which some terminals obey as ESC
 * sequences) as \u00NN. The one filter for device printf and a Triton trace's texts. Caller
 * frees. */
char *ks_utf8_printable(const char *s, size_t n);

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
