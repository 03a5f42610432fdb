// Chapter 04 benchmark: every int kernel of the progression and CUB's DeviceReduce::Sum on n int32 (default
// 2^28 = 1 GiB), median of --runs timed runs after a warm-up; then the same for 04.1's best kernel, 04.2 and
// 04.3 at 2^20 and 2^22 ints, inputs that stay in the L2 cache from one run to the next (where 04.2 and 04.3
// can gain what they cannot at 2^28); then a size sweep, n = 2^10, 2^12, ..., n, of reduce_vectorized (at block
// 1024) against CUB, cold (L2 flushed) and hot. Every result is verified before it is timed (a wrong kernel gets
// no time).
// --kernel NAME runs only the named kernels. With --csv PATH the tables go to PATH, the sweep to PATH with
// "-sweep" before ".csv".
//   meson test -C build --benchmark --suite 04_unroll_warp
#include "unroll_warp.hpp"
#include "unroll_warp_progression.hpp"

#include "course/args.hpp"
#include "course/check.hpp"
#include "course/conditions.hpp"
#include "course/cub_reference.hpp"
#include "course/data.hpp"
#include "course/device.hpp"
#include "course/device_buffer.hpp"
#include "course/reference.hpp"
#include "course/report.hpp"
#include "course/sweep.hpp"
#include "course/timer.hpp"

#include <functional>
#include <iostream>
#include <iterator>
#include <optional>
#include <string>

namespace {

// The kernels of the L2-resident tables: 04.1's best, then the two steps that only save instructions.
const char* const l2_kernels[] = {"reduce_unrolling8", "reduce_unroll_warp_syncwarp", "reduce_complete_unroll"};
const std::size_t l2_sizes[] = {std::size_t{1} << 20, std::size_t{1} << 22};  // 4 and 16 MiB

}  // namespace

int main(int argc, char** argv)
{
    course::ArgSpec spec{"unroll_warp_bench",
                         "the 04_unroll_warp progression against CUB DeviceReduce::Sum, at L2-resident sizes, and a "
                         "size sweep",
                         std::size_t{1} << 28, std::size_t{1} << 30};
    spec.benchmark = true;
    spec.steps = course::facts_of(unroll_warp_progression);
    const course::Args args = course::parse_args(argc, argv, spec);

    return course::run_gpu_main(spec.program, [&] {
        std::cout << course::describe(course::device_info()) << '\n';
        const double copy_gbps = course::copy_bandwidth_gbps(std::size_t{1} << 30);
        const course::Conditions start = course::read_conditions();
        const auto data = course::random_ints(args.n, args.seed);

        course::DeviceBuffer<int> d_in(args.n);
        d_in.copy_from_host(data);
        course::DeviceBuffer<long long> total(1);
        UnrollWarpWorkspace workspace;
        course::cub_ref::Sum cub_sum(args.n);
        bool all_correct = true;

        // "" when *total holds the sum of the first n elements, else what is wrong.
        const auto wrong_total = [&](std::size_t n) {
            const long long want = course::sum_reference(data.data(), n), got = total.to_host()[0];
            return got == want ? std::string()
                               : "n = " + std::to_string(n) + ": returned " + std::to_string(got) + ", expected " +
                                     std::to_string(want);
        };
        // Poisons the total, runs `reduce` once and checks it, then times it.
        const auto measure = [&](const std::string& name, std::size_t n,
                                 const std::function<void()>& reduce) -> std::optional<course::Timing> {
            total.fill_bytes(0xA5);
            auto timing = course::time_gpu_verified(name, reduce, [&] { return wrong_total(n); }, args.runs);
            all_correct = all_correct && timing.has_value();
            return timing;
        };
        const auto step_call = [&](const UnrollWarpStep& step, std::size_t n, int block) {
            return [&, n, block] { step.launch(d_in.data(), total.data(), n, block, &workspace, 0); };
        };
        const auto cub_call = [&](std::size_t n) { return [&, n] { cub_sum(d_in.data(), total.data(), n); }; };
        // One table at n: the steps of the progression that `include` selects (and --kernel asks for), and CUB.
        bool first_table = true;
        const auto bench_table = [&](const std::string& title, std::size_t n, const std::function<bool(const char*)>& include) {
            course::BenchTable table(title, n, copy_gbps);
            const double bytes = static_cast<double>(n * sizeof(int));
            for (const UnrollWarpStep& step : unroll_warp_progression)
                if (include(step.name) && args.wants(step.name))
                    if (const auto t = measure(step.name, n, step_call(step, n, args.block)))
                        table.add(step.name, *t, bytes);
            if (const auto t = measure("CUB DeviceReduce::Sum", n, cub_call(n)))
                table.set_reference("CUB DeviceReduce::Sum", *t, bytes);
            const std::string conditions = course::describe_conditions(start, course::read_conditions());
            table.print(std::cout, conditions);
            if (!args.csv.empty()) table.write_csv(args.csv, conditions, !first_table);
            first_table = false;
        };

        const std::string block = "block = " + std::to_string(args.block);
        bench_table("04_unroll_warp, int32, " + block, args.n, [](const char*) { return true; });
        for (const std::size_t n : l2_sizes) {
            bool wanted = false;
            for (const char* name : l2_kernels) wanted = wanted || args.wants(name);
            if (n >= args.n || !wanted) continue;
            bench_table("04_unroll_warp, int32, " + block + ", " + std::to_string(n * sizeof(int) >> 20) +
                            " MiB: stays in L2 between runs",
                        n, [](const char* name) {
                            for (const char* k : l2_kernels)
                                if (std::string(k) == name) return true;
                            return false;
                        });
        }

        // The sweep: the best kernel at its best block and CUB at every size, each checked once before it is
        // timed. Block 1024: on the H100 (2026-11-22) reduce_vectorized at 2^28 ran 1.02x CUB at block 1024 and
        // 1.00x at 256, from L2-flushed DRAM (one grid of resident blocks either way, a quarter as many blocks).
        const UnrollWarpStep& best = unroll_warp_progression[std::size(unroll_warp_progression) - 1];
        if (args.wants(best.name)) {
            constexpr int sweep_block = 1024;
            course::SizeSweep sweep("04_unroll_warp, int32, block = " + std::to_string(sweep_block), best.name,
                                    "CUB DeviceReduce::Sum");
            for (const std::size_t n : course::SizeSweep::sizes(args.n))
                all_correct &= sweep.add_verified(
                    n, static_cast<double>(n * sizeof(int)), step_call(best, n, sweep_block), cub_call(n),
                    [&] { total.fill_bytes(0xA5); }, [&, n] { return wrong_total(n); }, args.runs);
            const std::string conditions = course::describe_conditions(start, course::read_conditions());
            sweep.print(std::cout, conditions);
            if (!args.csv.empty()) sweep.write_csv(course::sweep_csv_path(args.csv), conditions);
        }
        return all_correct ? 0 : 1;
    });
}
