// Chapter 04 benchmark: every int kernel of the progression and CUB's DeviceReduce::Sum on n int32 (default
// 2^28 = 1 GiB), median of --runs timed runs after a warm-up; then reduce_vectorized and CUB at sizes 2^10,
// 2^12, ..., n, to show where launch overhead dominates. Every result is verified before it is timed (a wrong
// kernel gets no time). With --csv PATH the sweep goes to PATH with "-sweep" before ".csv".
//   meson test -C build --benchmark --suite 04_unroll_warp
#include "progression.hpp"

#include "course/args.hpp"
#include "course/check.hpp"
#include "course/cub_reference.hpp"
#include "course/data.hpp"
#include "course/device.hpp"
#include "course/device_buffer.hpp"
#include "course/reference.hpp"
#include "course/report.hpp"
#include "course/timer.hpp"

#include <ctime>
#include <fstream>
#include <functional>
#include <iomanip>
#include <iostream>
#include <iterator>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

struct SweepRow {
    std::size_t n;
    course::Timing best, cub;
};

double gbps(std::size_t n, const course::Timing& t)
{
    return static_cast<double>(n * sizeof(int)) / (t.median_ms * 1e6);
}

std::string fixed(double value, int digits)
{
    std::ostringstream s;
    s << std::fixed << std::setprecision(digits) << value;
    return s.str();
}

void print_sweep(std::ostream& out, const std::vector<SweepRow>& rows, int block)
{
    out << "### reduce_vectorized and CUB DeviceReduce::Sum by size (int32, block = " << block << ")\n\n"
        << "| n | reduce_vectorized ms | CUB ms | reduce_vectorized GB/s | CUB GB/s | vs CUB |\n"
        << "|---:|---:|---:|---:|---:|---:|\n";
    for (const SweepRow& r : rows)
        out << "| " << r.n << " | " << fixed(r.best.median_ms, 4) << " | " << fixed(r.cub.median_ms, 4) << " | "
            << fixed(gbps(r.n, r.best), 1) << " | " << fixed(gbps(r.n, r.cub), 1) << " | "
            << fixed(r.cub.median_ms / r.best.median_ms, 2) << "x |\n";
    out << '\n' << course::measurement_stamp() << "\n\n";
}

// "dir/04_unroll_warp.csv" -> "dir/04_unroll_warp-sweep.csv"
std::string sweep_csv_path(const std::string& csv)
{
    const std::string suffix = ".csv";
    const bool has_suffix =
        csv.size() >= suffix.size() && csv.compare(csv.size() - suffix.size(), suffix.size(), suffix) == 0;
    return (has_suffix ? csv.substr(0, csv.size() - suffix.size()) : csv) + "-sweep.csv";
}

void write_sweep_csv(const std::string& path, const std::vector<SweepRow>& rows, int block)
{
    std::ofstream f(path);
    if (!f) throw std::runtime_error("cannot write " + path);
    std::string gpu = course::device_info().name;
    for (char& c : gpu)
        if (c == ',') c = ';';
    char date[16];
    const std::time_t now = std::time(nullptr);
    std::tm utc{};
    gmtime_r(&now, &utc);
    std::strftime(date, sizeof date, "%Y-%m-%d", &utc);
    f << "gpu,date,block,n,kernel,median_ms,cub_median_ms,gbps,cub_gbps,vs_cub\n";
    for (const SweepRow& r : rows)
        f << gpu << ',' << date << ',' << block << ',' << r.n << ",reduce_vectorized," << r.best.median_ms << ','
          << r.cub.median_ms << ',' << gbps(r.n, r.best) << ',' << gbps(r.n, r.cub) << ','
          << r.cub.median_ms / r.best.median_ms << '\n';
    if (!f) throw std::runtime_error("error writing " + path);
}

}  // namespace

int main(int argc, char** argv)
{
    course::ArgSpec spec{"unroll_warp_bench",
                         "the 04_unroll_warp progression and a size sweep against CUB DeviceReduce::Sum",
                         std::size_t{1} << 28, std::size_t{1} << 30};
    spec.benchmark = true;
    const course::Args args = course::parse_args(argc, argv, spec);

    return course::run_gpu_main(spec.program, [&] {
        std::cout << course::describe(course::device_info()) << '\n';
        const double copy_gbps = course::copy_bandwidth_gbps(std::size_t{1} << 30);
        const auto data = course::random_ints(args.n, args.seed);
        const long long expected = course::sum_reference(data.data(), args.n);
        const double bytes = static_cast<double>(args.n * sizeof(int));

        course::DeviceBuffer<int> d_in(args.n);
        d_in.copy_from_host(data);
        course::DeviceBuffer<long long> total(1);
        course::cub_ref::Sum cub_sum(args.n);
        bool all_correct = true;

        // Checks one result of `reduce` on n elements, then times it; a wrong result gets no time.
        const auto measure = [&](const char* name, std::size_t n, long long want,
                                 const std::function<void()>& reduce) -> std::optional<course::Timing> {
            total.fill_bytes(0xA5);
            reduce();
            if (const long long got = total.to_host()[0]; got != want) {
                std::cerr << name << "(n=" << n << ") returned " << got << ", expected " << want << ": not timed\n";
                all_correct = false;
                return std::nullopt;
            }
            return course::time_gpu(reduce, args.runs);
        };
        const auto cub = [&](std::size_t n) { return [&, n] { cub_sum(d_in.data(), total.data(), n); }; };
        const auto kernel = [&](const IntVariant& v, std::size_t n) {
            return [&, n] { v.reduce(d_in.data(), n, total.data(), args.block); };
        };

        course::BenchTable table("04_unroll_warp, int32, block = " + std::to_string(args.block), args.n, copy_gbps);
        for (const IntVariant& v : progression)
            if (const auto t = measure(v.name, args.n, expected, kernel(v, args.n))) table.add(v.name, *t, bytes);
        if (const auto t = measure("CUB DeviceReduce::Sum", args.n, expected, cub(args.n)))
            table.set_reference("CUB DeviceReduce::Sum", *t, bytes);
        table.print(std::cout);
        if (!args.csv.empty()) table.write_csv(args.csv);

        const IntVariant& best = progression[std::size(progression) - 1];
        std::vector<SweepRow> sweep;
        for (std::size_t n = std::size_t{1} << 10; n <= args.n; n *= 4) {
            const long long want = course::sum_reference(data.data(), n);
            const auto best_time = measure(best.name, n, want, kernel(best, n));
            const auto cub_time = measure("CUB DeviceReduce::Sum", n, want, cub(n));
            if (best_time && cub_time) sweep.push_back(SweepRow{n, *best_time, *cub_time});
        }
        print_sweep(std::cout, sweep, args.block);
        if (!args.csv.empty()) write_sweep_csv(sweep_csv_path(args.csv), sweep, args.block);
        return all_correct ? 0 : 1;
    });
}
