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

// given: ../unroll_warp_given.cuh, tree_sum (the chapter-03 tree) and the kernels that call your functions

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

// given: ../unroll_warp_given.cuh, reduce_unrolling_kernel (thread_sum_unrolled, then tree_sum)

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

// given: ../unroll_warp_given.cuh, tree_sum_syncwarp (calls last_warp_sum) and its kernel

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

// given: ../unroll_warp_given.cuh, reduce_complete_unroll_kernel (thread_sum_unrolled<8>, then this tree)

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

// given: ../unroll_warp_given.cuh, reduce_grid_stride_kernel (this loop, then tree_sum_complete_unroll)

// ---------------------------------------------------------------------------------------------- 04.5
// Each functor returns the sum of v over the 32 lanes of the calling warp (all 32 lanes call it), at least
// in lane 0.
struct ShflWarpSum {
    template <class T>
    __device__ T operator()(T v) const
    {
        // TODO(04.5): the warp's sum of v, correct at least in lane 0, for every T that block_sum passes in
        // (long long here; double and float in 04.6). Registers only: no shared memory. Every exchange names
        // all 32 lanes and is made by all of them, so the result holds under independent thread scheduling.
        // Checked by reduce_shfl (README, task 04.5; hints there).
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
        // TODO(04.5): the same result as ShflWarpSum, but said through cooperative groups: a collective
        // reduction over `warp` (this thread's warp, made in the constructor), no offsets of your own.
        // Checked by reduce_cg.
        static_cast<void>(v);
        return 0;
    }
};

struct ReduxWarpSum {
    __device__ long long operator()(long long v) const
    {
#if __CUDA_ARCH__ >= 800
        // TODO(04.5): the warp's sum of v modulo 2^64 (what a long long sum gives), at least in lane 0, built
        // from __reduce_add_sync: one instruction, but 32-bit unsigned operands and a sum that wraps modulo
        // 2^32. Every v, negative or spanning all 64 bits, must come out exact, so no carry that belongs in
        // the low 64 bits of the result may be lost. Which split of v into pieces guarantees that, and why do
        // two 32-bit halves not? (README, task 04.5.) Checked by reduce_redux, also on ints spread over the
        // whole int range.
        static_cast<void>(v);
        return 0;
#else
        return ShflWarpSum{}(v);  // no redux.sync before sm_80
#endif
    }
};

}  // namespace

// given: block_sum<WarpSum>(v) (a block's total in thread 0: every warp, then warp 0 over the warp totals),
// reduce_warp_kernel and the kernels of 04.1 - 04.4; they call the functions above.
#include "unroll_warp_given.cuh"

namespace {

// ---------------------------------------------------------------------------------------------- 04.6
// Thread 0 of every block calls this once with its block's total; *total must end with the grand total.
template <class Acc>
__device__ void publish_block_total(Acc block_total, Acc* total)
{
    // TODO(04.6): one pass, no memset before the kernel: every block adds its total to the running total of
    // its type (running_total<Acc>()), and exactly one block - the last to finish, found by counting finished
    // blocks in blocks_done - writes the grand total to *total (which starts as garbage: the checks poison it).
    //   - ordering: a block may count itself finished only once its addition is visible to the whole GPU, and
    //     the last block's read of the running total must see every block's addition;
    //   - reset: when the last block is done, the running total and blocks_done are 0 again, as every launch
    //     must find them (the checks launch many times in a row; launches must not overlap: reduce_support.cuh).
    // Checked by reduce_vectorized, reduce_vectorized_float (both) and reduce_vectorized_bytes (README, 04.6).
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
