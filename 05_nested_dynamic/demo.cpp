// Chapter 05 demo: the CPU sum and the progression (both nested reductions, then the flat one) on one random
// input, checked and timed, with the number of device-side launches each made.
//   build/bin/nested_demo --n 2^24 --seed 1 [--kernel nested_reduce_strided] [--list]
#include "nested_progression.hpp"

#include "course/args.hpp"
#include "course/check.hpp"
#include "course/data.hpp"
#include "course/device.hpp"
#include "course/device_buffer.hpp"
#include "course/reference.hpp"
#include "course/report.hpp"
#include "course/timer.hpp"

#include <iostream>
#include <string>

int main(int argc, char** argv)
{
    course::ArgSpec spec{"nested_demo", "sum random ints with nested (dynamic-parallelism) reductions and a flat one",
                         std::size_t{1} << 24, std::size_t{1} << 28};
    spec.uses_block = false;
    spec.steps = course::facts_of(nested_progression);
    const course::Args args = course::parse_args(argc, argv, spec);

    return course::run_gpu_main(spec.program, [&] {
        std::cout << course::describe(course::device_info()) << '\n';
        const auto data = course::random_ints(args.n, args.seed);
        const std::int64_t expected = course::sum_reference(data.data(), args.n);
        std::cout << "n = " << args.n << ", seed = " << args.seed << ", expected sum = " << expected << "\n\n";

        course::DeviceBuffer<int> d_in(args.n);
        d_in.copy_from_host(data);
        course::DeviceBuffer<long long> d_total(1);
        NestedWorkspace workspace(args.n);
        const double bytes = static_cast<double>(args.n * sizeof(int));
        const int runs = 5;
        course::ResultTable table("05_nested_dynamic: one input, the progression (median of 5 runs)");

        std::int64_t cpu_sum = 0;
        const auto cpu = course::time_cpu([&] { cpu_sum = course::sum_reference(data.data(), args.n); }, runs);
        table.add("CPU sum_reference", std::to_string(cpu_sum), cpu_sum == expected, cpu.median_ms, bytes);

        for (const auto& step : nested_progression) {
            if (!args.wants(step.name)) continue;
            std::string name = step.name;
            try {
                const auto timing = course::time_gpu(
                    [&] { step.launch(d_in.data(), d_total.data(), args.n, workspace, nullptr); }, runs, 1);
                // The last timed run's launch count and sum (time_gpu has waited for it).
                const std::uint64_t launches = makes_device_launches(step) ? workspace.check() : 0;
                name += " (" + std::to_string(launches) + " device launches)";
                const long long sum = d_total.to_host()[0];
                table.add(name, std::to_string(sum), sum == expected, timing.median_ms, bytes);
            } catch (const NestedLaunchError& e) {
                table.add(name, std::string("no sum: ") + e.what(), false, 0, bytes);
            }
        }

        table.print(std::cout);
        return table.all_correct() ? 0 : 1;
    });
}
