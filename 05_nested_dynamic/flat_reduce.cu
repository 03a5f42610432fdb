// Chapter 05, given: the flat reduction the nested ones are measured against. One grid, launched by the host;
// no device-side launches at all.
#include "nested_device.cuh"

#include "course/check.hpp"

#include <algorithm>

namespace {

constexpr unsigned flat_threads = 256;
constexpr unsigned flat_blocks_per_sm = 8;  // 2048 resident threads per SM on sm_75..sm_90

// A 64-bit grid-stride loop with four independent loads in flight per thread, a shuffle tree per warp, and
// one atomicAdd per block.
__global__ void flat_reduce_kernel(const int* in, std::size_t n, unsigned long long* total)
{
    __shared__ long long warp_totals[flat_threads / 32];
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    long long sum = 0;
    for (; i + 3 * stride < n; i += 4 * stride)
        sum += static_cast<long long>(in[i]) + in[i + stride] + in[i + 2 * stride] + in[i + 3 * stride];
    for (; i < n; i += stride) sum += in[i];
    sum = warp_sum(sum);
    const unsigned lane = threadIdx.x % 32;
    const unsigned warp = threadIdx.x / 32;
    if (lane == 0) warp_totals[warp] = sum;
    __syncthreads();
    if (warp != 0) return;
    sum = warp_sum(lane < flat_threads / 32 ? warp_totals[lane] : 0);
    // Two's complement: adding the signed total as unsigned gives the right signed result.
    if (lane == 0) atomicAdd(total, static_cast<unsigned long long>(sum));
}

}  // namespace

void enqueue_flat_reduce(const int* d_in, std::size_t n, long long* d_total)
{
    if (d_total == nullptr) throw std::invalid_argument("flat_reduce: d_total is null");
    if (n > 0 && d_in == nullptr) throw std::invalid_argument("flat_reduce: d_in is null");
    CUDA_CHECK(cudaMemsetAsync(d_total, 0, sizeof(long long)));
    if (n == 0) return;
    int device = 0, sms = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    const std::size_t needed = (n + flat_threads - 1) / flat_threads;
    const auto blocks = static_cast<unsigned>(std::min<std::size_t>(needed, std::size_t{flat_blocks_per_sm} * sms));
    flat_reduce_kernel<<<blocks, flat_threads>>>(d_in, n, reinterpret_cast<unsigned long long*>(d_total));
    CUDA_CHECK_LAUNCH();
}

std::int64_t flat_reduce(const int* d_in, std::size_t n)
{
    course::DeviceBuffer<long long> total(1);
    enqueue_flat_reduce(d_in, n, total.data());
    long long sum = 0;
    total.copy_to_host(&sum, 1);
    return sum;
}
