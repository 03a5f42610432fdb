// Chapter 03's progression: its kernels in the order the README teaches them. Checks, demo, bench and
// tools/profile.sh read this one table (course/progression.hpp).
//
// All steps share one signature: the shared-memory launchers take `const int*` and leave the input alone,
// reduce_interleaved takes `int*` and overwrites it; the table calls the former through reads_only<>, so
// whoever iterates the table must treat every step as one that may overwrite its input.
#pragma once

#include "interleaved.hpp"

#include "course/progression.hpp"

using InterleavedLauncher = void(int* d_data, long long* d_total, std::size_t n, int block, cudaStream_t stream);
using InterleavedStep = course::Step<InterleavedLauncher>;

template <void (*Launch)(const int*, long long*, std::size_t, int, cudaStream_t)>
void reads_only(int* d_data, long long* d_total, std::size_t n, int block, cudaStream_t stream)
{
    Launch(d_data, d_total, n, block, stream);
}

// The lesson of 03.3 and 03.4: shared-memory bank conflicts of loads and stores.
inline constexpr const char* bank_conflicts =
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum";

inline constexpr InterleavedStep interleaved_progression[] = {
    {"03.1", "reduce_interleaved", reduce_interleaved,
     "interleaved pairs (partner blockDim/2, /4, ... away) in global memory, one atomicAdd per block", course::large},
    {"03.2", "reduce_shared_modulo", reads_only<reduce_shared_modulo>,
     "the tree in shared memory, neighbored pairs picked with tid % (2s) == 0 (Harris's reduce0)",
     course::large, "smsp__inst_executed.sum"},
    {"03.3", "reduce_shared_strided", reads_only<reduce_shared_strided>,
     "thread tid on word 2*s*tid: no modulo, busy threads packed, but bank conflicts (reduce1)",
     course::large, bank_conflicts},
    {"03.4", "reduce_shared_sequential", reads_only<reduce_shared_sequential>,
     "sequential addressing, tid < s adds word tid + s: no bank conflicts (reduce2)", course::large, bank_conflicts},
};
