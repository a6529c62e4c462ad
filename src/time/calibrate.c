#include "time/calibrate.h"
#include "lang/cuda/compile.h"
#include "util/errors.h"
#include "util/fsutil.h"
#include "util/jsonutil.h"
#include "util/mem.h"
#include "run/worker.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* Microbenchmarks for the device's ceilings: a vectorized copy, a vectorized read-only stream,
 * FP32 FMA chains, mma.sync on
 * fp16/bf16, and wgmma (Hopper's warpgroup tensor-core path, which alone reaches the full
 * tensor-core rate). The kernels' data is meaningless; only their rates matter. */
static const char g_source[] =
	"\n"
	"#include <cuda_fp16.h>\n"
	"typedef unsigned long long u64;\n"
	"extern \"C\" __global__ void ks_cal_copy(const uint4 *__restrict__ src, uint4 *__restrict__ dst, u64 n)\n"
	"{\n"
	"  u64 step = (u64)gridDim.x * blockDim.x;\n"
	"  for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step) dst[i] = src[i];\n"
	"}\n"
	"/* reads n 16-byte words, four independent loads in flight per thread; writes only if the xor of\n"
	"   everything hits a value it never does, so the loads cannot be optimised away */\n"
	"extern \"C\" __global__ void ks_cal_read(const uint4 *__restrict__ src, u64 n, unsigned *out)\n"
	"{\n"
	"  u64 step = (u64)gridDim.x * blockDim.x, i = (u64)blockIdx.x * blockDim.x + threadIdx.x;\n"
	"  unsigned a = 0, b = 0, c = 0, d = 0;\n"
	"  for (; i + 3 * step < n; i += 4 * step) {\n"
	"    uint4 x = __ldcs(src + i), y = __ldcs(src + i + step), z = __ldcs(src + i + 2 * step), w = __ldcs(src + i + 3 * step);\n"
	"    a ^= x.x ^ x.y ^ x.z ^ x.w; b ^= y.x ^ y.y ^ y.z ^ y.w; c ^= z.x ^ z.y ^ z.z ^ z.w; d ^= w.x ^ w.y ^ w.z ^ w.w;\n"
	"  }\n"
	"  for (; i < n; i += step) { uint4 x = __ldcs(src + i); a ^= x.x ^ x.y ^ x.z ^ x.w; }\n"
	"  if ((a ^ b ^ c ^ d) == 0x9e3779b9u) out[0] = a;\n"
	"}\n"
	"/* 8 independent FMA chains per thread: 16 flops per step */\n"
	"extern \"C\" __global__ void ks_cal_fma(float *out, int iters, float b)\n"
	"{\n"
	"  float a0 = threadIdx.x, a1 = a0 + 1, a2 = a0 + 2, a3 = a0 + 3, a4 = a0 + 4, a5 = a0 + 5, a6 = a0 + 6, a7 = a0 + 7;\n"
	"  for (int i = 0; i < iters; i++) {\n"
	"#pragma unroll\n"
	"    for (int k = 0; k < 16; k++) {\n"
	"      a0 = fmaf(a0, b, 0.5f); a1 = fmaf(a1, b, 0.5f); a2 = fmaf(a2, b, 0.5f); a3 = fmaf(a3, b, 0.5f);\n"
	"      a4 = fmaf(a4, b, 0.5f); a5 = fmaf(a5, b, 0.5f); a6 = fmaf(a6, b, 0.5f); a7 = fmaf(a7, b, 0.5f);\n"
	"    }\n"
	"  }\n"
	"  float s = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7;\n"
	"  if (s == 1234.5f) out[0] = s;\n"
	"}\n"
	"#define KS_MMA(T) \\\n"
	"extern \"C\" __global__ void ks_cal_mma_##T(float *out, int iters) \\\n"
	"{ \\\n"
	"  unsigned a0 = 0x3c003c00u ^ threadIdx.x, a1 = a0 + 1, a2 = a0 + 2, a3 = a0 + 3, b0 = 0x3c003c00u, b1 = b0 + 5; \\\n"
	"  float c[4][4] = {}; \\\n"
	"  for (int i = 0; i < iters; i++) { \\\n"
	"    _Pragma(\"unroll\") \\\n"
	"    for (int k = 0; k < 4; k++) \\\n"
	"      asm volatile(\"mma.sync.aligned.m16n8k16.row.col.f32.\" #T \".\" #T \".f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\" \\\n"
	"        : \"+f\"(c[k][0]), \"+f\"(c[k][1]), \"+f\"(c[k][2]), \"+f\"(c[k][3]) \\\n"
	"        : \"r\"(a0), \"r\"(a1), \"r\"(a2), \"r\"(a3), \"r\"(b0), \"r\"(b1)); \\\n"
	"  } \\\n"
	"  float s = 0; \\\n"
	"  for (int k = 0; k < 4; k++) s += c[k][0] + c[k][1] + c[k][2] + c[k][3]; \\\n"
	"  if (s == 1234.5f) out[0] = s; \\\n"
	"}\n"
	"KS_MMA(f16)\n"
	"KS_MMA(bf16)\n"
	"\n"
	"#if defined(__CUDA_ARCH_FEAT_SM90_ALL)\n"
	"__device__ __forceinline__ void ks_wgmma_f16(float (&d)[128], unsigned long long da, unsigned long long db)\n"
	"{\n"
	"  asm volatile(\"{\\n.reg .pred p;\\nsetp.ne.b32 p, 1, 0;\\n\"\n"
	"    \"wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 \"\n"
	"    \"{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, %128, %129, p, 1, 1, 0, 0;\\n}\\n\"\n"
	"    : \"+f\"(d[0]), \"+f\"(d[1]), \"+f\"(d[2]), \"+f\"(d[3]), \"+f\"(d[4]), \"+f\"(d[5]), \"+f\"(d[6]), \"+f\"(d[7]), \"+f\"(d[8]), \"+f\"(d[9]), \"+f\"(d[10]), \"+f\"(d[11]), \"+f\"(d[12]), \"+f\"(d[13]), \"+f\"(d[14]), \"+f\"(d[15]), \"+f\"(d[16]), \"+f\"(d[17]), \"+f\"(d[18]), \"+f\"(d[19]), \"+f\"(d[20]), \"+f\"(d[21]), \"+f\"(d[22]), \"+f\"(d[23]), \"+f\"(d[24]), \"+f\"(d[25]), \"+f\"(d[26]), \"+f\"(d[27]), \"+f\"(d[28]), \"+f\"(d[29]), \"+f\"(d[30]), \"+f\"(d[31]), \"+f\"(d[32]), \"+f\"(d[33]), \"+f\"(d[34]), \"+f\"(d[35]), \"+f\"(d[36]), \"+f\"(d[37]), \"+f\"(d[38]), \"+f\"(d[39]), \"+f\"(d[40]), \"+f\"(d[41]), \"+f\"(d[42]), \"+f\"(d[43]), \"+f\"(d[44]), \"+f\"(d[45]), \"+f\"(d[46]), \"+f\"(d[47]), \"+f\"(d[48]), \"+f\"(d[49]), \"+f\"(d[50]), \"+f\"(d[51]), \"+f\"(d[52]), \"+f\"(d[53]), \"+f\"(d[54]), \"+f\"(d[55]), \"+f\"(d[56]), \"+f\"(d[57]), \"+f\"(d[58]), \"+f\"(d[59]), \"+f\"(d[60]), \"+f\"(d[61]), \"+f\"(d[62]), \"+f\"(d[63]), \"+f\"(d[64]), \"+f\"(d[65]), \"+f\"(d[66]), \"+f\"(d[67]), \"+f\"(d[68]), \"+f\"(d[69]), \"+f\"(d[70]), \"+f\"(d[71]), \"+f\"(d[72]), \"+f\"(d[73]), \"+f\"(d[74]), \"+f\"(d[75]), \"+f\"(d[76]), \"+f\"(d[77]), \"+f\"(d[78]), \"+f\"(d[79]), \"+f\"(d[80]), \"+f\"(d[81]), \"+f\"(d[82]), \"+f\"(d[83]), \"+f\"(d[84]), \"+f\"(d[85]), \"+f\"(d[86]), \"+f\"(d[87]), \"+f\"(d[88]), \"+f\"(d[89]), \"+f\"(d[90]), \"+f\"(d[91]), \"+f\"(d[92]), \"+f\"(d[93]), \"+f\"(d[94]), \"+f\"(d[95]), \"+f\"(d[96]), \"+f\"(d[97]), \"+f\"(d[98]), \"+f\"(d[99]), \"+f\"(d[100]), \"+f\"(d[101]), \"+f\"(d[102]), \"+f\"(d[103]), \"+f\"(d[104]), \"+f\"(d[105]), \"+f\"(d[106]), \"+f\"(d[107]), \"+f\"(d[108]), \"+f\"(d[109]), \"+f\"(d[110]), \"+f\"(d[111]), \"+f\"(d[112]), \"+f\"(d[113]), \"+f\"(d[114]), \"+f\"(d[115]), \"+f\"(d[116]), \"+f\"(d[117]), \"+f\"(d[118]), \"+f\"(d[119]), \"+f\"(d[120]), \"+f\"(d[121]), \"+f\"(d[122]), \"+f\"(d[123]), \"+f\"(d[124]), \"+f\"(d[125]), \"+f\"(d[126]), \"+f\"(d[127])\n"
	"    : \"l\"(da), \"l\"(db));\n"
	"}\n"
	"\n"
	"__device__ __forceinline__ void ks_wgmma_bf16(float (&d)[128], unsigned long long da, unsigned long long db)\n"
	"{\n"
	"  asm volatile(\"{\\n.reg .pred p;\\nsetp.ne.b32 p, 1, 0;\\n\"\n"
	"    \"wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 \"\n"
	"    \"{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, %128, %129, p, 1, 1, 0, 0;\\n}\\n\"\n"
	"    : \"+f\"(d[0]), \"+f\"(d[1]), \"+f\"(d[2]), \"+f\"(d[3]), \"+f\"(d[4]), \"+f\"(d[5]), \"+f\"(d[6]), \"+f\"(d[7]), \"+f\"(d[8]), \"+f\"(d[9]), \"+f\"(d[10]), \"+f\"(d[11]), \"+f\"(d[12]), \"+f\"(d[13]), \"+f\"(d[14]), \"+f\"(d[15]), \"+f\"(d[16]), \"+f\"(d[17]), \"+f\"(d[18]), \"+f\"(d[19]), \"+f\"(d[20]), \"+f\"(d[21]), \"+f\"(d[22]), \"+f\"(d[23]), \"+f\"(d[24]), \"+f\"(d[25]), \"+f\"(d[26]), \"+f\"(d[27]), \"+f\"(d[28]), \"+f\"(d[29]), \"+f\"(d[30]), \"+f\"(d[31]), \"+f\"(d[32]), \"+f\"(d[33]), \"+f\"(d[34]), \"+f\"(d[35]), \"+f\"(d[36]), \"+f\"(d[37]), \"+f\"(d[38]), \"+f\"(d[39]), \"+f\"(d[40]), \"+f\"(d[41]), \"+f\"(d[42]), \"+f\"(d[43]), \"+f\"(d[44]), \"+f\"(d[45]), \"+f\"(d[46]), \"+f\"(d[47]), \"+f\"(d[48]), \"+f\"(d[49]), \"+f\"(d[50]), \"+f\"(d[51]), \"+f\"(d[52]), \"+f\"(d[53]), \"+f\"(d[54]), \"+f\"(d[55]), \"+f\"(d[56]), \"+f\"(d[57]), \"+f\"(d[58]), \"+f\"(d[59]), \"+f\"(d[60]), \"+f\"(d[61]), \"+f\"(d[62]), \"+f\"(d[63]), \"+f\"(d[64]), \"+f\"(d[65]), \"+f\"(d[66]), \"+f\"(d[67]), \"+f\"(d[68]), \"+f\"(d[69]), \"+f\"(d[70]), \"+f\"(d[71]), \"+f\"(d[72]), \"+f\"(d[73]), \"+f\"(d[74]), \"+f\"(d[75]), \"+f\"(d[76]), \"+f\"(d[77]), \"+f\"(d[78]), \"+f\"(d[79]), \"+f\"(d[80]), \"+f\"(d[81]), \"+f\"(d[82]), \"+f\"(d[83]), \"+f\"(d[84]), \"+f\"(d[85]), \"+f\"(d[86]), \"+f\"(d[87]), \"+f\"(d[88]), \"+f\"(d[89]), \"+f\"(d[90]), \"+f\"(d[91]), \"+f\"(d[92]), \"+f\"(d[93]), \"+f\"(d[94]), \"+f\"(d[95]), \"+f\"(d[96]), \"+f\"(d[97]), \"+f\"(d[98]), \"+f\"(d[99]), \"+f\"(d[100]), \"+f\"(d[101]), \"+f\"(d[102]), \"+f\"(d[103]), \"+f\"(d[104]), \"+f\"(d[105]), \"+f\"(d[106]), \"+f\"(d[107]), \"+f\"(d[108]), \"+f\"(d[109]), \"+f\"(d[110]), \"+f\"(d[111]), \"+f\"(d[112]), \"+f\"(d[113]), \"+f\"(d[114]), \"+f\"(d[115]), \"+f\"(d[116]), \"+f\"(d[117]), \"+f\"(d[118]), \"+f\"(d[119]), \"+f\"(d[120]), \"+f\"(d[121]), \"+f\"(d[122]), \"+f\"(d[123]), \"+f\"(d[124]), \"+f\"(d[125]), \"+f\"(d[126]), \"+f\"(d[127])\n"
	"    : \"l\"(da), \"l\"(db));\n"
	"}\n"
	"\n"
	"__device__ __forceinline__ u64 ks_desc(const void *smem)\n"
	"{\n"
	"  u64 addr = (u64)__cvta_generic_to_shared(smem);\n"
	"  /* start address, leading byte offset 128, stride byte offset 256, no swizzle */\n"
	"  return ((addr & 0x3ffff) >> 4) | ((u64)(128 >> 4) << 16) | ((u64)(256 >> 4) << 32);\n"
	"}\n"
	"#define KS_WG(T) \\\n"
	"extern \"C\" __global__ void __launch_bounds__(256, 1) ks_cal_wgmma_##T(float *out, int iters) \\\n"
	"{ \\\n"
	"  __shared__ __align__(1024) unsigned short sa[2][1024]; \\\n"
	"  __shared__ __align__(1024) unsigned short sb[4096]; \\\n"
	"  int wg = threadIdx.x / 128; \\\n"
	"  for (int i = threadIdx.x; i < 2048; i += blockDim.x) sa[i / 1024][i % 1024] = (unsigned short)(0x3c00 + (i * 7 & 63)); \\\n"
	"  for (int i = threadIdx.x; i < 4096; i += blockDim.x) sb[i] = (unsigned short)(0x3800 + (i * 13 & 63)); \\\n"
	"  asm volatile(\"fence.proxy.async.shared::cta;\"); \\\n"
	"  __syncthreads(); \\\n"
	"  u64 da = ks_desc(sa[wg]), db = ks_desc(sb); \\\n"
	"  float d[128]; \\\n"
	"  _Pragma(\"unroll\") for (int k = 0; k < 128; k++) d[k] = 0.0f; \\\n"
	"  for (int i = 0; i < iters; i++) { \\\n"
	"    asm volatile(\"wgmma.fence.sync.aligned;\" ::: \"memory\"); \\\n"
	"    ks_wgmma_##T(d, da, db); ks_wgmma_##T(d, da, db); ks_wgmma_##T(d, da, db); ks_wgmma_##T(d, da, db); \\\n"
	"    asm volatile(\"wgmma.commit_group.sync.aligned;\" ::: \"memory\"); \\\n"
	"    asm volatile(\"wgmma.wait_group.sync.aligned 0;\" ::: \"memory\"); \\\n"
	"  } \\\n"
	"  float s = 0; \\\n"
	"  _Pragma(\"unroll\") for (int k = 0; k < 128; k++) s += d[k]; \\\n"
	"  if (s == 1234.5f) out[0] = s; \\\n"
	"}\n"
	"KS_WG(f16)\n"
	"KS_WG(bf16)\n"
	"#endif\n"
	"\n";

