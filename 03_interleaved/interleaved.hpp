// Chapter 03: interleaved addressing, then the tree moved into shared memory, where bank conflicts appear.
// Launched by interleaved_launch.cu; the kernels are in starter/interleaved_kernels.cuh (yours) and
// solution/interleaved_kernels.cuh.
//
// Every launcher sums n ints into the 64-bit *d_total: one thread per element, each block reduces its
// `block` elements to one sum, and thread 0 of the block adds it to *d_total with a 64-bit atomicAdd. The
// launcher itself sets *d_total to 0 first (cudaMemsetAsync), so the caller need not; the kernels only add.
// Asynchronous on the default stream, like a CUB call: read *d_total after synchronizing (a cudaMemcpy does).
//
// block: threads per block, a power of two in [32, 1024], else std::invalid_argument (also for null
// pointers). n = 0 launches nothing and leaves *d_total = 0.
//
// Exactness: the total is 64-bit; inside a block the partial sums are ints, exact when every |x| <=
// max_exact_abs_value (1024 * (2^21 - 1) < 2^31). The course's data, in [-1000, 1000], is far inside.
#pragma once

#include <cstddef>

constexpr int max_exact_abs_value = (1 << 21) - 1;

// TODO(03.1): interleaved pairs in global memory, in place: the stride starts at blockDim/2 and halves,
// thread tid adds element tid + stride onto element tid when tid < stride.
// OVERWRITES d_data (its contents afterwards are unspecified).
void reduce_interleaved(int* d_data, std::size_t n, int block, long long* d_total);

// The shared-memory progression (seed 002). d_in is left untouched; each block copies its elements into
// shared memory (zeros past n) and reduces them there.
// TODO(03.2): reduce0 - neighbored pairs picked with tid % (2*s) == 0 (divergent warps, slow modulo).
void reduce_shared_modulo(const int* d_in, std::size_t n, int block, long long* d_total);

// TODO(03.3): reduce1 - thread tid works on index 2*s*tid: no divergence, but shared-memory bank conflicts.
void reduce_shared_strided(const int* d_in, std::size_t n, int block, long long* d_total);

// TODO(03.4): reduce2 - sequential addressing, thread tid adds tid + s for s = blockDim/2, ..., 1:
// conflict-free.
void reduce_shared_sequential(const int* d_in, std::size_t n, int block, long long* d_total);
