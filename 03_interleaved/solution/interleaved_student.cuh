// Chapter 03, reference solution of the student's file: the four kernels. interleaved_launch.cu checks the
// arguments, zeroes the total and launches them; interleaved_given.cuh gives add_block_sum.
#include "interleaved_given.cuh"

namespace {

// Task 03.1, over chapter 02's reduce_neighbored_less: the partner is stride = blockDim/2, /4, ... away, so
// the busy threads 0..stride-1 read and write one contiguous run of elements (coalesced, no divergence above
// a warp); the last segment may be shorter than the block, and a partner past its end contributes nothing.
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

// Task 03.2 (reduce0), over reduce_interleaved: each level's reads and writes go to on-chip shared memory
// instead of global memory, which is read once; the input stays untouched. Zeros past n make every tail
// guard go away.
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

// Task 03.3 (reduce1), over reduce0: no modulo, and the busy threads are 0, 1, 2, ... so whole warps idle
// together; but thread tid now touches word 2*s*tid, and many threads of a warp hit the same bank.
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

// Task 03.4 (reduce2), over reduce1: sequential addressing - the busy lanes of a warp touch consecutive
// words, one per bank, so no bank conflicts, and the busy threads still form whole warps.
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

}  // namespace
