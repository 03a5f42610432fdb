// Chapter 05's problem (course/chapter.hpp), the one declaration its demo and benchmark run: n random ints summed
// by both nested reductions and the flat one, each launch tree's device-side launches counted; the benchmark's
// table, then flat_reduce, the chapter's one-pass kernel, by size. What only this chapter's benchmark shows (its
// hooks, bench.cpp): what making the workspace took, and the cost of one device-side launch as a curve over n.
#pragma once

#include "nested.hpp"
#include "nested_progression.hpp"

#include "course/args.hpp"
#include "course/chapter.hpp"
#include "course/check.hpp"
#include "course/device.hpp"
#include "course/launch.hpp"
#include "course/problems.hpp"
#include "course/report.hpp"
#include "course/sweep.hpp"

#include <algorithm>
#include <fstream>
#include <iostream>
#include <iterator>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

struct NestedProblem : course::IntSum {
    static constexpr const char* demo_program = "nested_demo";
    static constexpr const char* bench_program = "nested_bench";
    static std::vector<course::StepFacts> steps() { return course::facts_of(nested_progression); }
    static constexpr std::size_t bench_n = std::size_t{1} << 26;  // nested_reduce: about a million device launches
    static constexpr std::size_t max_n = std::size_t{1} << 28;
    static constexpr bool uses_block = false;

    // The workspace reserves the pending-launch slots a tree of n ints needs (nested.hpp); the device memory free
    // before it is made tells what that took besides its own buffers.
    const std::size_t free_before_workspace;
    NestedWorkspace workspace;
    const std::size_t workspace_taken;

    explicit NestedProblem(const course::Args& args)
        : IntSum("05_nested_dynamic", args), free_before_workspace(course::free_device_memory()), workspace(args.n),
          workspace_taken(free_before_workspace - std::min(free_before_workspace, course::free_device_memory()))
    {
        kernels = course::kernels_of(nested_progression, [this](auto launch, std::size_t n, int) {
            launch(data(), total(), n, this->workspace, nullptr);
        });
        // check() counts a tree's launches, and throws for a tree that failed (then the total is no sum).
        for (std::size_t i = 0; i < std::size(nested_progression); ++i) {
            const bool tree = makes_device_launches(nested_progression[i]);
            kernels[i].after_run = [this, tree] {
                return std::to_string(tree ? this->workspace.check() : 0) + " device launches";
            };
        }
        tables = {progression_table("05_nested_dynamic: nested reductions vs a flat one")};
        sweeps = {{"05_nested_dynamic, int32", "flat_reduce"}};
        demo_runs = 5;
    }

    // The benchmark's header: the pending-launch limit the workspace left (what the driver kept) and the device
    // memory making it took, of which its own buffers.
    std::string workspace_report() const
    {
        std::size_t limit = 0;
        CUDA_CHECK(cudaDeviceGetLimit(&limit, cudaLimitDevRuntimePendingLaunchCount));
        const std::size_t n = workspace.max_n();
        const std::size_t buffers = course::ceil_div(n, nested_segment) * (nested_segment / 2 + 1) * sizeof(long long);
        return "NestedWorkspace(" + std::to_string(n) + "): pending-launch limit now " + std::to_string(limit) +
               "; device memory taken " + std::to_string(workspace_taken >> 20) + " MiB, of which its buffers " +
               std::to_string(buffers >> 20) + " MiB\n";
    }

    // The benchmark's last part (bench.cpp): nested_reduce against flat_reduce from 2^16 up to --n, 5 runs each; at
    // --n the progression's timings, with more runs, when it timed both.
    void launch_costs(course::Bench& bench)
    {
        const course::Kernel& nested = kernel("nested_reduce");
        const course::Kernel& flat = kernel("flat_reduce");
        constexpr int curve_runs = 5;
        std::vector<LaunchCost> costs;
        for (std::size_t n = std::size_t{1} << 16; n <= bench.args.n; n *= 2) {
            const bool in_table = n == bench.args.n && bench.first_table_timing(nested.name) &&
                                  bench.first_table_timing(flat.name);
            const auto timing = [&](const course::Kernel& k) {
                return in_table ? bench.first_table_timing(k.name)
                                : bench.measure(k, n, 0, k.name + " n=" + std::to_string(n), curve_runs);
            };
            const auto nested_time = timing(nested), flat_time = timing(flat);
            if (!nested_time || !flat_time) continue;
            nested.run(n, 0);  // once more, for its launch count (other kernels ran since)
            CUDA_CHECK(cudaDeviceSynchronize());
            if (const std::uint64_t launches = workspace.check(); launches > 0)
                costs.push_back({n, launches, *nested_time, *flat_time});
        }
        report(costs, bench.conditions(), bench.args.csv);
    }

private:
    struct LaunchCost {
        std::size_t n;
        std::uint64_t device_launches;
        course::Timing nested, flat;
        double us_per_launch() const
        {
            return 1000.0 * (nested.median_ms - flat.median_ms) / static_cast<double>(device_launches);
        }
    };

    // The curve as a table on stdout and, when `csv` names the benchmark's CSV, in its "-launch-costs" file.
    static void report(const std::vector<LaunchCost>& rows, const std::string& conditions, const std::string& csv)
    {
        std::cout << "### What one device-side launch costs, by n (nested_reduce against flat_reduce)\n\n"
                  << "| n | device launches | nested_reduce ms | flat_reduce ms | us per device launch | runs |\n"
                  << "|---:|---:|---:|---:|---:|---:|\n";
        for (const LaunchCost& r : rows)
            std::cout << "| 2^" << __builtin_ctzll(r.n) << " | " << r.device_launches << " | "
                      << course::fixed(r.nested.median_ms, 3) << " | " << course::fixed(r.flat.median_ms, 3) << " | "
                      << course::fixed(r.us_per_launch(), 2) << " | " << r.nested.runs << " |\n";
        std::cout << "\nus per device launch = (nested_reduce ms - flat_reduce ms) * 1000 / device launches, from the "
                     "medians.\n"
                  << conditions << "\n\n";
        if (csv.empty()) return;
        const std::string path = course::sweep_csv_path(csv, "launch-costs");
        std::ofstream f(path);
        if (!f) throw std::runtime_error("cannot write " + path);
        f << "n,device_launches,nested_reduce_ms,flat_reduce_ms,us_per_device_launch,runs,conditions\n";
        for (const LaunchCost& r : rows)
            f << r.n << ',' << r.device_launches << ',' << r.nested.median_ms << ',' << r.flat.median_ms << ','
              << r.us_per_launch() << ',' << r.nested.runs << ',' << course::csv_field(conditions) << '\n';
    }
};
