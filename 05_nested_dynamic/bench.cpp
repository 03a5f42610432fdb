// Chapter 05 benchmark: what device-side launches cost.
//  1. The progression on one input (2^26 ints by default: nested_reduce makes about a million device-side
//     launches there) against CUB, each verified before it is timed; also as CSV with --csv PATH.
//  2. flat_reduce against CUB by size, 2^10 up to --n, cold and hot (course/sweep.hpp); with --csv PATH it
//     goes to PATH with "-sweep" before ".csv".
//  3. The cost of one device-side launch as a curve over n: nested_reduce and flat_reduce at n = 2^16, 2^17,
//     ..., --n, and (nested - flat) / device launches. It is not a constant. With --csv PATH the curve goes to
//     PATH with "-launch-costs" before ".csv".
//   meson test -C build --benchmark --suite 05_nested_dynamic
#include "nested_progression.hpp"

#include "course/args.hpp"
#include "course/check.hpp"
#include "course/conditions.hpp"
#include "course/cub_reference.hpp"
#include "course/data.hpp"
#include "course/device.hpp"
#include "course/device_buffer.hpp"
#include "course/launch.hpp"
#include "course/reference.hpp"
#include "course/report.hpp"
#include "course/sweep.hpp"
#include "course/timer.hpp"

#include <algorithm>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

