/* kscore-worker, calibration (KS_MSG_CALIBRATE, DESIGN §4.7; see src/worker/worker_int.h): the
 * device's own ceilings, measured: copy and read bandwidth, FP32 FMA and tensor-core rates. */
#include "worker/worker_int.h"
#include "util/errors.h"
#include "util/jsonutil.h"
#include "util/mem.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

static double best_ms(wk_ctx *w, CUresult (*fn)(void *), void *ud, int reps, CUresult *rc)
{
	CUevent e0, e1;
	double best = 1e30;
	int i;
	w->cu.cuEventCreate(&e0, CU_EVENT_DEFAULT);
	w->cu.cuEventCreate(&e1, CU_EVENT_DEFAULT);
	*rc = CUDA_SUCCESS;
	for (i = 0; i < reps + 2 && *rc == CUDA_SUCCESS; i++) {
		float t = 0;
		w->cu.cuEventRecord(e0, w->stream);
		if ((*rc = fn(ud)) != CUDA_SUCCESS)
			break;
		w->cu.cuEventRecord(e1, w->stream);
		if ((*rc = w->cu.cuStreamSynchronize(w->stream)) != CUDA_SUCCESS)
			break;
		w->cu.cuEventElapsedTime(&t, e0, e1);
		if (i >= 2 && t < best)
			best = t; /* the first two are warm-up */
	}
	w->cu.cuEventDestroy(e0);
	w->cu.cuEventDestroy(e1);
	return best;
}

typedef struct {
	wk_ctx *w;
	CUfunction f;
	CUdeviceptr a, b;
	uint64_t n;
	unsigned grid, block;
	int iters;
} cal_job;

static CUresult cal_memcpy(void *ud)
{
	cal_job *c = ud;
	wk_ctx *w = c->w;
	return w->cu.cuMemcpyDtoDAsync(c->b, c->a, c->n, w->stream);
}

static CUresult cal_copy(void *ud)
{
	cal_job *c = ud;
	wk_ctx *w = c->w;
	uint64_t words = c->n / 16;
	void *p[] = { &c->a, &c->b, &words };
	return w->cu.cuLaunchKernel(c->f, c->grid, 1, 1, 256, 1, 1, 0, w->stream, p, NULL);
}

static CUresult cal_read(void *ud)
{
	cal_job *c = ud;
	wk_ctx *w = c->w;
	uint64_t words = c->n / 16;
	void *p[] = { &c->a, &words, &c->b };
	return w->cu.cuLaunchKernel(c->f, c->grid, 1, 1, 256, 1, 1, 0, w->stream, p, NULL);
}

static CUresult cal_fma(void *ud)
{
	cal_job *c = ud;
	wk_ctx *w = c->w;
	float b = 0.999f;
	void *p[] = { &c->a, &c->iters, &b };
	return w->cu.cuLaunchKernel(c->f, c->grid, 1, 1, c->block, 1, 1, 0, w->stream, p, NULL);
}

static CUresult cal_mma(void *ud)
{
	cal_job *c = ud;
	wk_ctx *w = c->w;
	void *p[] = { &c->a, &c->iters };
	return w->cu.cuLaunchKernel(c->f, c->grid, 1, 1, c->block, 1, 1, 0, w->stream, p, NULL);
}

