// Chapter 05, given device code: what every grid of a nested reduction receives, the kernels the student's
// functions run in, and two helpers. Included first by <variant>/nested_student.cu (Tasks 05.1-05.3), and by
// nested_launch.cu and flat_reduce_launch.cu.
#pragma once

#include "nested.hpp"

#include <cstddef>

// Passed by value to every grid of the launch tree. All state that outlives a grid is in global memory (work,
// partials, total, status): a child's writes never reach its parent, only grids that start later.
struct NestedArgs {
    const int* in;          // the input, n ints (read only)
    std::size_t n;
    unsigned segments;      // ceil(n / nested_segment): blocks of the top-level grid
    long long* work;        // the level buffer: nested_segment / 2 values per segment, segment s at s * 256
    long long* partials;    // partials[s]: the sum of segment s, written by the last level of its chain
    long long* total;       // the output: sum_partials writes the sum here
    NestedStatus* status;   // error flag, finished flag, launch counter
    bool fail_launches;     // test hook, see child_threads()
    bool widen_races;       // test hook, see the kernels below
};

// Threads per block of the top-level grids: each thread folds two elements while loading them.
constexpr unsigned nested_top_threads = nested_segment / 2;

// Threads per block of the final kernel.
constexpr unsigned sum_partials_threads = 1024;

// Threads per block for a device-side launch: write every <<<...>>> with it. With the checks' fault hook on
// (NestedWorkspace::force_launch_failure) it asks for 2048, over the limit of 1024, so the launch fails.
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

// Sum over a whole block of whole warps (every thread calls it); thread 0 gets the total.
__device__ inline long long block_sum(long long value)
{
    __shared__ long long warp_totals[32];
    value = warp_sum(value);
    const unsigned lane = threadIdx.x % 32;
    const unsigned warp = threadIdx.x / 32;
    if (lane == 0) warp_totals[warp] = value;
    __syncthreads();
    return warp == 0 ? warp_sum(lane < blockDim.x / 32 ? warp_totals[lane] : 0) : 0;
}

// The grids of the launch tree (defined in nested_launch.cu). Each of the first four runs the student's
// __device__ function of the same name without "_kernel" (Tasks 05.1 and 05.2) in every thread; launch these,
// with the arguments of that function. With the checks' race widening on (NestedWorkspace::widen_race_windows),
// every warp but the first of each block waits about 200 us before it starts, so that a grid which reads this
// grid's writes too early finds them missing.
__global__ void seed_top_level_kernel(NestedArgs a);
__global__ void seed_fold_kernel(NestedArgs a, long long* segment, unsigned len, unsigned segment_index);
__global__ void strided_top_level_kernel(NestedArgs a);
__global__ void strided_fold_kernel(NestedArgs a, unsigned stride);

// The final kernel of both variants. One block of sum_partials_threads adds partials[0 .. segments), writes
// *total and sets status->finished. Launch it into cudaStreamTailLaunch, so that it starts only after every
// segment's partial sum has been written.
__global__ void sum_partials(NestedArgs a);
