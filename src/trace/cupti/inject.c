/* inject: the CUPTI injection library, libkscore-cupti.so (docs/drvtrace.md). The CUDA driver loads
 * it when CUDA_INJECTION64_PATH names it and calls InitializeInjection at the process's first CUDA
 * call; it subscribes to the driver's callbacks and turns each call of interest, read at its exit
 * (lazy loading materialises a module during its first launch), into a call of the recording core
 * (drvrec), which writes the trace into the folder KSCORE_DRVTRACE_DIR names.
 *
 * It links libc alone: CUPTI and the driver are found with dlopen (libcupti from CUDA's folder or
 * KSCORE_CUPTI_LIB), so the library loads from any folder. Everything but InitializeInjection and
 * kscore_drvtrace_mark is hidden. Nothing here may crash or stop the traced program: a failure
 * records less, never more. Its own driver queries run with a thread flag set, so they are not
 * recorded as the program's. */
#include "trace/cupti/drvrec.h"

#include <cuda.h>
#include <cupti.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KS_EXPORT __attribute__((visibility("default")))
#define MAX_PROBES 64

static ks_drvrec *rec;

static struct {
	CUptiResult (*subscribe)(CUpti_SubscriberHandle *, CUpti_CallbackFunc, void *);
	CUptiResult (*enable_callback)(uint32_t, CUpti_SubscriberHandle, CUpti_CallbackDomain, CUpti_CallbackId);
	CUptiResult (*enable_domain)(uint32_t, CUpti_SubscriberHandle, CUpti_CallbackDomain);
} cupti;

static struct {
	CUresult (*func_param_info)(CUfunction, size_t, size_t *, size_t *);
	CUresult (*kernel_param_info)(CUkernel, size_t, size_t *, size_t *);
	CUresult (*func_get_module)(CUmodule *, CUfunction);
	CUresult (*kernel_get_library)(CUlibrary *, CUkernel);
	CUresult (*func_get_name)(const char **, CUfunction);
	CUresult (*kernel_get_name)(const char **, CUkernel);
	CUresult (*pointer_get_attributes)(unsigned, CUpointer_attribute *, void **, CUdeviceptr);
} drv;

static __thread int tl_inside;          /* our own driver queries are running */
static __thread unsigned tl_loads;      /* modules loaded on this thread */
static __thread int tl_last_module = -1;
static __thread const char *tl_runtime; /* the runtime launch being made, or NULL */
static __thread unsigned tl_launches;   /* launches recorded on this thread */

static const char *env(const char *name)
{
	return getenv(name);
}

/* ---- the driver's answers about a launch */

/* parameter layout of f: "func" or "kernel", or NULL when neither query answers */
static const char *param_layout(uint32_t *off, uint32_t *size, size_t *n, CUfunction f)
{
	size_t i, o, s;
	*n = 0;
	if (drv.func_param_info && drv.func_param_info(f, 0, &o, &s) == CUDA_SUCCESS) {
		for (i = 0; i < KS_DRVREC_MAX_PARAMS && drv.func_param_info(f, i, &o, &s) == CUDA_SUCCESS; i++)
			off[i] = (uint32_t)o, size[i] = (uint32_t)s;
		*n = i;
		return "func";
	}
	if (drv.kernel_param_info && drv.kernel_param_info((CUkernel)f, 0, &o, &s) == CUDA_SUCCESS) {
		for (i = 0; i < KS_DRVREC_MAX_PARAMS && drv.kernel_param_info((CUkernel)f, i, &o, &s) == CUDA_SUCCESS; i++)
			off[i] = (uint32_t)o, size[i] = (uint32_t)s;
		*n = i;
		return "kernel";
	}
	return NULL;
}

/* the handle of f's module (or library, for a CUkernel) */
static uint64_t module_handle(CUfunction f)
{
	CUmodule m;
	CUlibrary lib;
	if (drv.func_get_module && drv.func_get_module(&m, f) == CUDA_SUCCESS && m)
		return (uint64_t)(uintptr_t)m;
	if (drv.kernel_get_library && drv.kernel_get_library(&lib, (CUkernel)f) == CUDA_SUCCESS && lib)
		return (uint64_t)(uintptr_t)lib;
	return 0;
}

/* the module a call used: the one loaded during it on this thread (then bound to handle), else
 * the one handle was bound to before */
static int module_for(uint64_t handle, unsigned loads_at_enter)
{
	if (tl_loads != loads_at_enter && tl_last_module >= 0) {
		if (handle)
			ks_drvrec_module_bind(rec, handle, tl_last_module);
		return tl_last_module;
	}
	return handle ? ks_drvrec_module_of(rec, handle) : -1;
}

