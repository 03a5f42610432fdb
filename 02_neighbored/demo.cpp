// Chapter 02 demo: one random input summed on the CPU and by the chapter's kernels, checked and timed.
//   build/bin/neighbored_demo --n 2^24 --block 256 --seed 1          (chapter built alone)
//   build/subprojects/02_neighbored/bin/neighbored_demo ...          (built from the top level)
//   --kernel NAME runs one kernel of the progression (repeatable); --list prints their names.
#include "neighbored_progression.hpp"

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

namespace {
constexpr int gpu_runs = 20;
}  // namespace

int main(int argc, char** argv)
{
    course::ArgSpec spec{"neighbored_demo",
                         "sum random ints on the GPU: neighbored pairs, then with less divergence",
                         std::size_t{1} << 24, std::size_t{1} << 30};
    spec.steps = course::facts_of(neighbored_progression);
    const course::Args args = course::parse_args(argc, argv, spec);

    return course::run_gpu_main(spec.program, [&] {
        std::cout << course::describe(course::device_info()) << '\n';
        const auto data = course::random_ints(args.n, args.seed);
        const std::int64_t expected = course::sum_reference(data.data(), args.n);
        std::cout << "n = " << args.n << ", block = " << args.block << ", seed = " << args.seed
                  << ", expected sum = " << expected << "\n\n";

        const double bytes = static_cast<double>(args.n * sizeof(int));
        course::ResultTable table("02_neighbored, block = " + std::to_string(args.block) + ": median of " +
                                  std::to_string(gpu_runs) + " GPU runs, each on a fresh copy of the input");
        std::int64_t cpu = 0;
        const auto cpu_time = course::time_cpu([&] { cpu = course::sum_reference(data.data(), args.n); });
        table.add("CPU sum_reference", std::to_string(cpu), cpu == expected, cpu_time.median_ms, bytes);

        // The kernels overwrite their input: each run starts from `pristine`, restored outside the timing.
        course::DeviceBuffer<int> pristine(args.n), work(args.n);
        pristine.copy_from_host(data);
        NeighboredWorkspace workspace(args.n);
        course::DeviceBuffer<long long> total(1);
        for (const NeighboredStep& step : neighbored_progression) {
            if (!args.wants(step.name)) continue;
            const auto t = course::time_gpu_with_reset(
                [&] { work.copy_from(pristine); },
                [&] { step.launch(work.data(), total.data(), args.n, args.block, workspace, 0); }, gpu_runs);
            const long long got = total.to_host()[0];
            table.add(step.name, std::to_string(got), got == expected, t.median_ms, bytes);
        }
        table.print(std::cout);
        std::cout << "GPU times include every pass and the final sum (all on the GPU), not the restore copy.\n";
        return table.all_correct() ? 0 : 1;
    });
}
