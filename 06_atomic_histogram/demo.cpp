// Chapter 06 demo (README, "The demo"): the tutorial's 256-bin histogram of random bytes on the CPU and with every
// GPU version, the kernels timed alone, then the transfer and the tutorial's single clock around it all.
//   build/subprojects/06_atomic_histogram/bin/histogram_demo --n 2^26 --block 256 --seed 1 [--kernel NAME]
#include "histogram.hpp"
#include "histogram_problem.hpp"
#include "histogram_progression.hpp"

#include "course/args.hpp"
#include "course/chapter.hpp"
#include "course/check.hpp"
#include "course/device_buffer.hpp"
#include "course/timer.hpp"
#include "course/verify.hpp"

#include <cstdint>
#include <iomanip>
#include <iostream>

namespace {

// The tutorial's measurement: one clock around allocation, copy, histogram_shared_atomics and copy back (pageable
// host memory); then the transfer and the kernel timed apart. True when the tutorial's run gave the right bins.
bool tutorial_clock(const course::Args& args, HistogramProblem& problem)
{
    const std::size_t n = args.n;
    // Not timed: the kernel loads on its first launch, which --kernel may have left out of the table.
    histogram_shared_atomics(problem.data(), problem.bins(), n, args.block);
    CUDA_CHECK(cudaDeviceSynchronize());
    course::WallTimer seed_clock;
    course::WallTimer clock;
    course::DeviceBuffer<std::uint8_t> d_in(n);
    course::DeviceBuffer<unsigned> d_bins(histogram_bins);
    const double malloc_ms = clock.elapsed_ms();
    const auto run = [&] { histogram_shared_atomics(d_in.data(), d_bins.data(), n, args.block); };
    clock.restart();
    d_in.copy_from_host(problem.host());
    const double copy_ms = clock.elapsed_ms();
    run();
    const auto seed_bins = d_bins.to_host();
    const double seed_style_ms = seed_clock.elapsed_ms();
    const bool right = !course::first_mismatch(problem.expected(n).data(), seed_bins.data(), histogram_bins);
    const course::Timing kernel = course::time_gpu(run, 5, 1);

    const double copy_gbps = copy_ms > 0 ? static_cast<double>(n) / (copy_ms * 1e6) : 0;
    std::cout << std::fixed << std::setprecision(3)
              << "Transfer, timed apart from the kernels (pageable host memory, as in the tutorial):\n"
              << "  cudaMalloc " << malloc_ms << " ms, host->device copy " << copy_ms << " ms ("
              << std::setprecision(1) << copy_gbps << " GB/s)\n"
              << std::setprecision(3)
              << "The tutorial's single clock (cudaMalloc + copy + histogram_shared_atomics + copy back, one run): "
              << seed_style_ms << " ms, of which the kernel is about " << kernel.median_ms << " ms"
              << (right ? "" : " (and its result was WRONG)") << "\n";
    return right;
}

}  // namespace

int main(int argc, char** argv)
{
    return course::demo_main<HistogramProblem>(
        argc, argv, "256-bin histogram of random bytes: the CPU and every GPU version",
        [](HistogramProblem& problem, const course::Args& args) {
            problem.demo_extra = [&] { return tutorial_clock(args, problem); };
        });
}
