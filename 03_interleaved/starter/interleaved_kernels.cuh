// Chapter 03: your file. It holds only the kernels; interleaved_launch.cu launches them (argument checks,
// grid size, shared-memory size, CUDA_CHECK_LAUNCH) and is given. Fill in the kernel bodies, TODO(03.1) to
// TODO(03.4); add_block_sum is given. `meson test -C build --suite 03_interleaved` checks each task. Read
// 03_interleaved/README.md first.
#pragma once

#include <cstddef>

namespace {

// atomicAdd has no signed 64-bit overload. Adding the two's-complement bit pattern as unsigned gives, after
// the wrap-around of unsigned addition, exactly the bit pattern of the signed sum: negative sums work too.
// ([[maybe_unused]] silences the compiler until your kernels call it.)
[[maybe_unused]] __device__ void add_block_sum(long long* total, int block_sum)
{
    atomicAdd(reinterpret_cast<unsigned long long*>(total),
              static_cast<unsigned long long>(static_cast<long long>(block_sum)));
}

// Interleaved pairs in global memory, in place (after chapter 02's kernels).
__global__ void reduce_interleaved_kernel(int* data, std::size_t n, long long* total)
{
    // TODO(03.1): block b reduces its segment data[b*blockDim.x ...] in place, then thread 0 calls
    // add_block_sum(total, <the segment's sum>).
    //   - levels: stride = blockDim.x / 2, then halving down to 1; thread tid adds element tid + stride onto
    //     element tid when tid < stride;
    //   - __syncthreads() after every level, reached by every thread that has not exited;
    //   - the last segment may be shorter than the block: a partner at or past n contributes nothing (think
    //     about which element it would have been added to, and why skipping it is right);
    //   - the segment's start as a size_t: (std::size_t)blockIdx.x * blockDim.x.
    (void)data;
    (void)n;
    (void)total;
}

// reduce0: the tree moves into shared memory.
__global__ void reduce_shared_modulo_kernel(const int* in, std::size_t n, long long* total)
{
    // TODO(03.2): the launcher gives each block blockDim.x ints of dynamic shared memory:
    //     extern __shared__ int partial[];
    //   - load: partial[tid] = in[i] for i = (std::size_t)blockIdx.x * blockDim.x + tid, or 0 when i >= n;
    //     then __syncthreads();
    //   - levels s = 1, 2, 4, ... < blockDim.x: if tid % (2 * s) == 0, partial[tid] += partial[tid + s];
    //     __syncthreads() after every level;
    //   - thread 0: add_block_sum(total, partial[0]).
    (void)in;
    (void)n;
    (void)total;
}

// reduce1: no modulo, busy threads packed into the first warps.
__global__ void reduce_shared_strided_kernel(const int* in, std::size_t n, long long* total)
{
    // TODO(03.3): as TODO(03.2), but at level s thread tid works on index = 2 * s * tid (when index <
    // blockDim.x): partial[index] += partial[index + s].
    (void)in;
    (void)n;
    (void)total;
}

// reduce2: sequential addressing.
__global__ void reduce_shared_sequential_kernel(const int* in, std::size_t n, long long* total)
{
    // TODO(03.4): as TODO(03.2), but levels s = blockDim.x / 2, then halving down to 1: if tid < s,
    // partial[tid] += partial[tid + s]. Work out with the README's bank table why this has no conflicts.
    (void)in;
    (void)n;
    (void)total;
}

}  // namespace
