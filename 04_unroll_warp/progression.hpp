// The int kernels of chapter 04 in the order the README and the benchmark present them (demo and bench).
#pragma once

#include "unroll_warp.hpp"

#include <cstddef>

struct IntVariant {
    const char* name;
    void (*reduce)(const int*, std::size_t, long long*, int);
};

inline const IntVariant progression[] = {
    {"reduce_unrolling2", reduce_unrolling2},
    {"reduce_unrolling4", reduce_unrolling4},
    {"reduce_unrolling8", reduce_unrolling8},
    {"reduce_unroll_warp_syncwarp", reduce_unroll_warp_syncwarp},
    {"reduce_complete_unroll", reduce_complete_unroll},
    {"reduce_grid_stride", reduce_grid_stride},
    {"reduce_shfl", reduce_shfl},
    {"reduce_cg", reduce_cg},
    {"reduce_redux", reduce_redux},
    {"reduce_vectorized", reduce_vectorized},  // the best kernel: the size sweep compares it with CUB
};
