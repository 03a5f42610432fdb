// Chapter 05 checks. Every test case name starts with its task, so `meson test` shows one line per task and a
// failure reads e.g. "TODO(05.1): nested_reduce(n=513) returned 0, expected -4711".
#include "nested.hpp"

#include "course/data.hpp"
#include "course/device_buffer.hpp"
#include "course/reference.hpp"
#include "course/testing.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <optional>
#include <vector>

using course::testing::call;

// compute-sanitizer says so itself: "CUDA Dynamic Parallelism is not supported by the selected tool", and
// initcheck then reports the results written by child grids as uninitialized.
constexpr const char* no_cdp_support = "this tool does not support CUDA Dynamic Parallelism";
// The fault hook makes device-side launches invalid on purpose (2048 threads per block); memcheck reports
// an 8-byte write past the device runtime's launch-parameter buffer of the rejected launch (README, 05.3).
constexpr const char* invalid_launch_report =
    "the deliberately invalid device-side launch trips memcheck inside the device runtime (README, TODO 05.3)";

namespace {

// Small and odd sizes, one segment (512) and its neighbours, a prime near 10^6, 1000003, 2^24+7 and 2^26.
// Under compute-sanitizer the last two are left out (the tools run every grid 10-100x slower).
std::vector<std::size_t> check_sizes()
{
    std::vector<std::size_t> sizes{0,   1,   2,   3,   4,   5,    7,    8,    31,     32,     33,     255,
                                   256, 257, 511, 512, 513, 1023, 1024, 1025, 999983, 1000003};
    if (!course::testing::under_sanitizer()) {
        sizes.push_back((std::size_t{1} << 24) + 7);
        sizes.push_back(std::size_t{1} << 26);
    }
    return sizes;
}

// One random input of the largest size, on the host and on the device; every size uses a prefix of it.
struct Input {
    explicit Input(std::size_t n, std::uint64_t salt)
        : host(course::random_ints(n, course::testing::seed(salt))), device(n)
    {
        device.copy_from_host(host);
    }
    std::int64_t expected(std::size_t n) const { return course::sum_reference(host.data(), n); }
    std::vector<int> host;
    course::DeviceBuffer<int> device;
};

// Poisons the level buffers and the result, runs one reduction, and turns a NestedLaunchError into a failure
// that names the task.
std::optional<NestedResult> reduce_once(const std::string& task, NestedReduction& reduction, NestedVariant variant,
                                        const int* d_in, std::size_t n)
{
    reduction.poison(0xAB);
    try {
        reduction.enqueue(variant, d_in, n);
        return reduction.wait();
    } catch (const NestedLaunchError& e) {
        FAIL_CHECK(std::string(task) << ": " << call(to_string(variant), n) << " gave no sum: " << std::string(e.what()));
        return std::nullopt;
    }
}

void check_sum(const std::string& task, NestedReduction& reduction, NestedVariant variant, const int* d_in, std::size_t n,
               std::int64_t expected, const std::string& what = "")
{
    if (const auto got = reduce_once(task, reduction, variant, d_in, n))
        CHECK_RESULT(task, call(to_string(variant), n) << what, got->sum, expected);
}

// The README's tree, values near INT_MAX (a 32-bit partial sum would overflow), then every size of random
// data with negative values; finally the input must be unchanged and the one-call form must agree.
void check_variant(const std::string& task, NestedVariant variant)
{
    const std::vector<int> one_to_eight{1, 2, 3, 4, 5, 6, 7, 8};
    course::DeviceBuffer<int> d_example(one_to_eight.size());
    d_example.copy_from_host(one_to_eight);

    const std::size_t big_n = 100003;
    const std::vector<int> near_int_max(big_n, INT_MAX - 7);
    course::DeviceBuffer<int> d_big(big_n);
    d_big.copy_from_host(near_int_max);

    const auto sizes = check_sizes();
    const Input input(sizes.back(), 5);
    NestedReduction reduction(sizes.back());

    check_sum(task, reduction, variant, d_example.data(), 8, 36, " of 1..8");
    check_sum(task, reduction, variant, d_big.data(), big_n, course::sum_reference(near_int_max.data(), big_n),
              " of values near INT_MAX");
    for (std::size_t n : sizes) check_sum(task, reduction, variant, input.device.data(), n, input.expected(n));

    const std::vector<int> after = input.device.to_host();
    CHECK_ARRAY(task, call(to_string(variant), sizes.back()) << " changed its input", after.data(),
                input.host.data(), after.size());

    const std::size_t n = 1000003;
    const std::int64_t got = variant == NestedVariant::seed ? nested_reduce(input.device.data(), n)
                                                            : nested_reduce_strided(input.device.data(), n);
    CHECK_RESULT(task, call(to_string(variant), n) << " (one-call form)", got, input.expected(n));
}

// Device-side launches the README's structure makes, counted independently of the chapter's code.
std::uint64_t expected_launches(NestedVariant variant, std::size_t n)
{
    if (n == 0) return 0;
    if (variant == NestedVariant::strided) return 8 + 1;  // strides 128, 64, ..., 1, then sum_partials
    std::uint64_t launches = 1;                           // sum_partials
    for (std::size_t first = 0; first < n; first += nested_segment) {
        const std::size_t len = std::min<std::size_t>(nested_segment, n - first);
        std::uint64_t levels = 0;  // ceil(log2 len): halvings until one value is left
        for (std::size_t values = len; values > 1; values = (values + 1) / 2) ++levels;
        if (levels > 1) launches += levels - 1;  // the top-level grid does the first halving itself
    }
    return launches;
}

void check_failure_is_reported(const std::string& task, NestedVariant variant, const int* d_in, std::size_t n)
{
    NestedReduction reduction(n);
    reduction.force_launch_failure(true);
    reduction.enqueue(variant, d_in, n);
    try {
        const NestedResult got = reduction.wait();
        FAIL_CHECK(task << ": " << call(to_string(variant), n) << " with failing device-side launches returned "
                        << got.sum << " instead of an error");
    } catch (const NestedLaunchError& e) {
        VERIFY(e.device_error() != cudaSuccess,
               task << ": " << call(to_string(variant), n) << ": the failed device-side launch never reached "
                    << "status->error (" << std::string(e.what()) << ")");
        MESSAGE(call(to_string(variant), n) << " with the fault hook on: " << std::string(e.what()));
    }
}

}  // namespace

