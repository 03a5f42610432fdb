// Chapter 04's problem (course/chapter.hpp), the one declaration its demo and benchmark run: n random ints summed
// by each step of the progression. The benchmark's tables: every step at --n; 04.1's best kernel, 04.2 and 04.3
// at 2^20 and 2^22 ints, inputs that stay in the L2 cache from one run to the next (where 04.2 and 04.3 can gain
// what they cannot at 2^28); then reduce_vectorized by size, at block 1024.
#pragma once

#include "unroll_warp_progression.hpp"

#include "course/args.hpp"
#include "course/chapter.hpp"
#include "course/problems.hpp"

#include <string>
#include <vector>

struct UnrollWarpProblem : course::IntSum {
    static constexpr const char* demo_program = "unroll_warp_demo";
    static constexpr const char* bench_program = "unroll_warp_bench";
    static std::vector<course::StepFacts> steps() { return unroll_warp_step_facts(); }

    UnrollWarpWorkspace workspace;

    explicit UnrollWarpProblem(const course::Args& args) : IntSum("04_unroll_warp", args)
    {
        kernels = course::kernels_of(
            unroll_warp_progression,
            [this](auto launch, std::size_t n, int block) { launch(data(), total(), n, block, 0); },
            unroll_warp_vectorized_progression,
            [this](auto launch, std::size_t n, int block) { launch(data(), total(), n, block, workspace, 0); });
        const std::string title = "04_unroll_warp, int32, block = " + std::to_string(args.block);
        tables = {progression_table(title)};
        for (const std::size_t n : {std::size_t{1} << 20, std::size_t{1} << 22}) {  // 4 and 16 MiB
            if (n >= args.n) continue;
            tables.push_back({title + ", " + std::to_string(n * sizeof(int) >> 20) + " MiB: stays in L2 between runs",
                              {{"reduce_unrolling8"}, {"reduce_unroll_warp_syncwarp"}, {"reduce_complete_unroll"}},
                              n});
        }
        // The best kernel at its best block: on the H100 (2026-11-22) reduce_vectorized at 2^28 ran 1.02x CUB at
        // block 1024 and 1.00x at 256, from L2-flushed DRAM (one grid of resident blocks either way, a quarter as
        // many blocks).
        sweeps = {{"04_unroll_warp, int32, block = 1024", kernels.back().name, 1024}};
    }
};