const char *const ks_calibrate_kernels[KS_CAL_COUNT] = {
	"ks_cal_copy",     "ks_cal_read",      "ks_cal_fma",       "ks_cal_mma_f16",
	"ks_cal_mma_bf16", "ks_cal_wgmma_f16", "ks_cal_wgmma_bf16",
};

const char *ks_calibrate_source(void)
{
	return g_source;
}

/* The measured rates: where each sits in ks_ceilings, its name in the calibration worker's reply
 * and its name in a kscore.ceilings record. One table, so that a rate added to the worker is read,
 * stored and loaded alike. */
static const struct {
	size_t off;
	const char *reply, *record;
} g_rates[] = {
	{ offsetof(ks_ceilings, memcpy_gbps), "memcpy_gbps", "memcpy_gbps" },
	{ offsetof(ks_ceilings, copy_kernel_gbps), "copy_kernel_gbps", "copy_kernel_gbps" },
	{ offsetof(ks_ceilings, read_kernel_gbps), "read_kernel_gbps", "read_kernel_gbps" },
	{ offsetof(ks_ceilings, fp32_tflops), "fp32_tflops", "fp32_tflops" },
	{ offsetof(ks_ceilings, f16_mma_tflops), "mma_f16_tflops", "f16_mma_sync_tflops" },
	{ offsetof(ks_ceilings, bf16_mma_tflops), "mma_bf16_tflops", "bf16_mma_sync_tflops" },
	{ offsetof(ks_ceilings, f16_wgmma_tflops), "wgmma_f16_tflops", "f16_wgmma_tflops" },
	{ offsetof(ks_ceilings, bf16_wgmma_tflops), "wgmma_bf16_tflops", "bf16_wgmma_tflops" },
};

