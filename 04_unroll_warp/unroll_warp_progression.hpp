// Chapter 04's progression: the int kernels in the order the README teaches them, read by the checks, the
// demo, the bench and tools/profile.sh (--kernel NAME, --list).
#pragma once

#include "unroll_warp.hpp"

#include "course/progression.hpp"

#include <cstddef>
#include <stdexcept>

// Every step's signature: the launchers', with a pointer to the workspace, which only the 04.6 kernel uses
// (the others may be given nullptr; the 04.6 step rejects it).
using IntReduce = void(const int* d_in, long long* d_total, std::size_t n, int block, UnrollWarpWorkspace* workspace,
                       cudaStream_t stream);

template <void (*Launch)(const int*, long long*, std::size_t, int, cudaStream_t)>
void without_workspace(const int* d_in, long long* d_total, std::size_t n, int block, UnrollWarpWorkspace*,
                       cudaStream_t stream)
{
    Launch(d_in, d_total, n, block, stream);
}

// A step that needs the workspace refuses a null one, before anything runs, as the launchers refuse bad
// arguments.
template <void (*Launch)(const int*, long long*, std::size_t, int, UnrollWarpWorkspace&, cudaStream_t)>
void with_workspace(const int* d_in, long long* d_total, std::size_t n, int block, UnrollWarpWorkspace* workspace,
                    cudaStream_t stream)
{
    if (workspace == nullptr)
        throw std::invalid_argument("this step of the progression needs an UnrollWarpWorkspace (workspace is nullptr)");
    Launch(d_in, d_total, n, block, *workspace, stream);
}

using UnrollWarpStep = course::Step<IntReduce>;

inline const UnrollWarpStep unroll_warp_progression[] = {
    {"04.1", "reduce_unrolling2", without_workspace<reduce_unrolling2>,
     "each thread adds 2 elements while loading: half the blocks, 2 loads in flight", course::large},
    {"04.1", "reduce_unrolling4", without_workspace<reduce_unrolling4>, "4 elements per thread while loading",
     course::large},
    {"04.1", "reduce_unrolling8", without_workspace<reduce_unrolling8>, "8 elements per thread while loading",
     course::large},
    {"04.2", "reduce_unroll_warp_syncwarp", without_workspace<reduce_unroll_warp_syncwarp>,
     "the last 6 tree steps in one warp, ordered by __syncwarp() instead of __syncthreads()", course::large},
    {"04.3", "reduce_complete_unroll", without_workspace<reduce_complete_unroll>,
     "the block size a template parameter: the tree becomes straight-line code", course::large},
    {"04.4", "reduce_grid_stride", without_workspace<reduce_grid_stride>,
     "a grid that just fills the GPU walks the array (64-bit grid-stride loop, 4 loads per iteration)", course::large},
    {"04.5", "reduce_shfl", without_workspace<reduce_shfl>, "warp sums in registers with __shfl_down_sync",
     course::large},
    {"04.5", "reduce_cg", without_workspace<reduce_cg>, "the same through cooperative_groups::reduce", course::large},
    {"04.5", "reduce_redux", without_workspace<reduce_redux>, "the same with __reduce_add_sync (sm_80+)",
     course::large},
    {"04.6", "reduce_vectorized", with_workspace<reduce_vectorized>,
     "16-byte loads at any alignment, one pass: the last block writes the total",
     course::large, "dram__throughput.avg.pct_of_peak_sustained_elapsed"},
};
