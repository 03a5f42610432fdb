// Chapter 02: the first GPU reductions - neighbored pairs in global memory, in place, for any n >= 0.
// Implemented by neighbored_launch.cu, which launches the kernels of starter/neighbored_student.cuh (yours) or
// solution/neighbored_student.cuh (-Dvariant picks).
//
// How both launchers work:
//   pass 1   one thread per element; block b reduces its segment d_data[b*block, (b+1)*block) in place
//            (the last segment may be shorter) and writes the segment's sum to a 64-bit block sum;
//   pass 2+  the SAME kernel, on the 64-bit block sums, again and again until one value is left; the last
//            pass writes it to *d_total. Everything runs on the GPU: log_block(n) launches (n = 2^28 with
//            block = 256: 4 launches), no copy to the host and no host-side loop over the sums.
// The block sums live in a NeighboredWorkspace that the caller creates once for the largest n and reuses.
//
// The launcher contract (CONTRIBUTING.md): arguments in the order inputs, outputs, n, block, workspace,
// stream; every launch and memset goes on `stream`, and the launcher returns without waiting: read *d_total
// after synchronizing that stream (a cudaMemcpy does for stream 0). Two launches that run at the same time
// need two workspaces. Bad arguments throw std::invalid_argument before anything runs.
//
// Exactness: the total and the block sums are 64-bit. Pass 1 adds ints in place, so every partial sum
// inside one block must fit in an int: guaranteed when |x| <= max_exact_abs_value for every element
// (1024 * (2^21 - 1) < 2^31). The course's data, in [-1000, 1000], is far inside.
#pragma once

#include "course/device_buffer.hpp"

#include <cuda_runtime.h>

#include <cstddef>

constexpr int max_exact_abs_value = (1 << 21) - 1;

// The 64-bit block sums of every pass but the last, for any n <= max_n and any block size the launchers
// accept (sized for the smallest block, 32, which needs the most). Owns its device memory; create it once,
// outside timed code (it calls cudaMalloc), and reuse it. NeighboredWorkspace(0) allocates nothing.
class NeighboredWorkspace {
public:
    explicit NeighboredWorkspace(std::size_t max_n);

    std::size_t max_n() const noexcept { return max_n_; }
    long long* block_sums() noexcept { return block_sums_.data(); }
    std::size_t capacity() const noexcept { return block_sums_.size(); }

    // How many block sums the passes over n elements need with this block size (0 when n <= block).
    // Throws std::invalid_argument for a bad block size, like the launchers.
    static std::size_t block_sums_needed(std::size_t n, int block);

private:
    std::size_t max_n_;
    course::DeviceBuffer<long long> block_sums_;
};

// Task 02.1: the neighbored-pair tree - at stride s, thread tid adds element tid + s onto element tid when
// tid is a multiple of 2s.
// d_data: n ints in device memory, OVERWRITTEN (afterwards d_data[b*block] holds segment b's sum; the rest is
// unspecified); may be null when n = 0.
// d_total: one long long in device memory; receives the sum (0 for n = 0).
// block: threads per block, a power of two in [32, 1024], else std::invalid_argument.
// workspace: created for a max_n >= n, else std::invalid_argument; its block sums are overwritten.
void reduce_neighbored(int* d_data, long long* d_total, std::size_t n, int block, NeighboredWorkspace& workspace,
                       cudaStream_t stream = 0);

// Task 02.2: the same tree with thread tid working on element 2*s*tid, so the busy threads are the first
// ones of the block and whole warps either work or idle. Same contract as reduce_neighbored.
void reduce_neighbored_less(int* d_data, long long* d_total, std::size_t n, int block,
                            NeighboredWorkspace& workspace, cudaStream_t stream = 0);
