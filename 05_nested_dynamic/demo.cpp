// Chapter 05 demo: the CPU sum, both nested reductions and the flat one on one random input, checked and timed,
// with the number of device-side launches each made.
//   build/05_nested_dynamic/nested_dynamic_demo --n 2^24 --seed 1
#include "nested.hpp"

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
    course::ArgSpec spec{"nested_dynamic_demo", "sum random ints with nested (dynamic-parallelism) reductions and a flat one",
                         std::size_t{1} << 24, std::size_t{1} << 28};
    spec.uses_block = false;
    const course::Args args = course::parse_args(argc, argv, spec);

    return course::run_gpu_main(spec.program, [&] {
        std::cout << course::describe(course::device_info()) << '\n';
        const auto data = course::random_ints(args.n, args.seed);
        const std::int64_t expected = course::sum_reference(data.data(), args.n);
        std::cout << "n = " << args.n << ", seed = " << args.seed << ", expected sum = " << expected << "\n\n";

        course::DeviceBuffer<int> d_in(args.n);
        d_in.copy_from_host(data);
        const double bytes = static_cast<double>(args.n * sizeof(int));
        const int runs = 5;
        course::ResultTable table("05_nested_dynamic: one input, every variant (median of 5 runs)");

        std::int64_t cpu_sum = 0;
        const auto cpu = course::time_cpu([&] { cpu_sum = course::sum_reference(data.data(), args.n); }, runs);
        table.add("CPU sum_reference", std::to_string(cpu_sum), cpu_sum == expected, cpu.median_ms, bytes);

        NestedReduction reduction(args.n);
        for (const auto variant : {NestedVariant::seed, NestedVariant::strided}) {
            std::string name = to_string(variant);
            try {
                const auto timing = course::time_gpu([&] { reduction.enqueue(variant, d_in.data(), args.n); }, runs, 1);
                const NestedResult got = reduction.wait();  // the last timed run's sum and launch count
                name += " (" + std::to_string(got.device_launches) + " device launches)";
                table.add(name, std::to_string(got.sum), got.sum == expected, timing.median_ms, bytes);
            } catch (const NestedLaunchError& e) {
                table.add(name, std::string("no sum: ") + e.what(), false, 0, bytes);
            }
        }

        course::DeviceBuffer<long long> total(1);
        const auto flat = course::time_gpu([&] { enqueue_flat_reduce(d_in.data(), args.n, total.data()); }, runs, 1);
        long long flat_sum = 0;
        total.copy_to_host(&flat_sum, 1);
        table.add("flat_reduce (0 device launches)", std::to_string(flat_sum), flat_sum == expected, flat.median_ms,
                  bytes);

        table.print(std::cout);
        return table.all_correct() ? 0 : 1;
    });
}
