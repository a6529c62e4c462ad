/* html: the page writer of the static site (web_export). Every string that comes from a
 * submission or a result file (team names, commit subjects, code, device output, reasons, file
 * names) reaches a page only through ks_html_text*, which turns invalid UTF-8 and control
 * characters into U+FFFD and escapes & < > " ' so that the text renders as text in element content
 * and in quoted attribute values alike. Data embedded for scripts goes through
 * ks_html_json_script, which also escapes "</" and U+2028/U+2029.
 *
 * A ks_html is a capped buffer with a sticky status: writers append without checking each call,
 * and the caller checks `rc` once at the end (KS_ELIMIT when the page grew past its cap). */
#ifndef KS_HTML_H
#define KS_HTML_H

#include <stddef.h>
#include <cJSON.h>
#include "util/buf.h"

typedef struct {
	ks_buf buf;
	int rc;       /* 0, or the first error (KS_ELIMIT) */
} ks_html;

#define KS_HTML_INIT(maxbytes) { KS_BUF_INIT(maxbytes), 0 }

/* Appends trusted markup as is (the exporter's own tags and numbers). */
void ks_html_raw(ks_html *h, const char *s);
void ks_html_rawf(ks_html *h, const char *fmt, ...) KS_PRINTF(2, 3);

/* Appends untrusted text, escaped for element content and quoted attributes. NULL appends
 * nothing. */
void ks_html_text(ks_html *h, const char *s);
void ks_html_textn(ks_html *h, const char *s, size_t n);
/* Appends a name (a team's) as element content: escaped as ks_html_text does, inside <bdi>, so that
 * its own direction, and any bidirectional control in it (an override never closed), stays inside
 * it and cannot reorder the text around it (a score after the name on the same line). NULL
 * appends nothing. */
void ks_html_name(ks_html *h, const char *s);
/* Formats, then escapes the result (for "%s" of untrusted strings mixed with numbers). */
void ks_html_textf(ks_html *h, const char *fmt, ...) KS_PRINTF(2, 3);

/* Appends code (a submission's source, a compile log quoting it, device output) as
 * ks_html_textn does, except that every bidirectional control character (U+202A..U+202E,
 * U+2066..U+2069), which would make the code read differently from what the compiler sees
 * (Trojan Source), is shown as a visible, marked placeholder instead:
 * <span class="bidi" title="U+202E RIGHT-TO-LEFT OVERRIDE: ...">&lt;U+202E&gt;</span>.
 * Returns how many there were. */
size_t ks_html_code_textn(ks_html *h, const char *s, size_t n);

/* The number of bidirectional control characters in s (NULL: 0). */
size_t ks_html_bidi_count(const char *s);

/* Appends at most max_chars code points of s, escaped, and "…" when it was cut. */
void ks_html_text_cut(ks_html *h, const char *s, size_t max_chars);

/* Appends v as JSON fit for <script type="application/json">: valid UTF-8, and "<", ">", "&",
 * U+2028 and U+2029 as \u escapes (they can occur only inside JSON strings, so the value is
 * unchanged for a JSON parser, and "</script>" or "<!--" can never appear). */
void ks_html_json_script(ks_html *h, const cJSON *v);

void ks_html_free(ks_html *h);

/* Decodes one UTF-8 sequence at s (n bytes available, n > 0). Returns the number of bytes it
 * takes (1 for an invalid byte) and sets *cp to the code point, or to U+FFFD when the sequence is
 * invalid (overlong, surrogate, beyond U+10FFFF, truncated). */
size_t ks_html_utf8_next(const unsigned char *s, size_t n, unsigned *cp);

/* A copy of s[0..n) where every invalid UTF-8 sequence is replaced by U+FFFD. Caller frees. */
char *ks_html_utf8_clean(const char *s, size_t n);

/* 1 when s[0..n) is valid UTF-8. */
int ks_html_utf8_valid(const char *s, size_t n);

/* Number of code points in s (invalid bytes count one each). */
size_t ks_html_utf8_len(const char *s);

#endif