// ---------------------------------------------------------------------------------------------------- 05.1
TEST_CASE("TODO(05.1) nested_reduce: 1..8, sizes 0 to 2^26, negative values, 64-bit totals, input untouched")
{
    REQUIRE_GPU();
    SKIP_UNDER_SANITIZER(no_cdp_support, "racecheck", "synccheck", "initcheck");
    check_variant("TODO(05.1)", NestedVariant::seed);
}

TEST_CASE("TODO(05.1) nested_reduce: bad arguments are rejected, n = 0 launches nothing")
{
    REQUIRE_GPU();
    SKIP_UNDER_SANITIZER(no_cdp_support, "racecheck", "synccheck", "initcheck");
    course::DeviceBuffer<int> d_in(1000);
    NestedReduction reduction(1000);
    CHECK_THROWS_AS(reduction.enqueue(NestedVariant::seed, d_in.data(), 1001), std::invalid_argument);
    CHECK_THROWS_AS(reduction.enqueue(NestedVariant::seed, nullptr, 10), std::invalid_argument);
    CHECK_THROWS_AS(reduction.wait(), std::logic_error);
    CHECK_RESULT("TODO(05.1)", call("nested_reduce", 0) << " of a null pointer", nested_reduce(nullptr, 0), 0);
}

// ---------------------------------------------------------------------------------------------------- 05.2
TEST_CASE("TODO(05.2) nested_reduce_strided: 1..8, sizes 0 to 2^26, negative values, 64-bit totals, input untouched")
{
    REQUIRE_GPU();
    SKIP_UNDER_SANITIZER(no_cdp_support, "racecheck", "synccheck", "initcheck");
    check_variant("TODO(05.2)", NestedVariant::strided);
}

// ---------------------------------------------------------------------------------------------------- 05.3
TEST_CASE("TODO(05.3) check_device_launch: every device-side launch is counted")
{
    REQUIRE_GPU();
    SKIP_UNDER_SANITIZER(no_cdp_support, "racecheck", "synccheck", "initcheck");
    const std::size_t sizes[] = {1, 2, 3, 5, 512, 513, 1025, 1000003};
    const Input input(1000003, 53);
    NestedReduction reduction(1000003);
    for (const auto variant : {NestedVariant::seed, NestedVariant::strided}) {
        for (std::size_t n : sizes) {
            const auto got = reduce_once("TODO(05.3)", reduction, variant, input.device.data(), n);
            if (!got) continue;
            CHECK_RESULT("TODO(05.3)", call(to_string(variant), n), got->sum, input.expected(n));
            CHECK_RESULT("TODO(05.3)", call(to_string(variant), n) << " counted device-side launches",
                         got->device_launches, expected_launches(variant, n));
        }
    }
}

TEST_CASE("TODO(05.3) check_device_launch: a failed device-side launch is an error, never a sum")
{
    REQUIRE_GPU();
    SKIP_UNDER_SANITIZER(no_cdp_support, "racecheck", "synccheck", "initcheck");
    SKIP_UNDER_SANITIZER(invalid_launch_report, "memcheck");
    const Input input(1000, 54);
    for (const auto variant : {NestedVariant::seed, NestedVariant::strided})
        for (std::size_t n : {std::size_t{1}, std::size_t{1000}})
            check_failure_is_reported("TODO(05.3)", variant, input.device.data(), n);

    // The failure left nothing behind: the next reduction on the same device is right.
    NestedReduction reduction(1000);
    for (const auto variant : {NestedVariant::seed, NestedVariant::strided})
        check_sum("TODO(05.3)", reduction, variant, input.device.data(), 1000, input.expected(1000),
                  " after the failed runs");
}

// ---------------------------------------------------------------------------------------------------- given
TEST_CASE("given flat_reduce: sizes 0 to 2^26, negative values, 64-bit totals")
{
    REQUIRE_GPU();
    SKIP_UNDER_SANITIZER(no_cdp_support, "racecheck", "synccheck", "initcheck");
    const auto sizes = check_sizes();
    const Input input(sizes.back(), 6);
    for (std::size_t n : sizes)
        CHECK_RESULT("flat_reduce", call("flat_reduce", n), flat_reduce(input.device.data(), n), input.expected(n));
    const std::vector<int> near_int_max(100003, INT_MAX - 7);
    course::DeviceBuffer<int> d_big(near_int_max.size());
    d_big.copy_from_host(near_int_max);
    CHECK_RESULT("flat_reduce", call("flat_reduce", near_int_max.size()) << " of values near INT_MAX",
                 flat_reduce(d_big.data(), near_int_max.size()),
                 course::sum_reference(near_int_max.data(), near_int_max.size()));
}
