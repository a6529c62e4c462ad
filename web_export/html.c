#include "web_export/html.h"
#include "util/mem.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static void put(ks_html *h, const void *p, size_t n)
{
	if (h->rc == 0)
		h->rc = ks_buf_put(&h->buf, p, n);
}

void ks_html_raw(ks_html *h, const char *s)
{
	if (s)
		put(h, s, strlen(s));
}

static char *vformat(const char *fmt, va_list ap)
{
	va_list cp;
	char small[256], *big;
	int n;
	va_copy(cp, ap);
	n = vsnprintf(small, sizeof(small), fmt, cp);
	va_end(cp);
	if (n < 0)
		return ks_strdup("");
	big = ks_malloc((size_t)n + 1);
	vsnprintf(big, (size_t)n + 1, fmt, ap);
	return big;
}

void ks_html_rawf(ks_html *h, const char *fmt, ...)
{
	va_list ap;
	char *s;
	va_start(ap, fmt);
	s = vformat(fmt, ap);
	va_end(ap);
	ks_html_raw(h, s);
	ks_free(s);
}

size_t ks_html_utf8_next(const unsigned char *s, size_t n, unsigned *cp)
{
	unsigned c = s[0], need, min, v, i;
	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xC2 && c <= 0xDF) {
		need = 1;
		min = 0x80;
		v = c & 0x1F;
	} else if (c >= 0xE0 && c <= 0xEF) {
		need = 2;
		min = 0x800;
		v = c & 0x0F;
	} else if (c >= 0xF0 && c <= 0xF4) {
		need = 3;
		min = 0x10000;
		v = c & 0x07;
	} else {
		*cp = 0xFFFD; /* a continuation byte, C0/C1 (overlong) or F5..FF */
		return 1;
	}
	if (n < need + 1) {
		*cp = 0xFFFD;
		return 1;
	}
	for (i = 1; i <= need; i++) {
		if ((s[i] & 0xC0) != 0x80) {
			*cp = 0xFFFD;
			return 1;
		}
		v = (v << 6) | (s[i] & 0x3F);
	}
	if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) {
		*cp = 0xFFFD;
		return 1;
	}
	*cp = v;
	return need + 1;
}

/* A byte sequence that decodes to U+FFFD only because it was invalid (not a literal U+FFFD). */
static int invalid(const unsigned char *s, size_t len, unsigned cp)
{
	return cp == 0xFFFD && !(len == 3 && s[0] == 0xEF && s[1] == 0xBF && s[2] == 0xBD);
}

static const char replacement[] = "\xEF\xBF\xBD";

char *ks_html_utf8_clean(const char *s, size_t n)
{
	ks_buf b = KS_BUF_INIT((size_t)-1 / 4);
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, run = 0;
	while (i < n) {
		unsigned cp;
		size_t len = ks_html_utf8_next(u + i, n - i, &cp);
		if (invalid(u + i, len, cp)) {
			if (i > run)
				ks_buf_put(&b, s + run, i - run);
			ks_buf_put(&b, replacement, 3);
			run = i + len;
		}
		i += len;
	}
	if (n > run)
		ks_buf_put(&b, s + run, n - run);
	return ks_buf_take(&b, NULL);
}

int ks_html_utf8_valid(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0;
	while (i < n) {
		unsigned cp;
		size_t len = ks_html_utf8_next(u + i, n - i, &cp);
		if (invalid(u + i, len, cp))
			return 0;
		i += len;
	}
	return 1;
}

size_t ks_html_utf8_len(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, n = strlen(s), count = 0;
	while (i < n) {
		unsigned cp;
		i += ks_html_utf8_next(u + i, n - i, &cp);
		count++;
	}
	return count;
}

/* The bidirectional control characters that reorder how text is displayed (Trojan Source): LRE,
 * RLE, PDF, LRO, RLO and LRI, RLI, FSI, PDI. Their names, for the placeholder's title. */
static const char *bidi_name(unsigned cp)
{
	static const char *const embed[] = { "LEFT-TO-RIGHT EMBEDDING", "RIGHT-TO-LEFT EMBEDDING",
					     "POP DIRECTIONAL FORMATTING", "LEFT-TO-RIGHT OVERRIDE",
					     "RIGHT-TO-LEFT OVERRIDE" };
	static const char *const isolate[] = { "LEFT-TO-RIGHT ISOLATE", "RIGHT-TO-LEFT ISOLATE",
					       "FIRST STRONG ISOLATE", "POP DIRECTIONAL ISOLATE" };
	if (cp >= 0x202A && cp <= 0x202E)
		return embed[cp - 0x202A];
	if (cp >= 0x2066 && cp <= 0x2069)
		return isolate[cp - 0x2066];
	return NULL;
}

