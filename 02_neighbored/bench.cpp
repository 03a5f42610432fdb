// Chapter 02 benchmark: the progression and CUB's DeviceReduce::Sum on n int32 (default 2^28 = 1 GiB), median
// of --runs timed runs after a warm-up; every kernel's result is verified first (a wrong kernel gets no time).
//   meson test -C build --benchmark --suite 02_neighbored
//   build/bin/neighbored_bench --kernel reduce_neighbored_less --runs 50      (chapter built alone)
#include "neighbored_progression.hpp"

#include "course/args.hpp"
#include "course/check.hpp"
#include "course/conditions.hpp"
#include "course/cub_reference.hpp"
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
    course::ArgSpec spec{"neighbored_bench", "the 02_neighbored progression against CUB DeviceReduce::Sum",
                         std::size_t{1} << 28, std::size_t{1} << 30};
    spec.benchmark = true;
    spec.kernels = course::names_of(neighbored_progression);
    const course::Args args = course::parse_args(argc, argv, spec);

    return course::run_gpu_main(spec.program, [&] {
        std::cout << course::describe(course::device_info()) << '\n';
        const double copy_gbps = course::copy_bandwidth_gbps(std::size_t{1} << 30);
        const course::Conditions start = course::read_conditions();
        const auto data = course::random_ints(args.n, args.seed);
        const long long expected = course::sum_reference(data.data(), args.n);
        const double bytes = static_cast<double>(args.n * sizeof(int));

        course::DeviceBuffer<int> pristine(args.n), work(args.n);
        pristine.copy_from_host(data);
        NeighboredWorkspace workspace(args.n);
        course::DeviceBuffer<long long> total(1);
        const auto check_total = [&]() -> std::string {
            const long long got = total.to_host()[0];
            return got == expected ? "" : "returned " + std::to_string(got) + ", expected " + std::to_string(expected);
        };
        course::BenchTable table("02_neighbored, int32, block = " + std::to_string(args.block), args.n, copy_gbps);
        bool all_correct = true;
        for (const NeighboredStep& step : neighbored_progression) {
            if (!args.wants(step.name)) continue;
            // The verified run reduces a fresh copy. The timed runs then reduce what earlier runs left in
            // `work`: the kernels' work (which threads add, what they load and store) does not depend on the
            // values, so the time is the same, and no restore copy sits between the timed runs.
            work.copy_from(pristine);
            const auto timing = course::time_gpu_verified(
                step.name, [&] { step.launch(work.data(), total.data(), args.n, args.block, workspace, 0); },
                check_total, args.runs);
            if (timing)
                table.add(step.name, *timing, bytes);
            else
                all_correct = false;
        }

        course::cub_ref::Sum cub_sum(args.n);
        const auto cub = course::time_gpu_verified(
            "CUB DeviceReduce::Sum", [&] { cub_sum(pristine.data(), total.data(), args.n); }, check_total, args.runs);
        if (!cub) return 1;
        table.set_reference("CUB DeviceReduce::Sum", *cub, bytes);

        const std::string conditions = course::describe_conditions(start, course::read_conditions());
        table.print(std::cout, conditions);
        if (!args.csv.empty()) table.write_csv(args.csv, conditions);
        return all_correct ? 0 : 1;
    });
}