/* asks the driver about words of the block that lie in no recorded allocation: device memory the
 * recorder did not see allocated (a pool's segment, a runtime-internal allocation) becomes a
 * "range" allocation, host memory a "host" one, managed memory a managed one */
static void probe_words(const unsigned char *block, size_t len)
{
	uint64_t w[MAX_PROBES];
	size_t i, n;
	if (!drv.pointer_get_attributes)
		return;
	n = ks_drvrec_unknown_words(rec, w, MAX_PROBES, block, len);
	for (i = 0; i < n; i++) {
		CUpointer_attribute a[4] = { CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, CU_POINTER_ATTRIBUTE_RANGE_SIZE,
					     CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_IS_MANAGED };
		CUdeviceptr start = 0;
		size_t size = 0;
		unsigned type = 0, managed = 0;
		void *data[4] = { &start, &size, &type, &managed };
		if (drv.pointer_get_attributes(4, a, data, (CUdeviceptr)w[i]) != CUDA_SUCCESS || !start || !size)
			continue;
		ks_drvrec_alloc(rec, start, size, type == CU_MEMORYTYPE_HOST ? "host" : "range", managed != 0);
	}
}

static void launch(const CUpti_CallbackData *cb, const char *api, CUfunction f, const uint32_t grid[3],
		   const uint32_t block[3], uint32_t smem, CUstream stream, void **params, void **extra,
		   const ks_drvrec_attr *attrs, size_t nattrs, unsigned loads_at_enter)
{
	static __thread uint32_t off[KS_DRVREC_MAX_PARAMS], size[KS_DRVREC_MAX_PARAMS];
	static __thread unsigned char blk[KS_DRVREC_MAX_PARAM_BYTES];
	ks_drvrec_launch l = { 0 };
	const char *name = cb->symbolName;
	size_t n = 0, len = 0;
	const void *xb;
	int mod;

	tl_inside = 1;
	mod = module_for(module_handle(f), loads_at_enter);
	if (!ks_drvrec_recording(rec))
		goto done;
	l.layout = param_layout(off, size, &n, f);
	if (!name && !(drv.func_get_name && drv.func_get_name(&name, f) == CUDA_SUCCESS) &&
	    !(drv.kernel_get_name && drv.kernel_get_name(&name, (CUkernel)f) == CUDA_SUCCESS))
		name = NULL;
	if (params && l.layout) {
		if (ks_drvrec_pack(blk, sizeof(blk), &len, (void *const *)params, off, size, n) < 0)
			l.refused = "a parameter lies outside the parameter block";
	} else if (!params && extra && ks_drvrec_extra(&xb, &len, (void *const *)extra) == 0) {
		memcpy(blk, xb, len);
		l.extra = 1;
	} else if (params || extra) {
		l.refused = params ? "the driver gave no parameter layout" : "an unreadable extra buffer";
	}
	probe_words(blk, len);
	l.api = api;
	l.runtime = tl_runtime;
	l.name = name;
	l.func = (uint64_t)(uintptr_t)f;
	l.module = mod;
	memcpy(l.grid, grid, sizeof(l.grid));
	memcpy(l.block, block, sizeof(l.block));
	l.smem = smem;
	l.stream = (uint64_t)(uintptr_t)stream;
	l.attrs = attrs;
	l.nattrs = nattrs;
	l.offsets = off;
	l.sizes = size;
	l.nparams = n;
	l.args = blk;
	l.nargs = len;
	ks_drvrec_launch_add(rec, &l);
	tl_launches++;
done:
	tl_inside = 0;
}

static void launch_ex(const CUpti_CallbackData *cb, const cuLaunchKernelEx_params *p, unsigned loads)
{
	ks_drvrec_attr attrs[KS_DRVREC_MAX_ATTRS];
	const CUlaunchConfig *c = p->config;
	uint32_t grid[3], block[3];
	size_t i, n;
	if (!c)
		return;
	grid[0] = c->gridDimX, grid[1] = c->gridDimY, grid[2] = c->gridDimZ;
	block[0] = c->blockDimX, block[1] = c->blockDimY, block[2] = c->blockDimZ;
	n = c->attrs && c->numAttrs < KS_DRVREC_MAX_ATTRS ? c->numAttrs : (c->attrs ? KS_DRVREC_MAX_ATTRS : 0);
	for (i = 0; i < n; i++) {
		attrs[i].id = (uint32_t)c->attrs[i].id;
		memcpy(attrs[i].v, &c->attrs[i].value, sizeof(attrs[i].v));
	}
	launch(cb, cb->functionName, p->f, grid, block, c->sharedMemBytes, c->hStream, p->kernelParams, p->extra,
	       attrs, n, loads);
}

