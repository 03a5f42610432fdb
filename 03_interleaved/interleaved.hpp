// Chapter 03: interleaved addressing, then the tree moved into shared memory, where bank conflicts appear.
// Implemented by interleaved_launch.cu, which launches the kernels of starter/interleaved_student.cuh (yours)
// or solution/interleaved_student.cuh (-Dvariant picks).
//
// Every launcher sums n ints into the 64-bit *d_total: one thread per element, each block reduces its
// `block` elements to one sum, and thread 0 of the block adds it to *d_total with a 64-bit atomicAdd
// (add_block_sum, interleaved_given.cuh). The launcher itself sets *d_total to 0 first, so the caller need
// not; the kernels only add. No workspace: the atomics replace chapter 02's passes over the block sums.
//
// The launcher contract (CONTRIBUTING.md): arguments in the order inputs, outputs, n, block, stream; the
// memset and the launch go on `stream`, and the launcher returns without waiting: read *d_total after
// synchronizing that stream (a cudaMemcpy does for stream 0). Bad arguments throw std::invalid_argument
// before anything runs: block must be a power of two in [32, 1024]; the pointers must not be null (d_in may
// be null when n = 0). n = 0 launches nothing and leaves *d_total = 0.
//
// Exactness: the total is 64-bit; inside a block the partial sums are ints, exact when every |x| <=
// max_exact_abs_value (1024 * (2^21 - 1) < 2^31). The course's data, in [-1000, 1000], is far inside.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

constexpr int max_exact_abs_value = (1 << 21) - 1;

// Task 03.1: interleaved pairs in global memory, in place: the stride starts at blockDim/2 and halves,
// thread tid adds element tid + stride onto element tid when tid < stride.
// d_data is OVERWRITTEN (its contents afterwards are unspecified).
void reduce_interleaved(int* d_data, long long* d_total, std::size_t n, int block, cudaStream_t stream = 0);

// The shared-memory progression (reduce0, reduce1, reduce2 of Harris's slides "Optimizing Parallel Reduction in
// CUDA", as Zhang Wuju's tutorial gives them). d_in is left untouched; each block copies its elements into
// shared memory (zeros past n) and reduces them there.
// Task 03.2: neighbored pairs picked with tid % (2*s) == 0 (scattered busy lanes, a slow modulo).
void reduce_shared_modulo(const int* d_in, long long* d_total, std::size_t n, int block, cudaStream_t stream = 0);

// Task 03.3: thread tid works on word 2*s*tid: busy threads packed, but shared-memory bank conflicts.
void reduce_shared_strided(const int* d_in, long long* d_total, std::size_t n, int block, cudaStream_t stream = 0);

// Task 03.4: sequential addressing, thread tid < s adds word tid + s for s = blockDim/2, ..., 1: conflict-free.
void reduce_shared_sequential(const int* d_in, long long* d_total, std::size_t n, int block,
                              cudaStream_t stream = 0);
