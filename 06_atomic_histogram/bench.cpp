// Chapter 06 benchmark: the progression of the GPU histograms against CUB's DeviceHistogram::HistogramEven, for
// uniform and for all-identical bytes, on --n bytes (default 1 GiB) and on the seed's 100 MiB. Every result is
// checked before it is timed. Four tables, and one CSV (--csv) with all four (its `title` column tells them apart).
//   build/subprojects/06_atomic_histogram/atomic_histogram_bench --runs 20 --block 1024 --csv histogram.csv
#include "histogram.hpp"

#include "course/args.hpp"
#include "course/check.hpp"
#include "course/cub_reference.hpp"
#include "course/data.hpp"
#include "course/device.hpp"
#include "course/device_buffer.hpp"
#include "course/reference.hpp"
#include "course/report.hpp"
#include "course/timer.hpp"
#include "course/verify.hpp"

#include <cstdio>
#include <fstream>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

namespace {

constexpr std::size_t kSeedSize = std::size_t{100} << 20;  // the seed's 100 MiB
constexpr int kSeedBlock = 256;                             // the seed's block size, for the seed's kernels

using Launcher = void (*)(const std::uint8_t*, std::size_t, unsigned*, int);

std::string mib(std::size_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }

// Appends `table` to the CSV at `path`; the header line is written only by the first table.
void append_csv(const course::BenchTable& table, const std::string& path, bool first)
{
    const std::string part = path + ".part";
    table.write_csv(part);
    std::ifstream in(part);
    std::ofstream out(path, first ? std::ios::trunc : std::ios::app);
    std::string line;
    for (bool header = true; std::getline(in, line); header = false)
        if (first || !header) out << line << '\n';
    if (!out) throw std::runtime_error("error writing " + path);
    in.close();
    std::remove(part.c_str());
}

}  // namespace

int main(int argc, char** argv)
{
    course::ArgSpec spec{"atomic_histogram_bench", "the chapter's histograms vs CUB HistogramEven, uniform and identical bytes",
                         std::size_t{1} << 30, histogram_max_n};
    spec.benchmark = true;
    spec.default_block = 1024;
    const course::Args args = course::parse_args(argc, argv, spec);

    return course::run_gpu_main(spec.program, [&] {
        std::cout << course::describe(course::device_info()) << "\nseed = " << args.seed << ", block = " << args.block
                  << " for 06.4 and 06.5 (" << kSeedBlock << " for the seed's kernels)\n\n";
        const double copy_gbps = course::copy_bandwidth_gbps(std::size_t{1} << 30);
        std::vector<std::size_t> sizes{args.n};
        if (args.n > kSeedSize) sizes.push_back(kSeedSize);

        course::DeviceBuffer<std::uint8_t> d_in(args.n);
        course::DeviceBuffer<unsigned> d_bins(histogram_bins);
        course::cub_ref::Histogram256 cub(args.n);
        bool all_correct = true;
        bool first_csv_table = true;

        for (const auto dist : {course::ByteDistribution::uniform, course::ByteDistribution::identical}) {
            const auto host = course::random_bytes(args.n, args.seed, dist);
            d_in.copy_from_host(host);
            for (const std::size_t n : sizes) {
                const course::Histogram256 expected = course::histogram_reference(host.data(), n);
                const double bytes = static_cast<double>(n);
                course::BenchTable table(std::string("06_atomic_histogram: ") + course::to_string(dist) + " bytes, " + mib(n),
                                         n, copy_gbps);

                // Runs `enqueue` once and compares the bins; only a correct version gets timed.
                auto verified = [&](const std::string& name, const std::function<void()>& enqueue) {
                    d_bins.fill_bytes(0xAB);
                    enqueue();
                    const auto got = d_bins.to_host();
                    if (const auto mismatch = course::first_mismatch(expected.data(), got.data(), histogram_bins)) {
                        std::cout << "WRONG RESULT, not timed: " << name << " on " << course::to_string(dist) << " bytes, n = "
                                  << n << ": " << course::describe(*mismatch, histogram_bins) << "\n";
                        all_correct = false;
                        return false;
                    }
                    return true;
                };
                auto row = [&](const std::string& name, Launcher launch, int block, int warmup) {
                    auto enqueue = [&] { launch(d_in.data(), n, d_bins.data(), block); };
                    if (verified(name, enqueue)) table.add(name, course::time_gpu(enqueue, args.runs, warmup), bytes);
                };

                // Global atomics run at a few GB/s: timed on the seed's 100 MiB only, with one warm-up run.
                const bool time_global_atomics = n <= kSeedSize;
                if (time_global_atomics) row("global atomics (seed, 06.2)", histogram_global_atomics, kSeedBlock, 1);
                row("shared atomics (seed, 06.3)", histogram_shared_atomics, kSeedBlock, 3);
                row("32 lane sub-histograms (06.4)", histogram_sub_histograms, args.block, 3);
                row("+ 16-byte loads, runs of 16 (06.5)", histogram_vectorized, args.block, 3);
                auto cub_call = [&] { cub(d_in.data(), d_bins.data(), n); };
                if (verified("CUB HistogramEven", cub_call))
                    table.set_reference("CUB HistogramEven", course::time_gpu(cub_call, args.runs), bytes);

                table.print(std::cout);
                if (!time_global_atomics)
                    std::cout << "global atomics (06.2) not timed above " << mib(kSeedSize)
                              << ": at a few GB/s each run would take a large part of a second; see the "
                              << mib(kSeedSize) << " table.\n\n";
                if (!args.csv.empty()) append_csv(table, args.csv, first_csv_table);
                first_csv_table = false;
            }
        }
        return all_correct ? 0 : 1;
    });
}