static void launch_plain(const CUpti_CallbackData *cb, const cuLaunchKernel_params *p, unsigned loads)
{
	uint32_t grid[3] = { p->gridDimX, p->gridDimY, p->gridDimZ };
	uint32_t block[3] = { p->blockDimX, p->blockDimY, p->blockDimZ };
	launch(cb, cb->functionName, p->f, grid, block, p->sharedMemBytes, p->hStream, p->kernelParams, p->extra,
	       NULL, 0, loads);
}

static void launch_coop(const CUpti_CallbackData *cb, const cuLaunchCooperativeKernel_params *p, unsigned loads)
{
	uint32_t grid[3] = { p->gridDimX, p->gridDimY, p->gridDimZ };
	uint32_t block[3] = { p->blockDimX, p->blockDimY, p->blockDimZ };
	ks_drvrec_attr coop = { CU_LAUNCH_ATTRIBUTE_COOPERATIVE, { 1, 0, 0 } };
	launch(cb, cb->functionName, p->f, grid, block, p->sharedMemBytes, p->hStream, p->kernelParams, NULL,
	       &coop, 1, loads);
}

/* whether memory at a is host memory the call read (pageable memory is unknown to the driver) */
static int is_host(uint64_t a)
{
	CUpointer_attribute at = CU_POINTER_ATTRIBUTE_MEMORY_TYPE;
	unsigned type = 0;
	void *data = &type;
	int host;
	if (ks_drvrec_known(rec, a))
		return 0;
	if (!drv.pointer_get_attributes)
		return 0;
	tl_inside = 1;
	host = drv.pointer_get_attributes(1, &at, &data, (CUdeviceptr)a) != CUDA_SUCCESS || type == CU_MEMORYTYPE_HOST;
	tl_inside = 0;
	return host;
}

static void tensor_map(const char *api, CUpti_CallbackId id, const void *fp)
{
	ks_drvrec_tmap t = { 0 };
	int32_t lo, hi;
	t.api = api;
	if (id == CUPTI_DRIVER_TRACE_CBID_cuTensorMapEncodeTiled) {
		const cuTensorMapEncodeTiled_params *p = fp;
		t.dtype = p->tensorDataType, t.rank = p->tensorRank, t.addr = (uint64_t)(uintptr_t)p->globalAddress;
		t.dims = p->globalDim, t.strides = p->globalStrides, t.box = p->boxDim, t.estrides = p->elementStrides;
		t.interleave = p->interleave, t.swizzle = p->swizzle, t.l2 = p->l2Promotion, t.oob = p->oobFill;
		t.bytes = (const unsigned char *)p->tensorMap;
	} else if (id == CUPTI_DRIVER_TRACE_CBID_cuTensorMapEncodeIm2col) {
		const cuTensorMapEncodeIm2col_params *p = fp;
		t.dtype = p->tensorDataType, t.rank = p->tensorRank, t.addr = (uint64_t)(uintptr_t)p->globalAddress;
		t.dims = p->globalDim, t.strides = p->globalStrides, t.estrides = p->elementStrides;
		t.lower = p->pixelBoxLowerCorner, t.upper = p->pixelBoxUpperCorner;
		t.ncorner = p->tensorRank > 2 ? p->tensorRank - 2 : 0;
		t.channels = p->channelsPerPixel, t.pixels = p->pixelsPerColumn;
		t.interleave = p->interleave, t.swizzle = p->swizzle, t.l2 = p->l2Promotion, t.oob = p->oobFill;
		t.bytes = (const unsigned char *)p->tensorMap;
	} else {
		const cuTensorMapEncodeIm2colWide_params *p = fp;
		t.dtype = p->tensorDataType, t.rank = p->tensorRank, t.addr = (uint64_t)(uintptr_t)p->globalAddress;
		t.dims = p->globalDim, t.strides = p->globalStrides, t.estrides = p->elementStrides;
		lo = p->pixelBoxLowerCornerWidth, hi = p->pixelBoxUpperCornerWidth;
		t.lower = &lo, t.upper = &hi, t.ncorner = 1;
		t.channels = p->channelsPerPixel, t.pixels = p->pixelsPerColumn, t.mode = p->mode;
		t.interleave = p->interleave, t.swizzle = p->swizzle, t.l2 = p->l2Promotion, t.oob = p->oobFill;
		t.bytes = (const unsigned char *)p->tensorMap;
	}
	if (t.rank == 0 || t.rank > 5 || !t.bytes)
		return;
	ks_drvrec_tmap_add(rec, &t);
}

#define P(type) ((const type##_params *)cb->functionParams)
#define U(x) ((uint64_t)(uintptr_t)(x))

