// Pitfall 1 (docs/05_nested_dynamic.md, "Three errors"): the tutorial's way of waiting for a child grid, in a
// few lines. CDP2 - the default since CUDA 12, the only dynamic parallelism on sm_90 - has no device-side
// cudaDeviceSynchronize(), so with CUDA 13 this file does not compile for sm_90, nor for sm_75 unless CDP1 is
// opted into with -DCUDA_FORCE_CDP1_IF_SUPPORTED (deprecated; the module then fails to load on sm_90).
__global__ void halve(int* data, int len)
{
    const int half = len / 2;
    if (threadIdx.x < half) data[threadIdx.x] += data[threadIdx.x + half];
    __syncthreads();
    if (threadIdx.x == 0 && half > 1) {
        halve<<<1, half>>>(data, half);
        cudaDeviceSynchronize();  // CDP1: block until the child has finished. There is no CDP1 on sm_90.
    }
}
