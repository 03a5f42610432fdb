// CPU references every GPU result is compared with. They are written plainly (one loop each) so that they
// are obviously right; they are not the chapter-01 exercises.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace course {

// Exact 64-bit sums of integer data.
std::int64_t sum_reference(const int* data, std::size_t n);
std::int64_t sum_reference(const std::uint8_t* data, std::size_t n);
// The sum of n elements that repeat `period` (length elements) from its start, as course::fill_periodic
// writes them: whole periods times the period's sum, plus the first n % length elements.
std::int64_t periodic_sum_reference(const int* period, std::size_t length, std::size_t n);

// Sum of floats in double with Neumaier compensation: its own error is far below float rounding, so it can
// stand in for the exact sum when a float kernel's tolerance is derived.
double sum_reference(const float* data, std::size_t n);

// Sum of |x|: the scale for a float sum's error bound (n * eps * sum|x| for any summation order).
double sum_abs_reference(const float* data, std::size_t n);

using Histogram256 = std::array<std::uint64_t, 256>;
Histogram256 histogram_reference(const std::uint8_t* data, std::size_t n);

// out[i] = in[0] + ... + in[i]            (inclusive)
// out[i] = in[0] + ... + in[i-1], out[0]=0 (exclusive)
// In int32 the running total wraps modulo 2^32 like the GPU's int adds do (computed in unsigned arithmetic,
// so the reference itself has no signed-overflow UB).
void inclusive_scan_reference(const int* in, int* out, std::size_t n);
void exclusive_scan_reference(const int* in, int* out, std::size_t n);
// Float scans accumulate in double.
void inclusive_scan_reference(const float* in, double* out, std::size_t n);
void exclusive_scan_reference(const float* in, double* out, std::size_t n);

}  // namespace course
