// Chapter 05: the seed's nested (recursive) reduction, rebuilt for dynamic parallelism on CUDA 12+ (CDP2),
// and a flat one-pass reduction to measure it against. Host API only: checks, demo and bench are plain C++.
//
// The kernels are in <variant>/nested.cu (yours: TODO(05.1)-(05.3)); the host side that allocates the
// buffers, raises the pending-launch limit, launches the top-level grid and reads the result back is given in
// nested_host.cu, the flat reduction in flat_reduce.cu.
#pragma once

#include "course/device_buffer.hpp"

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

// Elements per segment. The top-level grid has one block per segment; each segment is halved level by level
// by a chain of device-side launches (ceil(log2 512) = 9 levels), so the recursion depth never exceeds 9.
constexpr unsigned nested_segment = 512;

enum class NestedVariant {
    seed,     // TODO(05.1): every segment's own chain of one-block grids (the seed's nestedReduce)
    strided,  // TODO(05.2): one grid per level for all segments, launched by one thread (the book's nestedReduce2)
};
const char* to_string(NestedVariant variant);  // "nested_reduce", "nested_reduce_strided"

// What the kernels leave in global memory; the host copies it back after the whole launch tree has finished.
// The counters come first: each run zeroes them, and leaves `result` as it was (poisoned by the checks).
struct NestedStatus {
    int error;                     // cudaError_t of the first device-side launch that failed, 0 if none
    int finished;                  // 1 once the final kernel (sum of the segments' partial sums) ran
    unsigned long long launches;   // device-side launches that succeeded (counted by TODO(05.3))
    long long result;              // the sum, written by the final kernel
};

struct NestedResult {
    std::int64_t sum;
    std::uint64_t device_launches;
};

// A nested reduction that produced no trustworthy sum: a device-side launch failed (device_error() says
// which error), or the launch tree ended without running the final kernel (device_error() == cudaSuccess).
class NestedLaunchError : public std::runtime_error {
public:
    NestedLaunchError(cudaError_t device_error, const std::string& message)
        : std::runtime_error(message), device_error_(device_error) {}
    cudaError_t device_error() const noexcept { return device_error_; }

private:
    cudaError_t device_error_;
};

// One nested reduction's global-memory state (level buffer, partial sums, status) for inputs of up to
// max_n ints, allocated once so that a benchmark times the kernels and not cudaMalloc.
class NestedReduction {
public:
    explicit NestedReduction(std::size_t max_n);

    // Launches the top-level grid on the default stream and returns without waiting. Raises the device
    // runtime's pending-launch limit first when the variant needs more than the 2048 it has by default.
    // Throws std::invalid_argument for n > max_n, or a null d_in with n > 0. n = 0 launches nothing.
    void enqueue(NestedVariant variant, const int* d_in, std::size_t n);

    // Waits for the whole launch tree and returns the sum and the number of device-side launches.
    // Throws NestedLaunchError instead of returning a sum it cannot vouch for.
    NestedResult wait();

    // Checks: fill the level buffer, the partial sums and the result with `byte`.
    void poison(unsigned char byte);

    // Checks: while on, every device-side launch asks for 2048 threads per block (the limit is 1024) and so
    // fails the way a real launch can; the result must then be a NestedLaunchError, never a sum.
    void force_launch_failure(bool on) { fail_launches_ = on; }

private:
    void launch(NestedVariant variant, const int* d_in, std::size_t n, unsigned blocks);

    std::size_t max_n_;
    course::DeviceBuffer<long long> work_;      // the level buffer: nested_segment / 2 values per segment
    course::DeviceBuffer<long long> partials_;  // one sum per segment
    course::DeviceBuffer<NestedStatus> status_;
    std::size_t enqueued_n_ = 0;
    bool enqueued_ = false;
    bool fail_launches_ = false;
};

// The pending-launch slots `variant` needs for n elements (at least the default 2048): a launch holds its
// slot from the moment it is made until the grid has finished, so the bound is every launch of the tree.
std::size_t pending_launches_needed(NestedVariant variant, std::size_t n);

// One-call forms (allocate, launch, wait, free): the demo and quick experiments.
std::int64_t nested_reduce(const int* d_in, std::size_t n);          // TODO(05.1)
std::int64_t nested_reduce_strided(const int* d_in, std::size_t n);  // TODO(05.2)

// Given: the flat one-pass reduction (grid-stride loop, warp shuffles, one atomicAdd per block; no device
// launches). enqueue_flat_reduce() zeroes *d_total and launches without waiting.
void enqueue_flat_reduce(const int* d_in, std::size_t n, long long* d_total);
std::int64_t flat_reduce(const int* d_in, std::size_t n);
