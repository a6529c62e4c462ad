#include "util/mem.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void oom(size_t n)
{
	fprintf(stderr, "kscore: out of memory (asked for %zu bytes)\n", n);
	abort();
}

void *ks_malloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		oom(n);
	return p;
}

void *ks_calloc(size_t count, size_t size)
{
	void *p = calloc(count ? count : 1, size ? size : 1);
	if (!p)
		oom(count * size);
	return p;
}

void *ks_realloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		oom(n);
	return q;
}

void *ks_grow(void *p, size_t elem, size_t *cap, size_t need)
{
	size_t c = *cap;
	if (need <= c)
		return p;
	if (c < 8)
		c = 8;
	while (c < need) {
		if (c > ((size_t)-1) / 2 / (elem ? elem : 1))
			oom((size_t)-1);
		c *= 2;
	}
	p = ks_realloc(p, c * elem);
	*cap = c;
	return p;
}

char *ks_strdup(const char *s)
{
	return ks_strndup(s, strlen(s));
}

char *ks_strndup(const char *s, size_t n)
{
	char *d = ks_malloc(n + 1);
	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

char *ks_asprintf(const char *fmt, ...)
{
	va_list ap, ap2;
	int n;
	char *s;

	va_start(ap, fmt);
	va_copy(ap2, ap);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	s = ks_malloc((size_t)n + 1);
	vsnprintf(s, (size_t)n + 1, fmt, ap2);
	va_end(ap2);
	return s;
}

void ks_free(void *p)
{
	free(p);
}

void ks_free_strv(char **v, size_t n)
{
	size_t i;
	if (!v)
		return;
	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}
