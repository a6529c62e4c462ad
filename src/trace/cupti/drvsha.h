/* drvsha: SHA-256 (FIPS 180-4) for the injection library, which names every CUBIN and copied
 * buffer it writes by its hash and links nothing but libc (util/hash.c uses OpenSSL, which a traced
 * program may not have, or may have in another version). */
#ifndef KS_DRVSHA_H
#define KS_DRVSHA_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
	uint32_t h[8];
	uint64_t len; /* bytes hashed */
	unsigned char block[64];
	size_t fill;
} ks_drvsha;

void ks_drvsha_init(ks_drvsha *s);
void ks_drvsha_update(ks_drvsha *s, const void *data, size_t len);
/* The digest as 64 lowercase hex digits and a NUL. */
void ks_drvsha_final(ks_drvsha *s, char hex[65]);
/* The hash of data[0..len) in one call. */
void ks_drvsha_hex(char hex[65], const void *data, size_t len);

#endif
