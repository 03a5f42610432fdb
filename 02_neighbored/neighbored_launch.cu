// Chapter 02 launchers, shared by both variants: the argument checks, the grid sizes and the passes.
// The kernels come from <variant>/neighbored_kernels.cuh (starter/ is yours, solution/ the reference);
// meson.build puts the -Dvariant folder on the include path.
#include "neighbored.hpp"

#include "course/check.hpp"

#include <climits>
#include <stdexcept>
#include <string>

#include "neighbored_kernels.cuh"

namespace {

template <class T>
using Pass = void (*)(T*, std::size_t, long long*);

std::size_t blocks_for(std::size_t n, int block) { return (n + static_cast<std::size_t>(block) - 1) / block; }

void check_block(const char* name, int block)
{
    if (block < 32 || block > 1024 || (block & (block - 1)) != 0)
        throw std::invalid_argument(std::string(name) + ": block must be a power of two in [32, 1024], got " +
                                    std::to_string(block));
}

std::size_t workspace_count(const char* name, std::size_t n, int block)
{
    check_block(name, block);
    if (blocks_for(n, block) > static_cast<std::size_t>(INT_MAX))
        throw std::invalid_argument(std::string(name) + ": n = " + std::to_string(n) +
                                    " needs more blocks than one grid can have");
    std::size_t count = 0;
    for (std::size_t sums = blocks_for(n, block); sums > 1; sums = blocks_for(sums, block)) count += sums;
    return count;
}

// Pass 1 writes ceil(n/block) block sums into the workspace; each further pass reduces the previous pass's
// sums (in place) and appends its own after them; the pass that leaves a single sum writes it to d_total.
void reduce_in_passes(const char* name, Pass<int> first, Pass<long long> rest, int* d_data, std::size_t n,
                      int block, long long* d_workspace, long long* d_total)
{
    const std::size_t workspace = workspace_count(name, n, block);
    if (!d_total || (n > 0 && !d_data) || (workspace > 0 && !d_workspace))
        throw std::invalid_argument(std::string(name) + ": null device pointer");
    if (n == 0) {  // no launch with 0 blocks: the sum of nothing is 0
        CUDA_CHECK(cudaMemsetAsync(d_total, 0, sizeof *d_total));
        return;
    }
    std::size_t count = blocks_for(n, block);
    long long* sums = count == 1 ? d_total : d_workspace;
    first<<<static_cast<unsigned>(count), block>>>(d_data, n, sums);
    CUDA_CHECK_LAUNCH();
    while (count > 1) {
        const std::size_t next = blocks_for(count, block);
        long long* next_sums = next == 1 ? d_total : sums + count;
        rest<<<static_cast<unsigned>(next), block>>>(sums, count, next_sums);
        CUDA_CHECK_LAUNCH();
        sums = next_sums;
        count = next;
    }
}

}  // namespace

std::size_t neighbored_workspace_count(std::size_t n, int block)
{
    return workspace_count("neighbored_workspace_count", n, block);
}

void reduce_neighbored(int* d_data, std::size_t n, int block, long long* d_workspace, long long* d_total)
{
    reduce_in_passes("reduce_neighbored", reduce_neighbored_kernel<int>, reduce_neighbored_kernel<long long>,
                     d_data, n, block, d_workspace, d_total);
}

void reduce_neighbored_less(int* d_data, std::size_t n, int block, long long* d_workspace, long long* d_total)
{
    reduce_in_passes("reduce_neighbored_less", reduce_neighbored_less_kernel<int>,
                     reduce_neighbored_less_kernel<long long>, d_data, n, block, d_workspace, d_total);
}
