// Chapter 02 launchers, shared by both variants: the argument checks, the grid sizes and the passes.
// The kernels come from <variant>/neighbored_student.cuh (starter/ is yours, solution/ the reference);
// meson.build puts the -Dvariant folder on the include path.
#include "neighbored.hpp"

#include "course/check.hpp"
#include "course/launch.hpp"

#include <stdexcept>
#include <string>

#include "neighbored_student.cuh"

namespace {

template <class T>
using Pass = void (*)(T*, std::size_t, long long*);

// Pass 1 writes ceil(n/block) block sums into the workspace; each further pass reduces the previous pass's
// sums (in place) and appends its own after them; the pass that leaves a single sum writes it to d_total.
void reduce_in_passes(const char* launcher, Pass<int> first, Pass<long long> rest, int* d_data, long long* d_total,
                      std::size_t n, int block, NeighboredWorkspace& workspace, cudaStream_t stream)
{
    course::check_block(launcher, block);
    course::check_pointer(launcher, "d_data", d_data, n > 0);
    course::check_pointer(launcher, "d_total", d_total);
    if (n > workspace.max_n())
        throw std::invalid_argument(std::string(launcher) + ": n = " + std::to_string(n) +
                                    " is larger than the workspace's max_n = " + std::to_string(workspace.max_n()));
    if (n == 0) {  // no launch with 0 blocks: the sum of nothing is 0
        CUDA_CHECK(cudaMemsetAsync(d_total, 0, sizeof *d_total, stream));
        return;
    }
    std::size_t count = course::grid_for(launcher, n, block);
    long long* sums = count == 1 ? d_total : workspace.block_sums();
    first<<<static_cast<unsigned>(count), block, 0, stream>>>(d_data, n, sums);
    CUDA_CHECK_LAUNCH();
    while (count > 1) {
        const std::size_t next = course::grid_for(launcher, count, block);
        long long* next_sums = next == 1 ? d_total : sums + count;
        rest<<<static_cast<unsigned>(next), block, 0, stream>>>(sums, count, next_sums);
        CUDA_CHECK_LAUNCH();
        sums = next_sums;
        count = next;
    }
}

}  // namespace

std::size_t NeighboredWorkspace::block_sums_needed(std::size_t n, int block)
{
    course::check_block("NeighboredWorkspace", block);
    std::size_t needed = 0;
    for (std::size_t sums = course::ceil_div(n, block); sums > 1; sums = course::ceil_div(sums, block))
        needed += sums;
    return needed;
}

NeighboredWorkspace::NeighboredWorkspace(std::size_t max_n)
    : max_n_(max_n), block_sums_(block_sums_needed(max_n, 32))  // block 32 needs the most
{
}

void reduce_neighbored(int* d_data, long long* d_total, std::size_t n, int block, NeighboredWorkspace& workspace,
                       cudaStream_t stream)
{
    reduce_in_passes("reduce_neighbored", reduce_neighbored_kernel<int>, reduce_neighbored_kernel<long long>,
                     d_data, d_total, n, block, workspace, stream);
}

void reduce_neighbored_less(int* d_data, long long* d_total, std::size_t n, int block,
                            NeighboredWorkspace& workspace, cudaStream_t stream)
{
    reduce_in_passes("reduce_neighbored_less", reduce_neighbored_less_kernel<int>,
                     reduce_neighbored_less_kernel<long long>, d_data, d_total, n, block, workspace, stream);
}
