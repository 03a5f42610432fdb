// Chapter 05 benchmark: what device-side launches cost. Both nested reductions, the flat one and CUB on one
// input (2^26 ints by default: the seed variant makes about a million device launches there), each verified
// before it is timed; then the progression table (also as CSV with --csv) and the cost per device launch.
//   meson test -C build --benchmark --suite 05_nested_dynamic
#include "nested.hpp"

#include "course/args.hpp"
#include "course/check.hpp"
#include "course/cub_reference.hpp"
#include "course/data.hpp"
#include "course/device.hpp"
#include "course/device_buffer.hpp"
#include "course/reference.hpp"
#include "course/report.hpp"
#include "course/timer.hpp"

#include <functional>
#include <iomanip>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

namespace {

struct LaunchCost {
    std::string kernel;
    std::uint64_t device_launches;
    double median_ms;
};

// Runs `once` (enqueue + wait + compare), and only if its result is right times `enqueue`.
std::optional<course::Timing> verified_timing(const std::string& name, const std::function<bool()>& once,
                                              const std::function<void()>& enqueue, int runs)
{
    bool right = false;
    try {
        right = once();
    } catch (const NestedLaunchError& e) {
        std::cout << name << ": no sum (" << e.what() << "), not timed\n";
        return std::nullopt;
    }
    if (!right) {
        std::cout << name << ": WRONG SUM, not timed\n";
        return std::nullopt;
    }
    return course::time_gpu(enqueue, runs);
}

void print_launch_costs(const std::vector<LaunchCost>& rows, double flat_ms)
{
    std::cout << "### What the device-side launches cost\n\n"
              << "| kernel | device launches | median ms | ms more than flat_reduce | us per device launch |\n"
              << "|---|---:|---:|---:|---:|\n"
              << std::fixed;
    for (const auto& r : rows) {
        const double extra_ms = r.median_ms - flat_ms;
        std::cout << "| " << r.kernel << " | " << r.device_launches << " | " << std::setprecision(3) << r.median_ms
                  << " | " << extra_ms << " | ";
        if (r.device_launches > 0)
            std::cout << std::setprecision(3) << 1000.0 * extra_ms / static_cast<double>(r.device_launches);
        else
            std::cout << "-";
        std::cout << " |\n";
    }
    std::cout << '\n' << course::measurement_stamp() << "\n\n";
}

}  // namespace

int main(int argc, char** argv)
{
    course::ArgSpec spec{"nested_dynamic_bench", "nested reductions (device-side launches) vs a flat reduction vs CUB",
                         std::size_t{1} << 26, std::size_t{1} << 28};
    spec.uses_block = false;
    spec.benchmark = true;
    const course::Args args = course::parse_args(argc, argv, spec);

    return course::run_gpu_main(spec.program, [&] {
        const std::size_t n = args.n;
        std::cout << course::describe(course::device_info()) << "\nn = " << n << ", seed = " << args.seed << "\n\n";
        const double copy_gbps = course::copy_bandwidth_gbps(std::size_t{1} << 30);
        const auto data = course::random_ints(n, args.seed);
        const std::int64_t expected = course::sum_reference(data.data(), n);
        course::DeviceBuffer<int> d_in(n);
        d_in.copy_from_host(data);
        const double bytes = static_cast<double>(n * sizeof(int));

        course::BenchTable table("05_nested_dynamic: nested reductions vs a flat one", n, copy_gbps);
        std::vector<LaunchCost> costs;
        bool all_verified = true;

        NestedReduction reduction(n);
        for (const auto variant : {NestedVariant::seed, NestedVariant::strided}) {
            const std::string name = to_string(variant);
            const std::size_t free_before = course::free_device_memory();
            NestedResult first{};
            const auto once = [&] {
                reduction.enqueue(variant, d_in.data(), n);  // the first run raises the pending-launch limit
                first = reduction.wait();
                return first.sum == expected;
            };
            const auto timing = verified_timing(name, once, [&] { reduction.enqueue(variant, d_in.data(), n); }, args.runs);
            if (!timing) {
                all_verified = false;
                continue;
            }
            const NestedResult last = reduction.wait();  // the last timed run must be right too
            if (last.sum != expected) throw std::runtime_error(name + ": a timed run returned a wrong sum");
            const std::size_t free_after = course::free_device_memory();
            std::cout << name << ": " << first.device_launches << " device launches; pending-launch limit "
                      << pending_launches_needed(variant, n) << " (device memory it took: "
                      << (free_before > free_after ? (free_before - free_after) >> 20 : 0) << " MiB)\n";
            table.add(name, *timing, bytes);
            costs.push_back({name, first.device_launches, timing->median_ms});
        }

        course::DeviceBuffer<long long> total(1);
        const auto flat = verified_timing(
            "flat_reduce", [&] { return flat_reduce(d_in.data(), n) == expected; },
            [&] { enqueue_flat_reduce(d_in.data(), n, total.data()); }, args.runs);
        if (flat) {
            table.add("flat_reduce", *flat, bytes);
            costs.push_back({"flat_reduce", 0, flat->median_ms});
        } else {
            all_verified = false;
        }

        course::cub_ref::Sum cub_sum(n);
        const auto cub = verified_timing(
            "CUB DeviceReduce::Sum",
            [&] {
                cub_sum(d_in.data(), total.data(), n);
                long long got = 0;
                total.copy_to_host(&got, 1);
                return got == expected;
            },
            [&] { cub_sum(d_in.data(), total.data(), n); }, args.runs);
        if (cub) table.set_reference("CUB DeviceReduce::Sum", *cub, bytes);
        else all_verified = false;

        std::cout << '\n';
        table.print(std::cout);
        if (!args.csv.empty()) table.write_csv(args.csv);
        if (flat) print_launch_costs(costs, flat->median_ms);
        return all_verified ? 0 : 1;
    });
}