/* one driver call, at its exit, that returned CUDA_SUCCESS */
static void driver_exit(CUpti_CallbackId id, const CUpti_CallbackData *cb, unsigned loads)
{
	const char *api = cb->functionName;
	switch (id) {
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
		launch_plain(cb, P(cuLaunchKernel), loads);
		break;
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz:
		launch_ex(cb, P(cuLaunchKernelEx), loads);
		break;
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz:
		launch_coop(cb, P(cuLaunchCooperativeKernel), loads);
		break;
	case CUPTI_DRIVER_TRACE_CBID_cuModuleLoadData:
		module_for(U(*P(cuModuleLoadData)->module), loads);
		break;
	case CUPTI_DRIVER_TRACE_CBID_cuModuleLoadDataEx:
		module_for(U(*P(cuModuleLoadDataEx)->module), loads);
		break;
	case CUPTI_DRIVER_TRACE_CBID_cuLibraryLoadData:
		module_for(U(*P(cuLibraryLoadData)->library), loads);
		break;
	case CUPTI_DRIVER_TRACE_CBID_cuModuleGetFunction:
		module_for(U(P(cuModuleGetFunction)->hmod), loads);
		break;
	case CUPTI_DRIVER_TRACE_CBID_cuLibraryGetKernel:
		module_for(U(P(cuLibraryGetKernel)->library), loads);
		break;
	case CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2:
		ks_drvrec_alloc(rec, *P(cuMemAlloc_v2)->dptr, P(cuMemAlloc_v2)->bytesize, api, 0);
		break;
	case CUPTI_DRIVER_TRACE_CBID_cuMemAllocPitch_v2:
		ks_drvrec_alloc(rec, *P(cuMemAllocPitch_v2)->dptr,
				(uint64_t)*P(cuMemAllocPitch_v2)->pPitch * P(cuMemAllocPitch_v2)->Height, api, 0);
		break;
	case CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync:
	case CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync_ptsz:
		ks_drvrec_alloc(rec, *P(cuMemAllocAsync)->dptr, P(cuMemAllocAsync)->bytesize, api, 0);
		break;
	case CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync:
	case CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync_ptsz:
		ks_drvrec_alloc(rec, *P(cuMemAllocFromPoolAsync)->dptr, P(cuMemAllocFromPoolAsync)->bytesize, api, 0);
		break;
	case CUPTI_DRIVER_TRACE_CBID_cuMemAllocManaged:
		ks_drvrec_alloc(rec, *P(cuMemAllocManaged)->dptr, P(cuMemAllocManaged)->bytesize, api, 1);
		break;
	case CUPTI_DRIVER_TRACE_CBID_cuMemMap:
		ks_drvrec_alloc(rec, P(cuMemMap)->ptr, P(cuMemMap)->size, api, 0);
		break;
	case CUPTI_DRIVER_TRACE_CBID_cuMemHostAlloc:
		ks_drvrec_alloc(rec, U(*P(cuMemHostAlloc)->pp), P(cuMemHostAlloc)->bytesize, api, 0);
		break;
	case CUPTI_DRIVER_TRACE_CBID_cuMemAllocHost_v2:
		ks_drvrec_alloc(rec, U(*P(cuMemAllocHost_v2)->pp), P(cuMemAllocHost_v2)->bytesize, api, 0);
		break;
	case CUPTI_DRIVER_TRACE_CBID_cuMemFree_v2:
		ks_drvrec_free(rec, P(cuMemFree_v2)->dptr, api);
		break;
	case CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync:
	case CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync_ptsz:
		ks_drvrec_free(rec, P(cuMemFreeAsync)->dptr, api);
		break;
	case CUPTI_DRIVER_TRACE_CBID_cuMemUnmap:
		ks_drvrec_free(rec, P(cuMemUnmap)->ptr, api);
		break;
	case CUPTI_DRIVER_TRACE_CBID_cuMemFreeHost:
		ks_drvrec_free(rec, U(P(cuMemFreeHost)->p), api);
		break;
	case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2:
	case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2_ptds:
		ks_drvrec_copy(rec, api, "htod", P(cuMemcpyHtoD_v2)->dstDevice, U(P(cuMemcpyHtoD_v2)->srcHost),
			       P(cuMemcpyHtoD_v2)->ByteCount, P(cuMemcpyHtoD_v2)->srcHost, 0);
		break;
	case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2:
	case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2_ptsz: {
		const cuMemcpyHtoDAsync_v2_params *p = P(cuMemcpyHtoDAsync_v2);
		ks_drvrec_copy(rec, api, "htod", p->dstDevice, U(p->srcHost), p->ByteCount, p->srcHost, U(p->hStream));
		break;
	}
	case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2:
	case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2_ptds:
		ks_drvrec_copy(rec, api, "dtoh", U(P(cuMemcpyDtoH_v2)->dstHost), P(cuMemcpyDtoH_v2)->srcDevice,
			       P(cuMemcpyDtoH_v2)->ByteCount, NULL, 0);
		break;
	case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2:
	case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2_ptsz: {
		const cuMemcpyDtoHAsync_v2_params *p = P(cuMemcpyDtoHAsync_v2);
		ks_drvrec_copy(rec, api, "dtoh", U(p->dstHost), p->srcDevice, p->ByteCount, NULL, U(p->hStream));
		break;
	}
	case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoD_v2:
	case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoD_v2_ptds:
		ks_drvrec_copy(rec, api, "dtod", P(cuMemcpyDtoD_v2)->dstDevice, P(cuMemcpyDtoD_v2)->srcDevice,
			       P(cuMemcpyDtoD_v2)->ByteCount, NULL, 0);
		break;
	case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoDAsync_v2:
	case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoDAsync_v2_ptsz: {
		const cuMemcpyDtoDAsync_v2_params *p = P(cuMemcpyDtoDAsync_v2);
		ks_drvrec_copy(rec, api, "dtod", p->dstDevice, p->srcDevice, p->ByteCount, NULL, U(p->hStream));
		break;
	}
	case CUPTI_DRIVER_TRACE_CBID_cuMemcpy:
	case CUPTI_DRIVER_TRACE_CBID_cuMemcpy_ptds:
	case CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync:
	case CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync_ptsz: {
		/* unified addresses: the driver says which side is host memory */
		const cuMemcpyAsync_params *p = P(cuMemcpyAsync);
		int hs = is_host(p->src), hd = is_host(p->dst);
		uint64_t stream = id == CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync ||
					  id == CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync_ptsz
				  ? U(p->hStream) : 0;
		ks_drvrec_copy(rec, api, hs && hd ? "htoh" : hs ? "htod" : hd ? "dtoh" : "dtod", p->dst, p->src,
			       p->ByteCount, hs && !hd ? (const void *)(uintptr_t)p->src : NULL, stream);
		break;
	}
	case CUPTI_DRIVER_TRACE_CBID_cuMemsetD8_v2:
	case CUPTI_DRIVER_TRACE_CBID_cuMemsetD8_v2_ptds:
		ks_drvrec_set(rec, api, P(cuMemsetD8_v2)->dstDevice, 1, P(cuMemsetD8_v2)->uc, P(cuMemsetD8_v2)->N, 0);
		break;
	case CUPTI_DRIVER_TRACE_CBID_cuMemsetD16_v2:
	case CUPTI_DRIVER_TRACE_CBID_cuMemsetD16_v2_ptds:
		ks_drvrec_set(rec, api, P(cuMemsetD16_v2)->dstDevice, 2, P(cuMemsetD16_v2)->us, P(cuMemsetD16_v2)->N, 0);
		break;
	case CUPTI_DRIVER_TRACE_CBID_cuMemsetD32_v2:
	case CUPTI_DRIVER_TRACE_CBID_cuMemsetD32_v2_ptds:
		ks_drvrec_set(rec, api, P(cuMemsetD32_v2)->dstDevice, 4, P(cuMemsetD32_v2)->ui, P(cuMemsetD32_v2)->N, 0);
		break;
	case CUPTI_DRIVER_TRACE_CBID_cuMemsetD8Async:
	case CUPTI_DRIVER_TRACE_CBID_cuMemsetD8Async_ptsz:
		ks_drvrec_set(rec, api, P(cuMemsetD8Async)->dstDevice, 1, P(cuMemsetD8Async)->uc, P(cuMemsetD8Async)->N,
			      U(P(cuMemsetD8Async)->hStream));
		break;
	case CUPTI_DRIVER_TRACE_CBID_cuMemsetD16Async:
	case CUPTI_DRIVER_TRACE_CBID_cuMemsetD16Async_ptsz:
		ks_drvrec_set(rec, api, P(cuMemsetD16Async)->dstDevice, 2, P(cuMemsetD16Async)->us,
			      P(cuMemsetD16Async)->N, U(P(cuMemsetD16Async)->hStream));
		break;
	case CUPTI_DRIVER_TRACE_CBID_cuMemsetD32Async:
	case CUPTI_DRIVER_TRACE_CBID_cuMemsetD32Async_ptsz:
		ks_drvrec_set(rec, api, P(cuMemsetD32Async)->dstDevice, 4, P(cuMemsetD32Async)->ui,
			      P(cuMemsetD32Async)->N, U(P(cuMemsetD32Async)->hStream));
		break;
	case CUPTI_DRIVER_TRACE_CBID_cuTensorMapEncodeTiled:
	case CUPTI_DRIVER_TRACE_CBID_cuTensorMapEncodeIm2col:
	case CUPTI_DRIVER_TRACE_CBID_cuTensorMapEncodeIm2colWide:
		tensor_map(api, id, cb->functionParams);
		break;
	case CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch:
	case CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz:
		ks_drvrec_untraceable(rec, api, "a CUDA graph launch: the driver reports no launch of its kernels",
				      U(P(cuGraphLaunch)->hGraph));
		break;
	case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture:
	case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_ptsz:
	case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2:
	case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2_ptsz:
	case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph:
	case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph_ptsz:
		ks_drvrec_untraceable(rec, api, "stream capture: launches that follow build a graph, they do not run", 0);
		break;
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchHostFunc:
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchHostFunc_ptsz:
		ks_drvrec_untraceable(rec, api, "a host function on a stream", U(P(cuLaunchHostFunc)->hStream));
		break;
	case CUPTI_DRIVER_TRACE_CBID_cuMemcpy2D_v2:
	case CUPTI_DRIVER_TRACE_CBID_cuMemcpy2DAsync_v2:
	case CUPTI_DRIVER_TRACE_CBID_cuMemcpy3D_v2:
	case CUPTI_DRIVER_TRACE_CBID_cuMemcpyPeer:
	case CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D8_v2:
	case CUPTI_DRIVER_TRACE_CBID_cuMemcpyBatchAsync:
	case CUPTI_DRIVER_TRACE_CBID_cuMemcpyBatchAsync_ptsz:
		ks_drvrec_untraceable(rec, api, "a copy or set the trace does not describe", 0);
		break;
	case CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize:
	case CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize_v2:
		ks_drvrec_event(rec, "sync", api, 0, 0);
		break;
	case CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize:
	case CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize_ptsz:
		ks_drvrec_event(rec, "sync", api, U(P(cuStreamSynchronize)->hStream), 0);
		break;
	case CUPTI_DRIVER_TRACE_CBID_cuEventSynchronize:
		ks_drvrec_event(rec, "sync", api, 0, U(P(cuEventSynchronize)->hEvent));
		break;
	case CUPTI_DRIVER_TRACE_CBID_cuEventRecord:
	case CUPTI_DRIVER_TRACE_CBID_cuEventRecord_ptsz:
		ks_drvrec_event(rec, "event", api, U(P(cuEventRecord)->hStream), U(P(cuEventRecord)->hEvent));
		break;
	case CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent:
	case CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent_ptsz:
		ks_drvrec_event(rec, "event", api, U(P(cuStreamWaitEvent)->hStream), U(P(cuStreamWaitEvent)->hEvent));
		break;
	case CUPTI_DRIVER_TRACE_CBID_cuStreamCreate:
		ks_drvrec_event(rec, "stream", api, U(*P(cuStreamCreate)->phStream), 0);
		break;
	case CUPTI_DRIVER_TRACE_CBID_cuStreamCreateWithPriority:
		ks_drvrec_event(rec, "stream", api, U(*P(cuStreamCreateWithPriority)->phStream), 0);
		break;
	default:
		break;
	}
}

