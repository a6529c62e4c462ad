#include "util/hash.h"
#include "util/mem.h"

#include <openssl/evp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ks_sha256 {
	EVP_MD_CTX *ctx;
};

ks_sha256 *ks_sha256_new(void)
{
	ks_sha256 *h = ks_calloc(1, sizeof(*h));
	h->ctx = EVP_MD_CTX_new();
	if (!h->ctx || EVP_DigestInit_ex(h->ctx, EVP_sha256(), NULL) != 1) {
		fprintf(stderr, "kscore: OpenSSL SHA-256 unavailable\n");
		abort();
	}
	return h;
}

void ks_sha256_update(ks_sha256 *h, const void *data, size_t len)
{
	EVP_DigestUpdate(h->ctx, data, len);
}

void ks_sha256_update_str(ks_sha256 *h, const char *s)
{
	uint64_t n = s ? strlen(s) : UINT64_MAX;
	EVP_DigestUpdate(h->ctx, &n, sizeof(n));
	if (s)
		EVP_DigestUpdate(h->ctx, s, strlen(s));
}

void ks_sha256_final(ks_sha256 *h, char hex[65])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int n = 0, i;
	EVP_DigestFinal_ex(h->ctx, md, &n);
	for (i = 0; i < 32; i++)
		snprintf(hex + 2 * i, 3, "%02x", md[i]);
	hex[64] = '\0';
	EVP_MD_CTX_free(h->ctx);
	ks_free(h);
}

void ks_sha256_hex(char hex[65], const void *data, size_t len)
{
	ks_sha256 *h = ks_sha256_new();
	ks_sha256_update(h, data, len);
	ks_sha256_final(h, hex);
}
