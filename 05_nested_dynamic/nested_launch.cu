// Chapter 05, given: the launchers, the workspace, the kernels the student's functions run in, and the final
// kernel every launch tree ends with.
#include "nested_given.cuh"

#include "course/check.hpp"
#include "course/launch.hpp"

#include <algorithm>
#include <string>

// The student's functions (<variant>/nested_student.cu): the bodies of the grids of Tasks 05.1 and 05.2.
__device__ void seed_top_level(const NestedArgs& a);
__device__ void seed_fold(const NestedArgs& a, long long* segment, unsigned len, unsigned segment_index);
__device__ void strided_top_level(const NestedArgs& a);
__device__ void strided_fold(const NestedArgs& a, unsigned stride);

namespace {

// What the device runtime reserves when nobody asks for more (cudaLimitDevRuntimePendingLaunchCount).
constexpr std::size_t default_pending_launches = 2048;

// How long the checks' race widening holds back every warp but the first: far longer than a device-side launch
// takes to start its grid (microseconds), so a grid launched without the ordering it needs starts first.
constexpr unsigned long long race_window_ns = 200 * 1000;

__device__ unsigned long long global_ns()
{
    unsigned long long ns;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(ns));
    return ns;
}

// The checks' race widening (NestedWorkspace::widen_race_windows): warp 0 of each block runs at once, the
// others wait first. A block's launching thread is normally in warp 0, so whatever it launches starts while the
// other warps have not written yet; a barrier or a tail launch makes the launch wait for them, as it must.
__device__ void widen_race_window(const NestedArgs& a)
{
    if (!a.widen_races || threadIdx.x < 32) return;
    const unsigned long long start = global_ns();
    while (global_ns() - start < race_window_ns) __nanosleep(1000);
}

// Device-side launches in the chain of one nested_reduce segment of len elements: one per level whose input still holds
// more than one value after the top-level fold (0 for len <= 2, 8 for a full segment of 512).
std::size_t seed_chain_launches(std::size_t len)
{
    std::size_t launches = 0;
    for (std::size_t keep = (len + 1) / 2; keep > 1; keep = (keep + 1) / 2) ++launches;
    return launches;
}

// Every launch of the tree holds a pending-launch slot from the moment it is made until its grid starts (a tail
// launch at least until its parent has finished), so the tree's whole launch count is a safe bound.
std::size_t seed_pending_launches(std::size_t n)
{
    return 1 + n / nested_segment * seed_chain_launches(nested_segment) + seed_chain_launches(n % nested_segment);
}
std::size_t strided_pending_launches() { return 8 + 1; }  // strides 128, 64, ..., 1, then sum_partials

// The limit must be in place before the top-level launch. It is only ever raised, by the workspace when it is
// made: a device-wide call that waits for the whole GPU, which a stream-ordered launcher must not make.
void raise_pending_launch_limit(std::size_t needed)
{
    needed = std::max(needed, default_pending_launches);
    std::size_t current = 0;
    CUDA_CHECK(cudaDeviceGetLimit(&current, cudaLimitDevRuntimePendingLaunchCount));
    if (current < needed) CUDA_CHECK(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, needed));
}

}  // namespace

// The launchers' access to the workspace (a friend of NestedWorkspace).
struct NestedLaunch {
    // Checks the arguments, the tree's pending launches against the workspace's reservation included; for
    // n = 0 writes *d_total = 0 and returns false (nothing to launch). Otherwise zeroes the status on `stream`
    // and returns true with `args` filled in.
    static bool prepare(const char* launcher, const int* d_in, long long* d_total, std::size_t n,
                        NestedWorkspace& ws, std::size_t pending_launches, cudaStream_t stream, NestedArgs& args)
    {
        course::check_pointer(launcher, "d_in", d_in, n > 0);
        course::check_pointer(launcher, "d_total", d_total);
        if (n > ws.max_n_)
            throw std::invalid_argument(std::string(launcher) + ": n = " + std::to_string(n) +
                                        " is more than the workspace was made for (" + std::to_string(ws.max_n_) + ")");
        if (pending_launches > ws.pending_launches_)
            throw std::invalid_argument(std::string(launcher) + ": n = " + std::to_string(n) + " needs " +
                                        std::to_string(pending_launches) + " pending-launch slots, more than the " +
                                        "workspace reserved (" + std::to_string(ws.pending_launches_) +
                                        "; nested_reduce takes at most nested_max_n = " + std::to_string(nested_max_n) +
                                        " ints, nested_reduce_strided any n)");
        const unsigned segments = course::grid_for(launcher, n, nested_segment);
        ws.launched_ = NestedWorkspace::Launched::nothing;  // until the launch below has been made
        if (n == 0) {
            CUDA_CHECK(cudaMemsetAsync(d_total, 0, sizeof(long long), stream));
            ws.launched_ = NestedWorkspace::Launched::empty;
            return false;
        }
        CUDA_CHECK(cudaMemsetAsync(ws.status_.data(), 0, sizeof(NestedStatus), stream));
        args = NestedArgs{d_in,          n,      segments, ws.work_.data(), ws.partials_.data(), d_total,
                          ws.status_.data(), ws.fail_launches_, ws.widen_races_};
        return true;
    }
    static void launched(NestedWorkspace& ws) { ws.launched_ = NestedWorkspace::Launched::tree; }
};

