// Chapter 05, given: the flat reduction the nested ones are measured against. One grid, launched by the host;
// no device-side launches at all.
#include "nested_given.cuh"

#include "course/atomics.cuh"
#include "course/check.hpp"
#include "course/launch.hpp"

namespace {

constexpr unsigned flat_threads = 256;
constexpr unsigned flat_loads_per_step = 4;

// A 64-bit grid-stride loop with four independent loads in flight per thread, shuffle trees (block_sum), and
// one atomic add per block.
__global__ void flat_reduce_kernel(const int* in, std::size_t n, long long* total)
{
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    long long sum = 0;
    for (; i + 3 * stride < n; i += flat_loads_per_step * stride)
        sum += static_cast<long long>(in[i]) + in[i + stride] + in[i + 2 * stride] + in[i + 3 * stride];
    for (; i < n; i += stride) sum += in[i];
    sum = block_sum(sum);
    if (threadIdx.x == 0) course::atomic_add(total, sum);
}

}  // namespace

void flat_reduce(const int* d_in, long long* d_total, std::size_t n, cudaStream_t stream)
{
    course::check_pointer("flat_reduce", "d_in", d_in, n > 0);
    course::check_pointer("flat_reduce", "d_total", d_total);
    CUDA_CHECK(cudaMemsetAsync(d_total, 0, sizeof(long long), stream));
    if (n == 0) return;
    // As many blocks as the loop has work for (four loads per thread), at most as many as fit on the GPU at once.
    const unsigned blocks =
        course::grid_stride_grid("flat_reduce", flat_reduce_kernel, n, flat_threads, flat_loads_per_step);
    flat_reduce_kernel<<<blocks, flat_threads, 0, stream>>>(d_in, n, d_total);
    CUDA_CHECK_LAUNCH();
}