void wk_calibrate(wk_ctx *w, const ks_msg *m)
{
	const cJSON *funcs = cJSON_GetObjectItemCaseSensitive(m->json, "funcs");
	CUfunction fn[KS_CAL_COUNT] = { 0 };
	CUmodule mod;
	cal_job c;
	CUresult r;
	size_t free_b = 0, total_b = 0;
	int sms = wk_attr(w, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT), i;
	double ms, flops;
	cJSON *j;

	if (!m->blob || !cJSON_IsArray(funcs) || cJSON_GetArraySize(funcs) != KS_CAL_COUNT) {
		wk_reply_error("calibrate", CUDA_ERROR_INVALID_VALUE, "bad calibration request", 0);
		return;
	}
	if ((r = w->cu.cuModuleLoadDataEx(&mod, m->blob, 0, NULL, NULL)) != CUDA_SUCCESS) {
		wk_reply_error("calibrate", r, ks_cu_error(&w->cu, r), ks_cu_error_is_sticky(r));
		return;
	}
	for (i = 0; i < KS_CAL_COUNT; i++) {
		const cJSON *f = cJSON_GetArrayItem(funcs, i);
		if (cJSON_IsString(f) && *f->valuestring)
			w->cu.cuModuleGetFunction(&fn[i], mod, f->valuestring);
	}
	j = wk_ok_reply();
	memset(&c, 0, sizeof(c));
	c.w = w;
	w->cu.cuMemGetInfo(&free_b, &total_b);
	/* bandwidth: 1 GiB copies (or an eighth of free memory), read + written bytes counted */
	c.n = 1ull << 30;
	while (c.n > free_b / 8 && c.n > (64ull << 20))
		c.n /= 2;
	if (w->cu.cuMemAlloc(&c.a, c.n) == CUDA_SUCCESS && w->cu.cuMemAlloc(&c.b, c.n) == CUDA_SUCCESS) {
		w->cu.cuMemsetD8Async(c.a, 0x3c, c.n, w->stream);
		ms = best_ms(w, cal_memcpy, &c, 10, &r);
		if (r == CUDA_SUCCESS)
			cJSON_AddNumberToObject(j, "memcpy_gbps", 2.0 * (double)c.n / (ms * 1e-3) / 1e9);
		if (fn[KS_CAL_COPY]) {
			c.f = fn[KS_CAL_COPY];
			c.grid = (unsigned)sms * 16;
			ms = best_ms(w, cal_copy, &c, 10, &r);
			if (r == CUDA_SUCCESS)
				cJSON_AddNumberToObject(j, "copy_kernel_gbps", 2.0 * (double)c.n / (ms * 1e-3) / 1e9);
		}
		if (fn[KS_CAL_READ]) {
			/* reads the c.n bytes of a; b only receives a write that never happens */
			c.f = fn[KS_CAL_READ];
			c.grid = (unsigned)sms * 16;
			ms = best_ms(w, cal_read, &c, 10, &r);
			if (r == CUDA_SUCCESS)
				cJSON_AddNumberToObject(j, "read_kernel_gbps", (double)c.n / (ms * 1e-3) / 1e9);
		}
	}
	if (c.a)
		w->cu.cuMemFree(c.a);
	if (c.b)
		w->cu.cuMemFree(c.b);
	c.a = c.b = 0;
	w->cu.cuMemAlloc(&c.a, 256);
	if (fn[KS_CAL_FMA]) {
		c.f = fn[KS_CAL_FMA];
		c.grid = (unsigned)sms * 8;
		c.block = 256;
		c.iters = 2048;
		ms = best_ms(w, cal_fma, &c, 5, &r);
		flops = 2.0 * 8 * 16 * (double)c.iters * c.grid * c.block;
		if (r == CUDA_SUCCESS)
			cJSON_AddNumberToObject(j, "fp32_tflops", flops / (ms * 1e-3) / 1e12);
	}
	/* tensor cores, mma.sync first, then wgmma (most likely to be refused: done last) */
	for (i = KS_CAL_MMA_F16; i < KS_CAL_COUNT; i++) {
		if (!fn[i])
			continue;
		c.f = fn[i];
		if (i <= KS_CAL_MMA_BF16) {
			c.grid = (unsigned)sms * 8;
			c.block = 256;
			c.iters = 4096;
			flops = 2.0 * 16 * 8 * 16 * 4 * (double)c.iters * (c.grid * (c.block / 32));
		} else {
			c.grid = (unsigned)sms;
			c.block = 256;
			c.iters = 2048;
			flops = 2.0 * 64 * 256 * 16 * 4 * (double)c.iters * (c.grid * 2);
		}
		ms = best_ms(w, cal_mma, &c, 5, &r);
		if (r != CUDA_SUCCESS) {
			char k[64];
			snprintf(k, sizeof(k), "%s_error", ks_proto_cal_keys[i]);
			cJSON_AddStringToObject(j, k, ks_cu_error(&w->cu, r));
			if (ks_cu_error_is_sticky(r))
				break;
			continue;
		}
		{
			char k[64];
			snprintf(k, sizeof(k), "%s_tflops", ks_proto_cal_keys[i]);
			cJSON_AddNumberToObject(j, k, flops / (ms * 1e-3) / 1e12);
		}
	}
	cJSON_AddNumberToObject(j, "bandwidth_bytes", (double)c.n);
	wk_reply(j, NULL, 0);
	if (ks_cu_error_is_sticky(r))
		_exit(0);
	w->cu.cuMemFree(c.a);
	w->cu.cuModuleUnload(mod);
}
