#include "util/nearest.h"

#include <ctype.h>
#include <stdint.h>
#include <string.h>

size_t ks_nearest_distance(const char *a, const char *b)
{
	size_t row[3][KS_NEAREST_MAX_LEN + 1];
	size_t la = strlen(a), lb = strlen(b), i, j;

	if (la > KS_NEAREST_MAX_LEN || lb > KS_NEAREST_MAX_LEN)
		return SIZE_MAX;
	/* three rows of the table: i-2 (for a swap), i-1 and i */
	for (j = 0; j <= lb; j++)
		row[0][j] = j;
	for (i = 1; i <= la; i++) {
		size_t *prev2 = row[(i + 1) % 3], *prev = row[(i + 2) % 3], *cur = row[i % 3];
		cur[0] = i;
		for (j = 1; j <= lb; j++) {
			int ca = tolower((unsigned char)a[i - 1]), cb = tolower((unsigned char)b[j - 1]);
			size_t best = prev[j - 1] + (ca != cb);
			if (prev[j] + 1 < best)
				best = prev[j] + 1;
			if (cur[j - 1] + 1 < best)
				best = cur[j - 1] + 1;
			if (i > 1 && j > 1 && ca == tolower((unsigned char)b[j - 2]) &&
			    tolower((unsigned char)a[i - 2]) == cb && prev2[j - 2] + 1 < best)
				best = prev2[j - 2] + 1;
			cur[j] = best;
		}
	}
	return row[la % 3][lb];
}

const char *ks_nearest_name(const char *word, const char *const *names, size_t n)
{
	size_t len = strlen(word), limit = len / 3 ? len / 3 : 1, best = SIZE_MAX, i, d;
	const char *found = NULL;

	for (i = 0; i < n; i++) {
		if (!names[i] || !strcmp(names[i], word))
			continue;
		d = ks_nearest_distance(word, names[i]);
		if (d <= limit && d < best) {
			best = d;
			found = names[i];
		}
	}
	return found;
}
