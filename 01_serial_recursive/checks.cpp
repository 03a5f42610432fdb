// Chapter 01 checks. Every test case name starts with its task, so `meson test` shows one line per task and a
// failure reads e.g. "TODO(01.2): recursive_sum_in_place(n=5) returned 12, expected 15".
#include "serial_reduce.hpp"

#include "course/data.hpp"
#include "course/reference.hpp"
#include "course/testing.hpp"

#include <vector>

using course::testing::call;

namespace {

// Odd and even, powers of two and their neighbours, and one a little past 2^20.
const std::size_t sizes[] = {0, 1, 2, 3, 5, 7, 8, 9, 31, 32, 33, 1000, 1023, 1024, 1025, (1u << 20) + 3};

const std::vector<int> one_to_eight{1, 2, 3, 4, 5, 6, 7, 8};  // the README's tree: 36

// Four values near INT_MAX: the total (about 8.6e9) does not fit in 32 bits.
const std::vector<int> near_int_max{2147483000, 2147483001, 2147483002, 2147483003};

std::vector<std::int64_t> widen(const std::vector<int>& v) { return {v.begin(), v.end()}; }

}  // namespace

// ---------------------------------------------------------------------------------------------------- 01.1
TEST_CASE("TODO(01.1) serial_sum: 1..8, sizes 0 to 2^20+3, negative values, 64-bit total")
{
    CHECK_RESULT("TODO(01.1)", call("serial_sum", 8), serial_sum(one_to_eight.data(), 8), 36);
    CHECK_RESULT("TODO(01.1)", call("serial_sum", 4) << " of four values near INT_MAX",
                 serial_sum(near_int_max.data(), 4), course::sum_reference(near_int_max.data(), 4));
    for (std::size_t n : sizes) {
        const auto data = course::random_ints(n, course::testing::seed(n));
        CHECK_RESULT("TODO(01.1)", call("serial_sum", n), serial_sum(data.data(), n),
                     course::sum_reference(data.data(), n));
    }
}

TEST_CASE("TODO(01.1) serial_sum: n = 2^27")
{
    const std::size_t n = std::size_t{1} << 27;
    const auto data = course::random_ints(n, course::testing::seed(1));
    CHECK_RESULT("TODO(01.1)", call("serial_sum", n), serial_sum(data.data(), n), course::sum_reference(data.data(), n));
}

// ---------------------------------------------------------------------------------------------------- 01.2
TEST_CASE("TODO(01.2) recursive_sum_in_place: 1..8, odd sizes, negative values, 64-bit total")
{
    auto example = widen(one_to_eight);
    CHECK_RESULT("TODO(01.2)", call("recursive_sum_in_place", 8), recursive_sum_in_place(example.data(), 8), 36);
    auto big = widen(near_int_max);
    CHECK_RESULT("TODO(01.2)", call("recursive_sum_in_place", 4) << " of four values near INT_MAX",
                 recursive_sum_in_place(big.data(), 4), course::sum_reference(near_int_max.data(), 4));
    for (std::size_t n : sizes) {
        const auto data = course::random_ints(n, course::testing::seed(n));
        auto work = widen(data);
        CHECK_RESULT("TODO(01.2)", call("recursive_sum_in_place", n), recursive_sum_in_place(work.data(), n),
                     course::sum_reference(data.data(), n));
    }
}

TEST_CASE("TODO(01.2) recursive_sum_in_place: n = 2^27 (recursion depth)")
{
    const std::size_t n = std::size_t{1} << 27;
    const auto data = course::random_ints(n, course::testing::seed(2));
    auto work = widen(data);
    CHECK_RESULT("TODO(01.2)", call("recursive_sum_in_place", n), recursive_sum_in_place(work.data(), n),
                 course::sum_reference(data.data(), n));
}

// ---------------------------------------------------------------------------------------------------- 01.3
TEST_CASE("TODO(01.3) recursive_sum: 1..8, odd sizes, negative values, input untouched")
{
    CHECK_RESULT("TODO(01.3)", call("recursive_sum", 8), recursive_sum(one_to_eight.data(), 8), 36);
    CHECK_RESULT("TODO(01.3)", call("recursive_sum", 4) << " of four values near INT_MAX",
                 recursive_sum(near_int_max.data(), 4), course::sum_reference(near_int_max.data(), 4));
    for (std::size_t n : sizes) {
        const auto data = course::random_ints(n, course::testing::seed(n));
        const auto copy = data;
        CHECK_RESULT("TODO(01.3)", call("recursive_sum", n), recursive_sum(data.data(), n),
                     course::sum_reference(copy.data(), n));
        CHECK_ARRAY("TODO(01.3)", call("recursive_sum", n) << " changed its input", data.data(), copy.data(), n);
    }
}

TEST_CASE("TODO(01.3) recursive_sum: n = 2^27 (recursion depth)")
{
    const std::size_t n = std::size_t{1} << 27;
    const auto data = course::random_ints(n, course::testing::seed(3));
    CHECK_RESULT("TODO(01.3)", call("recursive_sum", n), recursive_sum(data.data(), n),
                 course::sum_reference(data.data(), n));
}
