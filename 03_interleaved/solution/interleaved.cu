// Chapter 03 reference solution.
#include "interleaved.hpp"

#include "course/check.hpp"

#include <climits>
#include <stdexcept>
#include <string>

namespace {

// atomicAdd has no signed 64-bit overload. Adding the two's-complement bit pattern as unsigned gives, after
// the wrap-around of unsigned addition, exactly the bit pattern of the signed sum: negative sums work too.
__device__ void add_block_sum(long long* total, int block_sum)
{
    atomicAdd(reinterpret_cast<unsigned long long*>(total),
              static_cast<unsigned long long>(static_cast<long long>(block_sum)));
}

// Over chapter 02's reduce_neighbored_less: the partner is stride = blockDim/2, /4, ... away, so the busy
// threads 0..stride-1 read and write one contiguous run of elements (coalesced, no divergence above a
// warp); the last segment may be shorter than the block, and a partner past its end contributes nothing.
__global__ void reduce_interleaved_kernel(int* data, std::size_t n, long long* total)
{
    const unsigned tid = threadIdx.x;
    const std::size_t begin = static_cast<std::size_t>(blockIdx.x) * blockDim.x;
    int* segment = data + begin;
    const unsigned valid = n - begin < blockDim.x ? static_cast<unsigned>(n - begin) : blockDim.x;
    for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (tid < stride && tid + stride < valid) segment[tid] += segment[tid + stride];
        __syncthreads();
    }
    if (tid == 0) add_block_sum(total, segment[0]);
}

// reduce0, over reduce_interleaved: each level's reads and writes go to on-chip shared memory instead of
// global memory, which is read once; the input stays untouched. Zeros past n make every tail guard go away.
__global__ void reduce_shared_modulo_kernel(const int* in, std::size_t n, long long* total)
{
    extern __shared__ int partial[];
    const unsigned tid = threadIdx.x;
    const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + tid;
    partial[tid] = i < n ? in[i] : 0;
    __syncthreads();
    for (unsigned s = 1; s < blockDim.x; s *= 2) {
        if (tid % (2 * s) == 0) partial[tid] += partial[tid + s];
        __syncthreads();
    }
    if (tid == 0) add_block_sum(total, partial[0]);
}

// reduce1, over reduce0: no modulo, and the busy threads are 0, 1, 2, ... so whole warps idle together; but
// thread tid now touches word 2*s*tid, and many threads of a warp hit the same shared-memory bank.
__global__ void reduce_shared_strided_kernel(const int* in, std::size_t n, long long* total)
{
    extern __shared__ int partial[];
    const unsigned tid = threadIdx.x;
    const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + tid;
    partial[tid] = i < n ? in[i] : 0;
    __syncthreads();
    for (unsigned s = 1; s < blockDim.x; s *= 2) {
        const unsigned index = 2 * s * tid;  // < 2^20 for blocks of at most 1024 threads
        if (index < blockDim.x) partial[index] += partial[index + s];
        __syncthreads();
    }
    if (tid == 0) add_block_sum(total, partial[0]);
}

// reduce2, over reduce1: sequential addressing - the 32 threads of a warp touch 32 consecutive words, one
// per bank, so no bank conflicts, and the busy threads still form whole warps.
__global__ void reduce_shared_sequential_kernel(const int* in, std::size_t n, long long* total)
{
    extern __shared__ int partial[];
    const unsigned tid = threadIdx.x;
    const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + tid;
    partial[tid] = i < n ? in[i] : 0;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
        if (tid < s) partial[tid] += partial[tid + s];
        __syncthreads();
    }
    if (tid == 0) add_block_sum(total, partial[0]);
}

// Validates the arguments, sets *d_total to 0 (the kernels only add to it) and returns the number of blocks.
unsigned prepare(const char* name, const int* d_data, std::size_t n, int block, long long* d_total)
{
    if (block < 32 || block > 1024 || (block & (block - 1)) != 0)
        throw std::invalid_argument(std::string(name) + ": block must be a power of two in [32, 1024], got " +
                                    std::to_string(block));
    if (!d_total || (n > 0 && !d_data)) throw std::invalid_argument(std::string(name) + ": null device pointer");
    const std::size_t blocks = (n + static_cast<std::size_t>(block) - 1) / block;
    if (blocks > static_cast<std::size_t>(INT_MAX))
        throw std::invalid_argument(std::string(name) + ": n = " + std::to_string(n) +
                                    " needs more blocks than one grid can have");
    CUDA_CHECK(cudaMemsetAsync(d_total, 0, sizeof *d_total));
    return static_cast<unsigned>(blocks);
}

using SharedKernel = void (*)(const int*, std::size_t, long long*);

void launch_shared(const char* name, SharedKernel kernel, const int* d_in, std::size_t n, int block,
                   long long* d_total)
{
    const unsigned blocks = prepare(name, d_in, n, block, d_total);
    if (blocks == 0) return;  // n = 0: no launch with 0 blocks
    kernel<<<blocks, block, block * sizeof(int)>>>(d_in, n, d_total);
    CUDA_CHECK_LAUNCH();
}

}  // namespace

void reduce_interleaved(int* d_data, std::size_t n, int block, long long* d_total)
{
    const unsigned blocks = prepare("reduce_interleaved", d_data, n, block, d_total);
    if (blocks == 0) return;  // n = 0: no launch with 0 blocks
    reduce_interleaved_kernel<<<blocks, block>>>(d_data, n, d_total);
    CUDA_CHECK_LAUNCH();
}

void reduce_shared_modulo(const int* d_in, std::size_t n, int block, long long* d_total)
{
    launch_shared("reduce_shared_modulo", reduce_shared_modulo_kernel, d_in, n, block, d_total);
}

void reduce_shared_strided(const int* d_in, std::size_t n, int block, long long* d_total)
{
    launch_shared("reduce_shared_strided", reduce_shared_strided_kernel, d_in, n, block, d_total);
}

void reduce_shared_sequential(const int* d_in, std::size_t n, int block, long long* d_total)
{
    launch_shared("reduce_shared_sequential", reduce_shared_sequential_kernel, d_in, n, block, d_total);
}
