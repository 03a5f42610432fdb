// Chapter 02's runner: the one program that links your neighbored_student.cuh (through neighbored_launch.cu).
// The checks (checks.cpp) send it calls and judge what comes back (course/runner.hpp).
//
// Both reductions (the progression's steps, by name) take the data (n ints, overwritten: the kernels work in
// place) as buffer 0 and the total as buffer 1, plus a NeighboredWorkspace that the runner keeps from one call to
// the next, one per max_n: the parameter "workspace" gives max_n (default: n). With the parameter
// "poison_block_sums" (a byte) the workspace's block sums are set to it before the call, so that a block sum the
// kernels never write reads as garbage.
#include "neighbored_progression.hpp"

#include "course/check.hpp"
#include "course/runner.hpp"

#include <string>

namespace {

using course::runner::Call;

NeighboredWorkspace& workspace_for(Call& c)
{
    const auto max_n = static_cast<std::size_t>(c.param("workspace", static_cast<long long>(c.n)));
    NeighboredWorkspace& workspace = c.keep<NeighboredWorkspace>("workspace " + std::to_string(max_n), max_n);
    if (c.has("poison_block_sums") && workspace.capacity() > 0) {
        CUDA_CHECK(cudaMemset(workspace.block_sums(), static_cast<int>(c.param("poison_block_sums")),
                              workspace.capacity() * sizeof(long long)));
        CUDA_CHECK(cudaDeviceSynchronize());  // done before the launcher's stream (maybe a non-blocking one) runs
    }
    return workspace;
}

void reduce(Call& c, NeighboredLauncher* launch)
{
    NeighboredWorkspace& workspace = workspace_for(c);
    launch(c.buffer<int>(0), c.buffer<long long>(1), c.n, c.block, workspace, c.stream());
}

// Host code only (a host operation: no CUDA at all), so its rejections are checked without a GPU too.
void block_sums_needed(Call& c)
{
    c.value("block_sums", static_cast<long long>(NeighboredWorkspace::block_sums_needed(c.n, c.block)));
}

}  // namespace

int main()
{
    return course::runner::serve({course::runner::ops_of(neighbored_progression, reduce),
                                  {{"NeighboredWorkspace::block_sums_needed", block_sums_needed, true}}});
}
