// Chapter 06: the 256-bin histogram of a byte array - on the CPU, then on the GPU with atomics, step by step.
// Implemented by histogram_launch.cu (the launchers, one copy) with the kernels and histogram_cpu from
// starter/histogram_student.cuh (yours) or solution/histogram_student.cuh (the reference).
//
// Counter width: every bin is an unsigned 32-bit counter, so it holds at most 2^32 - 1 counts. Every function
// below therefore accepts n <= histogram_max_n = 2^32 - 1 bytes (then no bin can wrap, even if all bytes are
// equal) and throws std::invalid_argument for larger n.
//
// GPU launchers (CONTRIBUTING.md, "The launcher contract"): d_in and d_bins are device pointers; d_in may have
// any alignment. The launcher zeroes the 256 bins itself before it counts, so the caller never has to. Every
// memset and launch goes on `stream`, and the launcher returns without waiting: read d_bins after
// synchronizing that stream (a cudaMemcpy does for stream 0). Block sizes: a power of two in [32, 1024],
// anything else throws std::invalid_argument, as do null pointers (d_in may be null when n = 0). n = 0 launches
// no kernel (the bins are still zeroed).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

constexpr std::size_t histogram_bins = 256;
constexpr std::size_t histogram_max_n = 0xFFFFFFFFu;

// Task 06.1: the tutorial's CPU loop: bins[v] = how many of data[0, n) equal v.
void histogram_cpu(const std::uint8_t* data, unsigned* bins, std::size_t n);

// Task 06.2: the tutorial's first GPU version: one atomicAdd on the global bin per byte. Grid: 2 x the SM count.
void histogram_global_atomics(const std::uint8_t* d_in, unsigned* d_bins, std::size_t n, int block,
                              cudaStream_t stream = 0);

// Task 06.3: the tutorial's privatized version: each block counts into its own 256 bins in shared memory, then
// adds them to the global bins (256 global atomics per block). Grid: 2 x the SM count.
void histogram_shared_atomics(const std::uint8_t* d_in, unsigned* d_bins, std::size_t n, int block,
                              cudaStream_t stream = 0);

// Task 06.4: 32 sub-histograms per block, one per lane of a warp, laid out so that a warp's 32 updates always
// fall into 32 different shared-memory banks. Grid: as many blocks as fit on the GPU at once (occupancy API).
void histogram_sub_histograms(const std::uint8_t* d_in, unsigned* d_bins, std::size_t n, int block,
                              cudaStream_t stream = 0);

// Task 06.5: the chapter's fastest: 06.4 plus 16-byte loads (a scalar head up to the first 16-byte boundary, a
// uint4 body, a scalar tail) and one add of 16 for 16 equal bytes.
void histogram_vectorized(const std::uint8_t* d_in, unsigned* d_bins, std::size_t n, int block,
                          cudaStream_t stream = 0);
