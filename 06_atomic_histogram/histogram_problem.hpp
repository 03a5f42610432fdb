// Chapter 06's problem (course/chapter.hpp), the one declaration its demo and benchmark run: 256-bin histograms of
// n random bytes, uniform (the demo's input) and all identical. The benchmark's tables: each input at --n and at
// the tutorial's 100 MiB, the tutorial's two kernels (Tasks 06.2, 06.3) as the tutorial ran them, with 256-thread
// blocks, 06.4 and 06.5 at --block; then histogram_vectorized by size, for each input.
#pragma once

#include "histogram.hpp"
#include "histogram_progression.hpp"

#include "course/args.hpp"
#include "course/chapter.hpp"
#include "course/problems.hpp"

#include <string>
#include <vector>

struct HistogramProblem : course::ByteHistogram {
    static constexpr const char* demo_program = "histogram_demo";
    static constexpr const char* bench_program = "histogram_bench";
    static std::vector<course::StepFacts> steps() { return course::facts_of(histogram_progression); }
    static constexpr std::size_t tutorial_n = std::size_t{100} << 20;  // the tutorial's 100 MiB
    static constexpr int tutorial_block = 256;
    static constexpr std::size_t demo_n = tutorial_n;
    static constexpr std::size_t bench_n = std::size_t{1} << 30;
    static constexpr std::size_t max_n = histogram_max_n;
    static constexpr int bench_block = 1024;

    explicit HistogramProblem(const course::Args& args)
        : ByteHistogram("06_atomic_histogram", args,
                        {course::ByteDistribution::uniform, course::ByteDistribution::identical},
                        {"histogram_cpu (1 CPU thread)", histogram_cpu})
    {
        kernels = course::kernels_of(histogram_progression, [this](auto launch, std::size_t n, int block) {
            launch(data(), bins(), n, block, 0);
        });
        std::vector<std::size_t> sizes{args.n};
        if (args.n > tutorial_n) sizes.push_back(tutorial_n);
        for (const std::string& input : inputs()) {
            for (const std::size_t n : sizes) tables.push_back(table(input, n, args.wants("histogram_global_atomics")));
            sweeps.push_back({"06_atomic_histogram, " + input + " bytes", kernels.back().name, 0, input});
        }
        demo_runs = 5;
    }

private:
    static std::string mib(std::size_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }

    // Global atomics run at a few GB/s: timed on up to 100 MiB only.
    static course::Table table(const std::string& input, std::size_t n, bool global_atomics_wanted)
    {
        course::Table table{"06_atomic_histogram: " + input + " bytes, " + mib(n), {}, n, input};
        for (const HistogramStep& step : histogram_progression) {
            const bool tutorial = step.launch == histogram_global_atomics || step.launch == histogram_shared_atomics;
            if (step.launch == histogram_global_atomics && n > tutorial_n) continue;
            const std::string label = std::string(step.name) + " (" + step.task + ")";
            table.rows.push_back({step.name, tutorial ? tutorial_block : 0, label});
        }
        if (n > tutorial_n && global_atomics_wanted)
            table.note = "histogram_global_atomics (06.2) not timed above " + mib(tutorial_n) +
                         ": at a few GB/s each run would take a large part of a second; see the " + mib(tutorial_n) +
                         " table.";
        return table;
    }
};