static const CUpti_CallbackId driver_ids[] = {
	CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel, CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuModuleLoadData, CUPTI_DRIVER_TRACE_CBID_cuModuleLoadDataEx,
	CUPTI_DRIVER_TRACE_CBID_cuLibraryLoadData, CUPTI_DRIVER_TRACE_CBID_cuModuleGetFunction,
	CUPTI_DRIVER_TRACE_CBID_cuLibraryGetKernel, CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2,
	CUPTI_DRIVER_TRACE_CBID_cuMemAllocPitch_v2, CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync,
	CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync_ptsz, CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync,
	CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync_ptsz, CUPTI_DRIVER_TRACE_CBID_cuMemAllocManaged,
	CUPTI_DRIVER_TRACE_CBID_cuMemMap, CUPTI_DRIVER_TRACE_CBID_cuMemHostAlloc,
	CUPTI_DRIVER_TRACE_CBID_cuMemAllocHost_v2, CUPTI_DRIVER_TRACE_CBID_cuMemFree_v2,
	CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync, CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuMemUnmap, CUPTI_DRIVER_TRACE_CBID_cuMemFreeHost,
	CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2, CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2_ptds,
	CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2, CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2, CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2_ptds,
	CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2, CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoD_v2, CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoD_v2_ptds,
	CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoDAsync_v2, CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoDAsync_v2_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuMemcpy, CUPTI_DRIVER_TRACE_CBID_cuMemcpy_ptds, CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync,
	CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync_ptsz, CUPTI_DRIVER_TRACE_CBID_cuMemsetD8_v2,
	CUPTI_DRIVER_TRACE_CBID_cuMemsetD8_v2_ptds, CUPTI_DRIVER_TRACE_CBID_cuMemsetD16_v2,
	CUPTI_DRIVER_TRACE_CBID_cuMemsetD16_v2_ptds, CUPTI_DRIVER_TRACE_CBID_cuMemsetD32_v2,
	CUPTI_DRIVER_TRACE_CBID_cuMemsetD32_v2_ptds, CUPTI_DRIVER_TRACE_CBID_cuMemsetD8Async,
	CUPTI_DRIVER_TRACE_CBID_cuMemsetD8Async_ptsz, CUPTI_DRIVER_TRACE_CBID_cuMemsetD16Async,
	CUPTI_DRIVER_TRACE_CBID_cuMemsetD16Async_ptsz, CUPTI_DRIVER_TRACE_CBID_cuMemsetD32Async,
	CUPTI_DRIVER_TRACE_CBID_cuMemsetD32Async_ptsz, CUPTI_DRIVER_TRACE_CBID_cuTensorMapEncodeTiled,
	CUPTI_DRIVER_TRACE_CBID_cuTensorMapEncodeIm2col, CUPTI_DRIVER_TRACE_CBID_cuTensorMapEncodeIm2colWide,
	CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch, CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture, CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2, CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph, CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuLaunchHostFunc, CUPTI_DRIVER_TRACE_CBID_cuLaunchHostFunc_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuMemcpy2D_v2, CUPTI_DRIVER_TRACE_CBID_cuMemcpy2DAsync_v2,
	CUPTI_DRIVER_TRACE_CBID_cuMemcpy3D_v2, CUPTI_DRIVER_TRACE_CBID_cuMemcpyPeer,
	CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D8_v2, CUPTI_DRIVER_TRACE_CBID_cuMemcpyBatchAsync,
	CUPTI_DRIVER_TRACE_CBID_cuMemcpyBatchAsync_ptsz, CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize,
	CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize_v2, CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize,
	CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize_ptsz, CUPTI_DRIVER_TRACE_CBID_cuEventSynchronize,
	CUPTI_DRIVER_TRACE_CBID_cuEventRecord, CUPTI_DRIVER_TRACE_CBID_cuEventRecord_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent, CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuStreamCreate, CUPTI_DRIVER_TRACE_CBID_cuStreamCreateWithPriority,
};

