// Chapter 05 checks. Every test case name starts with its task, so `meson test` shows one line per task and a
// failure reads e.g. "TODO(05.1): nested_reduce(n=513) returned 0, expected -4711".
#include "nested_progression.hpp"

#include "course/check.hpp"
#include "course/data.hpp"
#include "course/device_buffer.hpp"
#include "course/reference.hpp"
#include "course/testing.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

using course::testing::call;
using NestedStep = course::Step<NestedLauncher>;

// compute-sanitizer says so itself: "CUDA Dynamic Parallelism is not supported by the selected tool", and
// initcheck then reports the results written by child grids as uninitialized.
constexpr const char* no_cdp_support = "this tool does not support CUDA Dynamic Parallelism";
// The fault hook makes device-side launches invalid on purpose (2048 threads per block); memcheck reports
// an 8-byte write past the device runtime's launch-parameter buffer of the rejected launch (README, Task 05.3).
constexpr const char* invalid_launch_report =
    "the deliberately invalid device-side launch trips memcheck inside the device runtime (README, Task 05.3)";

namespace {

// Small and odd sizes, one segment (512) and its neighbours, a prime near 10^6, 1000003 and 2^24+7. Under
// compute-sanitizer 2^24+7 is left out (the tools run every grid 10-100x slower).
std::vector<std::size_t> check_sizes()
{
    std::vector<std::size_t> sizes{0,   1,   2,   3,   4,   5,    7,    8,    31,     32,     33,     255,
                                   256, 257, 511, 512, 513, 1023, 1024, 1025, 999983, 1000003};
    if (!course::testing::under_sanitizer()) sizes.push_back((std::size_t{1} << 24) + 7);
    return sizes;
}

// One random input, on the host and on the device; every size uses a prefix of it.
struct Input {
    Input(std::size_t n, std::uint64_t salt) : host(course::random_ints(n, course::testing::seed(salt))), device(n)
    {
        device.copy_from_host(host);
    }
    std::int64_t expected(std::size_t n) const { return course::sum_reference(host.data(), n); }
    std::vector<int> host;
    course::DeviceBuffer<int> device;
};

// What one reduction gave: a sum and its device-side launch count, or the NestedLaunchError instead of a sum.
struct Outcome {
    std::optional<long long> sum;
    std::uint64_t launches = 0;
    cudaError_t device_error = cudaSuccess;
    std::string error;
};

// Poisons the level buffer, the partial sums and the output, runs `step` on `stream`, waits for it and asks
// the workspace whether the tree finished (flat_reduce has no tree).
Outcome run_once(const std::string& task, const NestedStep& step, NestedWorkspace& workspace, const int* d_in,
                 std::size_t n, course::DeviceBuffer<long long>& d_total, cudaStream_t stream = 0)
{
    course::testing::detail::note_call(task, call(step.name, n));  // named if it crashes
    workspace.poison(0xAB);
    d_total.fill_bytes(0xAB);
    step.launch(d_in, d_total.data(), n, workspace, stream);
    CUDA_CHECK(cudaStreamSynchronize(stream));
    Outcome got;
    try {
        if (makes_device_launches(step)) got.launches = workspace.check();
    } catch (const NestedLaunchError& e) {
        got.launches = e.device_launches();
        got.device_error = e.device_error();
        got.error = e.what();
        return got;
    }
    long long sum = 0;
    d_total.copy_to_host(&sum, 1);
    got.sum = sum;
    return got;
}

void check_sum(const std::string& task, const NestedStep& step, NestedWorkspace& workspace, const int* d_in,
               std::size_t n, std::int64_t expected, const std::string& what = "", cudaStream_t stream = 0)
{
    course::DeviceBuffer<long long> d_total(1);
    const Outcome got = run_once(task, step, workspace, d_in, n, d_total, stream);
    if (!got.sum) {
        VERIFY(false, task << ": " << call(step.name, n) << what << " gave no sum: " << got.error);
        return;
    }
    CHECK_RESULT(task, call(step.name, n) << what, *got.sum, expected);
}

// Two reductions at once, on two streams with a workspace each: both sums right.
void check_two_streams(const std::string& task, const NestedStep& step)
{
    struct Run {
        Run(std::size_t size, std::uint64_t salt) : n(size), input(size, salt), workspace(size), total(1) {}
        std::size_t n;
        Input input;
        NestedWorkspace workspace;
        course::DeviceBuffer<long long> total;
        course::Stream stream;
    };
    Run runs[] = {{100003, 7}, {99991, 8}};
    for (Run& r : runs) {
        r.workspace.poison(0xAB);
        r.total.fill_bytes(0xAB);
    }
    CUDA_CHECK(cudaDeviceSynchronize());  // the inputs and the poison are in place (non-blocking streams do not wait)
    for (Run& r : runs) step.launch(r.input.device.data(), r.total.data(), r.n, r.workspace, r.stream.get());
    for (Run& r : runs) {
        r.stream.synchronize();
        const std::string what = call(step.name, r.n) + " on one of two streams at once";
        try {
            r.workspace.check();
            CHECK_RESULT(task, what, r.total.to_host()[0], r.input.expected(r.n));
        } catch (const NestedLaunchError& e) {
            VERIFY(false, task << ": " << what << " gave no sum: " << std::string(e.what()));
        }
    }
}

// The README's tree, values near INT_MAX (a 32-bit partial sum would overflow), every size of random data with
// negative values (`extra` sizes too); then the input must be unchanged, and two launches at once both right.
void check_variant(const std::string& task, const NestedStep& step, const std::vector<std::size_t>& extra = {})
{
    const std::vector<int> one_to_eight{1, 2, 3, 4, 5, 6, 7, 8};
    course::DeviceBuffer<int> d_example(one_to_eight.size());
    d_example.copy_from_host(one_to_eight);

    const std::size_t big_n = 100003;
    const std::vector<int> near_int_max(big_n, INT_MAX - 7);
    course::DeviceBuffer<int> d_big(big_n);
    d_big.copy_from_host(near_int_max);

    std::vector<std::size_t> sizes = check_sizes();
    sizes.insert(sizes.end(), extra.begin(), extra.end());
    const std::size_t max_n = *std::max_element(sizes.begin(), sizes.end());
    const Input input(max_n, 5);
    NestedWorkspace workspace(max_n);

    check_sum(task, step, workspace, d_example.data(), 8, 36, " of 1..8");
    check_sum(task, step, workspace, d_big.data(), big_n, course::sum_reference(near_int_max.data(), big_n),
              " of values near INT_MAX");
    for (std::size_t n : sizes) check_sum(task, step, workspace, input.device.data(), n, input.expected(n));

    const std::vector<int> after = input.device.to_host();
    CHECK_ARRAY(task, call(step.name, max_n) << " changed its input", after.data(), input.host.data(), after.size());

    check_two_streams(task, step);
}

// The checks' race widening on (NestedWorkspace::widen_race_windows): every warp but the first of each block
// starts about 200 us late, so a grid that reads this grid's values before every thread has written them -
// a launch without the barrier it needs, a next level launched fire-and-forget instead of as a tail launch -
// reads them missing (poisoned) and the sum is wrong.
void check_widened(const std::string& task, const NestedStep& step)
{
    const std::size_t sizes[] = {300, 1000, 4099, 100003};
    const Input input(100003, 9);
    NestedWorkspace workspace(100003);
    workspace.widen_race_windows(true);
    for (int round = 0; round < 3; ++round)
        for (std::size_t n : sizes)
            check_sum(task, step, workspace, input.device.data(), n, input.expected(n),
                      " with the race windows widened (some warps of every grid start 200 us late)");
}

// Device-side launches the README's structure makes, counted independently of the chapter's code.
std::uint64_t expected_launches(const NestedStep& step, std::size_t n)
{
    if (n == 0) return 0;
    if (std::string(step.task) == "05.2") return 8 + 1;  // strides 128, 64, ..., 1, then sum_partials
    std::uint64_t launches = 1;                          // sum_partials
    for (std::size_t first = 0; first < n; first += nested_segment) {
        const std::size_t len = std::min<std::size_t>(nested_segment, n - first);
        std::uint64_t levels = 0;  // ceil(log2 len): halvings until one value is left
        for (std::size_t values = len; values > 1; values = (values + 1) / 2) ++levels;
        if (levels > 1) launches += levels - 1;  // the top-level grid does the first halving itself
    }
    return launches;
}

// 05.3 builds on 05.1 and 05.2: a variant that gives no right sum fails 05.3 with that reason, once, instead of
// a list of launch counts that blame check_device_launch.
bool variant_works(const std::string& task, const NestedStep& step, const Input& input)
{
    const std::size_t n = 1000;
    NestedWorkspace workspace(n);
    course::DeviceBuffer<long long> d_total(1);
    const Outcome got = run_once(task, step, workspace, input.device.data(), n, d_total);
    const bool works = got.sum && *got.sum == input.expected(n);
    VERIFY(works, task << ": depends on TODO(" << std::string(step.task) << ") (" << std::string(step.name) << "), which fails: "
                       << call(step.name, n) << (got.sum ? " gave a wrong sum" : " gave no sum: " + got.error)
                       << "; fix TODO(" << std::string(step.task) << ") first");
    return works;
}

// The nested steps, in table order.
std::vector<const NestedStep*> nested_steps()
{
    std::vector<const NestedStep*> steps;
    for (const auto& step : nested_progression)
        if (makes_device_launches(step)) steps.push_back(&step);
    return steps;
}

}  // namespace