size_t ks_html_bidi_count(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, n = s ? strlen(s) : 0, count = 0;
	while (i < n) {
		unsigned cp;
		i += ks_html_utf8_next(u + i, n - i, &cp);
		count += bidi_name(cp) != NULL;
	}
	return count;
}

/* Escapes s[0..n) and stops after max_chars code points; returns 1 when it stopped early. With
 * bidi, each bidirectional control is shown as a marked placeholder instead, and counted there. */
static int text(ks_html *h, const char *s, size_t n, size_t max_chars, size_t *bidi)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, run = 0, chars = 0;
	while (i < n) {
		unsigned cp;
		size_t len;
		const char *rep = NULL, *mark = NULL;
		if (chars == max_chars) {
			put(h, s + run, i - run);
			return 1;
		}
		len = ks_html_utf8_next(u + i, n - i, &cp);
		chars++;
		switch (cp) {
		case '&': rep = "&amp;"; break;
		case '<': rep = "&lt;"; break;
		case '>': rep = "&gt;"; break;
		case '"': rep = "&quot;"; break;
		case '\'': rep = "&#39;"; break;
		case '\t': case '\n': break;
		case '\r': rep = ""; break; /* CRLF from Windows editors: the LF carries the line */
		default:
			/* invalid bytes and controls (C0 except TAB/LF, DEL, C1) cannot render */
			if (invalid(u + i, len, cp) || cp < 0x20 || (cp >= 0x7F && cp <= 0x9F))
				rep = replacement;
			else if (bidi && bidi_name(cp))
				rep = mark = "";
		}
		if (rep) {
			put(h, s + run, i - run);
			ks_html_raw(h, rep);
			if (mark) {
				/* shown as what it is, where it is, as code hosts show it */
				ks_html_rawf(h, "<span class=\"bidi\" title=\"U+%04X %s: a bidirectional control "
					     "character; the code around it may read differently from what the "
					     "compiler sees\">&lt;U+%04X&gt;</span>", cp, bidi_name(cp), cp);
				(*bidi)++;
			}
			run = i + len;
		}
		i += len;
	}
	put(h, s + run, n - run);
	return 0;
}

void ks_html_textn(ks_html *h, const char *s, size_t n)
{
	if (s)
		text(h, s, n, (size_t)-1, NULL);
}

size_t ks_html_code_textn(ks_html *h, const char *s, size_t n)
{
	size_t bidi = 0;
	if (s)
		text(h, s, n, (size_t)-1, &bidi);
	return bidi;
}

void ks_html_name(ks_html *h, const char *s)
{
	if (!s)
		return;
	ks_html_raw(h, "<bdi>");
	text(h, s, strlen(s), (size_t)-1, NULL);
	ks_html_raw(h, "</bdi>");
}

void ks_html_text(ks_html *h, const char *s)
{
	if (s)
		text(h, s, strlen(s), (size_t)-1, NULL);
}

void ks_html_text_cut(ks_html *h, const char *s, size_t max_chars)
{
	if (s && text(h, s, strlen(s), max_chars, NULL))
		ks_html_raw(h, "\xE2\x80\xA6");
}

void ks_html_textf(ks_html *h, const char *fmt, ...)
{
	va_list ap;
	char *s;
	va_start(ap, fmt);
	s = vformat(fmt, ap);
	va_end(ap);
	ks_html_text(h, s);
	ks_free(s);
}

void ks_html_json_script(ks_html *h, const cJSON *v)
{
	char *printed = cJSON_PrintUnformatted(v), *clean;
	const unsigned char *u;
	size_t i, run = 0, n;
	if (!printed) {
		ks_html_raw(h, "null");
		return;
	}
	clean = ks_html_utf8_clean(printed, strlen(printed));
	cJSON_free(printed);
	u = (const unsigned char *)clean;
	n = strlen(clean);
	for (i = 0; i < n; i++) {
		const char *rep = NULL;
		size_t len = 1;
		if (u[i] == '<')
			rep = "\\u003c";
		else if (u[i] == '>')
			rep = "\\u003e";
		else if (u[i] == '&')
			rep = "\\u0026";
		else if (u[i] == 0xE2 && i + 2 < n && u[i + 1] == 0x80 && (u[i + 2] == 0xA8 || u[i + 2] == 0xA9)) {
			rep = u[i + 2] == 0xA8 ? "\\u2028" : "\\u2029";
			len = 3;
		}
		if (rep) {
			put(h, clean + run, i - run);
			ks_html_raw(h, rep);
			run = i + len;
			i += len - 1;
		}
	}
	put(h, clean + run, n - run);
	ks_free(clean);
}

void ks_html_free(ks_html *h)
{
	ks_buf_free(&h->buf);
	h->rc = 0;
}
