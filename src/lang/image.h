/* image: what a language front-end hands to the run stage to load into a worker: one CUBIN (a
 * CUDA answer compiled by NVRTC), or a bundle of several (a Triton answer: every kernel it
 * launched across the problem's cases was compiled by Triton into a CUBIN of its own, and several
 * can share an entry name). A bundle is one blob, so it travels and is cached like a CUBIN:
 *
 *   "KSIMGB01"  u32 parts  u32 0  then per part: u32 names, u32 0, u64 bytes  then the parts' bytes,
 *   each at an offset that is a multiple of 16 (little-endian).
 *
 * The names of an image (its kernels, in the order plans index them) are given beside it, flat:
 * a part's names follow the previous part's. A worker loads each part as a module of its own and
 * resolves the part's names in it. */
#ifndef KS_IMAGE_H
#define KS_IMAGE_H

#include <stddef.h>
#include <stdint.h>
#include "load/plan.h"

#define KS_IMAGE_MAX_PARTS KS_PLAN_MAX_FUNCS
#define KS_IMAGE_MAGIC "KSIMGB01"

typedef struct {
	const void *data;     /* a CUBIN (points into the blob it was read from) */
	size_t len;
	uint32_t nnames;      /* how many of the image's names resolve in this part */
} ks_image_part;

/* Whether blob is a bundle (else it is taken as one CUBIN). */
int ks_image_is_bundle(const void *blob, size_t len);

/* Writes a bundle of n parts (data, len, nnames each) into *blob (caller frees with ks_free).
 * KS_ELIMIT past KS_IMAGE_MAX_PARTS parts. */
int ks_image_bundle(void **blob, size_t *len, const ks_image_part *parts, size_t n);

/* Reads the parts of blob into parts[KS_IMAGE_MAX_PARTS] (views into blob). A blob that is not a
 * bundle is one part holding all nnames names. A bundle whose table does not fit its blob, whose
 * parts overlap or whose name counts do not add up to nnames is refused (KS_EINVALID, message). */
int ks_image_parts(ks_image_part *parts, size_t *n, const void *blob, size_t len, uint32_t nnames);

#endif