static const CUpti_CallbackId runtime_ids[] = {
	CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000,
	CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060,
	CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000,
	CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000,
};

/* a runtime launch: its driver launch, inside it, is recorded with the runtime call's name; one
 * that the driver did not report is marked untraceable */
static void runtime_cb(const CUpti_CallbackData *cb)
{
	if (cb->callbackSite == CUPTI_API_ENTER) {
		tl_runtime = cb->functionName;
		*cb->correlationData = tl_launches;
		return;
	}
	tl_runtime = NULL;
	if (*(const int *)cb->functionReturnValue == 0 && tl_launches == *cb->correlationData &&
	    ks_drvrec_recording(rec))
		ks_drvrec_untraceable(rec, cb->functionName, "a runtime launch the driver did not report", 0);
}

static void CUPTIAPI callback(void *user, CUpti_CallbackDomain domain, CUpti_CallbackId id, const void *data)
{
	(void)user;
	/* a module our own query made the driver load is still the program's module */
	if (tl_inside && domain != CUPTI_CB_DOMAIN_RESOURCE)
		return;
	if (domain == CUPTI_CB_DOMAIN_RESOURCE) {
		const CUpti_ResourceData *rd = data;
		const CUpti_ModuleResourceData *m;
		int idx;
		if (id != CUPTI_CBID_RESOURCE_MODULE_LOADED || !rd || !(m = rd->resourceDescriptor))
			return;
		idx = ks_drvrec_module(rec, m->pCubin, m->cubinSize, "resource");
		if (idx >= 0) {
			tl_loads++;
			tl_last_module = idx;
		}
	} else if (domain == CUPTI_CB_DOMAIN_DRIVER_API) {
		const CUpti_CallbackData *cb = data;
		if (cb->callbackSite == CUPTI_API_ENTER) {
			*cb->correlationData = tl_loads;
			return;
		}
		if (*(const CUresult *)cb->functionReturnValue == CUDA_SUCCESS)
			driver_exit(id, cb, (unsigned)*cb->correlationData);
	} else if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
		runtime_cb(data);
	}
}

