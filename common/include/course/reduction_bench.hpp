// The benchmark of the reduction chapters 02 and 03: each step of the progression reduces n ints into one
// long long, verified and then timed (median of --runs after a warm-up), against CUB DeviceReduce::Sum in
// the same run; then the last step and CUB by size (course/sweep.hpp), cold and hot. A wrong step gets no
// time, and the program then exits 1. `run(step, d_data, d_total, n)` launches one step: the chapters'
// launchers differ in their extra arguments. A step may overwrite its input: every checked run reduces a
// fresh copy of it.
#pragma once

#include "course/args.hpp"
#include "course/conditions.hpp"
#include "course/cub_reference.hpp"
#include "course/data.hpp"
#include "course/device.hpp"
#include "course/device_buffer.hpp"
#include "course/reference.hpp"
#include "course/report.hpp"
#include "course/sweep.hpp"
#include "course/timer.hpp"

#include <cstddef>
#include <iostream>
#include <string>

namespace course {

template <class Step, std::size_t N, class Run>
int reduction_bench(const std::string& chapter, const Args& args, const Step (&progression)[N], const Run& run)
{
    std::cout << describe(device_info()) << '\n';
    const double copy_gbps = copy_bandwidth_gbps(std::size_t{1} << 30);
    const Conditions start = read_conditions();
    const auto data = random_ints(args.n, args.seed);
    DeviceBuffer<int> pristine(args.n), work(args.n);
    pristine.copy_from_host(data);
    DeviceBuffer<long long> total(1);
    const auto wrong_total = [&](std::size_t n) -> std::string {
        const long long want = sum_reference(data.data(), n), got = total.to_host()[0];
        return got == want ? "" : "returned " + std::to_string(got) + ", expected " + std::to_string(want);
    };
    cub_ref::Sum cub_sum(args.n);
    const auto cub_call = [&](std::size_t n) { return [&, n] { cub_sum(pristine.data(), total.data(), n); }; };
    const std::string title = chapter + ", int32, block = " + std::to_string(args.block);
    const double bytes = static_cast<double>(args.n * sizeof(int));

    BenchTable table(title, args.n, copy_gbps);
    bool all_correct = true;
    for (const Step& step : progression) {
        if (!args.wants(step.name)) continue;
        // The verified run reduces a fresh copy. The timed runs then reduce what earlier runs left in `work`:
        // the kernels' work (which threads add, what they load and store) does not depend on the values, so
        // the time is the same, and no restore copy sits between the timed runs.
        work.copy_from(pristine);
        const auto timing = time_gpu_verified(
            step.name, [&] { run(step, work.data(), total.data(), args.n); }, [&] { return wrong_total(args.n); },
            args.runs);
        if (timing) table.add(step.name, *timing, bytes);
        else all_correct = false;
    }
    const auto cub = time_gpu_verified("CUB DeviceReduce::Sum", cub_call(args.n), [&] { return wrong_total(args.n); },
                                       args.runs);
    if (!cub) return 1;
    table.set_reference("CUB DeviceReduce::Sum", *cub, bytes);
    const std::string conditions = describe_conditions(start, read_conditions());
    table.print(std::cout, conditions);
    if (!args.csv.empty()) table.write_csv(args.csv, conditions);

    const Step& last = progression[N - 1];
    if (args.wants(last.name)) {
        SizeSweep sweep(title, last.name, "CUB DeviceReduce::Sum");
        for (const std::size_t n : SizeSweep::sizes(args.n))
            all_correct &= sweep.add_verified(
                n, static_cast<double>(n * sizeof(int)), [&, n] { run(last, work.data(), total.data(), n); },
                cub_call(n), [&] { work.copy_from(pristine); total.fill_bytes(0xA5); },
                [&, n] { return wrong_total(n); }, args.runs);
        const std::string sweep_conditions = describe_conditions(start, read_conditions());
        sweep.print(std::cout, sweep_conditions);
        if (!args.csv.empty()) sweep.write_csv(sweep_csv_path(args.csv), sweep_conditions);
    }
    return all_correct ? 0 : 1;
}

}  // namespace course
