// Pitfall 1 (README, "Three errors"): the seed's way of waiting for a child grid, in a few lines. CUDA 12
// removed device-side cudaDeviceSynchronize(), so with CUDA 13 this file does not compile.
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