#define NRATES (sizeof(g_rates) / sizeof(g_rates[0]))

static double *rate_of(ks_ceilings *c, size_t i)
{
	return (double *)(void *)((char *)c + g_rates[i].off);
}

static double rate_at(const ks_ceilings *c, size_t i)
{
	return *(const double *)(const void *)((const char *)c + g_rates[i].off);
}

/* Reads every rate from j, by its reply name or its record name; absent ones are 0. */
static void read_rates(ks_ceilings *c, const cJSON *j, int record)
{
	size_t i;
	for (i = 0; i < NRATES; i++)
		*rate_of(c, i) = ks_json_num_or(j, record ? g_rates[i].record : g_rates[i].reply, 0);
}

static void finish(ks_ceilings *c)
{
	c->bandwidth_gbps = c->memcpy_gbps > c->copy_kernel_gbps ? c->memcpy_gbps : c->copy_kernel_gbps;
	if (c->read_kernel_gbps > c->bandwidth_gbps)
		c->bandwidth_gbps = c->read_kernel_gbps;
	c->f16_tc_tflops = c->f16_wgmma_tflops > c->f16_mma_tflops ? c->f16_wgmma_tflops : c->f16_mma_tflops;
	c->bf16_tc_tflops = c->bf16_wgmma_tflops > c->bf16_mma_tflops ? c->bf16_wgmma_tflops : c->bf16_mma_tflops;
}

