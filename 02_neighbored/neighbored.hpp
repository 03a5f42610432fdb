// Chapter 02: the first GPU reductions - neighbored pairs in global memory, in place, for any n >= 0.
// Implemented by neighbored_launch.cu, which launches the kernels of starter/neighbored_kernels.cuh (yours) or
// solution/neighbored_kernels.cuh (-Dvariant picks).
//
// How both launchers work:
//   pass 1   one thread per element; block b reduces its segment d_data[b*block, (b+1)*block) in place
//            (the last segment may be shorter) and writes the segment's sum to a 64-bit block sum;
//   pass 2+  the SAME kernel, on the 64-bit block sums, again and again until one value is left; the last
//            pass writes it to *d_total. Everything runs on the GPU: log_block(n) launches (n = 2^28 with
//            block = 256: 4 launches), no copy to the host and no host-side loop over the sums.
// Both are asynchronous on the default stream, like a CUB call; read *d_total after synchronizing (a
// cudaMemcpy does). A timing of a launcher therefore includes every pass.
//
// Exactness: the total and the block sums are 64-bit. Pass 1 adds ints in place, so every partial sum
// inside one block must fit in an int: guaranteed when |x| <= max_exact_abs_value for every element
// (1024 * (2^21 - 1) < 2^31). The course's data, in [-1000, 1000], is far inside.
#pragma once

#include <cstddef>

constexpr int max_exact_abs_value = (1 << 21) - 1;

// Number of long longs the launchers need in d_workspace for the block sums of all passes but the last
// (0 when n <= block). Throws std::invalid_argument for a bad block size, like the launchers.
std::size_t neighbored_workspace_count(std::size_t n, int block);

// TODO(02.1): the neighbored-pair tree - at stride s, thread tid adds element tid + s onto element tid when
// tid is a multiple of 2s.
// d_data: n ints, OVERWRITTEN (afterwards d_data[b*block] holds segment b's sum; the rest is unspecified).
// block: threads per block, a power of two in [32, 1024], else std::invalid_argument.
// d_workspace: neighbored_workspace_count(n, block) long longs (may be null when that is 0), overwritten.
// d_total: one long long in device memory; receives the sum (0 for n = 0).
void reduce_neighbored(int* d_data, std::size_t n, int block, long long* d_workspace, long long* d_total);

// TODO(02.2): the same tree with thread tid working on element 2*s*tid, so the busy threads are the first
// ones of the block and whole warps either work or idle. Same contract as reduce_neighbored.
void reduce_neighbored_less(int* d_data, std::size_t n, int block, long long* d_workspace, long long* d_total);
