// Chapter 02, reference solution of the student's file: the two kernels. neighbored_launch.cu checks the
// arguments and launches them, pass after pass; neighbored_given.cuh says what they receive.
#include "neighbored_given.cuh"

namespace {

// Task 02.1: the tutorial's reduceNeighbored, made correct for any n: the last block's segment may be shorter
// than the block, and the tutorial reads a partner past the end. Every thread stays in the loop (so every
// thread reaches every barrier, as the programming guide requires of __syncthreads() in conditional code),
// and a partner at or past the end simply contributes nothing.
template <class T>
__global__ void reduce_neighbored_kernel(T* data, std::size_t n, long long* block_sums)
{
    const unsigned tid = threadIdx.x;
    const std::size_t begin = static_cast<std::size_t>(blockIdx.x) * blockDim.x;
    T* segment = data + begin;
    const unsigned valid = n - begin < blockDim.x ? static_cast<unsigned>(n - begin) : blockDim.x;
    for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
        if (tid % (2 * stride) == 0 && tid + stride < valid) segment[tid] += segment[tid + stride];
        __syncthreads();  // the next level reads what this level wrote
    }
    if (tid == 0) block_sums[blockIdx.x] = segment[0];
}

// Task 02.2: over reduce_neighbored, the same pairs, but the k-th busy thread is thread k, so the busy
// threads fill whole warps and the other warps skip the add entirely instead of idling lane by lane.
template <class T>
__global__ void reduce_neighbored_less_kernel(T* data, std::size_t n, long long* block_sums)
{
    const unsigned tid = threadIdx.x;
    const std::size_t begin = static_cast<std::size_t>(blockIdx.x) * blockDim.x;
    T* segment = data + begin;
    const unsigned valid = n - begin < blockDim.x ? static_cast<unsigned>(n - begin) : blockDim.x;
    for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
        const unsigned index = 2 * stride * tid;  // < 2^20 for blocks of at most 1024 threads
        if (index + stride < valid) segment[index] += segment[index + stride];
        __syncthreads();
    }
    if (tid == 0) block_sums[blockIdx.x] = segment[0];
}

}  // namespace
