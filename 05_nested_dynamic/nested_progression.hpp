// Chapter 05's progression: the two nested reductions in the order the README teaches them, then the given flat
// one they are measured against. Read by the demo, the bench (--list --json: the manifest) and tools/profile.sh
// (--kernel NAME).
#pragma once

#include "nested.hpp"

#include "course/progression.hpp"

#include <cstddef>
#include <cstring>

using NestedLauncher = void(const int* d_in, long long* d_total, std::size_t n, NestedWorkspace& workspace,
                            cudaStream_t stream);

// flat_reduce in the table's shape: it needs no workspace and makes no device-side launches.
inline void flat_reduce_step(const int* d_in, long long* d_total, std::size_t n, NestedWorkspace&, cudaStream_t stream)
{
    flat_reduce(d_in, d_total, n, stream);
}

using NestedStep = course::Step<NestedLauncher>;

inline const NestedStep nested_progression[] = {
    {"05.1", "nested_reduce", nested_reduce,
     "the tutorial's recursion on CDP2: a chain of one-block grids per 512-element segment, n/64 device launches"},
    {"05.2", "nested_reduce_strided", nested_reduce_strided,
     "one grid per level for all segments, launched by one thread: 9 device launches whatever n", course::large},
    {"given", "flat_reduce", flat_reduce_step,
     "no device launches at all: one grid-stride pass, warp shuffles, one atomic per block"},
};

// Whether a step runs a launch tree (then NestedWorkspace::check() reports on it) or is the flat baseline.
inline bool makes_device_launches(const NestedStep& step)
{
    return std::strcmp(step.task, "given") != 0;
}
