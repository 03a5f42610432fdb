// Chapter 01 demo: the three CPU sums of one random input, checked and timed.
//   build/subprojects/01_serial_recursive/bin/serial_reduce_demo --n 2^24 --seed 1
#include "serial_reduce.hpp"

#include "course/args.hpp"
#include "course/check.hpp"
#include "course/data.hpp"
#include "course/reference.hpp"
#include "course/report.hpp"
#include "course/timer.hpp"

#include <iostream>

int main(int argc, char** argv)
{
    course::ArgSpec spec{"serial_reduce_demo", "sum random ints on the CPU: loop, in-place tree, recursive tree",
                         std::size_t{1} << 24, std::size_t{1} << 30};
    spec.uses_block = false;
    const course::Args args = course::parse_args(argc, argv, spec);

    return course::run_main(spec.program, [&] {
        const auto data = course::random_ints(args.n, args.seed);
        const std::int64_t expected = course::sum_reference(data.data(), args.n);
        std::cout << "n = " << args.n << ", seed = " << args.seed << ", expected sum = " << expected << "\n\n";

        const double bytes = static_cast<double>(args.n * sizeof(int));
        course::ResultTable table("01_serial_recursive: CPU sums (median of 5 runs)");
        std::int64_t got = 0;

        const auto loop = course::time_cpu([&] { got = serial_sum(data.data(), args.n); });
        table.add("serial_sum", std::to_string(got), got == expected, loop.median_ms, bytes);

        // The in-place tree destroys its input: each run gets a fresh 64-bit copy, made outside the timing.
        std::vector<double> ms;
        for (int run = 0; run < 5; ++run) {
            std::vector<std::int64_t> work(data.begin(), data.end());
            course::WallTimer timer;
            got = recursive_sum_in_place(work.data(), args.n);
            ms.push_back(timer.elapsed_ms());
        }
        table.add("recursive_sum_in_place", std::to_string(got), got == expected, course::median(ms),
                  static_cast<double>(args.n * sizeof(std::int64_t)));

        const auto tree = course::time_cpu([&] { got = recursive_sum(data.data(), args.n); });
        table.add("recursive_sum", std::to_string(got), got == expected, tree.median_ms, bytes);

        table.print(std::cout);
        return table.all_correct() ? 0 : 1;
    });
}
