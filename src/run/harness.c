#include "run/harness.h"

const char *const ks_harness_kernels[KS_HK_COUNT] = {
	"ks_fill_random", "ks_fill_pattern", "ks_checksum", "ks_flush", "ks_gather", "ks_strided",
};

/* dtype and dist codes below match ks_dtype and ks_dist_kind. Random values are a pure function
 * of (seed, stream, index): a counter-based hash, so any process reproduces them. */
static const char g_source[] =
	"#include <cuda_fp16.h>\n"
	"#include <cuda_bf16.h>\n"
	"typedef unsigned long long u64;\n"
	"__device__ __forceinline__ u64 ks_mix(u64 z) {\n"
	"  z += 0x9e3779b97f4a7c15ull;\n"
	"  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;\n"
	"  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;\n"
	"  return z ^ (z >> 31);\n"
	"}\n"
	"__device__ __forceinline__ u64 ks_hash(u64 seed, unsigned stream, u64 i, unsigned k) {\n"
	"  return ks_mix(ks_mix(seed ^ ((u64)stream << 40) ^ ((u64)k << 20)) ^ ks_mix(i));\n"
	"}\n"
	"__device__ __forceinline__ double ks_u01(u64 h) { return (double)(h >> 11) * (1.0 / 9007199254740992.0); }\n"
	/* Version v > 0 of an input redraws the chunks of 32 consecutive elements whose own hash says
	 * so (a part `change` of them) from a seed of its own; version 0 is the seed's inputs as drawn.
	 * One hash a chunk, and a move from version to version writes whole chunks. */
	"__device__ __forceinline__ u64 ks_version_seed(u64 seed, u64 v) { return seed ^ ks_mix(v ^ 0x6a09e667f3bcc909ull); }\n"
	"__device__ __forceinline__ int ks_redrawn(u64 seed, unsigned stream, u64 chunk, u64 v, double change) {\n"
	"  return v && ks_u01(ks_hash(ks_version_seed(seed, v), stream, chunk, 2)) < change;\n"
	"}\n"
	"__device__ void ks_store(unsigned char *dst, u64 i, int dtype, double v) {\n"
	"  switch (dtype) {\n"
	"  case 0: ((float *)dst)[i] = (float)v; break;\n"
	"  case 1: ((__half *)dst)[i] = __float2half_rn((float)v); break;\n"
	"  case 2: ((__nv_bfloat16 *)dst)[i] = __float2bfloat16_rn((float)v); break;\n"
	"  case 3: ((double *)dst)[i] = v; break;\n"
	"  case 4: ((signed char *)dst)[i] = (signed char)(long long)v; break;\n"
	"  case 5: ((unsigned char *)dst)[i] = (unsigned char)(long long)v; break;\n"
	"  case 6: ((int *)dst)[i] = (int)(long long)v; break;\n"
	"  case 7: ((unsigned *)dst)[i] = (unsigned)(long long)v; break;\n"
	"  case 8: ((long long *)dst)[i] = (long long)v; break;\n"
	"  }\n"
	"}\n"
	"__device__ void ks_store_bits(unsigned char *dst, u64 i, int size, u64 h) {\n"
	"  switch (size) {\n"
	"  case 1: dst[i] = (unsigned char)h; break;\n"
	"  case 2: ((unsigned short *)dst)[i] = (unsigned short)h; break;\n"
	"  case 4: ((unsigned *)dst)[i] = (unsigned)h; break;\n"
	"  default: ((u64 *)dst)[i] = h; break;\n"
	"  }\n"
	"}\n"
	"__device__ __forceinline__ u64 ks_key(u64 seed, unsigned stream, unsigned k) {\n"
	"  return ks_mix(seed ^ ((u64)stream << 40) ^ ((u64)k << 20));\n"
	"}\n"
	/* Element i of the stream a key names: SplitMix64 at position i, one mix an element (the
	 * fills are mostly hashing, and a full fill of a 1 GiB input runs before every checked run) */
	"__device__ __forceinline__ u64 ks_at(u64 key, u64 i) { return ks_mix(key + i * 0xd1b54a32d192ed03ull); }\n"
	/* The keys of one seed: k0 draws every element, k1 the second uniform of a normal in double */
	"struct ks_keys { u64 k0, k1; };\n"
	"__device__ __forceinline__ ks_keys ks_keys_of(u64 seed, unsigned stream) {\n"
	"  ks_keys k; k.k0 = ks_key(seed, stream, 0); k.k1 = ks_key(seed, stream, 1); return k;\n"
	"}\n"
	/* dist: 1 normal(a=mean,b=std), 2 uniform[a,b), 3 int[a,b], 4 bits. Normal and uniform values
	 * of 32-bit and narrower floats are drawn in single precision from one hash (Box-Muller on
	 * its two 32-bit halves: normals to 6.66 sigma); f64 and integers in double precision. */
	"__device__ void ks_draw(unsigned char *dst, u64 i, int dtype, int size, int dist, double a, double b,\n"
	"    ks_keys key) {\n"
	"  u64 h = ks_at(key.k0, i);\n"
	"  double v;\n"
	"  if (dist == 4) { ks_store_bits(dst, i, size, h); return; }\n"
	"  if (dtype <= 2 && (dist == 1 || dist == 2)) {\n"
	"    float f;\n"
	"    if (dist == 1) {\n"
	"      float u1 = (float)((h >> 32) + 1) * 2.3283064365386963e-10f;\n"
	"      float u2 = (float)(h & 0xffffffffull) * 2.3283064365386963e-10f;\n"
	"      f = (float)a + (float)b * (sqrtf(-2.0f * logf(u1)) * cospif(2.0f * u2));\n"
	"    } else {\n"
	"      f = (float)a + ((float)b - (float)a) * ((float)(h >> 40) * 5.9604644775390625e-8f);\n"
	"    }\n"
	"    if (dtype == 0) ((float *)dst)[i] = f;\n"
	"    else if (dtype == 1) ((__half *)dst)[i] = __float2half_rn(f);\n"
	"    else ((__nv_bfloat16 *)dst)[i] = __float2bfloat16_rn(f);\n"
	"    return;\n"
	"  }\n"
	"  if (dist == 1) {\n"
	"    double u1 = ks_u01(h) + 1.0 / 18014398509481984.0;\n"
	"    double u2 = ks_u01(ks_at(key.k1, i));\n"
	"    v = a + b * sqrt(-2.0 * log(u1)) * cospi(2.0 * u2);\n"
	"  } else if (dist == 2) {\n"
	"    v = a + (b - a) * ks_u01(h);\n"
	"  } else {\n"
	"    double span = b - a + 1.0;\n"
	"    v = a + floor(ks_u01(h) * span);\n"
	"    if (v > b) v = b;\n"
	"  }\n"
	"  ks_store(dst, i, dtype, v);\n"
	"}\n"
	/* Writes version `version` of the input; with `update`, the buffer holds version `prev` and
	 * only the chunks that differ between the two (those either version redraws) are written. A
	 * warp takes 32 chunks at a time: each lane hashes one of them (a hash per lane, not one per
	 * warp: the pass that moves a set between versions, before every timed run, is mostly
	 * hashing), then the warp writes the chunks to be written one after the other, a lane per
	 * element (coalesced). Which elements get which values does not depend on the launch shape. */
	"extern \"C\" __global__ void ks_fill_random(unsigned char *dst, u64 n, int dtype, int size,\n"
	"    int dist, double a, double b, u64 seed, unsigned stream, u64 version, double change, u64 prev,\n"
	"    int update) {\n"
	"  u64 warps = (u64)gridDim.x * (blockDim.x / 32), lane = threadIdx.x & 31;\n"
	"  u64 chunks = (n + 31) / 32, vseed = ks_version_seed(seed, version);\n"
	"  ks_keys kb = ks_keys_of(seed, stream), kv = ks_keys_of(vseed, stream);\n"
	"  for (u64 g = ((u64)blockIdx.x * blockDim.x + threadIdx.x) / 32; g * 32 < chunks; g += warps) {\n"
	"    u64 c = g * 32 + lane;\n"
	"    int now = 0, was = 0;\n"
	"    if (c < chunks && change > 0) {\n"
	"      now = ks_redrawn(seed, stream, c, version, change);\n"
	"      was = update && ks_redrawn(seed, stream, c, prev, change);\n"
	"    }\n"
	"    unsigned nows = __ballot_sync(0xffffffffu, now);\n"
	"    unsigned todo = __ballot_sync(0xffffffffu, c < chunks && (!update || now || was));\n"
	"    while (todo) {\n"
	"      int k = __ffs(todo) - 1;\n"
	"      todo &= todo - 1;\n"
	"      u64 i = (g * 32 + k) * 32 + lane;\n"
	"      if (i < n) ks_draw(dst, i, dtype, size, dist, a, b, (nows >> k) & 1 ? kv : kb);\n"
	"    }\n"
	"  }\n"
	"}\n"
	/* Repeats a width-byte pattern (width divides 8) over nbytes; dst is 8-byte aligned. */
	"extern \"C\" __global__ void ks_fill_pattern(unsigned char *dst, u64 nbytes, u64 pattern, int width) {\n"
	"  u64 word = 0;\n"
	"  for (int k = 0; k < 8; k++) word |= ((pattern >> (8 * (k % width))) & 0xffull) << (8 * k);\n"
	"  u64 nw = nbytes / 8, step = (u64)gridDim.x * blockDim.x;\n"
	"  u64 t = (u64)blockIdx.x * blockDim.x + threadIdx.x;\n"
	"  for (u64 i = t; i < nw; i += step) ((u64 *)dst)[i] = word;\n"
	"  for (u64 i = nw * 8 + t; i < nbytes; i += step) dst[i] = (unsigned char)(word >> (8 * (i % 8)));\n"
	"}\n"
	/* Order-independent 64-bit checksum: sum of hashed (index, word) pairs, one mix a word (it
	 * reads every input after every timed run of a candidate: docs/timing.md). A block sums its
	 * warps' sums before its one atomic: atomics on one address are serialised, and one per warp
	 * of a large buffer took longer than the timed run it follows. Needs blockDim.x == 256. */
	"extern \"C\" __global__ void ks_checksum(const unsigned char *src, u64 nbytes, u64 *out) {\n"
	"  __shared__ u64 part[8];\n"
	"  u64 nw = nbytes / 8, step = (u64)gridDim.x * blockDim.x, acc = 0;\n"
	"  u64 t = (u64)blockIdx.x * blockDim.x + threadIdx.x;\n"
	"  for (u64 i = t; i < nw; i += step) acc += ks_mix(((const u64 *)src)[i] ^ (i * 0xd1b54a32d192ed03ull));\n"
	"  for (u64 i = nw * 8 + t; i < nbytes; i += step)\n"
	"    acc += ks_mix((u64)src[i] ^ ((i + (1ull << 62)) * 0xd1b54a32d192ed03ull));\n"
	"  for (int o = 16; o > 0; o /= 2) acc += __shfl_down_sync(0xffffffffu, acc, o);\n"
	"  if ((threadIdx.x & 31) == 0) part[threadIdx.x / 32] = acc;\n"
	"  __syncthreads();\n"
	"  if (threadIdx.x == 0) {\n"
	"    for (int k = 1; k < 8; k++) acc += part[k];\n"
	"    atomicAdd(out, acc);\n"
	"  }\n"
	"}\n"
	/* Reads every line of a buffer larger than L2, evicting what the last run left there (writing back
 * its dirty lines now, outside the timed window) and leaving only clean lines behind: a flush by
 * writes would leave dirty lines whose write-back the next timed run would pay for. */
	"extern \"C\" __global__ void ks_flush(u64 *buf, u64 nwords, u64 value) {\n"
	"  u64 step = (u64)gridDim.x * blockDim.x, acc = 0;\n"
	"  for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < nwords; i += step)\n"
	"    acc += ((const volatile u64 *)buf)[i];\n"
	"  if (acc == value) buf[0] = acc;\n"
	"}\n"
	/* k sampled elements of a count-element buffer, positions as ks_sample_index() (harness.h) */
	"extern \"C\" __global__ void ks_gather(const unsigned char *src, u64 count, int es, unsigned char *dst,\n"
	"    u64 k, u64 seed) {\n"
	"  u64 step = (u64)gridDim.x * blockDim.x;\n"
	"  for (u64 j = (u64)blockIdx.x * blockDim.x + threadIdx.x; j < k; j += step) {\n"
	"    u64 i = j < 4096 ? j : j >= k - 4096 ? count - (k - j) : ks_mix(seed ^ ks_mix(j)) % count;\n"
	"    for (int b = 0; b < es; b++) dst[j * es + b] = src[i * es + b];\n"
	"  }\n"
	"}\n"
	/* A plan's fill and copy steps (plan.h): count elements of `width` bytes of a rank-r view,
	 * row-major, written at dst with strides ds; read from src with strides ss, or (src null) the
	 * element `value`. The descriptor layout is ks_strided_desc (harness.h). */
	"struct ks_strided_desc { u64 count, value; int rank, width; u64 size[8], ds[8], ss[8]; };\n"
	"extern \"C\" __global__ void ks_strided(unsigned char *dst, const unsigned char *src, ks_strided_desc d) {\n"
	"  u64 step = (u64)gridDim.x * blockDim.x;\n"
	"  for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < d.count; i += step) {\n"
	"    u64 rest = i, od = 0, os = 0;\n"
	"    for (int k = d.rank - 1; k >= 0; k--) {\n"
	"      u64 x = rest % d.size[k];\n"
	"      rest /= d.size[k];\n"
	"      od += x * d.ds[k];\n"
	"      os += x * d.ss[k];\n"
	"    }\n"
	"    unsigned char *o = dst + od * d.width;\n"
	"    const unsigned char *s = src + os * d.width;\n"
	"    switch (d.width) {\n"
	"    case 1: *o = src ? *s : (unsigned char)d.value; break;\n"
	"    case 2: *(unsigned short *)o = src ? *(const unsigned short *)s : (unsigned short)d.value; break;\n"
	"    case 4: *(unsigned *)o = src ? *(const unsigned *)s : (unsigned)d.value; break;\n"
	"    default: *(u64 *)o = src ? *(const u64 *)s : d.value; break;\n"
	"    }\n"
	"  }\n"
	"}\n";

const char *ks_harness_source(void)
{
	return g_source;
}
