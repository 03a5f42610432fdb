// Chapter 06 demo: the tutorial's experiment - a 256-bin histogram of 100 MiB of random bytes - on the CPU and with
// every GPU version. The tutorial timed cudaMalloc + host->device copy + kernel + copy back as one number; here the
// transfer and the kernels are timed separately, and the tutorial's number is shown too.
//   build/subprojects/06_atomic_histogram/bin/histogram_demo --n 2^26 --block 256 --seed 1
//   ... --kernel histogram_vectorized    (only that GPU version; repeatable; --list names them)
#include "histogram.hpp"
#include "histogram_progression.hpp"

#include "course/args.hpp"
#include "course/check.hpp"
#include "course/data.hpp"
#include "course/device.hpp"
#include "course/device_buffer.hpp"
#include "course/reference.hpp"
#include "course/report.hpp"
#include "course/timer.hpp"
#include "course/verify.hpp"

#include <iomanip>
#include <iostream>
#include <numeric>
#include <string>
#include <vector>

namespace {

bool same_bins(const std::vector<unsigned>& got, const course::Histogram256& expected)
{
    return !course::first_mismatch(expected.data(), got.data(), histogram_bins);
}

std::string total_of(const std::vector<unsigned>& bins)
{
    return "total " + std::to_string(std::accumulate(bins.begin(), bins.end(), std::uint64_t{0}));
}

}  // namespace

int main(int argc, char** argv)
{
    course::ArgSpec spec{"histogram_demo", "256-bin histogram of random bytes: the CPU and every GPU version",
                         std::size_t{100} << 20, histogram_max_n};
    spec.steps = course::facts_of(histogram_progression);
    const course::Args args = course::parse_args(argc, argv, spec);

    return course::run_gpu_main(spec.program, [&] {
        const std::size_t n = args.n;
        const auto host = course::random_bytes(n, args.seed, course::ByteDistribution::uniform);
        const course::Histogram256 expected = course::histogram_reference(host.data(), n);
        std::cout << "n = " << n << " uniform random bytes, seed = " << args.seed << ", block = " << args.block
                  << "\n" << course::describe(course::device_info()) << "\n\n";

        // Context creation and loading the kernels happen on first use: done here, for every kernel (the tutorial's
        // clock below runs histogram_shared_atomics whatever --kernel says), so that they are not timed.
        {
            course::DeviceBuffer<std::uint8_t> d_warm(64);
            course::DeviceBuffer<unsigned> d_warm_bins(histogram_bins);
            d_warm.fill_bytes(0);
            for (const HistogramStep& step : histogram_progression)
                step.launch(d_warm.data(), d_warm_bins.data(), 64, args.block, 0);
            CUDA_CHECK(cudaDeviceSynchronize());
        }

        // The tutorial's measurement: one clock around allocation, copy, kernel and copy back (pageable host memory).
        course::WallTimer seed_clock;
        course::WallTimer clock;
        course::DeviceBuffer<std::uint8_t> d_in(n);
        course::DeviceBuffer<unsigned> d_bins(histogram_bins);
        const double malloc_ms = clock.elapsed_ms();
        clock.restart();
        d_in.copy_from_host(host);
        const double copy_ms = clock.elapsed_ms();
        histogram_shared_atomics(d_in.data(), d_bins.data(), n, args.block);
        const auto seed_bins = d_bins.to_host();
        const double seed_style_ms = seed_clock.elapsed_ms();

        course::ResultTable table("06_atomic_histogram: kernel time only, median of 5 runs");
        std::vector<unsigned> bins(histogram_bins);
        const auto cpu = course::time_cpu([&] { histogram_cpu(host.data(), bins.data(), n); });
        table.add("histogram_cpu (1 CPU thread)", total_of(bins), same_bins(bins, expected), cpu.median_ms,
                  static_cast<double>(n));
        double shared_atomics_ms = 0;
        for (const HistogramStep& step : histogram_progression) {
            if (!args.wants(step.name)) continue;
            const auto t = course::time_gpu([&] { step.launch(d_in.data(), d_bins.data(), n, args.block, 0); }, 5, 1);
            bins = d_bins.to_host();
            table.add(step.name, total_of(bins), same_bins(bins, expected), t.median_ms, static_cast<double>(n));
            if (step.launch == histogram_shared_atomics) shared_atomics_ms = t.median_ms;
        }
        table.print(std::cout);

        const double copy_gbps = copy_ms > 0 ? static_cast<double>(n) / (copy_ms * 1e6) : 0;
        std::cout << std::fixed << std::setprecision(3)
                  << "Transfer, timed apart from the kernels (pageable host memory, as in the tutorial):\n"
                  << "  cudaMalloc " << malloc_ms << " ms, host->device copy " << copy_ms << " ms ("
                  << std::setprecision(1) << copy_gbps << " GB/s)\n"
                  << std::setprecision(3)
                  << "The tutorial's single clock (cudaMalloc + copy + histogram_shared_atomics + copy back, one run): "
                  << seed_style_ms << " ms";
        if (shared_atomics_ms > 0) std::cout << ", of which the kernel is about " << shared_atomics_ms << " ms";
        std::cout << (same_bins(seed_bins, expected) ? "" : " (and its result was WRONG)") << "\n";
        return table.all_correct() && same_bins(seed_bins, expected) ? 0 : 1;
    });
}
