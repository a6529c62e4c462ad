#include "utf8.h"
#include "mem.h"

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
