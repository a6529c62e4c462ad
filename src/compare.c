#include "compare.h"
#include "mem.h"

#include <math.h>
#include <string.h>

static int is_poison(ks_dtype t, const unsigned char *elem, int variant)
{
	unsigned char pat[8];
	ks_dtype_poison(t, variant, pat);
	return memcmp(elem, pat, ks_dtype_size(t)) == 0;
}

void ks_compare_tensor(ks_cmp_stats *st, ks_dtype t, const void *got, const void *want,
		       uint64_t count, double atol, double rtol, int poison)
{
	const unsigned char *g = got, *w = want;
	size_t es = ks_dtype_size(t);
	int isf = ks_dtype_is_float(t);
	uint64_t i;

	memset(st, 0, sizeof(*st));
	st->total = count;
	for (i = 0; i < count; i++) {
		int bad = 0;
		double a, b;
		if (!memcmp(g + i * es, w + i * es, es))
			continue; /* bit-identical: always fine (covers matching NaNs and infinities) */
		if (is_poison(t, g + i * es, poison)) {
			bad = 1;
			st->unwritten++;
		}
		a = ks_dtype_get(t, g, i);
		b = ks_dtype_get(t, w, i);
		if (!bad) {
			if (!isf) {
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
