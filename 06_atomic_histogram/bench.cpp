// Chapter 06 benchmark: the progression of the GPU histograms against CUB's DeviceHistogram::HistogramEven, for
// uniform and for all-identical bytes, on --n bytes (default 1 GiB) and on the tutorial's 100 MiB; then the size
// sweep of histogram_vectorized against CUB from 1 KiB to --n bytes, cold (L2 flushed) and hot. Every result
// is checked before it is timed. One CSV (--csv) with the four tables (its `title` column tells them apart),
// and the sweep in <csv>-sweep.csv.
//   build/subprojects/06_atomic_histogram/bin/histogram_bench --runs 20 --block 1024 --csv histogram.csv
//   ... --kernel histogram_vectorized    (only that kernel, and CUB; repeatable; --list names them)
#include "histogram.hpp"
#include "histogram_progression.hpp"

#include "course/args.hpp"
#include "course/check.hpp"
#include "course/conditions.hpp"
#include "course/cub_reference.hpp"
#include "course/data.hpp"
#include "course/device.hpp"
#include "course/device_buffer.hpp"
#include "course/reference.hpp"
#include "course/report.hpp"
#include "course/sweep.hpp"
#include "course/timer.hpp"
#include "course/verify.hpp"

#include <functional>
#include <iostream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

namespace {

constexpr std::size_t kSeedSize = std::size_t{100} << 20;  // the tutorial's 100 MiB
constexpr int kSeedBlock = 256;                             // the tutorial's block size, for the tutorial's kernels

std::string mib(std::size_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }

// The tutorial's two kernels (Tasks 06.2 and 06.3) run as the tutorial ran them, with 256-thread blocks.
bool is_seed_kernel(const HistogramStep& step)
{
    return step.launch == histogram_global_atomics || step.launch == histogram_shared_atomics;
}

}  // namespace

int main(int argc, char** argv)
{
    course::ArgSpec spec{"histogram_bench", "the chapter's histograms vs CUB HistogramEven, uniform and identical bytes",
                         std::size_t{1} << 30, histogram_max_n};
    spec.benchmark = true;
    spec.default_block = 1024;
    spec.steps = course::facts_of(histogram_progression);
    const course::Args args = course::parse_args(argc, argv, spec);

    return course::run_gpu_main(spec.program, [&] {
        std::cout << course::describe(course::device_info()) << "\nseed = " << args.seed << ", block = " << args.block
                  << " for 06.4 and 06.5 (" << kSeedBlock << " for the tutorial's kernels)\n\n";
        const double copy_gbps = course::copy_bandwidth_gbps(std::size_t{1} << 30);
        std::vector<std::size_t> sizes{args.n};
        if (args.n > kSeedSize) sizes.push_back(kSeedSize);

        const course::Conditions start = course::read_conditions();
        course::DeviceBuffer<std::uint8_t> d_in(args.n);
        course::DeviceBuffer<unsigned> d_bins(histogram_bins);
        course::cub_ref::Histogram256 cub(args.n);
        bool all_correct = true;
        bool first_csv_table = true;

        std::vector<course::SizeSweep> sweeps;
        sweeps.reserve(2);
        const HistogramStep& best = histogram_progression[std::size(histogram_progression) - 1];
        for (const auto dist : {course::ByteDistribution::uniform, course::ByteDistribution::identical}) {
            const auto host = course::random_bytes(args.n, args.seed, dist);
            d_in.copy_from_host(host);
            // The sweep: the best kernel and CUB at every size, each checked once before it is timed.
            course::SizeSweep& sweep = sweeps.emplace_back(
                std::string("06_atomic_histogram, ") + course::to_string(dist) + " bytes", best.name, "CUB HistogramEven");
            for (const std::size_t n : course::SizeSweep::sizes(args.n)) {
                const course::Histogram256 expected = course::histogram_reference(host.data(), n);
                all_correct &= sweep.add_verified(
                    n, static_cast<double>(n), [&, n] { best.launch(d_in.data(), d_bins.data(), n, args.block, 0); },
                    [&, n] { cub(d_in.data(), d_bins.data(), n); }, [&] { d_bins.fill_bytes(0xAB); },
                    [&] {
                        const auto mismatch =
                            course::first_mismatch(expected.data(), d_bins.to_host().data(), histogram_bins);
                        return mismatch ? course::describe(*mismatch, histogram_bins) : std::string();
                    },
                    args.runs);
            }
            for (const std::size_t n : sizes) {
                const course::Histogram256 expected = course::histogram_reference(host.data(), n);
                const double bytes = static_cast<double>(n);
                course::BenchTable table(std::string("06_atomic_histogram: ") + course::to_string(dist) + " bytes, " + mib(n),
                                         n, copy_gbps);

                // Poisons the bins, runs `enqueue` once and times it only if all 256 bins are right.
                auto verified_timing = [&](const std::string& name, const std::function<void()>& enqueue) {
                    d_bins.fill_bytes(0xAB);
                    const auto check = [&]() -> std::string {
                        const auto got = d_bins.to_host();
                        const auto mismatch = course::first_mismatch(expected.data(), got.data(), histogram_bins);
                        return mismatch ? std::string(course::to_string(dist)) + " bytes, n = " + std::to_string(n) +
                                              ": " + course::describe(*mismatch, histogram_bins)
                                        : std::string();
                    };
                    const std::optional<course::Timing> t = course::time_gpu_verified(name, enqueue, check, args.runs);
                    all_correct = all_correct && t.has_value();
                    return t;
                };

                // Global atomics run at a few GB/s: timed on the tutorial's 100 MiB only.
                const bool time_global_atomics = n <= kSeedSize;
                for (const HistogramStep& step : histogram_progression) {
                    if (!args.wants(step.name) || (step.launch == histogram_global_atomics && !time_global_atomics))
                        continue;
                    const int block = is_seed_kernel(step) ? kSeedBlock : args.block;
                    const std::string name = std::string(step.name) + " (" + step.task + ")";
                    if (const auto t = verified_timing(
                            name, [&] { step.launch(d_in.data(), d_bins.data(), n, block, 0); }))
                        table.add(name, *t, bytes);
                }
                if (const auto t = verified_timing("CUB HistogramEven", [&] { cub(d_in.data(), d_bins.data(), n); }))
                    table.set_reference("CUB HistogramEven", *t, bytes);

                const std::string conditions = course::describe_conditions(start, course::read_conditions());
                table.print(std::cout, conditions);
                if (!time_global_atomics && args.wants("histogram_global_atomics"))
                    std::cout << "histogram_global_atomics (06.2) not timed above " << mib(kSeedSize)
                              << ": at a few GB/s each run would take a large part of a second; see the "
                              << mib(kSeedSize) << " table.\n\n";
                if (!args.csv.empty()) table.write_csv(args.csv, conditions, !first_csv_table);
                first_csv_table = false;
            }
        }
        const std::string conditions = course::describe_conditions(start, course::read_conditions());
        for (std::size_t i = 0; i < sweeps.size(); ++i) {
            sweeps[i].print(std::cout, conditions);
            if (!args.csv.empty()) sweeps[i].write_csv(course::sweep_csv_path(args.csv), conditions, i > 0);
        }
        return all_correct ? 0 : 1;
    });
}
