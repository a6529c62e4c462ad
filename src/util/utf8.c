#include "util/utf8.h"
#include "util/mem.h"

#include <stdio.h>
#include <string.h>

static const char replacement[] = "\xEF\xBF\xBD"; /* U+FFFD */

int ks_utf8_step(ks_utf8_state *st, unsigned char c)
{
	if (st->need) {
		if (c < st->lo || c > st->hi) {
			st->need = 0;
			st->lo = 0x80;
			st->hi = 0xBF;
			return -1;
		}
		st->lo = 0x80;
		st->hi = 0xBF;
		return --st->need ? 0 : 1;
	}
	if (c < 0x80)
		return 1;
	if (c < 0xC2) /* a continuation byte, or the lead of an overlong 2-byte form */
		return -1;
	if (c < 0xE0) {
		st->need = 1;
		return 0;
	}
	if (c < 0xF0) {
		/* E0 must not encode below U+0800; ED must not reach the surrogates */
		st->need = 2;
		st->lo = c == 0xE0 ? 0xA0 : 0x80;
		st->hi = c == 0xED ? 0x9F : 0xBF;
		return 0;
	}
	if (c < 0xF5) {
		/* F0 must not encode below U+10000; F4 must not pass U+10FFFF */
		st->need = 3;
		st->lo = c == 0xF0 ? 0x90 : 0x80;
		st->hi = c == 0xF4 ? 0x8F : 0xBF;
		return 0;
	}
	return -1;
}

int ks_utf8_valid(const char *s, size_t n, size_t *bad)
{
	ks_utf8_state st = KS_UTF8_STATE_INIT;
	const unsigned char *p = (const unsigned char *)s;
	size_t i, start = 0;

	for (i = 0; i < n; i++) {
		if (!st.need)
			start = i;
		if (ks_utf8_step(&st, p[i]) < 0) {
			if (bad)
				*bad = start;
			return 0;
		}
	}
	if (st.need) {
		if (bad)
			*bad = start;
		return 0;
	}
	return 1;
}

void ks_utf8_position(const char *s, size_t off, size_t *line, size_t *col)
{
	size_t i;

	*line = 1;
	*col = 1;
	for (i = 0; i < off; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '\n') {
			(*line)++;
			*col = 1;
		} else if ((c & 0xC0) != 0x80) {
			(*col)++;
		}
	}
}

char *ks_utf8_sanitize(const char *s, size_t n, size_t *outlen)
{
	ks_utf8_state st = KS_UTF8_STATE_INIT;
	const unsigned char *p = (const unsigned char *)s;
	char *out, *o;
	size_t i = 0, start = 0;

	if (ks_utf8_valid(s, n, NULL)) {
		out = ks_malloc(n + 1);
		memcpy(out, s, n);
		out[n] = '\0';
		if (outlen)
			*outlen = n;
		return out;
	}
	/* each replaced byte becomes at most 3 bytes */
	out = o = ks_malloc(3 * n + 1);
	while (i < n) {
		int r;
		if (!st.need)
			start = i;
		r = ks_utf8_step(&st, p[i]);
		if (r == 1) {
			memcpy(o, s + start, i + 1 - start);
			o += i + 1 - start;
		} else if (r < 0) {
			memcpy(o, replacement, 3);
			o += 3;
			if (i > start)
				continue; /* the broken sequence ends before p[i]; p[i] starts afresh */
		}
		i++;
	}
	if (st.need) {
		memcpy(o, replacement, 3);
		o += 3;
	}
	*o = '\0';
	if (outlen)
		*outlen = (size_t)(o - out);
	return out;
}

/* ---- code points and terminal columns ---- */

#define REPLACEMENT 0xFFFDu

size_t ks_utf8_decode(uint32_t *cp, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	uint32_t c = s[0], min;
	size_t len, i;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xC2 && c <= 0xDF) {
		len = 2;
		c &= 0x1F;
		min = 0x80;
	} else if (c >= 0xE0 && c <= 0xEF) {
		len = 3;
		c &= 0x0F;
		min = 0x800;
	} else if (c >= 0xF0 && c <= 0xF4) {
		len = 4;
		c &= 0x07;
		min = 0x10000;
	} else {
		goto bad;  /* a continuation byte, an overlong lead (C0, C1) or F5..FF */
	}
	if (len > n)
		goto bad;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xC0) != 0x80)
			goto bad;
		c = (c << 6) | (s[i] & 0x3F);
	}
	if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
		goto bad;
	*cp = c;
	return len;
bad:
	*cp = REPLACEMENT;
	return 1;
}

char *ks_utf8_clean(const char *s)
{
	return ks_utf8_sanitize(s, strlen(s), NULL);
}

