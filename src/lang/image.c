#include "lang/image.h"
#include "util/errors.h"
#include "util/mem.h"

#include <string.h>

#define HEAD 16u  /* magic, part count, padding */
#define ENTRY 16u /* names, padding, bytes */

static uint32_t get32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get64(const unsigned char *p)
{
	return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32;
}

static void put32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
	p[2] = (unsigned char)(v >> 16);
	p[3] = (unsigned char)(v >> 24);
}

static void put64(unsigned char *p, uint64_t v)
{
	put32(p, (uint32_t)v);
	put32(p + 4, (uint32_t)(v >> 32));
}

static size_t align16(size_t n)
{
	return (n + 15) & ~(size_t)15;
}

int ks_image_is_bundle(const void *blob, size_t len)
{
	return blob && len >= HEAD && memcmp(blob, KS_IMAGE_MAGIC, 8) == 0;
}

int ks_image_bundle(void **blob, size_t *len, const ks_image_part *parts, size_t n)
{
	size_t i, total = align16(HEAD + n * ENTRY), off;
	unsigned char *b;
	if (n == 0 || n > KS_IMAGE_MAX_PARTS)
		return ks_error_set(KS_ELIMIT, "an image holds 1 to %d CUBINs, not %zu", KS_IMAGE_MAX_PARTS, n);
	for (i = 0; i < n; i++)
		total = align16(total + parts[i].len);
	b = ks_calloc(1, total);
	memcpy(b, KS_IMAGE_MAGIC, 8);
	put32(b + 8, (uint32_t)n);
	off = align16(HEAD + n * ENTRY);
	for (i = 0; i < n; i++) {
		put32(b + HEAD + i * ENTRY, parts[i].nnames);
		put64(b + HEAD + i * ENTRY + 8, parts[i].len);
		memcpy(b + off, parts[i].data, parts[i].len);
		off = align16(off + parts[i].len);
	}
	*blob = b;
	*len = total;
	return 0;
}

int ks_image_parts(ks_image_part *parts, size_t *n, const void *blob, size_t len, uint32_t nnames)
{
	const unsigned char *b = blob;
	uint64_t names = 0;
	size_t i, count, off;
	*n = 0;
	if (!ks_image_is_bundle(blob, len)) {
		parts[0].data = blob;
		parts[0].len = len;
		parts[0].nnames = nnames;
		*n = 1;
		return 0;
	}
	count = get32(b + 8);
	if (count == 0 || count > KS_IMAGE_MAX_PARTS || HEAD + count * ENTRY > len)
		return ks_error_set(KS_EINVALID, "image: a bundle of %zu parts in %zu bytes", count, len);
	off = align16(HEAD + count * ENTRY);
	for (i = 0; i < count; i++) {
		uint64_t plen = get64(b + HEAD + i * ENTRY + 8);
		if (off > len || plen > len - off || plen == 0)
			return ks_error_set(KS_EINVALID, "image: part %zu of the bundle leaves its blob", i + 1);
		parts[i].data = b + off;
		parts[i].len = (size_t)plen;
		parts[i].nnames = get32(b + HEAD + i * ENTRY);
		names += parts[i].nnames;
		off = align16(off + (size_t)plen);
	}
	if (names != nnames)
		return ks_error_set(KS_EINVALID, "image: the bundle's parts hold %llu names, not %u",
				    (unsigned long long)names, nnames);
	*n = count;
	return 0;
}
