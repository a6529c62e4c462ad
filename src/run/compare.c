#include "run/compare.h"
#include "run/harness.h"
#include "util/mem.h"

#include <math.h>
#include <string.h>

/* One element that is not bit-identical to the reference: poison left, or outside tolerance. */
static void judge(ks_cmp_stats *st, ks_dtype t, int isf, const unsigned char *g, const unsigned char *w,
		  const unsigned char *pat, size_t es, uint64_t i, double atol, double rtol)
{
	int bad = 0;
	double a = ks_dtype_get(t, g, 0), b = ks_dtype_get(t, w, 0);
	if (!memcmp(g, pat, es)) {
		bad = 1;
		st->unwritten++;
	} else if (!isf) {
		bad = a != b;
	} else if (isnan(a) || isnan(b)) {
		bad = !(isnan(a) && isnan(b));
	} else if (isinf(a) || isinf(b)) {
		bad = a != b;
	} else {
		double err = fabs(a - b);
		if (err > st->max_abs_err)
			st->max_abs_err = err;
		if (b != 0 && err / fabs(b) > st->max_rel_err)
			st->max_rel_err = err / fabs(b);
		bad = !(err <= atol + rtol * fabs(b));
	}
	if (bad) {
		if (st->bad == 0) {
			st->first_bad = i;
			st->got = a;
			st->want = b;
		}
		st->bad++;
	}
}

/* Bit-identical elements (the common case, and the one that covers matching NaNs and
 * infinities) are skipped with one word compare; the rest are judged one by one. The sampled
 * outputs of timed runs (262144 elements each) go through here, so the fast path matters. */
#define KS_COMPARE_WORDS(type)                                                                      \
	do {                                                                                        \
		for (i = 0; i < count; i++) {                                                       \
			type x, y;                                                                  \
			memcpy(&x, g + i * sizeof(type), sizeof(type));                             \
			memcpy(&y, w + i * sizeof(type), sizeof(type));                             \
			if (x != y)                                                                 \
				judge(st, t, isf, g + i * es, w + i * es, pat, es, i, atol, rtol);  \
		}                                                                                   \
	} while (0)

void ks_compare_tensor(ks_cmp_stats *st, ks_dtype t, const void *got, const void *want,
		       uint64_t count, double atol, double rtol, int poison)
{
	const unsigned char *g = got, *w = want;
	size_t es = ks_dtype_size(t);
	int isf = ks_dtype_is_float(t);
	unsigned char pat[8];
	uint64_t i;

	memset(st, 0, sizeof(*st));
	st->total = count;
	ks_dtype_poison(t, poison, pat);
	switch (es) {
	case 1:
		KS_COMPARE_WORDS(uint8_t);
		break;
	case 2:
		KS_COMPARE_WORDS(uint16_t);
		break;
	case 4:
		KS_COMPARE_WORDS(uint32_t);
		break;
	case 8:
		KS_COMPARE_WORDS(uint64_t);
		break;
	default:
		for (i = 0; i < count; i++)
			if (memcmp(g + i * es, w + i * es, es))
				judge(st, t, isf, g + i * es, w + i * es, pat, es, i, atol, rtol);
		break;
	}
}

uint64_t ks_compare_count_poison(uint64_t *first, ks_dtype t, const void *buf, uint64_t count, int poison)
{
	const unsigned char *b = buf;
	size_t es = ks_dtype_size(t);
	unsigned char pat[8];
	uint64_t i, n = 0;

	ks_dtype_poison(t, poison, pat);
	if (first)
		*first = 0;
	for (i = 0; i < count; i++)
		if (!memcmp(b + i * es, pat, es) && n++ == 0 && first)
			*first = i;
	return n;
}

int64_t ks_compare_guard(const unsigned char *band, uint64_t len, uint64_t phase)
{
	uint64_t i, w = KS_GUARD_WORD;
	for (i = 0; i < len; i++) {
		unsigned char expect = (unsigned char)(w >> (8 * ((i + phase) % 8)));
		if (band[i] != expect)
			return (int64_t)i;
	}
	return -1;
}

char *ks_compare_describe(const ks_cmp_stats *st, const char *tensor, double atol, double rtol)
{
	if (st->bad == 0)
		return ks_asprintf("%s: all %llu elements within tolerance (max abs error %.3g)", tensor,
				   (unsigned long long)st->total, st->max_abs_err);
	if (st->unwritten == st->bad)
		return ks_asprintf("%s: %llu of %llu elements were never written (first at index %llu)",
				   tensor, (unsigned long long)st->unwritten, (unsigned long long)st->total,
				   (unsigned long long)st->first_bad);
	return ks_asprintf("%s[%llu] = %.9g, expected %.9g (tolerance %g + %g*|ref|); %llu of %llu "
			   "elements wrong%s, max abs error %.3g",
			   tensor, (unsigned long long)st->first_bad, st->got, st->want, atol, rtol,
			   (unsigned long long)st->bad, (unsigned long long)st->total,
			   st->unwritten ? " (some never written)" : "", st->max_abs_err);
}
