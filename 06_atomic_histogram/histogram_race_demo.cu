// Chapter 06 race demo (not a graded check): `x++` by many threads at once loses counts; atomicAdd does not.
//   build/subprojects/06_atomic_histogram/bin/histogram_race_demo
//   compute-sanitizer --tool racecheck build/subprojects/06_atomic_histogram/bin/histogram_race_demo
// racecheck watches shared memory only. It reports the hazards of the racy shared-memory histogram below; the
// global-memory race of racy_count is invisible to it - there the lost counts the demo prints are the evidence.
#include "histogram.hpp"

#include "course/args.hpp"
#include "course/check.hpp"
#include "course/data.hpp"
#include "course/device_buffer.hpp"
#include "course/race_demo.hpp"

#include <iostream>
#include <numeric>
#include <string>

namespace {

constexpr int kBins = static_cast<int>(histogram_bins);
constexpr int kBlocks = 1024;
constexpr int kThreads = 256;

// Every thread adds 1 to the same global counter with a plain read-modify-write: the 32 lanes of a warp read
// the same old value and all write old + 1, and other warps overwrite each other's results in between.
__global__ void racy_count(unsigned* counter) { (*counter)++; }

__global__ void atomic_count(unsigned* counter) { atomicAdd(counter, 1u); }

// The tutorial's shared-memory histogram, with the atomicAdd on the shared bins optional.
template <bool kAtomic>
__global__ void shared_histogram(const std::uint8_t* in, std::size_t n, unsigned* bins)
{
    __shared__ unsigned block_bins[kBins];
    for (int b = threadIdx.x; b < kBins; b += blockDim.x) block_bins[b] = 0;
    __syncthreads();
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
        if constexpr (kAtomic)
            atomicAdd(&block_bins[in[i]], 1u);
        else
            ++block_bins[in[i]];  // the race: two threads with the same byte both read k and both write k + 1
    }
    __syncthreads();
    for (int b = threadIdx.x; b < kBins; b += blockDim.x) atomicAdd(&bins[b], block_bins[b]);
}

void report(const std::string& what, std::uint64_t expected, std::uint64_t got)
{
    const double lost_pct = expected ? 100.0 * static_cast<double>(expected - got) / static_cast<double>(expected) : 0;
    std::cout << "| " << what << " | " << expected << " | " << got << " | " << expected - got << " ("
              << static_cast<int>(lost_pct + 0.5) << "%) |\n";
}

std::uint64_t count_with(void (*kernel)(unsigned*))
{
    course::DeviceBuffer<unsigned> counter(1);
    counter.fill_bytes(0);
    kernel<<<kBlocks, kThreads>>>(counter.data());
    CUDA_CHECK_LAUNCH();
    return counter.to_host()[0];
}

template <bool kAtomic>
std::uint64_t histogram_total(const course::DeviceBuffer<std::uint8_t>& d_in)
{
    course::DeviceBuffer<unsigned> d_bins(kBins);
    d_bins.fill_bytes(0);
    shared_histogram<kAtomic><<<64, kThreads>>>(d_in.data(), d_in.size(), d_bins.data());
    CUDA_CHECK_LAUNCH();
    const auto bins = d_bins.to_host();
    return std::accumulate(bins.begin(), bins.end(), std::uint64_t{0});
}

}  // namespace

int main(int argc, char** argv)
{
    course::ArgSpec spec{"histogram_race_demo", "counts lost by non-atomic increments, and none lost with atomicAdd",
                         std::size_t{1} << 20, std::size_t{1} << 28};
    spec.uses_block = false;
    return course::race_demo::run(argc, argv, spec, [](const course::Args& args) {
        const std::uint64_t threads = std::uint64_t{kBlocks} * kThreads;
        std::cout << "| what | increments | counted | lost |\n|---|---:|---:|---:|\n";
        report("racy_count: (*counter)++ by every thread", threads, count_with(racy_count));
        report("atomic_count: atomicAdd(counter, 1) by every thread", threads, count_with(atomic_count));
        for (const auto dist : {course::ByteDistribution::uniform, course::ByteDistribution::identical}) {
            const course::DeviceBuffer<std::uint8_t> d_in(course::random_bytes(args.n, args.seed, dist));
            const std::string bytes = std::string(" on ") + course::to_string(dist) + " bytes";
            report("shared histogram, ++block_bins[b]" + bytes, args.n, histogram_total<false>(d_in));
            report("shared histogram, atomicAdd(&block_bins[b], 1)" + bytes, args.n, histogram_total<true>(d_in));
        }
        std::cout << "\n(" << kBlocks << " x " << kThreads << " threads for the counters; " << args.n
                  << " bytes, seed " << args.seed << ", 64 x " << kThreads << " threads for the histograms)\n";
        return 0;
    });
}
