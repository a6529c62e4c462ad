/* cudadrv: the CUDA driver API, loaded at run time (DESIGN §4.1). Only GPU workers call
 * ks_cu_load(); the scoring process never does, so it runs (and falls back to compile-only mode)
 * on machines without a driver, and never initialises CUDA before it forks.
 *
 * Each entry point is fetched through cuGetProcAddress at this header's CUDA_VERSION, so it has
 * exactly the ABI of the prototype in <cuda.h> (cuMemAlloc is cuMemAlloc_v2, and so on). */
#ifndef KS_CUDADRV_H
#define KS_CUDADRV_H

#include <cuda.h>

#define KS_CU_REQUIRED(X)                                                                          \
	X(cuInit) X(cuDriverGetVersion) X(cuDeviceGet) X(cuDeviceGetCount) X(cuDeviceGetName)      \
	X(cuDeviceGetAttribute) X(cuDeviceTotalMem) X(cuDeviceGetUuid) X(cuDeviceGetPCIBusId)      \
	X(cuDevicePrimaryCtxRetain) X(cuDevicePrimaryCtxRelease) X(cuCtxSetCurrent)                \
	X(cuCtxSynchronize) X(cuStreamCreate) X(cuStreamSynchronize) X(cuStreamDestroy)            \
	X(cuModuleLoadDataEx) X(cuModuleUnload) X(cuModuleGetFunction) X(cuFuncGetAttribute)      \
	X(cuFuncSetAttribute) X(cuLaunchKernel) X(cuMemAlloc) X(cuMemFree) X(cuMemcpyHtoD)         \
	X(cuMemcpyDtoH) X(cuMemcpyDtoDAsync) X(cuMemsetD8Async) X(cuMemsetD32Async) X(cuMemGetInfo) X(cuEventCreate)   \
	X(cuEventRecord) X(cuEventSynchronize) X(cuEventElapsedTime) X(cuEventDestroy)             \
	X(cuGetErrorName) X(cuGetErrorString) X(cuMemAllocHost) X(cuMemFreeHost)

/* Entry points that older drivers may lack; NULL when absent. */
#define KS_CU_OPTIONAL(X)                                                                          \
	X(cuFuncGetParamInfo) X(cuCtxSetLimit) X(cuCtxResetPersistingL2Cache)                      \
	X(cuStreamSetAttribute)

#define KS_CU_FIELD(name) __typeof__(&name) name;
typedef struct {
	void *lib;
	KS_CU_REQUIRED(KS_CU_FIELD)
	KS_CU_OPTIONAL(KS_CU_FIELD)
} ks_cu_api;
#undef KS_CU_FIELD

/* Loads libcuda.so.1 and resolves the entry points into *api. Returns 0, or KS_EUNSUPPORTED with
 * a message ("no CUDA driver: libcuda.so.1: cannot open shared object file") when the machine has
 * no usable driver. Does not call cuInit. */
int ks_cu_load(ks_cu_api *api);

/* "CUDA_ERROR_ILLEGAL_ADDRESS (an illegal memory access was encountered)"; static storage. */
const char *ks_cu_error(const ks_cu_api *api, CUresult r);

/* Errors after which the context is unusable and the process must be replaced (cuda.h documents
 * these as leaving "the process in an inconsistent state"). */
int ks_cu_error_is_sticky(CUresult r);

#endif
