// Chapter 04, given device code (nothing to do here): what your file (starter/unroll_warp_student.cuh)
// builds on. The chapter-03 tree, the two-level block sum of Task 04.5, the sum of one 16-byte vector and the
// running totals of the one-pass kernels (Task 04.6). Nothing here calls your functions: the kernels that do
// are in unroll_warp_launch.cu.
#pragma once

#include "unroll_warp.hpp"

#include "course/atomics.cuh"
#include "course/vector_access.cuh"

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cuda/atomic>

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace cg = cooperative_groups;

namespace {

// The 32 threads of the calling thread's warp, as cooperative groups sees them (Task 04.5).
using Warp = cg::thread_block_tile<32>;

// The shared-memory tree of chapter 03 (sequential addressing): halve the active threads each step, with a
// __syncthreads() between steps. Afterwards partial[0] holds the sum of partial[0 .. blockDim.x).
__device__ void tree_sum(long long* partial)
{
    for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
        __syncthreads();
    }
}

// Two levels of warp sums (Task 04.5): every warp sums its values with WarpSum, lane 0 of each warp leaves
// the warp's total in shared memory, and warp 0 sums those (at most 32). Thread 0 returns the block's total.
// WarpSum is a functor: warp_sum(warp, v) returns the sum of v over the 32 lanes of `warp`, at least in lane 0.
// Call it once per kernel, from every thread of the block.
template <class WarpSum, class T>
__device__ T block_sum(T v)
{
    __shared__ T warp_totals[32];
    const Warp warp = cg::tiled_partition<32>(cg::this_thread_block());  // every thread, before any branch
    const WarpSum warp_sum{};
    const unsigned lane = threadIdx.x % 32, warp_index = threadIdx.x / 32;
    v = warp_sum(warp, v);
    if (lane == 0) warp_totals[warp_index] = v;
    __syncthreads();
    if (warp_index == 0) v = warp_sum(warp, lane < blockDim.x / 32 ? warp_totals[lane] : T(0));
    return v;
}

// The sum of one 16-byte vector (4 ints, 4 floats or 16 bytes, read as an int4) in the accumulator type Acc.
template <class T, class Acc>
__device__ __forceinline__ Acc vector_sum(int4 v)
{
    if constexpr (std::is_same_v<T, std::uint8_t>) {
        // __dp4a(a, b, c) = c + the dot product of the four bytes of a and b: with b = 1,1,1,1 it adds the
        // four bytes of a word in one instruction. 16 bytes sum to at most 16 * 255, so 32 bits are plenty.
        constexpr unsigned ones = 0x01010101u;
        unsigned s = __dp4a(static_cast<unsigned>(v.x), ones, 0u);
        s = __dp4a(static_cast<unsigned>(v.y), ones, s);
        s = __dp4a(static_cast<unsigned>(v.z), ones, s);
        s = __dp4a(static_cast<unsigned>(v.w), ones, s);
        return static_cast<Acc>(s);
    } else if constexpr (std::is_same_v<T, float>) {
        return static_cast<Acc>(__int_as_float(v.x)) + static_cast<Acc>(__int_as_float(v.y)) +
               static_cast<Acc>(__int_as_float(v.z)) + static_cast<Acc>(__int_as_float(v.w));
    } else {
        static_assert(std::is_same_v<T, int>, "vector_sum: int, float or std::uint8_t");
        return static_cast<Acc>(v.x) + static_cast<Acc>(v.y) + static_cast<Acc>(v.z) + static_cast<Acc>(v.w);
    }
}

// The running total of accumulator type Acc in a one-pass launch's workspace (Task 04.6).
template <class Acc>
__device__ __forceinline__ Acc* running_total(OnePassState* state)
{
    if constexpr (std::is_same_v<Acc, long long>) return &state->running_int;
    else if constexpr (std::is_same_v<Acc, double>) return &state->running_double;
    else {
        static_assert(std::is_same_v<Acc, float>, "running_total: long long, double or float");
        return &state->running_float;
    }
}

}  // namespace
