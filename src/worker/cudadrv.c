#include "worker/cudadrv.h"
#include "util/errors.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

typedef CUresult (*proc_fn)(const char *, void **, int, cuuint64_t, CUdriverProcAddressQueryResult *);

int ks_cu_load(ks_cu_api *api)
{
	proc_fn get;
	void *lib;

	memset(api, 0, sizeof(*api));
	lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!lib)
		return ks_error_set(KS_EUNSUPPORTED, "no CUDA driver: %s", dlerror());
	*(void **)&get = dlsym(lib, "cuGetProcAddress_v2");
	if (!get) {
		dlclose(lib);
		return ks_error_set(KS_EUNSUPPORTED, "the CUDA driver is too old (no cuGetProcAddress_v2)");
	}
	api->lib = lib;
#define KS_CU_GET(name)                                                                            \
	{                                                                                          \
		CUdriverProcAddressQueryResult q;                                                  \
		void *fn = NULL;                                                                   \
		if (get(#name, &fn, CUDA_VERSION, CU_GET_PROC_ADDRESS_DEFAULT, &q) != CUDA_SUCCESS ||  \
		    !fn) {                                                                         \
			dlclose(lib);                                                              \
			memset(api, 0, sizeof(*api));                                              \
			return ks_error_set(KS_EUNSUPPORTED, "the CUDA driver lacks %s", #name);   \
		}                                                                                  \
		*(void **)&api->name = fn;                                                         \
	}
	KS_CU_REQUIRED(KS_CU_GET)
#undef KS_CU_GET
#define KS_CU_OPT(name)                                                                            \
	{                                                                                          \
		CUdriverProcAddressQueryResult q;                                                  \
		void *fn = NULL;                                                                   \
		if (get(#name, &fn, CUDA_VERSION, CU_GET_PROC_ADDRESS_DEFAULT, &q) == CUDA_SUCCESS)    \
			*(void **)&api->name = fn;                                                 \
	}
	KS_CU_OPTIONAL(KS_CU_OPT)
#undef KS_CU_OPT
	return 0;
}

const char *ks_cu_error(const ks_cu_api *api, CUresult r)
{
	static _Thread_local char buf[256];
	const char *name = NULL, *desc = NULL;
	if (api && api->cuGetErrorName)
		api->cuGetErrorName(r, &name);
	if (api && api->cuGetErrorString)
		api->cuGetErrorString(r, &desc);
	snprintf(buf, sizeof(buf), "%s (%s)", name ? name : "CUDA error", desc ? desc : "unknown");
	if (!name)
		snprintf(buf, sizeof(buf), "CUDA error %d", (int)r);
	return buf;
}

int ks_cu_error_is_sticky(CUresult r)
{
	switch (r) {
	case CUDA_ERROR_ILLEGAL_ADDRESS:
	case CUDA_ERROR_LAUNCH_TIMEOUT:
	case CUDA_ERROR_HARDWARE_STACK_ERROR:
	case CUDA_ERROR_ILLEGAL_INSTRUCTION:
	case CUDA_ERROR_MISALIGNED_ADDRESS:
	case CUDA_ERROR_INVALID_ADDRESS_SPACE:
	case CUDA_ERROR_INVALID_PC:
	case CUDA_ERROR_LAUNCH_FAILED:
	case CUDA_ERROR_ASSERT:
	case CUDA_ERROR_ECC_UNCORRECTABLE:
	case CUDA_ERROR_CONTEXT_IS_DESTROYED:
	case CUDA_ERROR_NOT_INITIALIZED:
	case CUDA_ERROR_UNKNOWN:
		return 1;
	default:
		return 0;
	}
}
