// Chapter 04's progression: the int kernels in the order the README teaches them, read by the checks, the
// demo, the bench and tools/profile.sh (--kernel NAME, --list). Two tables, one per launcher signature: 04.6 alone
// keeps state between calls, in the caller's UnrollWarpWorkspace.
#pragma once

#include "unroll_warp.hpp"

#include "course/progression.hpp"

#include <cstddef>
#include <vector>

using IntReduce = void(const int* d_in, long long* d_total, std::size_t n, int block, cudaStream_t stream);
using IntReduceWithWorkspace = void(const int* d_in, long long* d_total, std::size_t n, int block,
                                    UnrollWarpWorkspace& workspace, cudaStream_t stream);

using UnrollWarpStep = course::Step<IntReduce>;
using UnrollWarpVectorizedStep = course::Step<IntReduceWithWorkspace>;

inline constexpr UnrollWarpStep unroll_warp_progression[] = {
    {"04.1", "reduce_unrolling2", reduce_unrolling2,
     "each thread adds 2 elements while loading: half the blocks, 2 loads in flight", course::large},
    {"04.1", "reduce_unrolling4", reduce_unrolling4, "4 elements per thread while loading", course::large},
    {"04.1", "reduce_unrolling8", reduce_unrolling8, "8 elements per thread while loading", course::large},
    {"04.2", "reduce_unroll_warp_syncwarp", reduce_unroll_warp_syncwarp,
     "the last 6 tree steps in one warp, ordered by __syncwarp() instead of __syncthreads()", course::large},
    {"04.3", "reduce_complete_unroll", reduce_complete_unroll,
     "the block size a template parameter: the tree becomes straight-line code", course::large},
    {"04.4", "reduce_grid_stride", reduce_grid_stride,
     "a grid that just fills the GPU walks the array (64-bit grid-stride loop, 4 loads per iteration)", course::large},
    {"04.5", "reduce_shfl", reduce_shfl, "warp sums in registers with __shfl_down_sync", course::large},
    {"04.5", "reduce_cg", reduce_cg, "the same through cooperative_groups::reduce", course::large},
    {"04.5", "reduce_redux", reduce_redux, "the same with __reduce_add_sync (sm_80+)", course::large},
};

inline constexpr UnrollWarpVectorizedStep unroll_warp_vectorized_progression[] = {
    {"04.6", "reduce_vectorized", reduce_vectorized,
     "16-byte loads at any alignment, one pass: the last block writes the total",
     course::large, "dram__throughput.avg.pct_of_peak_sustained_elapsed", course::timed},
};

// Every step of the chapter, both tables in order (ArgSpec::steps: what --kernel accepts, --list prints).
inline std::vector<course::StepFacts> unroll_warp_step_facts()
{
    return course::facts_of(unroll_warp_progression, unroll_warp_vectorized_progression);
}
