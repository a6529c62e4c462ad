#include "util/buf.h"
#include "util/mem.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void ks_buf_init(ks_buf *b, size_t max)
{
	b->ptr = NULL;
	b->len = b->cap = 0;
	b->max = max;
}

static void reserve(ks_buf *b, size_t need)
{
	if (need + 1 > b->cap) {
		size_t c = b->cap ? b->cap : 64;
		while (c < need + 1)
			c *= 2;
		if (c > b->max + 1)
			c = b->max + 1;
		b->ptr = ks_realloc(b->ptr, c);
		b->cap = c;
	}
}

int ks_buf_put(ks_buf *b, const void *data, size_t n)
{
	if (n > b->max - b->len)
		return ks_error_set(KS_ELIMIT, "more than %zu bytes", b->max);
	reserve(b, b->len + n);
	if (n)
		memcpy(b->ptr + b->len, data, n);
	b->len += n;
	b->ptr[b->len] = '\0';
	return 0;
}

int ks_buf_puts(ks_buf *b, const char *s)
{
	return ks_buf_put(b, s, strlen(s));
}

int ks_buf_printf(ks_buf *b, const char *fmt, ...)
{
	char small[512], *big = NULL;
	va_list ap;
	int n, rc;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0)
		return ks_error_set(KS_ERROR, "bad format");
	if ((size_t)n < sizeof(small))
		return ks_buf_put(b, small, (size_t)n);
	big = ks_malloc((size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(big, (size_t)n + 1, fmt, ap);
	va_end(ap);
	rc = ks_buf_put(b, big, (size_t)n);
	ks_free(big);
	return rc;
}

int ks_buf_put_truncated(ks_buf *b, const void *data, size_t n)
{
	size_t room = b->max - b->len;
	if (n <= room) {
		ks_buf_put(b, data, n);
		return 0;
	}
	ks_buf_put(b, data, room);
	return 1;
}

void ks_buf_reset(ks_buf *b)
{
	b->len = 0;
	if (b->ptr)
		b->ptr[0] = '\0';
}

char *ks_buf_take(ks_buf *b, size_t *len)
{
	char *p = b->ptr ? b->ptr : ks_strdup("");
	if (len)
		*len = b->len;
	b->ptr = NULL;
	b->len = b->cap = 0;
	return p;
}

void ks_buf_free(ks_buf *b)
{
	ks_free(b->ptr);
	b->ptr = NULL;
	b->len = b->cap = 0;
}
