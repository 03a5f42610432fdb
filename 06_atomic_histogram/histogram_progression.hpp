// Chapter 06's progression: the GPU histograms in the order the README teaches them. Checks, demo, bench and
// tools/profile.sh read this one table (course/progression.hpp); the CPU loop of Task 06.1 is not in it.
#pragma once

#include "histogram.hpp"

#include "course/progression.hpp"

using HistogramLauncher = void(const std::uint8_t* d_in, unsigned* d_bins, std::size_t n, int block,
                               cudaStream_t stream);
using HistogramStep = course::Step<HistogramLauncher>;

inline constexpr HistogramStep histogram_progression[] = {
    {"06.2", "histogram_global_atomics", histogram_global_atomics,
     "the tutorial's first GPU version: one global atomicAdd per byte", course::large},
    {"06.3", "histogram_shared_atomics", histogram_shared_atomics,
     "privatization: 256 bins per block in shared memory, added to the global bins once", course::large},
    {"06.4", "histogram_sub_histograms", histogram_sub_histograms,
     "32 transposed sub-histograms (no bank conflicts), grid from the occupancy API", course::large},
    {"06.5", "histogram_vectorized", histogram_vectorized,
     "16-byte loads, four in flight per thread, one add for 16 equal bytes", course::large, nullptr, course::timed},
};
