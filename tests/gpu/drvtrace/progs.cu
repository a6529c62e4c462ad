// Small CUDA programs for tests/gpu/drvtrace.sh: a runtime <<<>>> launch with a struct parameter
// holding a pointer, a cluster launch (cudaLaunchKernelEx: the driver's cuLaunchKernelEx), a
// driver-API cuLaunchKernel, copies and a memset. Built with nvcc on the GPU host.
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>

struct Args { float *out; int n; float scale; };

__global__ void scale_struct(Args a, const float *in) {
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < a.n) a.out[i] = in[i] * a.scale;
}

__global__ void cluster_add(float *x, int n) {
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) x[i] += 1.0f;
}

int main() {
	const int n = 1 << 16;
	float *in, *out, h[256];
	for (int i = 0; i < 256; i++) h[i] = (float)i;
	cudaMalloc(&in, n * sizeof(float));
	cudaMalloc(&out, n * sizeof(float));
	cudaMemcpy(in, h, sizeof(h), cudaMemcpyHostToDevice);
	cudaMemset(out, 0, n * sizeof(float));
	Args a = { out, n, 2.0f };
	scale_struct<<<n / 256, 256>>>(a, in);
	cudaLaunchConfig_t cfg = {};
	cudaLaunchAttribute at[1];
	at[0].id = cudaLaunchAttributeClusterDimension;
	at[0].val.clusterDim.x = 2; at[0].val.clusterDim.y = 1; at[0].val.clusterDim.z = 1;
	cfg.gridDim = dim3(n / 256); cfg.blockDim = dim3(256); cfg.attrs = at; cfg.numAttrs = 1;
	cudaLaunchKernelEx(&cfg, cluster_add, out, n);
	// the driver API: the same kernel through cuLaunchKernel
	cudaFunction_t rf;
	cudaGetFuncBySymbol(&rf, (const void *)scale_struct);
	void *params[] = { &a, &in };
	CUresult r = cuLaunchKernel((CUfunction)rf, n / 256, 1, 1, 256, 1, 1, 0, 0, params, nullptr);
	cudaMemcpy(h, out, sizeof(h), cudaMemcpyDeviceToHost);
	cudaError_t e = cudaDeviceSynchronize();
	printf("progs: cuLaunchKernel %d, sync %s, out[3] = %g\n", (int)r, cudaGetErrorString(e), h[3]);
	cudaFree(in); cudaFree(out);
	return e == cudaSuccess && r == CUDA_SUCCESS ? 0 : 1;
}