// One verified run of a step: "" when *d_total is the expected sum and the tree finished, else what is wrong.
// `launches` gets the tree's device-side launch count.
std::string verify(const NestedStep& step, const NestedWorkspace& workspace,
                   const course::DeviceBuffer<long long>& d_total, std::int64_t expected, std::uint64_t& launches)
{
    try {
        launches = makes_device_launches(step) ? workspace.check() : 0;
    } catch (const NestedLaunchError& e) {
        return std::string("no sum (") + e.what() + ")";
    }
    const long long got = d_total.to_host()[0];
    if (got == expected) return "";
    return "returned " + std::to_string(got) + ", expected " + std::to_string(expected);
}

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
        const std::size_t n = args.n;
        std::cout << course::describe(course::device_info()) << "\nn = " << n << ", seed = " << args.seed << "\n\n";
        const double copy_gbps = course::copy_bandwidth_gbps(std::size_t{1} << 30);
        const course::Conditions start = course::read_conditions();
        const auto data = course::random_ints(n, args.seed);
        const std::int64_t expected = course::sum_reference(data.data(), n);
        course::DeviceBuffer<int> d_in(n);
        d_in.copy_from_host(data);
        course::DeviceBuffer<long long> d_total(1);
        // The workspace reserves the pending-launch slots a tree of n ints needs (nested.hpp): what the driver
        // kept, and the device memory the workspace took besides its own buffers.
        const std::size_t free_before = course::free_device_memory();
        NestedWorkspace workspace(n);
        const std::size_t taken = free_before - std::min(free_before, course::free_device_memory());
        const std::size_t buffers = course::ceil_div(n, nested_segment) * (nested_segment / 2 + 1) * sizeof(long long);
        std::size_t limit = 0;
        CUDA_CHECK(cudaDeviceGetLimit(&limit, cudaLimitDevRuntimePendingLaunchCount));
        std::cout << "NestedWorkspace(" << n << "): pending-launch limit now " << limit << "; device memory taken "
                  << (taken >> 20) << " MiB, of which its buffers " << (buffers >> 20) << " MiB\n";
        const double bytes = static_cast<double>(n * sizeof(int));

        // ---- 1. the progression at n
        course::BenchTable table("05_nested_dynamic: nested reductions vs a flat one", n, copy_gbps);
        std::map<std::string, std::pair<course::Timing, std::uint64_t>> timed;  // name -> timing, launches
        bool all_verified = true;
        for (const auto& step : nested_progression) {
            if (!args.wants(step.name)) continue;
            std::uint64_t launches = 0;
            const auto timing = course::time_gpu_verified(
                step.name, [&] { step.launch(d_in.data(), d_total.data(), n, workspace, nullptr); },
                [&] { return verify(step, workspace, d_total, expected, launches); }, args.runs);
            if (!timing) {
                all_verified = false;
                continue;
            }
            std::uint64_t last_launches = 0;
            if (const std::string wrong = verify(step, workspace, d_total, expected, last_launches); !wrong.empty())
                throw std::runtime_error(std::string(step.name) + ": the last timed run " + wrong);
            if (makes_device_launches(step)) std::cout << step.name << ": " << launches << " device launches\n";
            table.add(step.name, *timing, bytes);
            timed[step.name] = {*timing, launches};
        }

        course::cub_ref::Sum cub_sum(n);
        std::uint64_t no_launches = 0;
        const auto cub = course::time_gpu_verified(
            "CUB DeviceReduce::Sum", [&] { cub_sum(d_in.data(), d_total.data(), n); },
            [&] { return verify(nested_step("given"), workspace, d_total, expected, no_launches); }, args.runs);
        if (cub) table.set_reference("CUB DeviceReduce::Sum", *cub, bytes);
        else all_verified = false;

        std::cout << '\n';
        const std::string table_conditions = course::describe_conditions(start, course::read_conditions());
        table.print(std::cout, table_conditions);
        if (!args.csv.empty()) table.write_csv(args.csv, table_conditions);

        // ---- 2. flat_reduce, the chapter's one-pass kernel, against CUB by size (2^10 up to n, cold and hot)
        if (args.wants("flat_reduce")) {
            course::SizeSweep sweep("05_nested_dynamic, int32", "flat_reduce", "CUB DeviceReduce::Sum");
            for (const std::size_t m : course::SizeSweep::sizes(n)) {
                const std::int64_t expected_here = course::sum_reference(data.data(), m);
                all_verified &= sweep.add_verified(
                    m, static_cast<double>(m * sizeof(int)), [&, m] { flat_reduce(d_in.data(), d_total.data(), m); },
                    [&, m] { cub_sum(d_in.data(), d_total.data(), m); }, [&] { d_total.fill_bytes(0xA5); },
                    [&, expected_here] {
                        std::uint64_t launches = 0;
                        return verify(nested_step("given"), workspace, d_total, expected_here, launches);
                    },
                    args.runs);
            }
            const std::string sweep_conditions = course::describe_conditions(start, course::read_conditions());
            sweep.print(std::cout, sweep_conditions);
            if (!args.csv.empty()) sweep.write_csv(course::sweep_csv_path(args.csv), sweep_conditions);
        }

        // ---- 3. the cost of one device-side launch, by n
        if (!args.wants("nested_reduce")) return all_verified ? 0 : 1;
        const int sweep_runs = 5;
        std::vector<LaunchCost> costs;
        for (std::size_t size = std::size_t{1} << 16; size <= n; size *= 2) {
            LaunchCost row{size, 0, {}, {}};
            if (size == n && timed.count("nested_reduce") && timed.count("flat_reduce")) {
                row.nested = timed["nested_reduce"].first;  // timed above, with more runs
                row.device_launches = timed["nested_reduce"].second;
                row.flat = timed["flat_reduce"].first;
            } else {
                const std::int64_t expected_here = course::sum_reference(data.data(), size);
                std::uint64_t launches = 0;
                const auto nested = course::time_gpu_verified(
                    "nested_reduce n=" + std::to_string(size),
                    [&] { nested_reduce(d_in.data(), d_total.data(), size, workspace); },
                    [&] { return verify(nested_step("05.1"), workspace, d_total, expected_here, launches); },
                    sweep_runs);
                const auto flat = course::time_gpu_verified(
                    "flat_reduce n=" + std::to_string(size), [&] { flat_reduce(d_in.data(), d_total.data(), size); },
                    [&] { return verify(nested_step("given"), workspace, d_total, expected_here, no_launches); },
                    sweep_runs);
                if (!nested || !flat) {
                    all_verified = false;
                    continue;
                }
                row.nested = *nested;
                row.flat = *flat;
                row.device_launches = launches;
            }
            if (row.device_launches > 0) costs.push_back(row);
        }
        const std::string conditions = course::describe_conditions(start, course::read_conditions());
        print_launch_costs(std::cout, costs, conditions);
        if (!args.csv.empty()) write_launch_costs_csv(course::sweep_csv_path(args.csv, "launch-costs"), costs, conditions);
        return all_verified ? 0 : 1;
    });
}