// ---------------------------------------------------------------------------------------------------- 05.1
TEST_CASE("TODO(05.1) nested_reduce: 1..8, sizes 0 to 2^24+7, negative values, 64-bit totals, input untouched, two streams")
{
    REQUIRE_GPU();
    SKIP_UNDER_SANITIZER(no_cdp_support, "racecheck", "synccheck", "initcheck");
    check_variant("TODO(05.1)", nested_step("05.1"));
}

TEST_CASE("TODO(05.1) nested_reduce with the race windows widened: the barrier before the launch, tail launches")
{
    REQUIRE_GPU();
    SKIP_UNDER_SANITIZER(no_cdp_support, "racecheck", "synccheck", "initcheck");
    check_widened("TODO(05.1)", nested_step("05.1"));
}

TEST_CASE("TODO(05.1) nested_reduce at n = 2^26: a million device-side launches, 5.3 GiB of pending-launch slots")
{
    REQUIRE_GPU();
    SKIP_UNDER_SANITIZER("n = 2^26 (a million device-side launches) is too slow under compute-sanitizer", "memcheck",
                         "racecheck", "synccheck", "initcheck");
    const std::size_t n = std::size_t{1} << 26;
    // What the launcher will reserve for pending launches beyond what is reserved already (measured: 5442 MiB
    // for the 1,048,577 slots of this n, about 5442 bytes a slot), plus the input and the workspace.
    const std::size_t slots = 1 + n / nested_segment * 8;
    std::size_t reserved = 0;
    CUDA_CHECK(cudaDeviceGetLimit(&reserved, cudaLimitDevRuntimePendingLaunchCount));
    const std::size_t bytes_per_slot = 5442;
    REQUIRE_GPU_MEMORY((slots > reserved ? (slots - reserved) * bytes_per_slot : 0) + n * (4 + 4) +
                       (std::size_t{256} << 20));
    const Input input(n, 10);
    NestedWorkspace workspace(n);
    check_sum("TODO(05.1)", nested_step("05.1"), workspace, input.device.data(), n, input.expected(n));
}

