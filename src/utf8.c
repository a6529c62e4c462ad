/* utf8: see include/utf8.h. */
#include "utf8.h"
#include "mem.h"

#include <string.h>

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

int ks_utf8_valid(const char *s, size_t n)
{
	size_t i = 0;
	while (i < n) {
		uint32_t cp;
		size_t k = ks_utf8_decode(&cp, s + i, n - i);
		/* a real U+FFFD is three bytes long; a one-byte "U+FFFD" is an invalid byte */
		if (cp == REPLACEMENT && k == 1)
			return 0;
		i += k;
	}
	return 1;
}

char *ks_utf8_clean(const char *s)
{
	size_t n = strlen(s), i = 0, o = 0;
	char *out = ks_malloc(n * 3 + 1);  /* each invalid byte becomes three */
	while (i < n) {
		uint32_t cp;
		size_t k = ks_utf8_decode(&cp, s + i, n - i);
		if (cp == REPLACEMENT && k == 1) {
			memcpy(out + o, "\xEF\xBF\xBD", 3);
			o += 3;
		} else {
			memcpy(out + o, s + i, k);
			o += k;
		}
		i += k;
	}
	out[o] = '\0';
	return out;
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
