// Chapter 02's progression: its kernels in the order the README teaches them. Checks, demo, bench and
// tools/profile.sh read this one table (course/progression.hpp).
#pragma once

#include "neighbored.hpp"

#include "course/progression.hpp"

using NeighboredLauncher = void(int* d_data, long long* d_total, std::size_t n, int block,
                                NeighboredWorkspace& workspace, cudaStream_t stream);
using NeighboredStep = course::Step<NeighboredLauncher>;

inline constexpr NeighboredStep neighbored_progression[] = {
    {"02.1", "reduce_neighbored", reduce_neighbored,
     "the tutorial's tree in global memory: thread tid adds element tid + s when tid % (2s) == 0", course::large},
    {"02.2", "reduce_neighbored_less", reduce_neighbored_less,
     "thread tid works on element 2*s*tid: the busy threads fill whole warps, the other warps skip the level",
     course::large, "smsp__sass_branch_targets_threads_divergent.sum", course::timed},
};
