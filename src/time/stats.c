/* stats: see src/time/stats.h. */
#include "time/stats.h"
#include "util/mem.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

void ks_stats_compute(ks_stats *st, const double *x, size_t n)
{
	double *s = ks_malloc((n ? n : 1) * sizeof(double)), sum = 0, sq = 0;
	size_t i;
	memset(st, 0, sizeof(*st));
	st->n = n;
	if (!n) {
		ks_free(s);
		return;
	}
	memcpy(s, x, n * sizeof(double));
	qsort(s, n, sizeof(double), cmp_double);
	st->min = s[0];
	st->max = s[n - 1];
	st->median = n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
	for (i = 0; i < n; i++)
		sum += s[i];
	st->mean = sum / (double)n;
	for (i = 0; i < n; i++)
		sq += (s[i] - st->mean) * (s[i] - st->mean);
	st->stdev = n > 1 ? sqrt(sq / (double)(n - 1)) : 0;
	st->rel_error = n > 1 && st->mean > 0 ? st->stdev / sqrt((double)n) / st->mean : INFINITY;
	ks_free(s);
}