static void note(ks_ceilings *c, const char *fmt, const char *a, const char *b)
{
	size_t n = strlen(c->notes);
	snprintf(c->notes + n, sizeof(c->notes) - n, fmt, a, b);
}

int ks_calibrate_measure(ks_ceilings *out, const char *worker_exe, int device, const ks_compile_options *co)
{
	ks_worker_options wo = KS_WORKER_OPTIONS_INIT;
	ks_compile_options cc = *co;
	ks_device_info info;
	ks_worker *w = NULL;
	ks_compile_job job;
	ks_run_result res;
	char *names[KS_CAL_COUNT] = { 0 };
	char *arch = NULL;
	cJSON *m = NULL;
	time_t now = time(NULL);
	struct tm tm;
	int rc, i;

	memset(out, 0, sizeof(*out));
	memset(&job, 0, sizeof(job));
	memset(&res, 0, sizeof(res));
	wo.exe = worker_exe;
	wo.device = device;
	wo.role = "calibration";
	if ((rc = ks_worker_start(&w, &info, &wo)) < 0)
		return rc;
	arch = info.cc_major >= 9 ? ks_asprintf("sm_%d%da", info.cc_major, info.cc_minor)
				  : ks_asprintf("sm_%d%d", info.cc_major, info.cc_minor);
	cc.arch = arch;
	/* all six kernels; without wgmma (not Hopper) the last two are compiled out: retry without */
	job.source = ks_calibrate_source();
	job.names = ks_calibrate_kernels;
	job.nnames = KS_CAL_COUNT;
	job.label = "calibration kernels";
	if ((rc = ks_compile_run(&job, 1, &cc)) < 0)
		goto done;
	if (job.status == KS_COMPILE_NONAME) {
		ks_compile_job_clear(&job);
		job.nnames = KS_CAL_WGMMA_F16;
		note(out, "%s%s", "wgmma not measured: not available for this architecture; ", "");
		if ((rc = ks_compile_run(&job, 1, &cc)) < 0)
			goto done;
	}
	if (job.status != KS_COMPILE_OK) {
		rc = ks_error_set(KS_ERROR, "the calibration kernels do not compile for %s: %s", arch, job.log);
		goto done;
	}
	for (i = 0; i < (int)job.nnames; i++)
		names[i] = job.lowered[i];
	ks_worker_calibrate(w, &res, &m, job.cubin, job.cubin_len, names, KS_CAL_COUNT, 300.0);
	if (res.status != KS_RUN_OK || !m) {
		rc = ks_error_set(KS_ERROR, "calibration failed: %s", res.message ? res.message : "?");
		goto done;
	}
	read_rates(out, m, 0);
	{
		const char *e = NULL;
		if (ks_json_str(&e, m, "wgmma_f16_error", 0) == 0)
			note(out, "wgmma f16 failed: %s; %s", e, "");
		if (ks_json_str(&e, m, "wgmma_bf16_error", 0) == 0)
			note(out, "wgmma bf16 failed: %s; %s", e, "");
	}
	finish(out);
	snprintf(out->device, sizeof(out->device), "%s", info.name);
	snprintf(out->uuid, sizeof(out->uuid), "%s", info.uuid);
	snprintf(out->arch, sizeof(out->arch), "%s", arch);
	out->driver_version = info.driver_version;
	gmtime_r(&now, &tm);
	strftime(out->measured_at, sizeof(out->measured_at), "%Y-%m-%dT%H:%M:%SZ", &tm);
	if (!(out->bandwidth_gbps > 0) || !(out->fp32_tflops > 0))
		rc = ks_error_set(KS_ERROR, "calibration measured no bandwidth or FP32 rate");
done:
	cJSON_Delete(m);
	ks_run_result_clear(&res);
	ks_compile_job_clear(&job);
	ks_worker_free(w);
	ks_free(arch);
	return rc;
}

