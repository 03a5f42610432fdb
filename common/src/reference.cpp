#include "course/reference.hpp"

#include <cmath>

namespace course {

std::int64_t sum_reference(const int* data, std::size_t n)
{
    std::int64_t total = 0;
    for (std::size_t i = 0; i < n; ++i) total += data[i];
    return total;
}

std::int64_t sum_reference(const std::uint8_t* data, std::size_t n)
{
    std::int64_t total = 0;
    for (std::size_t i = 0; i < n; ++i) total += data[i];
    return total;
}

double sum_reference(const float* data, std::size_t n)
{
    double sum = 0, compensation = 0;  // Neumaier's variant of Kahan summation
    for (std::size_t i = 0; i < n; ++i) {
        const double x = data[i];
        const double t = sum + x;
        compensation += std::fabs(sum) >= std::fabs(x) ? (sum - t) + x : (x - t) + sum;
        sum = t;
    }
    return sum + compensation;
}

double sum_abs_reference(const float* data, std::size_t n)
{
    double total = 0;
    for (std::size_t i = 0; i < n; ++i) total += std::fabs(static_cast<double>(data[i]));
    return total;
}

Histogram256 histogram_reference(const std::uint8_t* data, std::size_t n)
{
    Histogram256 bins{};
    for (std::size_t i = 0; i < n; ++i) ++bins[data[i]];
    return bins;
}

void inclusive_scan_reference(const int* in, int* out, std::size_t n)
{
    std::uint32_t running = 0;
    for (std::size_t i = 0; i < n; ++i) {
        running += static_cast<std::uint32_t>(in[i]);
        out[i] = static_cast<int>(running);
    }
}

void exclusive_scan_reference(const int* in, int* out, std::size_t n)
{
    std::uint32_t running = 0;
    for (std::size_t i = 0; i < n; ++i) {
        out[i] = static_cast<int>(running);
        running += static_cast<std::uint32_t>(in[i]);
    }
}

void inclusive_scan_reference(const float* in, double* out, std::size_t n)
{
    double running = 0;
    for (std::size_t i = 0; i < n; ++i) out[i] = running += in[i];
}

void exclusive_scan_reference(const float* in, double* out, std::size_t n)
{
    double running = 0;
    for (std::size_t i = 0; i < n; ++i) {
        out[i] = running;
        running += in[i];
    }
}

std::int64_t periodic_sum_reference(const int* period, std::size_t length, std::size_t n)
{
    return static_cast<std::int64_t>(n / length) * sum_reference(period, length) + sum_reference(period, n % length);
}

}  // namespace course
