// Chapter 01 reference solution.
#include "serial_reduce.hpp"

std::int64_t serial_sum(const int* data, std::size_t n)
{
    std::int64_t total = 0;  // 64-bit: 2^27 values of +-1000 already overflow an int
    for (std::size_t i = 0; i < n; ++i) total += data[i];
    return total;
}

std::int64_t recursive_sum_in_place(std::int64_t* data, std::size_t n)
{
    if (n == 0) return 0;
    if (n == 1) return data[0];
    // Keep the lower ceil(n/2) elements and fold the upper floor(n/2) onto them. For odd n the middle
    // element has no partner and stays as it is; the tutorial's stride = n/2 silently dropped the last
    // element.
    const std::size_t keep = (n + 1) / 2;
    for (std::size_t i = 0; i < n / 2; ++i) data[i] += data[i + keep];
    return recursive_sum_in_place(data, keep);
}

std::int64_t recursive_sum(const int* data, std::size_t n)
{
    if (n == 0) return 0;
    if (n == 1) return data[0];
    const std::size_t half = n / 2;  // both halves shrink by 2x per level: depth ceil(log2 n)
    return recursive_sum(data, half) + recursive_sum(data + half, n - half);
}
