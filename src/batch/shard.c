/* shard: see src/batch/shard.h. */
#include "batch/shard.h"

#include <stdlib.h>
#include <string.h>

#include "util/errors.h"
#include "util/mem.h"

static int parse_uint(unsigned *out, const char *s, size_t len)
{
	unsigned long v = 0;
	size_t i;
	if (len == 0 || len > 5)
		return -1;
	for (i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (unsigned long)(s[i] - '0');
	}
	*out = (unsigned)v;
	return 0;
}

int ks_shard_parse(ks_shard *out, const char *spec)
{
	const char *slash = spec ? strchr(spec, '/') : NULL;
	ks_shard s;
	if (!slash || parse_uint(&s.index, spec, (size_t)(slash - spec)) < 0 ||
	    parse_uint(&s.count, slash + 1, strlen(slash + 1)) < 0)
		return ks_error_set(KS_EINVALID, "--shard takes I/N with decimal numbers, e.g. 0/4 "
				    "(got \"%s\")", spec ? spec : "");
	if (s.count == 0 || s.count > KS_SHARD_MAX)
		return ks_error_set(KS_EINVALID, "--shard %s: N must be 1 to %d", spec, KS_SHARD_MAX);
	if (s.index >= s.count)
		return ks_error_set(KS_EINVALID, "--shard %s: I counts from 0 and must be below N", spec);
	*out = s;
	return 0;
}

typedef struct {
	const char *key;
	size_t index;
} keyed;

static int by_key(const void *a, const void *b)
{
	return strcmp(((const keyed *)a)->key, ((const keyed *)b)->key);
}

void ks_shard_select(int *in, const char *const *keys, size_t n, ks_shard s)
{
	keyed *order = ks_calloc(n + 1, sizeof(*order));
	size_t i;
	for (i = 0; i < n; i++) {
		order[i].key = keys[i];
		order[i].index = i;
	}
	qsort(order, n, sizeof(*order), by_key);
	for (i = 0; i < n; i++)
		in[order[i].index] = s.count && i % s.count == s.index;
	ks_free(order);
}