cJSON *ks_ceilings_json(const ks_ceilings *c)
{
	cJSON *o = cJSON_CreateObject();
	size_t i;
	cJSON_AddStringToObject(o, "schema", "kscore.ceilings/2");
	cJSON_AddStringToObject(o, "device", c->device);
	cJSON_AddStringToObject(o, "uuid", c->uuid);
	cJSON_AddNumberToObject(o, "driver_version", c->driver_version);
	cJSON_AddStringToObject(o, "arch", c->arch);
	cJSON_AddStringToObject(o, "measured_at", c->measured_at);
	ks_json_add_num(o, "bandwidth_gbps", c->bandwidth_gbps);
	ks_json_add_num(o, "f16_tc_tflops", c->f16_tc_tflops);
	ks_json_add_num(o, "bf16_tc_tflops", c->bf16_tc_tflops);
	for (i = 0; i < NRATES; i++)
		ks_json_add_num(o, g_rates[i].record, rate_at(c, i));
	cJSON_AddStringToObject(o, "notes", c->notes);
	cJSON_AddBoolToObject(o, "cached", c->cached);
	return o;
}

int ks_ceilings_from_json(ks_ceilings *c, const cJSON *j)
{
	const char *s = NULL;
	memset(c, 0, sizeof(*c));
	/* /1 records (no read-only stream) are still read, e.g. from older score.json files */
	if (ks_json_str(&s, j, "schema", 1) < 0 || (strcmp(s, "kscore.ceilings/1") && strcmp(s, "kscore.ceilings/2")))
		return ks_error_set(KS_EINVALID, "not a kscore.ceilings/1 or /2 record");
	ks_json_str_copy(c->device, sizeof(c->device), j, "device");
	ks_json_str_copy(c->uuid, sizeof(c->uuid), j, "uuid");
	ks_json_str_copy(c->arch, sizeof(c->arch), j, "arch");
	ks_json_str_copy(c->measured_at, sizeof(c->measured_at), j, "measured_at");
	ks_json_str_copy(c->notes, sizeof(c->notes), j, "notes");
	c->driver_version = (int)ks_json_num_or(j, "driver_version", 0);
	read_rates(c, j, 1);
	finish(c);
	if (!(c->bandwidth_gbps > 0) || !(c->fp32_tflops > 0))
		return ks_error_set(KS_EINVALID, "ceilings record without bandwidth or FP32 rate");
	return 0;
}

