// Chapter 02: your file. It holds only the two kernels; neighbored_launch.cu (given, do not edit) checks the
// arguments and launches them, pass after pass. Fill in the kernel bodies: TODO(02.1) reduce_neighbored_kernel
// and TODO(02.2) reduce_neighbored_less_kernel. `meson test -C build --suite 02_neighbored` checks each task.
// Read 02_neighbored/README.md first.
#pragma once

#include <cstddef>

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
    //   - the last segment may hold fewer than blockDim.x elements: never read at or past n (the seed's bug:
    //     it reads the partner unguarded). Guard the add: a partner past the end contributes nothing;
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

}  // namespace
