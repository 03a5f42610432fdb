// Chapter 04: your file. Fill in the TODOs in order - each task builds on the one before - and check each one
// with `meson test -C build --suite 04_unroll_warp`. Read 04_unroll_warp/README.md first.
//
// This file holds only the kernels (device code): TODO(04.1) thread_sum_unrolled, TODO(04.2) last_warp_sum,
// TODO(04.3) tree_sum_complete_unroll, TODO(04.4) thread_sum_grid_stride, TODO(04.5) ShflWarpSum, CgWarpSum
// and ReduxWarpSum, TODO(04.6) publish_block_total and reduce_vectorized_kernel. You write the device
// functions marked TODO; the kernels that combine them and a few helpers are given. The launchers (argument
// checks, grid sizes, CUDA_CHECK_LAUNCH) are in ../unroll_warp_launch.cu, which includes this file: you need
// not change them. Unfilled, every kernel returns 0 or leaves the total untouched, so each check fails naming
// its task.
#pragma once

#include "reduce_support.cuh"

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

namespace cg = cooperative_groups;
using namespace unroll_warp;

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
// Returns this thread's share of the block's Unroll data blocks.
template <int Unroll>
__device__ long long thread_sum_unrolled(const int* in, std::size_t n)
{
    // TODO(04.1): block b covers the Unroll neighbouring data blocks starting at element b * blockDim.x * Unroll.
    // Thread t adds element t of each of them: first + k * blockDim.x for k = 0 .. Unroll-1.
    //   - compute indices in std::size_t (cast blockIdx.x BEFORE multiplying: 2^28 elements overflow 32 bits);
    //   - guard every load with i < n (the last data blocks can be partial);
    //   - add into a long long; `#pragma unroll` over k lets the Unroll loads go out back to back.
    static_cast<void>(in);
    static_cast<void>(n);
    return 0;
}

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
// Called by the 32 threads of warp 0 when 2 * first_offset values are left in partial[0 .. 2*first_offset)
// (first_offset is 32, or 16 for a block of one warp); partial[0] must end with their sum.
__device__ __forceinline__ void last_warp_sum(long long* partial, unsigned first_offset)
{
    // TODO(04.2): the seed's unrolled last warp, made correct on Volta and newer. For offset = first_offset,
    // first_offset/2, ..., 1: lanes below `offset` add partial[lane + offset] to their value. Keep the value
    // in a register; between reading and writing back call __syncwarp() (all 32 lanes must reach it, so
    // don't put it inside `if (lane < offset)`), and again after writing. No `volatile` needed: __syncwarp
    // orders the shared-memory accesses of the warp.
    static_cast<void>(partial);
    static_cast<void>(first_offset);
}

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
__device__ void tree_sum_complete_unroll(long long* partial)
{
    // TODO(04.3): tree_sum_syncwarp without the loop. One line per step, for the block sizes that have it:
    //     if (BlockSize >= 1024) { if (tid < 512) partial[tid] += partial[tid + 512]; __syncthreads(); }
    // down to the step that leaves 64 values, then last_warp_sum. BlockSize is a compile-time constant, so
    // the compiler removes the steps a block size does not need. Keep every __syncthreads() outside the
    // `if (tid < ...)`: a barrier that some threads of the block skip is undefined behaviour.
    static_cast<void>(partial);
}

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
// Returns the sum of elements thread, thread + stride, thread + 2 stride, ... (stride = all threads of the grid).
__device__ long long thread_sum_grid_stride(const int* in, std::size_t n)
{
    // TODO(04.4): a grid-stride loop with a 64-bit index and a 64-bit sum. The grid is small (it just fills
    // the GPU), so each thread loops many times: make each iteration issue four independent loads
    // (i, i + stride, i + 2 stride, i + 3 stride, while i + 3 stride < n), then finish the last few
    // elements with a plain loop (i < n).
    static_cast<void>(in);
    static_cast<void>(n);
    return 0;
}

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
// Each functor returns the sum of v over the 32 lanes of the calling warp (all 32 lanes call it), at least
// in lane 0.
struct ShflWarpSum {
    template <class T>
    __device__ T operator()(T v) const
    {
        // TODO(04.5): five steps of v += __shfl_down_sync(0xffffffffu, v, offset), offset = 16, 8, 4, 2, 1.
        static_cast<void>(v);
        return T(0);
    }
};