static char *cache_path(const char *cache_dir, const ks_device_info *dev)
{
	return ks_asprintf("%s/ceilings/%s-%d.json", cache_dir, dev->uuid[0] ? dev->uuid : "unknown",
			   dev->driver_version);
}

int ks_ceilings_get(ks_ceilings *out, const char *cache_dir, const char *worker_exe, int device,
		    const ks_device_info *dev, const ks_compile_options *co, int force)
{
	char *path = cache_dir ? cache_path(cache_dir, dev) : NULL, *text = NULL;
	const char *schema = NULL;
	cJSON *j = NULL;
	int rc;

	/* a cached /1 record lacks the read-only stream: measured again */
	if (path && !force && ks_fs_read(&text, NULL, path, 1u << 20) == 0 &&
	    ks_json_parse(&j, text, strlen(text), 8, path) == 0 && ks_ceilings_from_json(out, j) == 0 &&
	    ks_json_str(&schema, j, "schema", 1) == 0 && !strcmp(schema, "kscore.ceilings/2")) {
		out->cached = 1;
		rc = 0;
		goto done;
	}
	if ((rc = ks_calibrate_measure(out, worker_exe, device, co)) < 0)
		goto done;
	if (path) {
		char *dir = ks_path_dirname(path);
		cJSON *o = ks_ceilings_json(out);
		if (ks_fs_mkdir_p(dir, 0755) == 0)
			ks_json_write_file(path, o, 1);
		cJSON_Delete(o);
		ks_free(dir);
	}
done:
	cJSON_Delete(j);
	ks_free(text);
	ks_free(path);
	return rc;
}

double ks_ceilings_peak(const ks_ceilings *c, const char *peak)
{
	if (!peak)
		return 0;
	if (!strcmp(peak, "f32"))
		return c->fp32_tflops;
	if (!strcmp(peak, "f16_tc"))
		return c->f16_tc_tflops;
	if (!strcmp(peak, "bf16_tc"))
		return c->bf16_tc_tflops;
	return 0;
}