TEST_CASE("TODO(05.1) nested_reduce: bad arguments are rejected, n = 0 launches nothing")
{
    REQUIRE_GPU();
    SKIP_UNDER_SANITIZER(no_cdp_support, "racecheck", "synccheck", "initcheck");
    course::DeviceBuffer<int> d_in(1000);
    course::DeviceBuffer<long long> d_total(1);
    for (const NestedStep* step : nested_steps()) {
        NestedWorkspace workspace(1000);
        CHECK_THROWS_AS(workspace.check(), std::logic_error);
        CHECK_THROWS_AS(step->launch(d_in.data(), d_total.data(), 1001, workspace, 0), std::invalid_argument);
        CHECK_THROWS_AS(step->launch(nullptr, d_total.data(), 10, workspace, 0), std::invalid_argument);
        CHECK_THROWS_AS(step->launch(d_in.data(), nullptr, 10, workspace, 0), std::invalid_argument);
        d_total.fill_bytes(0xAB);
        step->launch(nullptr, d_total.data(), 0, workspace, 0);
        CUDA_CHECK(cudaDeviceSynchronize());
        CHECK_RESULT("TODO(05.1)", call(step->name, 0) << " of a null pointer: device-side launches",
                     workspace.check(), 0u);
        CHECK_RESULT("TODO(05.1)", call(step->name, 0) << " of a null pointer", d_total.to_host()[0], 0);
    }
}

