// Chapter 05's problem (course/chapter.hpp), the one declaration its demo and benchmark run: n random ints summed
// by both nested reductions and the flat one, each launch tree's device-side launches counted; the benchmark's
// table, then flat_reduce, the chapter's one-pass kernel, by size. The caller owns the workspace (the benchmark
// measures what making it takes).
#pragma once

#include "nested_progression.hpp"

#include "course/args.hpp"
#include "course/chapter.hpp"
#include "course/problems.hpp"

#include <iterator>
#include <string>

struct NestedProblem : course::IntSum {
    NestedWorkspace& workspace;

    NestedProblem(const course::Args& args, NestedWorkspace& workspace)
        : IntSum("05_nested_dynamic", args), workspace(workspace)
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
};
