/* mem: allocation wrappers. kscore never calls malloc/strdup directly (curl's rule): these abort
 * with a message on out-of-memory, so callers need not handle NULL, and every allocation can be
 * traced to one place. Free with ks_free (NULL is fine). */
#ifndef KS_MEM_H
#define KS_MEM_H

#include <stddef.h>
#include "util/errors.h"

void *ks_malloc(size_t n);
void *ks_calloc(size_t count, size_t size);
void *ks_realloc(void *p, size_t n);
/* Grows an array of `elem`-sized items to hold at least `need` items; *cap is updated. */
void *ks_grow(void *p, size_t elem, size_t *cap, size_t need);
char *ks_strdup(const char *s);
char *ks_strndup(const char *s, size_t n);
/* printf into a new string; caller frees. */
char *ks_asprintf(const char *fmt, ...) KS_PRINTF(1, 2);
void ks_free(void *p);

/* Frees a NULL-terminated or counted array of strings and the array itself. */
void ks_free_strv(char **v, size_t n);

#endif