NestedWorkspace::NestedWorkspace(std::size_t max_n)
    : max_n_(max_n),
      pending_launches_(std::max(max_n <= nested_max_n ? seed_pending_launches(max_n) : default_pending_launches,
                                 strided_pending_launches())),
      work_(course::ceil_div(max_n, nested_segment) * (nested_segment / 2)),
      partials_(course::ceil_div(max_n, nested_segment)),
      status_(1)
{
    raise_pending_launch_limit(pending_launches_);
}

std::uint64_t NestedWorkspace::check() const
{
    if (launched_ == Launched::nothing) throw std::logic_error("NestedWorkspace::check() before any reduction");
    if (launched_ == Launched::empty) return 0;  // n = 0: nothing was launched
    NestedStatus status{};
    status_.copy_to_host(&status, 1);
    if (status.error != 0) {
        const auto code = static_cast<cudaError_t>(status.error);
        throw NestedLaunchError(code, std::string("a device-side launch failed: ") + cudaGetErrorName(code) + " (" +
                                          cudaGetErrorString(code) + ")",
                                status.launches);
    }
    if (status.finished != 1)
        throw NestedLaunchError(cudaSuccess, "the launch tree ended without running sum_partials, so there is no sum",
                                status.launches);
    return status.launches;
}

void NestedWorkspace::poison(unsigned char byte)
{
    work_.fill_bytes(byte);
    partials_.fill_bytes(byte);
}

void nested_reduce(const int* d_in, long long* d_total, std::size_t n, NestedWorkspace& workspace, cudaStream_t stream)
{
    NestedArgs args{};
    if (!NestedLaunch::prepare("nested_reduce", d_in, d_total, n, workspace, seed_pending_launches(n), stream, args))
        return;
    seed_top_level_kernel<<<args.segments, nested_top_threads, 0, stream>>>(args);
    CUDA_CHECK_LAUNCH();
    NestedLaunch::launched(workspace);
}

void nested_reduce_strided(const int* d_in, long long* d_total, std::size_t n, NestedWorkspace& workspace,
                           cudaStream_t stream)
{
    NestedArgs args{};
    if (!NestedLaunch::prepare("nested_reduce_strided", d_in, d_total, n, workspace, strided_pending_launches(),
                               stream, args))
        return;
    strided_top_level_kernel<<<args.segments, nested_top_threads, 0, stream>>>(args);
    CUDA_CHECK_LAUNCH();
    NestedLaunch::launched(workspace);
}

// The grids of the launch tree: the student's functions, after the checks' race widening.
__global__ void seed_top_level_kernel(NestedArgs a)
{
    widen_race_window(a);
    seed_top_level(a);
}

__global__ void seed_fold_kernel(NestedArgs a, long long* segment, unsigned len, unsigned segment_index)
{
    widen_race_window(a);
    seed_fold(a, segment, len, segment_index);
}

__global__ void strided_top_level_kernel(NestedArgs a)
{
    widen_race_window(a);
    strided_top_level(a);
}

__global__ void strided_fold_kernel(NestedArgs a, unsigned stride)
{
    widen_race_window(a);
    strided_fold(a, stride);
}

// The final kernel of both variants: adds the segments' partial sums. Launched into the tail stream of a grid
// whose launch tree wrote them, so all of them are finished and visible.
__global__ void sum_partials(NestedArgs a)
{
    long long sum = 0;
    for (unsigned s = threadIdx.x; s < a.segments; s += blockDim.x) sum += a.partials[s];
    sum = block_sum(sum);
    if (threadIdx.x == 0) {
        *a.total = sum;
        a.status->finished = 1;
    }
}
