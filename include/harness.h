/* harness: the scorer's own device kernels (input generation, poison and guard fills, checksums,
 * the L2 flush). They are compiled once per architecture through the same sandboxed compiler as
 * submissions (and cached), and loaded into every worker, so golden and candidate processes
 * generate bit-identical inputs from a seed without exchanging them. */
#ifndef KS_HARNESS_H
#define KS_HARNESS_H

#include <stddef.h>

/* The CUDA source of the harness kernels. */
const char *ks_harness_source(void);

/* The harness kernel names, in the order workers index them. */
enum {
	KS_HK_FILL_RANDOM = 0,
	KS_HK_FILL_PATTERN,
	KS_HK_CHECKSUM,
	KS_HK_FLUSH,
	KS_HK_COUNT
};
extern const char *const ks_harness_kernels[KS_HK_COUNT];

#endif
