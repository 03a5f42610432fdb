// The demo of the reduction chapters 02 and 03: one random input summed on the CPU and by every step of the
// progression (--kernel picks some), each checked and timed (median of 20 runs, each on a fresh copy of the
// input, restored outside the timing), in one ResultTable. `run(step, d_data, d_total, n)` launches one step,
// as for reduction_bench; `note` says what the GPU times include. Returns the exit code: 0 if all are right.
#pragma once

#include "course/args.hpp"
#include "course/data.hpp"
#include "course/device.hpp"
#include "course/device_buffer.hpp"
#include "course/reference.hpp"
#include "course/report.hpp"
#include "course/timer.hpp"

#include <cstddef>
#include <cstdint>
#include <iostream>
#include <string>

namespace course {

template <class Step, std::size_t N, class Run>
int reduction_demo(const std::string& chapter, const Args& args, const Step (&progression)[N], const Run& run,
                   const std::string& note)
{
    constexpr int gpu_runs = 20;
    std::cout << describe(device_info()) << '\n';
    const auto data = random_ints(args.n, args.seed);
    const std::int64_t expected = sum_reference(data.data(), args.n);
    std::cout << "n = " << args.n << ", block = " << args.block << ", seed = " << args.seed
              << ", expected sum = " << expected << "\n\n";

    const double bytes = static_cast<double>(args.n * sizeof(int));
    ResultTable table(chapter + ", block = " + std::to_string(args.block) + ": median of " +
                      std::to_string(gpu_runs) + " GPU runs, each on a fresh copy of the input");
    std::int64_t cpu = 0;
    const auto cpu_time = time_cpu([&] { cpu = sum_reference(data.data(), args.n); });
    table.add("CPU sum_reference", std::to_string(cpu), cpu == expected, cpu_time.median_ms, bytes);

    // A step may overwrite its input: each run starts from `pristine`, restored outside the timing.
    DeviceBuffer<int> pristine(args.n), work(args.n);
    pristine.copy_from_host(data);
    DeviceBuffer<long long> total(1);
    for (const Step& step : progression) {
        if (!args.wants(step.name)) continue;
        const auto t = time_gpu_with_reset([&] { work.copy_from(pristine); },
                                           [&] { run(step, work.data(), total.data(), args.n); }, gpu_runs);
        const long long got = total.to_host()[0];
        table.add(step.name, std::to_string(got), got == expected, t.median_ms, bytes);
    }
    table.print(std::cout);
    std::cout << note << '\n';
    return table.all_correct() ? 0 : 1;
}

}  // namespace course
