#include "util/numparse.h"

#include <ctype.h>
#include <stddef.h>

int ks_numparse_u64(uint64_t *out, const char *s, uint64_t max, int hex)
{
	uint64_t v = 0;
	size_t n = 0;
	int base = 10;
	if (hex && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	for (; *s; s++, n++) {
		int d;
		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if (base == 16 && isxdigit((unsigned char)*s))
			d = tolower((unsigned char)*s) - 'a' + 10;
		else
			return -1;
		if (__builtin_mul_overflow(v, (uint64_t)base, &v) || __builtin_add_overflow(v, (uint64_t)d, &v))
			return -1;
	}
	if (n == 0 || v > max)
		return -1;
	*out = v;
	return 0;
}
