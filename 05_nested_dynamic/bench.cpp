// Chapter 05 benchmark: what device-side launches cost.
//  1. The progression on one input (2^26 ints by default: nested_reduce makes about a million device-side
//     launches there) against CUB, each verified before it is timed; also as CSV with --csv PATH.
//  2. flat_reduce against CUB by size, 2^10 up to --n, cold and hot (course/sweep.hpp); with --csv PATH it
//     goes to PATH with "-sweep" before ".csv".
//  3. The cost of one device-side launch as a curve over n: nested_reduce and flat_reduce at n = 2^16, 2^17,
//     ..., --n, and (nested - flat) / device launches. It is not a constant. With --csv PATH the curve goes to
//     PATH with "-launch-costs" before ".csv".
//   meson test -C build --benchmark --suite 05_nested_dynamic
#include "nested_problem.hpp"
#include "nested_progression.hpp"

#include "course/args.hpp"
#include "course/chapter.hpp"
#include "course/check.hpp"
#include "course/device.hpp"
#include "course/launch.hpp"
#include "course/report.hpp"
#include "course/sweep.hpp"

#include <algorithm>
#include <fstream>
#include <iostream>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

struct LaunchCost {
    std::size_t n;
    std::uint64_t device_launches;
    course::Timing nested, flat;
    double us_per_launch() const
    {
        return 1000.0 * (nested.median_ms - flat.median_ms) / static_cast<double>(device_launches);
    }
};

void print_launch_costs(std::ostream& out, const std::vector<LaunchCost>& rows, const std::string& conditions)
{
    out << "### What one device-side launch costs, by n (nested_reduce against flat_reduce)\n\n"
        << "| n | device launches | nested_reduce ms | flat_reduce ms | us per device launch | runs |\n"
        << "|---:|---:|---:|---:|---:|---:|\n";
    for (const LaunchCost& r : rows)
        out << "| 2^" << __builtin_ctzll(r.n) << " | " << r.device_launches << " | " << course::fixed(r.nested.median_ms, 3)
            << " | " << course::fixed(r.flat.median_ms, 3) << " | " << course::fixed(r.us_per_launch(), 2) << " | " << r.nested.runs
            << " |\n";
    out << "\nus per device launch = (nested_reduce ms - flat_reduce ms) * 1000 / device launches, from the medians.\n"
        << conditions << "\n\n";
}

void write_launch_costs_csv(const std::string& path, const std::vector<LaunchCost>& rows, const std::string& conditions)
{
    std::ofstream f(path);
    if (!f) throw std::runtime_error("cannot write " + path);
    f << "n,device_launches,nested_reduce_ms,flat_reduce_ms,us_per_device_launch,runs,conditions\n";
    for (const LaunchCost& r : rows)
        f << r.n << ',' << r.device_launches << ',' << r.nested.median_ms << ',' << r.flat.median_ms << ','
          << r.us_per_launch() << ',' << r.nested.runs << ',' << course::csv_field(conditions) << '\n';
}

// 3. The cost of one device-side launch as a curve over n, from 2^16 up to --n: nested_reduce against
// flat_reduce (5 runs each; at --n the progression's timings, with more runs).
void launch_costs(course::Bench& bench, NestedWorkspace& workspace)
{
    const course::Kernel& nested = bench.problem.kernel("nested_reduce");
    const course::Kernel& flat = bench.problem.kernel("flat_reduce");
    constexpr int curve_runs = 5;
    std::vector<LaunchCost> costs;
    for (std::size_t n = std::size_t{1} << 16; n <= bench.args.n; n *= 2) {
        LaunchCost row{n, 0, {}, {}};
        auto nested_time = n == bench.args.n ? bench.first_table_timing(nested.name) : std::nullopt;
        auto flat_time = n == bench.args.n ? bench.first_table_timing(flat.name) : std::nullopt;
        if (nested_time && flat_time) {
            nested.run(n, 0);  // once more, for its launch count (the table ran other kernels since)
            CUDA_CHECK(cudaDeviceSynchronize());
            row.device_launches = workspace.check();
        } else {
            nested_time = bench.measure(nested, n, 0, nested.name + " n=" + std::to_string(n), curve_runs);
            if (nested_time) row.device_launches = workspace.check();
            flat_time = bench.measure(flat, n, 0, flat.name + " n=" + std::to_string(n), curve_runs);
        }
        if (!nested_time || !flat_time) continue;
        row.nested = *nested_time;
        row.flat = *flat_time;
        if (row.device_launches > 0) costs.push_back(row);
    }
    const std::string conditions = bench.conditions();
    print_launch_costs(std::cout, costs, conditions);
    if (!bench.args.csv.empty())
        write_launch_costs_csv(course::sweep_csv_path(bench.args.csv, "launch-costs"), costs, conditions);
}

}  // namespace

int main(int argc, char** argv)
{
    course::ArgSpec spec{"nested_bench", "nested reductions (device-side launches) vs a flat reduction vs CUB",
                         std::size_t{1} << 26, std::size_t{1} << 28};
    spec.uses_block = false;
    spec.benchmark = true;
    spec.steps = course::facts_of(nested_progression);
    const course::Args args = course::parse_args(argc, argv, spec);

    return course::run_gpu_main(spec.program, [&] {
        // The workspace reserves the pending-launch slots a tree of n ints needs (nested.hpp): what the driver
        // kept, and the device memory the workspace took besides its own buffers.
        const std::size_t free_before = course::free_device_memory();
        NestedWorkspace workspace(args.n);
        const std::size_t taken = free_before - std::min(free_before, course::free_device_memory());
        const std::size_t buffers =
            course::ceil_div(args.n, nested_segment) * (nested_segment / 2 + 1) * sizeof(long long);
        std::size_t limit = 0;
        CUDA_CHECK(cudaDeviceGetLimit(&limit, cudaLimitDevRuntimePendingLaunchCount));

        NestedProblem problem(args, workspace);
        problem.header = "NestedWorkspace(" + std::to_string(args.n) + "): pending-launch limit now " +
                         std::to_string(limit) + "; device memory taken " + std::to_string(taken >> 20) +
                         " MiB, of which its buffers " + std::to_string(buffers >> 20) + " MiB\n";
        course::cub_baseline(problem);
        if (args.wants("nested_reduce"))
            problem.bench_extra = [&](course::Bench& bench) { launch_costs(bench, workspace); };
        return course::run_bench(spec, args, problem);
    });
}
