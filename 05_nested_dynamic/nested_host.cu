// Chapter 05, given: the host side of the nested reductions, and the final kernel every launch tree ends with.
#include "nested_device.cuh"

#include "course/check.hpp"

#include <algorithm>
#include <climits>
#include <cstddef>
#include <string>

namespace {

// What the device runtime reserves when nobody asks for more (cudaLimitDevRuntimePendingLaunchCount).
constexpr std::size_t default_pending_launches = 2048;

std::size_t segments_for(std::size_t n) { return (n + nested_segment - 1) / nested_segment; }

// Device-side launches in the chain of one seed segment of len elements: one per level whose input still
// holds more than one value after the top-level fold (0 for len <= 2, 8 for a full segment of 512).
std::size_t seed_chain_launches(std::size_t len)
{
    std::size_t launches = 0;
    for (std::size_t keep = (len + 1) / 2; keep > 1; keep = (keep + 1) / 2) ++launches;
    return launches;
}

// The limit must be in place before the top-level launch; it is only ever raised, so a warm-up run pays
// for the reservation and timed runs do not.
void raise_pending_launch_limit(std::size_t needed)
{
    std::size_t current = 0;
    CUDA_CHECK(cudaDeviceGetLimit(&current, cudaLimitDevRuntimePendingLaunchCount));
    if (current < needed) CUDA_CHECK(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, needed));
}

}  // namespace

const char* to_string(NestedVariant variant)
{
    return variant == NestedVariant::seed ? "nested_reduce" : "nested_reduce_strided";
}

std::size_t pending_launches_needed(NestedVariant variant, std::size_t n)
{
    if (n == 0) return default_pending_launches;
    std::size_t launches = 1;  // sum_partials
    if (variant == NestedVariant::seed) {
        launches += n / nested_segment * seed_chain_launches(nested_segment) +
                    seed_chain_launches(n % nested_segment);
    } else {
        for (unsigned stride = nested_segment / 4; stride >= 1; stride /= 2) ++launches;  // one grid per level
    }
    return std::max(launches, default_pending_launches);
}

NestedReduction::NestedReduction(std::size_t max_n)
    : max_n_(max_n),
      work_(segments_for(max_n) * (nested_segment / 2)),
      partials_(segments_for(max_n)),
      status_(1)
{
}

void NestedReduction::enqueue(NestedVariant variant, const int* d_in, std::size_t n)
{
    if (n > max_n_)
        throw std::invalid_argument(std::string(to_string(variant)) + ": n = " + std::to_string(n) +
                                    " is more than this NestedReduction was made for (" + std::to_string(max_n_) + ")");
    if (n > 0 && d_in == nullptr) throw std::invalid_argument(std::string(to_string(variant)) + ": d_in is null");
    const std::size_t segments = segments_for(n);
    if (segments > static_cast<std::size_t>(INT_MAX))
        throw std::invalid_argument(std::string(to_string(variant)) + ": n = " + std::to_string(n) +
                                    " needs more blocks than a grid can have");
    enqueued_ = false;  // until this launch has been made
    enqueued_n_ = n;
    if (n > 0) launch(variant, d_in, n, static_cast<unsigned>(segments));
    enqueued_ = true;  // n = 0: nothing to launch; wait() returns 0
}

void NestedReduction::launch(NestedVariant variant, const int* d_in, std::size_t n, unsigned blocks)
{
    raise_pending_launch_limit(pending_launches_needed(variant, n));
    // Zero the error flag, the finished flag and the launch counter; `result` keeps its poison.
    CUDA_CHECK(cudaMemsetAsync(status_.data(), 0, offsetof(NestedStatus, result)));
    const NestedArgs args{d_in, n, blocks, work_.data(), partials_.data(), status_.data(), fail_launches_};
    if (variant == NestedVariant::seed)
        seed_top_level<<<blocks, nested_top_threads>>>(args);
    else
        strided_top_level<<<blocks, nested_top_threads>>>(args);
    CUDA_CHECK_LAUNCH();
}

NestedResult NestedReduction::wait()
{
    if (!enqueued_) throw std::logic_error("NestedReduction::wait() without enqueue()");
    enqueued_ = false;
    if (enqueued_n_ == 0) return {0, 0};

    // cudaMemcpy on the default stream waits for the top-level grid and, through the tail-launch rules, for
    // every grid launched from it.
    NestedStatus status{};
    status_.copy_to_host(&status, 1);
    if (status.error != 0) {
        const auto code = static_cast<cudaError_t>(status.error);
        throw NestedLaunchError(code, std::string("a device-side launch failed: ") + cudaGetErrorName(code) + " (" +
                                          cudaGetErrorString(code) + ")");
    }
    if (status.finished != 1)
        throw NestedLaunchError(cudaSuccess, "the launch tree ended without running sum_partials, so there is no sum");
    return {status.result, status.launches};
}

void NestedReduction::poison(unsigned char byte)
{
    work_.fill_bytes(byte);
    partials_.fill_bytes(byte);
    status_.fill_bytes(byte);
}

std::int64_t nested_reduce(const int* d_in, std::size_t n)
{
    NestedReduction reduction(n);
    reduction.enqueue(NestedVariant::seed, d_in, n);
    return reduction.wait().sum;
}

std::int64_t nested_reduce_strided(const int* d_in, std::size_t n)
{
    NestedReduction reduction(n);
    reduction.enqueue(NestedVariant::strided, d_in, n);
    return reduction.wait().sum;
}

// The final kernel of both variants: adds the segments' partial sums. Launched into the tail stream of a grid
// whose launch tree wrote them, so all of them are finished and visible.
__global__ void sum_partials(NestedArgs a)
{
    __shared__ long long warp_totals[sum_partials_threads / 32];
    long long sum = 0;
    for (unsigned s = threadIdx.x; s < a.segments; s += blockDim.x) sum += a.partials[s];
    sum = warp_sum(sum);
    const unsigned lane = threadIdx.x % 32;
    const unsigned warp = threadIdx.x / 32;
    if (lane == 0) warp_totals[warp] = sum;
    __syncthreads();
    if (warp != 0) return;
    sum = warp_sum(lane < blockDim.x / 32 ? warp_totals[lane] : 0);
    if (lane == 0) {
        a.status->result = sum;
        a.status->finished = 1;
    }
}
