// Pitfalls 2 and 3 (docs/05_nested_dynamic.md, "Three errors"): a complete CDP2 program that sums 1..1000 by halving, one tail
// launch per level. reproduce.sh builds it the wrong ways and the right way.
#include <cstdio>

__global__ void halve(long long* data, unsigned len)
{
    const unsigned keep = (len + 1) / 2;  // an odd middle value is carried
    if (threadIdx.x < len / 2) data[threadIdx.x] += data[threadIdx.x + keep];
    if (threadIdx.x == 0 && keep > 1) halve<<<1, keep / 2, 0, cudaStreamTailLaunch>>>(data, keep);
}

int main()
{
    const unsigned n = 1000;
    long long host[n];
    for (unsigned i = 0; i < n; ++i) host[i] = i + 1;
    long long* data = nullptr;
    cudaError_t err = cudaMalloc(&data, sizeof host);
    if (err == cudaSuccess) err = cudaMemcpy(data, host, sizeof host, cudaMemcpyHostToDevice);
    if (err == cudaSuccess) {
        halve<<<1, n / 2>>>(data, n);
        err = cudaGetLastError();
    }
    if (err == cudaSuccess) err = cudaMemcpy(host, data, sizeof(long long), cudaMemcpyDeviceToHost);
    if (err != cudaSuccess) {
        std::printf("error: %s (%s)\n", cudaGetErrorName(err), cudaGetErrorString(err));
        return 1;
    }
    std::printf("sum of 1..%u = %lld (expected %u)\n", n, host[0], n * (n + 1) / 2);
    return host[0] == n * (n + 1) / 2 ? 0 : 1;
}
