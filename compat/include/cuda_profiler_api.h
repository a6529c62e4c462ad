/* kscore compatibility header <cuda_profiler_api.h>, a stand-in: the profiler API is host-only; nothing is
 * declared (NVRTC refuses its __host__ functions). */
