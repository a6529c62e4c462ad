/* buf: a growable byte buffer with a hard size cap (curl's dynbuf). Every buffer that is fed by
 * untrusted input (submission files, compile logs, worker replies) is a ks_buf with a cap, so a
 * hostile input fails with KS_ELIMIT instead of exhausting memory.
 *
 * The content is always NUL-terminated (ptr[len] == 0) so it can be used as a C string. */
#ifndef KS_BUF_H
#define KS_BUF_H

#include <stddef.h>
#include "util/errors.h"

typedef struct {
	char *ptr;
	size_t len;
	size_t cap;
	size_t max; /* the cap: len never exceeds it */
} ks_buf;

#define KS_BUF_INIT(maxbytes) { NULL, 0, 0, (maxbytes) }

void ks_buf_init(ks_buf *b, size_t max);
/* Appends n bytes. Returns KS_ELIMIT (message set) if the cap would be exceeded; the buffer is
 * then unchanged. */
int ks_buf_put(ks_buf *b, const void *data, size_t n);
int ks_buf_puts(ks_buf *b, const char *s);
int ks_buf_printf(ks_buf *b, const char *fmt, ...) KS_PRINTF(2, 3);
/* Appends as much of data as fits; returns 1 if it had to cut, 0 otherwise. For logs that are
 * truncated on purpose. */
int ks_buf_put_truncated(ks_buf *b, const void *data, size_t n);
void ks_buf_reset(ks_buf *b);
/* Hands the content (always a valid string, possibly "") to the caller and resets the buffer. */
char *ks_buf_take(ks_buf *b, size_t *len);
void ks_buf_free(ks_buf *b);

#endif
