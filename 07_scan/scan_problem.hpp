// Chapter 07's problem (course/chapter.hpp), the one declaration its demo and benchmark run: inclusive int32 scans
// of n random ints by both progression tables (the single-block scans take the first max_n(block) items; GB/s
// count read + write, 8n bytes). The benchmark's tables: the multi-tile scans, each labelled with what it changes
// in element moves; scan_single_pass by block size; the single-block scans on one block's worth of data, where
// every call is launch-bound; then scan_single_pass by size.
#pragma once

#include "scan_progression.hpp"

#include "course/args.hpp"
#include "course/chapter.hpp"
#include "course/problems.hpp"

#include <algorithm>
#include <iterator>
#include <string>
#include <vector>

struct ScanProblem : course::IntScan {
    static constexpr const char* demo_program = "scan_demo";
    static constexpr const char* bench_program = "scan_bench";
    static std::vector<course::StepFacts> steps() { return scan_step_facts(); }

    ScanWorkspace scratch;

    explicit ScanProblem(const course::Args& args) : IntScan("07_scan", args), scratch(args.n)
    {
        kernels = course::kernels_of(
            scan_single_block_progression,
            [this](auto launch, std::size_t n, int block) {
                launch(data(), out(), ScanKind::inclusive, n, block, nullptr);
            },
            scan_multi_tile_progression,
            [this](auto launch, std::size_t n, int block) {
                launch(data(), out(), ScanKind::inclusive, n, block, scratch, nullptr);
            });
        for (std::size_t i = 0; i < std::size(scan_single_block_progression); ++i)
            kernels[i].max_n = [&step = scan_single_block_progression[i]](int block) {
                return single_block_max_n(step, block);
            };
        // A look-back that waited too long gives up: the scratch records it, the output need not show it.
        for (course::Kernel& k : kernels)
            k.after_run = [this, name = k.name] {
                scratch.check(name);
                return std::string();
            };

        const std::string block = std::to_string(args.block);
        static constexpr const char* labels[] = {"scan_multiblock (Blelloch tiles, 4n moves)",
                                                 "scan_warp_shuffle (reduce-then-scan, 3n)",
                                                 "scan_single_pass (decoupled look-back, 2n)"};
        static_assert(std::size(labels) == std::size(scan_multi_tile_progression),
                      "one label per step of the progression");
        course::Table& progression = tables.emplace_back();
        progression.title = "07_scan: inclusive int32 scan, block " + block;
        for (std::size_t k = 0; k < std::size(scan_multi_tile_progression); ++k)
            progression.rows.push_back({scan_multi_tile_progression[k].name, 0, labels[k]});

        course::Table& by_block = tables.emplace_back();
        by_block.title = "07_scan: scan_single_pass by block size";
        for (int b : {64, 128, 256, 512, 1024})
            by_block.rows.push_back({"scan_single_pass", b, "scan_single_pass, block " + std::to_string(b)});

        // One block's worth: a few microseconds per call, almost all of it launch and latency (Hillis-Steele takes
        // 1024 items at block 1024, Blelloch at block 512).
        course::Table& single_block = tables.emplace_back();
        single_block.title = "07_scan: single-block scans (launch-bound)";
        single_block.n = std::min<std::size_t>(args.n, 1024);
        for (const ScanSingleBlockStep& step : scan_single_block_progression) {
            int fitting = 32;  // the smallest block that holds the items
            while (single_block_max_n(step, fitting) < single_block.n) fitting *= 2;
            const std::string label = std::string(step.name) + ", block " + std::to_string(fitting);
            single_block.rows.push_back({step.name, fitting, label});
        }
        single_block.rows.push_back({"scan_single_pass", args.block, "scan_single_pass, block " + block});

        sweeps = {{"07_scan, inclusive int32, block " + block, "scan_single_pass"}};
        demo_runs = 5;
    }
};