/* ---- set-up */

static void *open_cupti(void)
{
	static const char *const tries[] = { "libcupti.so.13", "libcupti.so", KS_CUDA_HOME "/lib64/libcupti.so",
					     KS_CUDA_HOME "/extras/CUPTI/lib64/libcupti.so", NULL };
	const char *own = env("KSCORE_CUPTI_LIB");
	void *h = NULL;
	size_t i;
	if (own && *own)
		return dlopen(own, RTLD_NOW | RTLD_LOCAL);
	for (i = 0; tries[i] && !h; i++)
		h = dlopen(tries[i], RTLD_NOW | RTLD_LOCAL);
	return h;
}

#define SYM(h, name) dlsym(h, name)

static void at_exit(void)
{
	ks_drvrec_finish(rec);
}

static void in_child(void)
{
	ks_drvrec_detach(rec);
}

/* The driver calls this once, at the process's first CUDA call. Returns 1 (the driver ignores the
 * value); without KSCORE_DRVTRACE_DIR, CUPTI or the trace file it records nothing and says why on
 * stderr once. */
KS_EXPORT int InitializeInjection(void);
KS_EXPORT int InitializeInjection(void)
{
	ks_drvrec_limits lim = KS_DRVREC_LIMITS_INIT;
	CUpti_SubscriberHandle sub;
	const char *dir = env("KSCORE_DRVTRACE_DIR");
	void *hc, *hd;
	size_t i;
	int ignored;
	if (rec || !dir || !*dir)
		return 1;
	if (!(hc = open_cupti())) {
		fprintf(stderr, "kscore-cupti: cannot load libcupti: %s\n", dlerror());
		return 1;
	}
	*(void **)&cupti.subscribe = SYM(hc, "cuptiSubscribe");
	*(void **)&cupti.enable_callback = SYM(hc, "cuptiEnableCallback");
	*(void **)&cupti.enable_domain = SYM(hc, "cuptiEnableDomain");
	if (!cupti.subscribe || !cupti.enable_callback || !cupti.enable_domain) {
		fprintf(stderr, "kscore-cupti: libcupti lacks the callback API\n");
		return 1;
	}
	if ((hd = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD)) != NULL) {
		*(void **)&drv.func_param_info = SYM(hd, "cuFuncGetParamInfo");
		*(void **)&drv.kernel_param_info = SYM(hd, "cuKernelGetParamInfo");
		*(void **)&drv.func_get_module = SYM(hd, "cuFuncGetModule");
		*(void **)&drv.kernel_get_library = SYM(hd, "cuKernelGetLibrary");
		*(void **)&drv.func_get_name = SYM(hd, "cuFuncGetName");
		*(void **)&drv.kernel_get_name = SYM(hd, "cuKernelGetName");
		*(void **)&drv.pointer_get_attributes = SYM(hd, "cuPointerGetAttributes");
	}
	ignored = ks_drvrec_limits_read(&lim, env);
	if (ignored)
		fprintf(stderr, "kscore-cupti: %d KSCORE_DRVTRACE_ variables ignored (not numbers)\n", ignored);
	if (!(rec = ks_drvrec_open(dir, &lim))) {
		fprintf(stderr, "kscore-cupti: cannot create a trace file in %s\n", dir);
		return 1;
	}
	if (!hd)
		ks_drvrec_untraceable(rec, "libcuda.so.1", "the driver's queries are unavailable: no layouts", 0);
	atexit(at_exit);
	pthread_atfork(NULL, NULL, in_child);
	if (cupti.subscribe(&sub, callback, NULL) != CUPTI_SUCCESS) {
		ks_drvrec_untraceable(rec, "cuptiSubscribe", "CUPTI refused the subscription (another tool holds it)", 0);
		ks_drvrec_finish(rec);
		return 1;
	}
	for (i = 0; i < sizeof(driver_ids) / sizeof(driver_ids[0]); i++)
		cupti.enable_callback(1, sub, CUPTI_CB_DOMAIN_DRIVER_API, driver_ids[i]);
	for (i = 0; i < sizeof(runtime_ids) / sizeof(runtime_ids[0]); i++)
		cupti.enable_callback(1, sub, CUPTI_CB_DOMAIN_RUNTIME_API, runtime_ids[i]);
	cupti.enable_callback(1, sub, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_MODULE_LOADED);
	return 1;
}

/* The trace child's marker (found with dlsym): a "mark" record with label, then launches are
 * recorded (on != 0) or not. Returns 0, -1 when nothing is being traced. */
KS_EXPORT int kscore_drvtrace_mark(const char *label, int on);
KS_EXPORT int kscore_drvtrace_mark(const char *label, int on)
{
	if (!rec)
		return -1;
	ks_drvrec_mark(rec, label, on);
	return 0;
}
