// Chapter 04 given kernels, shared by starter/ and solution/unroll_warp_kernels.cuh (nothing to do here):
// the chapter-03 tree, the kernels of 04.1 - 04.5 that combine your device functions, and block_sum.
// Included by unroll_warp_kernels.cuh after TODO(04.5) and before TODO(04.6): these kernels call the device
// functions of 04.1 - 04.5, and reduce_vectorized_kernel (04.6) calls block_sum.
#pragma once

#include "reduce_support.cuh"

namespace {

// The shared-memory tree of chapter 03 (sequential addressing): halve the active threads each step, with a
// __syncthreads() between steps. Afterwards partial[0] holds the block's total.
__device__ void tree_sum(long long* partial)
{
    for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
        __syncthreads();
    }
}

// ---------------------------------------------------------------------------------------------- 04.1
template <int Unroll>
__global__ void reduce_unrolling_kernel(const int* in, std::size_t n, long long* total)
{
    extern __shared__ long long partial[];  // blockDim.x values, 64-bit so no partial sum can overflow
    partial[threadIdx.x] = thread_sum_unrolled<Unroll>(in, n);
    __syncthreads();
    tree_sum(partial);
    if (threadIdx.x == 0) atomic_add(total, partial[0]);
}

// ---------------------------------------------------------------------------------------------- 04.2
// tree_sum with the last 6 steps done by warp 0 alone: the __syncthreads() loop stops at 64 values.
__device__ void tree_sum_syncwarp(long long* partial)
{
    for (unsigned stride = blockDim.x / 2; stride > 32; stride /= 2) {
        if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
        __syncthreads();
    }
    if (threadIdx.x < 32) last_warp_sum(partial, blockDim.x >= 64 ? 32 : 16);  // a 32-thread block has 32 values
}

__global__ void reduce_unroll_warp_syncwarp_kernel(const int* in, std::size_t n, long long* total)
{
    extern __shared__ long long partial[];
    partial[threadIdx.x] = thread_sum_unrolled<8>(in, n);
    __syncthreads();
    tree_sum_syncwarp(partial);
    if (threadIdx.x == 0) atomic_add(total, partial[0]);
}

// ---------------------------------------------------------------------------------------------- 04.3
template <int BlockSize>
__global__ void __launch_bounds__(BlockSize) reduce_complete_unroll_kernel(const int* in, std::size_t n,
                                                                            long long* total)
{
    __shared__ long long partial[BlockSize];
    partial[threadIdx.x] = thread_sum_unrolled<8>(in, n);
    __syncthreads();
    tree_sum_complete_unroll<BlockSize>(partial);
    if (threadIdx.x == 0) atomic_add(total, partial[0]);
}

// ---------------------------------------------------------------------------------------------- 04.4
template <int BlockSize>
__global__ void __launch_bounds__(BlockSize) reduce_grid_stride_kernel(const int* in, std::size_t n,
                                                                        long long* total)
{
    __shared__ long long partial[BlockSize];
    partial[threadIdx.x] = thread_sum_grid_stride(in, n);
    __syncthreads();
    tree_sum_complete_unroll<BlockSize>(partial);
    if (threadIdx.x == 0) atomic_add(total, partial[0]);
}

// ---------------------------------------------------------------------------------------------- 04.5
// Two levels: every warp sums its values, lane 0 of each warp leaves the warp's total in shared memory, and
// warp 0 sums those (at most 32). Thread 0 returns the block's total. Call once per kernel.
template <class WarpSum, class T>
__device__ T block_sum(T v)
{
    __shared__ T warp_totals[32];
    const WarpSum warp_sum{};  // made by every thread of the block, before any branch (see CgWarpSum)
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    v = warp_sum(v);
    if (lane == 0) warp_totals[warp] = v;
    __syncthreads();
    if (warp == 0) v = warp_sum(lane < blockDim.x / 32 ? warp_totals[lane] : T(0));
    return v;
}

template <class WarpSum>
__global__ void reduce_warp_kernel(const int* in, std::size_t n, long long* total)
{
    const long long sum = block_sum<WarpSum>(thread_sum_grid_stride(in, n));
    if (threadIdx.x == 0) atomic_add(total, sum);
}

}  // namespace
