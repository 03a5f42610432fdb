// Chapter 05, device side: what every kernel of the nested reduction receives, and the given helpers.
// Included by <variant>/nested.cu (your kernels), nested_host.cu and flat_reduce.cu.
#pragma once

#include "nested.hpp"

#include <cstddef>

// Passed by value to every grid of the launch tree. All state that outlives a grid is in global memory
// (work, partials, status): a child's writes never reach its parent, only grids that start later.
struct NestedArgs {
    const int* in;          // the input, n ints (read only)
    std::size_t n;
    unsigned segments;      // ceil(n / nested_segment): blocks of the top-level grid
    long long* work;        // the level buffer: nested_segment / 2 values per segment, segment s at s * 256
    long long* partials;    // partials[s]: the sum of segment s, written by the last level of its chain
    NestedStatus* status;   // error flag, launch counter, final result
    bool fail_launches;     // test hook, see child_threads()
};

// Threads per block of the top-level grids: each thread folds two elements while loading them.
constexpr unsigned nested_top_threads = nested_segment / 2;

// Threads per block of the final kernel.
constexpr unsigned sum_partials_threads = 1024;

// Threads per block for a device-side launch. Use it in every <<<...>>> you write: with the checks' fault hook
// on (NestedReduction::force_launch_failure) it asks for 2048, over the limit of 1024, so the launch fails.
__device__ inline unsigned child_threads(const NestedArgs& a, unsigned wanted)
{
    return a.fail_launches ? 2048u : wanted;
}

// Sum over the 32 lanes of a full warp; lane 0 gets the total.
__device__ inline long long warp_sum(long long value)
{
    for (int offset = 16; offset > 0; offset /= 2) value += __shfl_down_sync(0xffffffffu, value, offset);
    return value;
}

// Top-level grids, launched by the host (nested_host.cu) with a.segments blocks of nested_top_threads.
__global__ void seed_top_level(NestedArgs a);     // TODO(05.1)
__global__ void strided_top_level(NestedArgs a);  // TODO(05.2)

// Given (nested_host.cu): the final kernel. One block of sum_partials_threads adds partials[0..segments), then
// writes status->result and sets status->finished. Launch it into cudaStreamTailLaunch, so that it starts only
// after every segment's chain has written its partial sum.
__global__ void sum_partials(NestedArgs a);