typedef struct {
	uint32_t lo, hi;
} range;

/* Zero-width: combining marks, zero-width spaces and joiners, variation selectors. */
static const range zero[] = {
	{ 0x0300, 0x036F }, { 0x0483, 0x0489 }, { 0x0591, 0x05BD }, { 0x0610, 0x061A },
	{ 0x064B, 0x065F }, { 0x1160, 0x11FF }, { 0x1AB0, 0x1AFF }, { 0x1DC0, 0x1DFF },
	{ 0x200B, 0x200F }, { 0x2028, 0x202E }, { 0x2060, 0x2064 }, { 0x20D0, 0x20FF },
	{ 0x3099, 0x309A }, { 0xFE00, 0xFE0F }, { 0xFE20, 0xFE2F }, { 0xFEFF, 0xFEFF },
	{ 0xE0100, 0xE01EF },
};

/* East Asian Wide and Fullwidth: CJK, kana, Hangul, fullwidth forms, and the emoji blocks. */
static const range wide[] = {
	{ 0x1100, 0x115F }, { 0x231A, 0x231B }, { 0x2329, 0x232A }, { 0x23E9, 0x23EC },
	{ 0x2614, 0x2615 }, { 0x2E80, 0x303E }, { 0x3041, 0x3098 }, { 0x309B, 0x33FF },
	{ 0x3400, 0x4DBF }, { 0x4E00, 0x9FFF }, { 0xA000, 0xA4CF }, { 0xA960, 0xA97F },
	{ 0xAC00, 0xD7A3 }, { 0xF900, 0xFAFF }, { 0xFE10, 0xFE19 }, { 0xFE30, 0xFE6F },
	{ 0xFF00, 0xFF60 }, { 0xFFE0, 0xFFE6 }, { 0x16FE0, 0x16FE4 }, { 0x17000, 0x18AFF },
	{ 0x1B000, 0x1B2FF }, { 0x1F300, 0x1F64F }, { 0x1F680, 0x1F6FF }, { 0x1F900, 0x1F9FF },
	{ 0x20000, 0x2FFFD }, { 0x30000, 0x3FFFD },
};

static int in(const range *r, size_t n, uint32_t cp)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (cp < r[mid].lo)
			hi = mid;
		else if (cp > r[mid].hi)
			lo = mid + 1;
		else
			return 1;
	}
	return 0;
}

int ks_utf8_cp_width(uint32_t cp)
{
	if (cp < 0x20 || (cp >= 0x7F && cp < 0xA0))
		return 0;
	if (cp < 0x300)
		return 1;
	if (in(zero, sizeof(zero) / sizeof(zero[0]), cp))
		return 0;
	return in(wide, sizeof(wide) / sizeof(wide[0]), cp) ? 2 : 1;
}

size_t ks_utf8_width(const char *s)
{
	size_t w = 0;
	ks_utf8_prefix(s, (size_t)-1, 0, &w);
	return w;
}

size_t ks_utf8_length(const char *s)
{
	size_t n = strlen(s), i = 0, cps = 0;
	while (i < n) {
		uint32_t cp;
		i += ks_utf8_decode(&cp, s + i, n - i);
		cps++;
	}
	return cps;
}

size_t ks_utf8_prefix(const char *s, size_t cols, size_t max_cps, size_t *width)
{
	size_t n = strlen(s), i = 0, w = 0, cps = 0;
	while (i < n && (!max_cps || cps < max_cps)) {
		uint32_t cp;
		size_t k = ks_utf8_decode(&cp, s + i, n - i), cw = (size_t)ks_utf8_cp_width(cp);
		if (w + cw > cols)
			break;
		w += cw;
		i += k;
		cps++;
	}
	if (width)
		*width = w;
	return i;
}

char *ks_utf8_printable(const char *s, size_t n)
{
	char *out = ks_malloc(4 * n + 1), *o = out; /* a byte becomes at most 4: "\xNN" */
	size_t i = 0;
	while (i < n) {
		uint32_t cp;
		size_t k = ks_utf8_decode(&cp, s + i, n - i);
		if (k == 1 && ((cp < 0x20 && cp != '\n' && cp != '\t') || cp == 0x7f))
			o += sprintf(o, "\\x%02x", (unsigned)cp);
		else if (k == 2 && cp >= 0x80 && cp <= 0x9f)
			o += sprintf(o, "\\u%04x", (unsigned)cp);
		else if (cp == 0xFFFD && k == 1) {
			memcpy(o, replacement, 3);
			o += 3;
		} else {
			memcpy(o, s + i, k);
			o += k;
		}
		i += k;
	}
	*o = 0;
	return out;
}
