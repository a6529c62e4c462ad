/* kscore compatibility headers: PyTorch's C++ headers (<torch/extension.h>, <ATen/...>, <c10/...>)
 * and pybind11's belong to the host wrapper of a PyTorch extension. kscore scores the kernels
 * alone: it calls each __global__ function with raw device pointers, as the problem's signature
 * says. The stand-ins let an include kept from the wrapper compile; a use of a torch type in
 * device code fails with the message below. */
#ifndef KSCORE_TORCH_H
#define KSCORE_TORCH_H

#include <kscore/host_only.h>

#define KSCORE_TORCH_MESSAGE(what)                                                            \
	"kscore: " what " is PyTorch's and host-only; kscore compiles the kernels alone with NVRTC and "  \
	"calls them with raw device pointers: take float*, __half*, ... arguments as in the problem's " \
	"signature"

namespace c10 {
KSCORE_HOST_ONLY_CLASS(Half, KSCORE_TORCH_MESSAGE("c10::Half (at::Half)") ": use __half from <cuda_fp16.h>");
KSCORE_HOST_ONLY_CLASS(BFloat16, KSCORE_TORCH_MESSAGE("c10::BFloat16 (at::BFloat16)") ": use __nv_bfloat16 from <cuda_bf16.h>");
KSCORE_HOST_ONLY_CLASS(ScalarType, KSCORE_TORCH_MESSAGE("c10::ScalarType"));
KSCORE_HOST_ONLY_CLASS(Device, KSCORE_TORCH_MESSAGE("c10::Device"));
KSCORE_HOST_ONLY_TEMPLATE(ArrayRef, KSCORE_TORCH_MESSAGE("c10::ArrayRef"));
KSCORE_HOST_ONLY_TEMPLATE(optional, KSCORE_TORCH_MESSAGE("c10::optional"));
namespace cuda {
KSCORE_HOST_ONLY_CLASS(CUDAGuard, KSCORE_TORCH_MESSAGE("c10::cuda::CUDAGuard"));
KSCORE_HOST_ONLY_CLASS(OptionalCUDAGuard, KSCORE_TORCH_MESSAGE("c10::cuda::OptionalCUDAGuard"));
KSCORE_HOST_ONLY_CLASS(CUDAStream, KSCORE_TORCH_MESSAGE("c10::cuda::CUDAStream"));
}
}

namespace at {
using c10::Half; using c10::BFloat16; using c10::ScalarType; using c10::Device; using c10::ArrayRef;
KSCORE_HOST_ONLY_CLASS(Tensor, KSCORE_TORCH_MESSAGE("at::Tensor (torch::Tensor)"));
KSCORE_HOST_ONLY_CLASS(TensorOptions, KSCORE_TORCH_MESSAGE("at::TensorOptions"));
template <class T> struct DefaultPtrTraits { typedef T *PtrType; };
template <class T> struct RestrictPtrTraits { typedef T *__restrict__ PtrType; };
template <class T, unsigned long long N, template <class> class P = DefaultPtrTraits, class I = long long>
struct GenericPackedTensorAccessor {
	static_assert(::kscore::always_false<T>::value, KSCORE_TORCH_MESSAGE("a packed tensor accessor"));
};
template <class T, unsigned long long N, template <class> class P = DefaultPtrTraits, class I = long long>
struct TensorAccessor {
	static_assert(::kscore::always_false<T>::value, KSCORE_TORCH_MESSAGE("at::TensorAccessor"));
};
template <class T, unsigned long long N, template <class> class P = DefaultPtrTraits>
using PackedTensorAccessor32 = GenericPackedTensorAccessor<T, N, P, int>;
template <class T, unsigned long long N, template <class> class P = DefaultPtrTraits>
using PackedTensorAccessor64 = GenericPackedTensorAccessor<T, N, P, long long>;
namespace cuda {
KSCORE_HOST_ONLY_TEMPLATE(kscore_cuda_function, KSCORE_TORCH_MESSAGE("at::cuda"));
template <class... A> __host__ __device__ kscore_cuda_function<A...> getCurrentCUDAStream(A &&...);
template <class... A> __host__ __device__ kscore_cuda_function<A...> getCurrentDeviceProperties(A &&...);
using c10::cuda::CUDAGuard; using c10::cuda::OptionalCUDAGuard; using c10::cuda::CUDAStream;
}
}

namespace torch {
using at::Tensor; using at::TensorOptions; using at::Half; using at::BFloat16;
using at::DefaultPtrTraits; using at::RestrictPtrTraits; using at::GenericPackedTensorAccessor;
using at::PackedTensorAccessor32; using at::PackedTensorAccessor64; using at::TensorAccessor;
}

#endif