// tiled_partition is collective over the whole block, so the tile is made when the functor is constructed
// (by every thread, in block_sum), not inside the `warp == 0` branch.
struct CgWarpSum {
    cg::thread_block_tile<32> warp;
    __device__ CgWarpSum() : warp(cg::tiled_partition<32>(cg::this_thread_block())) {}
    __device__ long long operator()(long long v) const
    {
        // TODO(04.5): `warp` is this thread's warp as a cooperative group; cg::reduce(group, v,
        // cg::plus<long long>()) sums v over a group.
        static_cast<void>(v);
        return 0;
    }
};

struct ReduxWarpSum {
    __device__ long long operator()(long long v) const
    {
#if __CUDA_ARCH__ >= 800
        // TODO(04.5): __reduce_add_sync(0xffffffffu, x) sums a 32-bit unsigned x over the warp in one
        // instruction, wrapping modulo 2^32. Split v's 64 bits into the low 16, the middle 16 and the high 32
        // bits, sum each piece, and put the pieces back together with shifts. Why can the two 16-bit sums not
        // overflow, and why does it not matter that the high sum wraps? (README, task 04.5.)
        static_cast<void>(v);
        return 0;
#else
        return ShflWarpSum{}(v);  // no redux.sync before sm_80
#endif
    }
};

// Two levels: every warp sums its values, lane 0 of each warp leaves the warp's total in shared memory, and
// warp 0 sums those (at most 32). Thread 0 returns the block's total. Call once per kernel. (Given: read it.)
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

// ---------------------------------------------------------------------------------------------- 04.6
// Thread 0 of every block calls this once with its block's total; *total must end with the grand total.
template <class Acc>
__device__ void publish_block_total(Acc block_total, Acc* total)
{
    // TODO(04.6): add block_total to *running_total<Acc>() with atomic_add; __threadfence() so that addition
    // is visible before the block counts itself done; then atomicAdd(&blocks_done, 1u). The block that gets
    // gridDim.x - 1 back finishes last: it reads the running total (atomic_add(running, Acc(0)) is an atomic
    // read), writes it to *total, and resets the running total and blocks_done to 0 for the next launch.
    static_cast<void>(block_total);
    static_cast<void>(total);
}

// T is int, float or std::uint8_t; Acc is the accumulator (long long, double or float).
template <class T, class Acc>
__global__ void reduce_vectorized_kernel(const T* in, std::size_t n, Acc* total)
{
    // TODO(04.6): the best kernel.
    //   1. Alignment: a 16-byte load needs an address that is a multiple of 16. The first
    //      head = min(n, ((16 - address % 16) % 16) / sizeof(T)) elements come before the first boundary;
    //      after them come `vectors` whole 16-byte vectors (read them as const int4*), then a tail of fewer
    //      than 16 / sizeof(T) elements.
    //   2. Body: a grid-stride loop over the vectors with four independent loads per iteration (as in 04.4),
    //      each vector added with vector_sum<T, Acc>(v) (reduce_support.cuh), into an Acc sum.
    //   3. Head and tail: thread number t of the grid (t < 16) adds head element t and tail element t, if any.
    //   4. block_sum<ShflWarpSum>(sum), then thread 0 calls publish_block_total.
    // Test with pointers 1, 2, 3 elements past a boundary and n = 0, 1, 3, 4, 5, ...: the checks do.
    static_cast<void>(in);
    static_cast<void>(n);
    static_cast<void>(total);
}

}  // namespace
