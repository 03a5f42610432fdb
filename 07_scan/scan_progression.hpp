// Chapter 07's progression: its scans in the order the README teaches them. The checks, the demo, the bench and
// tools/profile.sh read these two tables; demo and bench run a subset with --kernel NAME.
#pragma once

#include "scan.hpp"

#include "course/progression.hpp"

#include <cstddef>
#include <string>
#include <vector>

// One block scans everything (Tasks 07.1, 07.2): n is at most single_block_max_n(step, block).
using SingleBlockScan = void(const int* d_in, int* d_out, ScanKind kind, std::size_t n, int block,
                             cudaStream_t stream);
// Any n, with a caller-owned ScanWorkspace (Tasks 07.3 to 07.5).
using MultiTileScan = void(const int* d_in, int* d_out, ScanKind kind, std::size_t n, int block,
                           ScanWorkspace& scratch, cudaStream_t stream);

using ScanSingleBlockStep = course::Step<SingleBlockScan>;
using ScanMultiTileStep = course::Step<MultiTileScan>;

inline const ScanSingleBlockStep scan_single_block_progression[] = {
    {"07.1", "scan_hillis_steele", scan_hillis_steele,
     "one block, one item per thread: log2(block) double-buffered steps, n log n adds"},
    {"07.2", "scan_blelloch", scan_blelloch,
     "two items per thread, up-sweep and down-sweep: 2(n - 1) adds, padded against bank conflicts"},
};

inline const ScanMultiTileStep scan_multi_tile_progression[] = {
    {"07.3", "scan_multiblock", scan_multiblock,
     "any n: Blelloch tiles, their totals scanned recursively and added back (4n element moves)", course::large},
    {"07.4", "scan_warp_shuffle", scan_warp_shuffle,
     "warp-shuffle block scans, 32 items per thread in 16-byte accesses, reduce-then-scan (3n)", course::large},
    {"07.5", "scan_single_pass", scan_single_pass, "one kernel: tiles find their offsets by decoupled look-back (2n)",
     course::large, nullptr, course::timed},
};

// The largest n a single-block scan takes with `block` threads.
inline std::size_t single_block_max_n(const ScanSingleBlockStep& step, int block)
{
    return step.launch == scan_hillis_steele ? hillis_steele_max_n(block) : blelloch_max_n(block);
}

// Every step of the chapter, both tables in order (ArgSpec::steps: what --kernel accepts, --list prints).
inline std::vector<course::StepFacts> scan_step_facts()
{
    return course::facts_of(scan_single_block_progression, scan_multi_tile_progression);
}
