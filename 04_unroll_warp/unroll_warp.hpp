// Chapter 04: the reduction progression, from "load more per thread" to a kernel as fast as CUB.
// Implemented by unroll_warp_launch.cu, with the device functions of starter/unroll_warp_student.cuh (yours)
// or solution/unroll_warp_student.cuh.
//
// Every launcher follows the course's contract (CONTRIBUTING.md): it sums d_in[0..n) into *d_total, ONE value
// in device memory, asynchronously on `stream` (every memset and launch goes there): read *d_total after
// synchronizing that stream (a cudaMemcpy does for stream 0). The input is never modified. `block` (threads
// per block) must be a power of two in [32, 1024]; any other value, a null d_total, a null d_in with n > 0 or
// a d_in not aligned to its element type throws std::invalid_argument before anything is launched. n = 0
// writes 0. Totals are 64-bit: any int input whose exact sum fits in a long long is summed exactly.
//
// The tasks build on each other (04.2 loads with 04.1's function, 04.4 reduces with 04.3's tree, ...): do
// them in order. The checks of a task first check the earlier functions it uses and name the one that fails.
#pragma once

#include "course/device_buffer.hpp"

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

// Task 04.1: each block adds 2, 4 or 8 neighbouring data blocks while loading (n / (2, 4, 8 x block) blocks),
// then the shared-memory tree of chapter 03 and one atomicAdd per block into *d_total, zeroed first.
void reduce_unrolling2(const int* d_in, long long* d_total, std::size_t n, int block, cudaStream_t stream = 0);
void reduce_unrolling4(const int* d_in, long long* d_total, std::size_t n, int block, cudaStream_t stream = 0);
void reduce_unrolling8(const int* d_in, long long* d_total, std::size_t n, int block, cudaStream_t stream = 0);

// Task 04.2: unrolling8 whose last 6 tree steps run in one warp, ordered by __syncwarp() instead of
// __syncthreads(). (The tutorial's volatile version is not here: it is undefined behaviour on Volta and newer;
// see unroll_warp_race_demo.)
void reduce_unroll_warp_syncwarp(const int* d_in, long long* d_total, std::size_t n, int block,
                                 cudaStream_t stream = 0);

// Task 04.3: the same with the block size a template parameter, so the whole tree is unrolled at compile time;
// the run-time block picks the instance (32, 64, ..., 1024).
void reduce_complete_unroll(const int* d_in, long long* d_total, std::size_t n, int block, cudaStream_t stream = 0);

// Task 04.4: many elements per thread: a grid of (SM count x resident blocks per SM) blocks walks the array
// with a 64-bit grid-stride loop; the block tree is 04.3's.
void reduce_grid_stride(const int* d_in, long long* d_total, std::size_t n, int block, cudaStream_t stream = 0);

// Task 04.5: 04.4's loads with the block tree replaced by warp-level sums in registers: __shfl_down_sync,
// cooperative_groups::reduce, and __reduce_add_sync (sm_80+; shuffles below sm_80).
void reduce_shfl(const int* d_in, long long* d_total, std::size_t n, int block, cudaStream_t stream = 0);
void reduce_cg(const int* d_in, long long* d_total, std::size_t n, int block, cudaStream_t stream = 0);
void reduce_redux(const int* d_in, long long* d_total, std::size_t n, int block, cudaStream_t stream = 0);

// Task 04.6 keeps its state between the blocks of one launch here: a counter of the blocks that have added
// their total, and a running total per accumulator type. All zero between launches: the last block of every
// launch resets what it used.
struct OnePassState {
    unsigned blocks_done;
    float running_float;
    long long running_int;
    double running_double;
};

// The caller-owned workspace of the one-pass kernels (Task 04.6), as CUB's temporary storage: create one,
// reuse it for every launch and any n. Launches that may run at the same time (on two streams, from two host
// threads) need one workspace each; launches one after the other on one stream can share one.
class UnrollWarpWorkspace {
public:
    UnrollWarpWorkspace();  // allocates the state and zeroes it (returns when it is zero)
    OnePassState* state() { return state_.data(); }

private:
    course::DeviceBuffer<OnePassState> state_;
};

