/* hash: SHA-256 (OpenSSL's libcrypto) for submission fingerprints and cache keys. */
#ifndef KS_HASH_H
#define KS_HASH_H

#include <stddef.h>

typedef struct ks_sha256 ks_sha256;

/* Incremental hashing: new, update any number of times, then final writes 64 hex chars + NUL into
 * hex[65] and frees the context. */
ks_sha256 *ks_sha256_new(void);
void ks_sha256_update(ks_sha256 *h, const void *data, size_t len);
/* Adds a length-prefixed string so that ("ab","c") and ("a","bc") hash differently. */
void ks_sha256_update_str(ks_sha256 *h, const char *s);
void ks_sha256_final(ks_sha256 *h, char hex[65]);

/* One-shot: hex digest of data. */
void ks_sha256_hex(char hex[65], const void *data, size_t len);

#endif
