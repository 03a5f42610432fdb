// Chapter 02: your file. Fill in the kernel bodies (TODO(02.1), TODO(02.2)); the launchers below are
// given. `meson test -C build --suite 02_neighbored` checks each task. Read 02_neighbored/README.md first.
#include "neighbored.hpp"

#include "course/check.hpp"

#include <climits>
#include <stdexcept>
#include <string>

namespace {

// The seed's reduceNeighbored, to be made correct for any n >= 0.
template <class T>
__global__ void reduce_neighbored_kernel(T* data, std::size_t n, long long* block_sums)
{
    // TODO(02.1): block b reduces its segment data[b*blockDim.x ...] in place; thread 0 then writes the
    // segment's sum to block_sums[blockIdx.x].
    //   - levels: stride = 1, 2, 4, ... < blockDim.x; at each level thread tid adds element tid + stride onto
    //     element tid when tid % (2 * stride) == 0;
    //   - __syncthreads() after every level, reached by ALL threads of the block (not inside the if);
    //   - the last segment may hold fewer than blockDim.x elements: never read at or past n. Do NOT return
    //     early like the seed; guard the add instead (a partner past the end contributes nothing);
    //   - compute the segment's start as a size_t: (std::size_t)blockIdx.x * blockDim.x;
    //   - T is int in the first pass and long long in the passes over the block sums: write it once for any T.
    (void)data;
    (void)n;
    (void)block_sums;
}

// Over reduce_neighbored: the busy threads should be the first threads of the block.
template <class T>
__global__ void reduce_neighbored_less_kernel(T* data, std::size_t n, long long* block_sums)
{
    // TODO(02.2): the same tree and the same contract as TODO(02.1), but at each level thread tid works on
    // element index = 2 * stride * tid (when that element and its partner index + stride exist), so that
    // the busy threads are threads 0, 1, 2, ... and whole warps have nothing to do.
    (void)data;
    (void)n;
    (void)block_sums;
}

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