// Task 04.6: the best kernel: 16-byte vector loads (any pointer alignment: scalar head, vector body, scalar
// tail), four loads in flight per thread, one pass in which the last block to finish writes the total (no
// memset before the kernel).
void reduce_vectorized(const int* d_in, long long* d_total, std::size_t n, int block, UnrollWarpWorkspace& workspace,
                       cudaStream_t stream = 0);
// Floats with float4 loads. Double accumulation (the checked, recommended one: error <= n * 2^-53 * sum|x|)
// or float accumulation (one float per thread and per block: the order of the blocks' atomics shows in the
// result). The output type picks which.
void reduce_vectorized_float(const float* d_in, double* d_total, std::size_t n, int block,
                             UnrollWarpWorkspace& workspace, cudaStream_t stream = 0);
void reduce_vectorized_float(const float* d_in, float* d_total, std::size_t n, int block,
                             UnrollWarpWorkspace& workspace, cudaStream_t stream = 0);
// Bytes (e.g. n > 2^31 of them), 16 per load, summed exactly in 64 bits.
void reduce_vectorized_bytes(const std::uint8_t* d_in, long long* d_total, std::size_t n, int block,
                             UnrollWarpWorkspace& workspace, cudaStream_t stream = 0);

// Task 04.7, by hand (no GPU needed): occupancy, the share of an SM's threads that a kernel's blocks fill. One SM
// of an H100 (compute capability 9.0) holds at most 2048 threads, 32 blocks, 65536 32-bit registers and
// 228 KiB of shared memory, and each block takes 1 KiB of shared memory more than it asks for (reserved by the
// system). Registers are counted as the kernel uses them (the counts below are multiples of 8, so the hardware's
// rounding changes nothing). For each kernel of this table: how many of its blocks one SM holds at once, how
// many warps that is, and the one resource that stops it there.
struct OccupancyKernel {
    char name;
    int threads_per_block;
    int registers_per_thread;
    int shared_kib_per_block;  // static shared memory the kernel asks for, in KiB
};
inline constexpr OccupancyKernel occupancy_kernels[] = {
    {'a', 256, 48, 0}, {'b', 128, 16, 45}, {'c', 32, 16, 0}, {'d', 512, 16, 8}, {'e', 256, 56, 36},
};
inline constexpr int occupancy_kernel_count = sizeof occupancy_kernels / sizeof occupancy_kernels[0];
enum class Limit { unanswered, threads, blocks, registers, shared_memory };
struct OccupancyAnswer {
    int blocks_per_sm;
    int warps_per_sm;
    Limit limited_by;
};
// Your answers (occupancy_answers in your file), one per kernel of the table, in its order.
const OccupancyAnswer* occupancy_answers();

// Probes, for the checks: one of your device functions at a time, inside given code that uses no other task's
// function (loads of one element per thread, the chapter-03 tree). A task whose kernel calls an earlier task's
// function first runs that function's probe, so that a failure names the task it comes from ("depends on
// Task 04.2, which fails"). Same contract as the launchers.
// Task 04.2's last_warp_sum, after the given loads and the given tree down to 64 values.
void probe_last_warp_sum(const int* d_in, long long* d_total, std::size_t n, int block, cudaStream_t stream = 0);
// Task 04.3's tree_sum_complete_unroll (which calls last_warp_sum), after the given loads.
void probe_tree_sum_complete_unroll(const int* d_in, long long* d_total, std::size_t n, int block,
                                    cudaStream_t stream = 0);
// Task 04.4's thread_sum_grid_stride, then the given tree.
void probe_thread_sum_grid_stride(const int* d_in, long long* d_total, std::size_t n, int block,
                                  cudaStream_t stream = 0);
// Task 04.5's ShflWarpSum in the given block_sum, after the given loads.
void probe_shfl_warp_sum(const int* d_in, long long* d_total, std::size_t n, int block, cudaStream_t stream = 0);
