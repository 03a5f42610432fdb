// Chapter 03's progression: its kernels in the order the README teaches them. Checks, demo, bench and
// tools/profile.sh read it (course/progression.hpp). Two tables, one per launcher signature: reduce_interleaved
// works in place in global memory (`int*`, overwritten), the shared-memory trees leave their input alone
// (`const int*`); whoever runs both must give each run a fresh copy of the input.
#pragma once

#include "interleaved.hpp"

#include "course/progression.hpp"

#include <cstddef>
#include <vector>

using InPlaceReduce = void(int* d_data, long long* d_total, std::size_t n, int block, cudaStream_t stream);
using SharedReduce = void(const int* d_in, long long* d_total, std::size_t n, int block, cudaStream_t stream);

using InterleavedGlobalStep = course::Step<InPlaceReduce>;
using InterleavedSharedStep = course::Step<SharedReduce>;

// The lesson of 03.3 and 03.4: shared-memory bank conflicts of loads and stores.
inline constexpr const char* bank_conflicts =
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum";

inline constexpr InterleavedGlobalStep interleaved_global_progression[] = {
    {"03.1", "reduce_interleaved", reduce_interleaved,
     "interleaved pairs (partner blockDim/2, /4, ... away) in global memory, one atomicAdd per block", course::large},
};

inline constexpr InterleavedSharedStep interleaved_shared_progression[] = {
    {"03.2", "reduce_shared_modulo", reduce_shared_modulo,
     "the tree in shared memory, neighbored pairs picked with tid % (2s) == 0 (Harris's reduce0)",
     course::large, "smsp__inst_executed.sum"},
    {"03.3", "reduce_shared_strided", reduce_shared_strided,
     "thread tid on word 2*s*tid: no modulo, busy threads packed, but bank conflicts (reduce1)",
     course::large, bank_conflicts},
    {"03.4", "reduce_shared_sequential", reduce_shared_sequential,
     "sequential addressing, tid < s adds word tid + s: no bank conflicts (reduce2)", course::large, bank_conflicts,
     course::timed},
};

// Every step of the chapter, both tables in order (ArgSpec::steps: what --kernel accepts, --list prints).
inline std::vector<course::StepFacts> interleaved_step_facts()
{
    return course::facts_of(interleaved_global_progression, interleaved_shared_progression);
}
