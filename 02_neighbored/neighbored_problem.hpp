// Chapter 02's problem (course/chapter.hpp), the one declaration its demo and benchmark run: n random ints,
// summed in place by each step of the progression; the benchmark's table, then its last step by size.
#pragma once

#include "neighbored_progression.hpp"

#include "course/args.hpp"
#include "course/chapter.hpp"
#include "course/problems.hpp"

#include <string>
#include <vector>

struct NeighboredProblem : course::IntSum {
    static constexpr const char* demo_program = "neighbored_demo";
    static constexpr const char* bench_program = "neighbored_bench";
    static std::vector<course::StepFacts> steps() { return course::facts_of(neighbored_progression); }

    NeighboredWorkspace workspace;

    explicit NeighboredProblem(const course::Args& args)
        : IntSum("02_neighbored", args, Input::overwritten), workspace(args.n)
    {
        kernels = course::kernels_of(neighbored_progression, [this](auto launch, std::size_t n, int block) {
            launch(data(), total(), n, block, workspace, 0);
        });
        const std::string title = "02_neighbored, int32, block = " + std::to_string(args.block);
        tables = {progression_table(title)};
        sweeps = {{title, kernels.back().name}};
        demo_note = "GPU times include every pass and the final sum (all on the GPU), not the restore copy.";
    }
};
