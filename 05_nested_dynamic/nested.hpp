// Chapter 05: the tutorial's nested (recursive) reduction rebuilt for dynamic parallelism on CUDA 12+ (CDP2), and a
// flat one-pass reduction to measure it against. The host API: checks, demo and bench are plain C++.
//
// The launchers follow the course's contract (CONTRIBUTING.md) without a `block` argument: the kernels fix
// their block size. They check their arguments, enqueue the top-level grid on `stream` and return; every
// other grid of the launch tree is launched by the GPU itself. The tree's state (level buffer, partial sums,
// status) lives in a NestedWorkspace the caller owns: two reductions that run at the same time need two.
//
// The student's functions (the bodies of the tree's grids, Tasks 05.1-05.3) are in <variant>/nested_student.cu;
// the launchers, the workspace, the pending-launch limit, the kernels and the final kernel are given in
// nested_launch.cu, the flat reduction in flat_reduce_launch.cu.
#pragma once

#include "course/device_buffer.hpp"

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

// Elements per segment. The top-level grid has one block per segment; each segment is halved level by level
// by a chain of device-side launches (ceil(log2 512) = 9 levels), so the recursion depth never exceeds 9.
constexpr unsigned nested_segment = 512;

// What the grids of a launch tree leave in global memory for the host. Each run zeroes all of it.
struct NestedStatus {
    int error;                    // cudaError_t of the first device-side launch that failed, 0 if none
    int finished;                 // 1 once the final kernel (sum of the segments' partial sums) has run
    unsigned long long launches;  // device-side launches that succeeded (counted by Task 05.3)
};

// A nested reduction that produced no trustworthy sum: a device-side launch failed (device_error() says
// which error), or the launch tree ended without running the final kernel (device_error() == cudaSuccess).
// device_launches(): how many device-side launches of the tree succeeded all the same.
class NestedLaunchError : public std::runtime_error {
public:
    NestedLaunchError(cudaError_t device_error, const std::string& message, std::uint64_t device_launches)
        : std::runtime_error(message), device_error_(device_error), device_launches_(device_launches) {}
    cudaError_t device_error() const noexcept { return device_error_; }
    std::uint64_t device_launches() const noexcept { return device_launches_; }

private:
    cudaError_t device_error_;
    std::uint64_t device_launches_;
};

// The largest n nested_reduce takes: its launch tree holds up to 1 + n/64 pending-launch slots
// (docs/05_nested_dynamic.md), 2^22 + 1 here. nested_reduce_strided needs 9 at any n and has no such bound.
constexpr std::size_t nested_max_n = std::size_t{1} << 28;

// The device memory of one nested reduction for inputs of up to max_n ints: the level buffer (nested_segment / 2
// 64-bit values per segment, 4 bytes per input element), one partial sum per segment, and the status.
// Allocated once and reused, so that a benchmark times the kernels and not cudaMalloc.
// Making one also raises the device-wide pending-launch limit to what a nested_reduce tree of max_n ints needs
// (for max_n > nested_max_n, only what nested_reduce_strided needs), and only ever raises it: a device-wide call
// that waits for the whole GPU, made here once, so that the launchers, which are stream-ordered, never make it.
class NestedWorkspace {
public:
    explicit NestedWorkspace(std::size_t max_n);

    std::size_t max_n() const { return max_n_; }

    // After synchronizing the stream of the last reduction made with this workspace: the number of device-side
    // launches it made. Throws NestedLaunchError when one of them failed or the tree ended without its final
    // kernel (then *d_total is not a sum), std::logic_error when no reduction was launched with it yet.
    std::uint64_t check() const;

    // Checks: fill the level buffer and the partial sums with `byte` (synchronous).
    void poison(unsigned char byte);

    // Checks: while on, every device-side launch asks for 2048 threads per block (the limit is 1024), so it
    // fails the way a real launch can; check() must then throw, never vouch for a sum.
    void force_launch_failure(bool on) { fail_launches_ = on; }

    // Checks: while on, every warp but the first of each block of every grid waits about 200 us before it
    // starts its part of the grid, so a grid that starts before the writes it reads are done reads them
    // missing (a lost barrier, a fire-and-forget launch where a tail launch was needed).
    void widen_race_windows(bool on) { widen_races_ = on; }

private:
    friend struct NestedLaunch;  // nested_launch.cu: the launchers fill and read the buffers
    enum class Launched { nothing, empty, tree };

    std::size_t max_n_;
    std::size_t pending_launches_;  // the pending-launch slots this workspace asked for
    course::DeviceBuffer<long long> work_;
    course::DeviceBuffer<long long> partials_;
    course::DeviceBuffer<NestedStatus> status_;
    Launched launched_ = Launched::nothing;
    bool fail_launches_ = false;
    bool widen_races_ = false;
};

// Task 05.1: the tutorial's structure - one chain of one-block grids per segment, n/64 device-side launches.
// *d_total = the sum of d_in[0..n) once `stream` has finished; then workspace.check(). Throws
// std::invalid_argument for a null pointer (d_in may be null when n = 0), n > workspace.max_n(), or a tree
// that needs more pending-launch slots than the workspace reserved (n > nested_max_n always does).
void nested_reduce(const int* d_in, long long* d_total, std::size_t n, NestedWorkspace& workspace,
                   cudaStream_t stream = 0);

// Task 05.2: the book's gpuRecursiveReduce2 - one grid per level for all segments, 9 device-side launches for any n.
// Same contract as nested_reduce, for any n up to workspace.max_n().
void nested_reduce_strided(const int* d_in, long long* d_total, std::size_t n, NestedWorkspace& workspace,
                           cudaStream_t stream = 0);

// Given: the flat one-pass reduction (grid-stride loop, warp shuffles, one atomic per block; no device-side
// launches). Zeroes *d_total and adds into it, asynchronously on `stream`.
void flat_reduce(const int* d_in, long long* d_total, std::size_t n, cudaStream_t stream = 0);
