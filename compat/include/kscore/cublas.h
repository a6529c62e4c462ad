/* kscore compatibility headers: cuBLAS and cuBLASLt are host libraries (their device API was
 * removed in CUDA 10), and NVRTC cannot parse their headers. The stand-ins declare the handle and
 * enumeration types, so that signatures and constants kept from a host wrapper compile; the
 * functions are not declared: a call in device code fails as an undefined identifier, and kscore's
 * log note says why. The values are cuBLAS's. */
#ifndef KSCORE_CUBLAS_H
#define KSCORE_CUBLAS_H

#include <cuda_runtime.h>
#include <library_types.h>

typedef enum {
	CUBLAS_STATUS_SUCCESS = 0,
	CUBLAS_STATUS_NOT_INITIALIZED = 1,
	CUBLAS_STATUS_ALLOC_FAILED = 3,
	CUBLAS_STATUS_INVALID_VALUE = 7,
	CUBLAS_STATUS_ARCH_MISMATCH = 8,
	CUBLAS_STATUS_MAPPING_ERROR = 11,
	CUBLAS_STATUS_EXECUTION_FAILED = 13,
	CUBLAS_STATUS_INTERNAL_ERROR = 14,
	CUBLAS_STATUS_NOT_SUPPORTED = 15,
	CUBLAS_STATUS_LICENSE_ERROR = 16
} cublasStatus_t;
typedef enum { CUBLAS_FILL_MODE_LOWER = 0, CUBLAS_FILL_MODE_UPPER = 1, CUBLAS_FILL_MODE_FULL = 2 } cublasFillMode_t;
typedef enum { CUBLAS_DIAG_NON_UNIT = 0, CUBLAS_DIAG_UNIT = 1 } cublasDiagType_t;
typedef enum { CUBLAS_SIDE_LEFT = 0, CUBLAS_SIDE_RIGHT = 1 } cublasSideMode_t;
typedef enum {
	CUBLAS_OP_N = 0,
	CUBLAS_OP_T = 1,
	CUBLAS_OP_C = 2,
	CUBLAS_OP_HERMITAN = 2,
	CUBLAS_OP_CONJG = 3
} cublasOperation_t;
typedef enum { CUBLAS_POINTER_MODE_HOST = 0, CUBLAS_POINTER_MODE_DEVICE = 1 } cublasPointerMode_t;
typedef enum { CUBLAS_ATOMICS_NOT_ALLOWED = 0, CUBLAS_ATOMICS_ALLOWED = 1 } cublasAtomicsMode_t;
typedef enum {
	CUBLAS_DEFAULT_MATH = 0,
	CUBLAS_TENSOR_OP_MATH = 1,
	CUBLAS_PEDANTIC_MATH = 2,
	CUBLAS_TF32_TENSOR_OP_MATH = 3
} cublasMath_t;
typedef enum { CUBLAS_GEMM_DEFAULT = -1, CUBLAS_GEMM_DEFAULT_TENSOR_OP = 99 } cublasGemmAlgo_t;
typedef enum {
	CUBLAS_COMPUTE_16F = 64,
	CUBLAS_COMPUTE_16F_PEDANTIC = 65,
	CUBLAS_COMPUTE_32F = 68,
	CUBLAS_COMPUTE_32F_PEDANTIC = 69,
	CUBLAS_COMPUTE_32F_FAST_16F = 74,
	CUBLAS_COMPUTE_32F_FAST_16BF = 75,
	CUBLAS_COMPUTE_32F_FAST_TF32 = 77,
	CUBLAS_COMPUTE_64F = 70,
	CUBLAS_COMPUTE_64F_PEDANTIC = 71,
	CUBLAS_COMPUTE_32I = 72,
	CUBLAS_COMPUTE_32I_PEDANTIC = 73
} cublasComputeType_t;
typedef struct cublasContext *cublasHandle_t;
typedef struct cublasLtContext *cublasLtHandle_t;
typedef struct cublasLtMatmulDescOpaque_t *cublasLtMatmulDesc_t;
typedef struct cublasLtMatrixLayoutOpaque_t *cublasLtMatrixLayout_t;
typedef struct cublasLtMatmulPreferenceOpaque_t *cublasLtMatmulPreference_t;

#endif
