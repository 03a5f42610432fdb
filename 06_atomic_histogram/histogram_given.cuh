// Chapter 06: given, not to edit. What the student's file (starter/ or solution/histogram_student.cuh) builds
// on: the chapter's API, the 16-byte vector split (course/vector_access.cuh, taught in Task 04.6) and the sizes the
// kernels share.
#pragma once

#include "histogram.hpp"

#include "course/vector_access.cuh"

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

constexpr int kBins = static_cast<int>(histogram_bins);  // one bin per byte value
constexpr int kLanes = 32;               // sub-histograms per block in Tasks 06.4 and 06.5: one per lane of a warp
constexpr int kVectorsPerIteration = 4;  // 16-byte loads each thread keeps in flight in Task 06.5

// Every function of the chapter accepts at most histogram_max_n = 2^32 - 1 bytes, so that no 32-bit bin can wrap:
// throws std::invalid_argument naming `function` for a larger n.
inline void check_histogram_n(const char* function, std::size_t n)
{
    if (n > histogram_max_n)
        throw std::invalid_argument(std::string(function) + ": n = " + std::to_string(n) +
                                    " bytes could overflow a 32-bit bin (at most 2^32 - 1 bytes)");
}