// ---------------------------------------------------------------------------------------------------- 05.2
TEST_CASE("TODO(05.2) nested_reduce_strided: 1..8, sizes 0 to 2^26, negative values, 64-bit totals, input untouched, two streams")
{
    REQUIRE_GPU();
    SKIP_UNDER_SANITIZER(no_cdp_support, "racecheck", "synccheck", "initcheck");
    std::vector<std::size_t> extra;
    if (!course::testing::under_sanitizer()) extra.push_back(std::size_t{1} << 26);
    check_variant("TODO(05.2)", nested_step("05.2"), extra);
}

TEST_CASE("TODO(05.2) nested_reduce_strided with the race windows widened: tail launches")
{
    REQUIRE_GPU();
    SKIP_UNDER_SANITIZER(no_cdp_support, "racecheck", "synccheck", "initcheck");
    check_widened("TODO(05.2)", nested_step("05.2"));
}

// Past 2^32 elements, in three regions of different values, so that an index that wraps at 2^31 (int) or at
// 2^32 (a 32-bit product, cast too late) reads the wrong region or nothing. nested_reduce cannot go there: its
// n/64 pending launches alone would take about 350 GiB.
TEST_CASE("TODO(05.2) large: nested_reduce_strided past 2^32 elements (64-bit indices)")
{
    REQUIRE_GPU();
    const std::size_t two31 = std::size_t{1} << 31;
    const std::size_t n = 2 * two31 + 1000;
    // the input and the level buffer (4 bytes per element each), the partial sums, and room to spare
    REQUIRE_GPU_MEMORY(n * 4 + n * 4 + (std::size_t{512} << 20));
    course::DeviceBuffer<int> d_in(n);
    CUDA_CHECK(cudaMemset(d_in.data(), 0x01, two31 * sizeof(int)));
    CUDA_CHECK(cudaMemset(d_in.data() + two31, 0x02, two31 * sizeof(int)));
    CUDA_CHECK(cudaMemset(d_in.data() + 2 * two31, 0x03, (n - 2 * two31) * sizeof(int)));
    const std::int64_t expected = static_cast<std::int64_t>(two31) * 0x01010101 +
                                  static_cast<std::int64_t>(two31) * 0x02020202 +
                                  static_cast<std::int64_t>(n - 2 * two31) * 0x03030303;
    NestedWorkspace workspace(n);
    check_sum("TODO(05.2)", nested_step("05.2"), workspace, d_in.data(), n, expected,
              " of 2^31 x 0x01010101, 2^31 x 0x02020202, 1000 x 0x03030303");
}

