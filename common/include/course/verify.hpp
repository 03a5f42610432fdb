// Comparing a result with a reference: the first mismatch (index, expected, got), or nothing.
#pragma once

#include <cmath>
#include <cstddef>
#include <optional>
#include <sstream>
#include <string>

namespace course {

template <class T>
struct Mismatch {
    std::size_t index;
    T expected;
    T got;
};

// Exact comparison, for integer results.
template <class T, class U>
std::optional<Mismatch<T>> first_mismatch(const T* expected, const U* got, std::size_t n)
{
    for (std::size_t i = 0; i < n; ++i)
        if (!(expected[i] == static_cast<T>(got[i]))) return Mismatch<T>{i, expected[i], static_cast<T>(got[i])};
    return std::nullopt;
}

// |got - expected| <= abs_tol + rel_tol * |expected| at every index; NaN never passes.
template <class U>
std::optional<Mismatch<double>> first_mismatch(const double* expected, const U* got, std::size_t n,
                                               double abs_tol, double rel_tol)
{
    for (std::size_t i = 0; i < n; ++i) {
        const double g = static_cast<double>(got[i]);
        const double err = std::fabs(g - expected[i]);
        if (!(err <= abs_tol + rel_tol * std::fabs(expected[i]))) return Mismatch<double>{i, expected[i], g};
    }
    return std::nullopt;
}

// "first mismatch at index 5 of 33: expected 15, got 0"
template <class T>
std::string describe(const Mismatch<T>& m, std::size_t n)
{
    std::ostringstream s;
    s.precision(17);
    s << "first mismatch at index " << m.index << " of " << n << ": expected " << +m.expected << ", got " << +m.got;
    return s.str();
}

}  // namespace course
