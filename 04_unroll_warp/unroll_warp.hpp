// Chapter 04: the reduction progression, from "load more per thread" to a kernel as fast as CUB.
// Implemented by unroll_warp_launch.cu, with the kernels of starter/unroll_warp_kernels.cuh (yours) or
// solution/unroll_warp_kernels.cuh.
//
// Every launcher sums d_in[0..n) and writes the total to *d_total, ONE value in device memory. It is
// asynchronous on the default stream, like a CUB call: read *d_total after synchronizing (a cudaMemcpy does).
// The input is never modified. `block` (threads per block) must be a power of two in [32, 1024]; any other
// value, a null d_total, a null d_in with n > 0 or a d_in not aligned to its element type throws
// std::invalid_argument before anything is launched. n = 0 writes 0. Totals are 64-bit: any int input whose
// exact sum fits in a long long is summed exactly.
//
// The tasks build on each other (04.2 reuses 04.1's loads, 04.4 reuses 04.3's tree, ...): do them in order.
#pragma once

#include <cstddef>
#include <cstdint>

// TODO(04.1): each block adds 2, 4 or 8 neighbouring data blocks while loading (n / (2, 4, 8 x block)
// blocks), then the shared-memory tree of chapter 03 and one atomicAdd per block.
void reduce_unrolling2(const int* d_in, std::size_t n, long long* d_total, int block);
void reduce_unrolling4(const int* d_in, std::size_t n, long long* d_total, int block);
void reduce_unrolling8(const int* d_in, std::size_t n, long long* d_total, int block);

// TODO(04.2): unrolling8 whose last 6 tree steps run in one warp, ordered by __syncwarp() instead of
// __syncthreads(). (The seed's volatile version is NOT here: it is undefined behaviour on Volta and newer;
// see unroll_warp_race_demo.)
void reduce_unroll_warp_syncwarp(const int* d_in, std::size_t n, long long* d_total, int block);

// TODO(04.3): the same with the block size a template parameter, so the whole tree is unrolled at compile
// time; the run-time block picks the instance (32, 64, ..., 1024).
void reduce_complete_unroll(const int* d_in, std::size_t n, long long* d_total, int block);

// TODO(04.4): many elements per thread: a grid of (SM count x resident blocks per SM) blocks walks the array
// with a 64-bit grid-stride loop; the block tree is 04.3's.
void reduce_grid_stride(const int* d_in, std::size_t n, long long* d_total, int block);

// TODO(04.5): 04.4's loads with the block tree replaced by warp-level sums in registers:
// __shfl_down_sync, cooperative_groups::reduce, and __reduce_add_sync (sm_80+; shuffles below sm_80).
void reduce_shfl(const int* d_in, std::size_t n, long long* d_total, int block);
void reduce_cg(const int* d_in, std::size_t n, long long* d_total, int block);
void reduce_redux(const int* d_in, std::size_t n, long long* d_total, int block);

// TODO(04.6): the best kernel: 16-byte vector loads (any pointer alignment: scalar head, vector body, scalar
// tail), four loads in flight per thread, one pass in which the last block to finish publishes the total.
// Launches of these kernels must not overlap each other (they share one running total in device memory).
void reduce_vectorized(const int* d_in, std::size_t n, long long* d_total, int block);
// Floats with float4 loads. Double accumulation (the checked, recommended one: error <= n * 2^-53 * sum|x|)
// or float accumulation (one float per thread and per block: the order of the blocks' atomics shows in the
// result). The output type picks which.
void reduce_vectorized_float(const float* d_in, std::size_t n, double* d_total, int block);
void reduce_vectorized_float(const float* d_in, std::size_t n, float* d_total, int block);
// Bytes (e.g. n > 2^31 of them), 16 per load, summed exactly in 64 bits.
void reduce_vectorized_bytes(const std::uint8_t* d_in, std::size_t n, long long* d_total, int block);