// ---------------------------------------------------------------------------------------------------- 05.3
TEST_CASE("TODO(05.3) check_device_launch: every device-side launch is counted")
{
    REQUIRE_GPU();
    SKIP_UNDER_SANITIZER(no_cdp_support, "racecheck", "synccheck", "initcheck");
    const std::size_t sizes[] = {1, 2, 3, 5, 512, 513, 1025, 1000003};
    const Input input(1000003, 53);
    NestedWorkspace workspace(1000003);
    course::DeviceBuffer<long long> d_total(1);
    for (const NestedStep* step : nested_steps()) {
        if (!variant_works("TODO(05.3)", *step, input)) continue;
        for (std::size_t n : sizes) {
            const Outcome got = run_once("TODO(05.3)", *step, workspace, input.device.data(), n, d_total);
            if (!got.sum) {
                VERIFY(false, "TODO(05.3): " << call(step->name, n) << " gave no sum: " << got.error);
                continue;
            }
            CHECK_RESULT("TODO(05.3)", call(step->name, n), *got.sum, input.expected(n));
            CHECK_RESULT("TODO(05.3)", call(step->name, n) << " counted device-side launches", got.launches,
                         expected_launches(*step, n));
        }
    }
}

TEST_CASE("TODO(05.3) check_device_launch: a failed device-side launch is an error, never a sum")
{
    REQUIRE_GPU();
    SKIP_UNDER_SANITIZER(no_cdp_support, "racecheck", "synccheck", "initcheck");
    SKIP_UNDER_SANITIZER(invalid_launch_report, "memcheck");
    const Input input(1000, 54);
    course::DeviceBuffer<long long> d_total(1);
    for (const NestedStep* step : nested_steps()) {
        if (!variant_works("TODO(05.3)", *step, input)) continue;
        for (std::size_t n : {std::size_t{1}, std::size_t{1000}}) {
            NestedWorkspace workspace(n);
            workspace.force_launch_failure(true);
            const Outcome got = run_once("TODO(05.3)", *step, workspace, input.device.data(), n, d_total);
            if (got.sum) {
                VERIFY(false, "TODO(05.3): " << call(step->name, n) << " with failing device-side launches returned "
                                             << *got.sum << " instead of an error");
                continue;
            }
            VERIFY(got.device_error != cudaSuccess,
                   "TODO(05.3): " << call(step->name, n) << ": the failed device-side launch never reached "
                                  << "status->error (" << got.error << ")");
            VERIFY(got.launches == 0, "TODO(05.3): " << call(step->name, n) << " counted " << got.launches
                                                     << " device-side launches, but every one of them failed");
            MESSAGE(call(step->name, n) << " with the fault hook on: " << got.error);
        }
        // The failure left nothing behind: the next reduction on the same device is right.
        NestedWorkspace workspace(1000);
        check_sum("TODO(05.3)", *step, workspace, input.device.data(), 1000, input.expected(1000),
                  " after the failed runs");
    }
}

// ---------------------------------------------------------------------------------------------------- given
TEST_CASE("given flat_reduce: sizes 0 to 2^26, negative values, 64-bit totals, on a stream")
{
    REQUIRE_GPU();
    SKIP_UNDER_SANITIZER(no_cdp_support, "racecheck", "synccheck", "initcheck");
    std::vector<std::size_t> sizes = check_sizes();
    if (!course::testing::under_sanitizer()) sizes.push_back(std::size_t{1} << 26);
    const Input input(sizes.back(), 6);
    const NestedStep& step = nested_step("given");
    NestedWorkspace unused(0);
    for (std::size_t n : sizes) check_sum("flat_reduce", step, unused, input.device.data(), n, input.expected(n));
    const std::vector<int> near_int_max(100003, INT_MAX - 7);
    course::DeviceBuffer<int> d_big(near_int_max.size());
    d_big.copy_from_host(near_int_max);
    check_sum("flat_reduce", step, unused, d_big.data(), near_int_max.size(),
              course::sum_reference(near_int_max.data(), near_int_max.size()), " of values near INT_MAX");

    const course::Stream stream;
    course::DeviceBuffer<long long> d_total(1);
    d_total.fill_bytes(0xAB);  // synchronous: in place before the non-blocking stream starts
    flat_reduce(input.device.data(), d_total.data(), 999983, stream.get());
    stream.synchronize();
    CHECK_RESULT("flat_reduce", call("flat_reduce", 999983) << " on a stream of its own", d_total.to_host()[0],
                 input.expected(999983));
}
