// Chapter 03's problem (course/chapter.hpp), the one declaration its demo and benchmark run: n random ints summed
// by each step of the progression (reduce_interleaved overwrites its input; the shared-memory kernels only read
// it); the benchmark's table, then its last step by size.
#pragma once

#include "interleaved_progression.hpp"

#include "course/args.hpp"
#include "course/chapter.hpp"
#include "course/problems.hpp"

#include <string>
#include <vector>

struct InterleavedProblem : course::IntSum {
    static constexpr const char* demo_program = "interleaved_demo";
    static constexpr const char* bench_program = "interleaved_bench";
    static std::vector<course::StepFacts> steps() { return interleaved_step_facts(); }

    explicit InterleavedProblem(const course::Args& args) : IntSum("03_interleaved", args, Input::overwritten)
    {
        const auto call = [this](auto launch, std::size_t n, int block) { launch(data(), total(), n, block, 0); };
        kernels = course::kernels_of(interleaved_global_progression, call, interleaved_shared_progression, call);
        const std::string title = "03_interleaved, int32, block = " + std::to_string(args.block);
        tables = {progression_table(title)};
        sweeps = {{title, kernels.back().name}};
        demo_note = "GPU times include zeroing the total, not the restore copy.";
    }
};
