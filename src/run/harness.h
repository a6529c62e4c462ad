/* harness: the scorer's own device kernels (input generation, poison and guard fills, checksums,
 * the L2 flush). They are compiled once per architecture through the same sandboxed compiler as
 * submissions (and cached), and loaded into every worker, so golden and candidate processes
 * generate bit-identical inputs from a seed without exchanging them. */
#ifndef KS_HARNESS_H
#define KS_HARNESS_H

#include <stddef.h>
#include <stdint.h>

/* The 8-byte pattern the worker writes into guard bands, and the comparison checks: shared data, so
 * the process that runs candidates never includes the checker. */
#define KS_GUARD_WORD 0x9e3779b97f4a7c15ull

/* The by-value argument of ks_strided, a plan's fill or copy step (plan.h): the same layout as the
 * struct in the harness source. */
typedef struct {
	uint64_t count, value;
	int32_t rank, width;
	uint64_t size[8], ds[8], ss[8];
} ks_strided_desc;

/* The CUDA source of the harness kernels. */
const char *ks_harness_source(void);

/* The harness kernel names, in the order workers index them. */
enum {
	KS_HK_FILL_RANDOM = 0,
	KS_HK_FILL_PATTERN,
	KS_HK_CHECKSUM,
	KS_HK_FLUSH,
	KS_HK_GATHER,
	KS_HK_STRIDED,
	KS_HK_COUNT
};
extern const char *const ks_harness_kernels[KS_HK_COUNT];

/* Which element the j-th of k samples of a count-element buffer is (k < count): the first and last
 * KS_SAMPLE_EDGE elements, then positions hashed from seed. The worker's gather kernel computes the
 * same function, so the scoring process can name the element a bad sample came from. */
#define KS_SAMPLE_EDGE 4096ull
static inline unsigned long long ks_sample_mix(unsigned long long z)
{
	z += 0x9e3779b97f4a7c15ull;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}
static inline unsigned long long ks_sample_index(unsigned long long j, unsigned long long k,
						 unsigned long long count, unsigned long long seed)
{
	if (j < KS_SAMPLE_EDGE)
		return j;
	if (j >= k - KS_SAMPLE_EDGE)
		return count - (k - j);
	return ks_sample_mix(seed ^ ks_sample_mix(j)) % count;
}

#endif
