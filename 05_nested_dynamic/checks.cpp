// Chapter 05 checks. Every test case name starts with its task, so `meson test` shows one line per task and a
// failure reads e.g. "TODO(05.1): nested_reduce(n=513) returned 0, expected -4711".
//
// The checks link none of your code: every call goes to the chapter's runner (nested_runner.cpp), a program of
// its own, and only what comes back is judged here: the total against course::sum_reference, the input against
// what was sent, and the launch count your check_device_launch made against the count the README's structure
// gives (expected_launches below).
#include "nested.hpp"  // nested_segment

#include "course/battery.hpp"
#include "course/data.hpp"
#include "course/reduction_checks.hpp"
#include "course/reference.hpp"
#include "course/testing.hpp"

#include <algorithm>
#include <chrono>
#include <climits>
#include <optional>
#include <string>
#include <vector>

using course::checker::Call;
using course::checker::Result;
using course::testing::call;
using course::testing::IntData;
using course::testing::returned;
using course::testing::seed;

namespace {

// compute-sanitizer says so itself: "CUDA Dynamic Parallelism is not supported by the selected tool", and
// initcheck then reports the results written by child grids as uninitialized.
constexpr const char* no_cdp_support = "this tool does not support CUDA Dynamic Parallelism";
// Every case that runs device-side launches: a GPU, and no tool that refuses dynamic parallelism.
#define REQUIRE_GPU_AND_CDP_TOOLS()                                                                           \
    do {                                                                                                      \
        REQUIRE_GPU();                                                                                        \
        SKIP_UNDER_SANITIZER(no_cdp_support, "racecheck", "synccheck", "initcheck");                          \
    } while (0)
// The fault hook makes device-side launches invalid on purpose (2048 threads per block); memcheck reports
// an 8-byte write past the device runtime's launch-parameter buffer of the rejected launch
// (docs/05_nested_dynamic.md, "What the sanitizers cannot see").
constexpr const char* invalid_launch_report =
    "the deliberately invalid device-side launch trips memcheck inside the device runtime (README, Task 05.3)";

// The chapter's reductions as data: the task, the runner's operation (named after the launcher), and whether it
// runs a launch tree (a NestedWorkspace; the runner then reports what workspace.check() said).
struct Reduction {
    std::string task;  // strings, not const char*: doctest prints a const char* in a message as a pointer
    std::string op;
    bool tree;
};
const Reduction nested{"TODO(05.1)", "nested_reduce", true};
const Reduction strided{"TODO(05.2)", "nested_reduce_strided", true};
const Reduction flat{"flat_reduce", "flat_reduce", false};
const Reduction* const trees[] = {&nested, &strided};

constexpr unsigned char poison = 0xAB;  // the level buffer, the partial sums and the total, before every run
// Input elements after n in every call: they must come back unchanged, and a read past n adds them to the sum.
constexpr std::size_t guard = nested_segment;

// The NestedWorkspace of a call, and its test hooks.
struct WorkspaceOptions {
    long long kept = 0;     // > 0: the runner keeps this workspace across the calls naming it; 0: a fresh one
    std::size_t max_n = 0;  // its size; 0: the call's n
    bool widened = false;   // widen_race_windows
    bool failing = false;   // force_launch_failure
};

// A workspace of the case's own (the runner keeps it as long as it runs).
WorkspaceOptions kept(std::size_t max_n, bool widened = false)
{
    static long long last = 0;
    return {++last, max_n, widened};
}

void add_workspace(Call& c, const WorkspaceOptions& w)
{
    c.param("poison", poison);
    if (w.kept > 0) c.param("workspace", w.kept);
    if (w.max_n > 0) c.param("max_n", static_cast<long long>(w.max_n));
    if (w.widened) c.param("widen_race_windows", 1);
    if (w.failing) c.param("force_launch_failure", 1);
}

// The tools run every grid 10-100x slower.
std::chrono::seconds call_limit() { return std::chrono::seconds(course::testing::under_sanitizer() ? 240 : 60); }

// r on data[0, n), with the guard after it; the input comes back (up to checked_input_limit elements), the
// total is poisoned first.
Call reduction_call(const Reduction& r, const IntData& data, std::size_t n, const WorkspaceOptions& w = {})
{
    Call c(r.op, n);
    c.input(data.input(), 0, n, 0, std::min(guard, data.size() - n));
    if (n <= course::testing::checked_input_limit) c.returned();
    c.output<long long>(1, poison);
    if (r.tree) add_workspace(c, w);
    c.timeout(call_limit());
    return c;
}

// The total in buffer `at` of a call that returned, unless its launch tree (the one whose values end in
// `suffix`) threw NestedLaunchError: then the case fails with that error.
std::optional<long long> total(const std::string& task, const std::string& what, const Result& got,
                               std::size_t at = 1, const std::string& suffix = "")
{
    const auto error = got.value("error" + suffix);
    VERIFY(!error, task << ": " << what << " gave no sum: " << *error);
    if (error) return std::nullopt;
    return got.element<long long>(at);
}

// Runs `c` (a reduction_call on data[0, n)) and checks it: it returned, its launch tree finished, the total is
// the CPU's, and the input and its guard came back unchanged (when they came back). The result when it gave a
// total at all.
std::optional<Result> check_sum(const std::string& task, const Call& c, const IntData& data, std::size_t n,
                                const std::string& what)
{
    Result got = course::checker::run(c);
    if (!returned(task, what, got)) return std::nullopt;
    const auto sum = total(task, what, got);
    if (!sum) return std::nullopt;
    CHECK_RESULT(task, what, *sum, data.sum(0, n));
    if (c.buffers()[0].back < 0) return got;
    const std::size_t sent = n + c.buffers()[0].tail;
    const auto mm = course::first_mismatch(data.values(), got.elements<int>(0), sent);
    VERIFY(!mm, task << ": " << what << " changed its input (or the " << c.buffers()[0].tail
                     << " ints after it): " << course::describe(*mm, sent));
    return got;
}

// Small and odd sizes, one segment (512) and its neighbours, a prime near 10^6, 1000003 and 2^24+7 (and 2^26).
// Under compute-sanitizer the largest are left out (the tools run every grid 10-100x slower).
std::vector<std::size_t> check_sizes(bool up_to_2_26)
{
    std::vector<std::size_t> sizes{0,   1,   2,   3,   4,   5,    7,    8,    31,     32,     33,     255,
                                   256, 257, 511, 512, 513, 1023, 1024, 1025, 999983, 1000003};
    if (!course::testing::under_sanitizer()) sizes.push_back((std::size_t{1} << 24) + 7);
    if (!course::testing::under_sanitizer() && up_to_2_26) sizes.push_back(std::size_t{1} << 26);
    return sizes;
}

// Two trees at once, on two streams with a workspace each: both sums right.
void check_two_streams(const Reduction& r)
{
    const IntData data[] = {IntData(course::random_ints(100003, seed(7))), IntData(course::random_ints(99991, seed(8)))};
    Call c(r.op + "_two_streams", data[0].size());
    for (const IntData& d : data) c.input(d.input(), 0, d.size()).output<long long>(1, poison);
    add_workspace(c, {});
    const Result got = course::checker::run(c.timeout(call_limit()));
    if (!returned(r.task, call(r.op, data[0].size()) + " and " + call(r.op, data[1].size()) + " on two streams at once", got))
        return;
    for (std::size_t i = 0; i < 2; ++i) {
        const std::string what = call(r.op, data[i].size()) + " on one of two streams at once";
        if (const auto sum = total(r.task, what, got, 2 * i + 1, "_" + std::to_string(i)))
            CHECK_RESULT(r.task, what, *sum, data[i].sum(0, data[i].size()));
    }
}

// The README's tree, values near INT_MAX (a 32-bit partial sum would overflow), every size of random data with
// negative values, each time the input unchanged; then two trees at once, both right.
void check_variant(const Reduction& r, std::uint64_t salt, bool up_to_2_26)
{
    const std::vector<std::size_t> sizes = check_sizes(up_to_2_26);
    const WorkspaceOptions w = kept(sizes.back());
    const IntData one_to_eight({1, 2, 3, 4, 5, 6, 7, 8});
    check_sum(r.task, reduction_call(r, one_to_eight, 8, w), one_to_eight, 8, call(r.op, 8) + " of 1..8");
    const IntData near_int_max(std::vector<int>(100003, INT_MAX - 7));
    check_sum(r.task, reduction_call(r, near_int_max, 100003, w), near_int_max, 100003,
              call(r.op, 100003) + " of values near INT_MAX");
    const IntData data(course::random_ints(sizes.back() + guard, seed(salt)));
    for (std::size_t n : sizes) check_sum(r.task, reduction_call(r, data, n, w), data, n, call(r.op, n));
    if (r.tree) check_two_streams(r);
}

// The race windows widened (NestedWorkspace::widen_race_windows): every warp but the first of each block starts
// about 200 us late, so a grid that reads this grid's values before every thread has written them - a launch
// without the barrier it needs, a next level launched fire-and-forget instead of as a tail launch - reads them
// missing (poisoned) and the sum is wrong.
void check_widened(const Reduction& r)
{
    const IntData data(course::random_ints(100003 + guard, seed(9)));
    const WorkspaceOptions w = kept(100003, true);
    for (int round = 0; round < 3; ++round)
        for (std::size_t n : {300, 1000, 4099, 100003})
            check_sum(r.task, reduction_call(r, data, n, w), data, n,
                      call(r.op, n) + " with the race windows widened (some warps of every grid start 200 us late)");
}

// Device-side launches the README's structure makes, counted independently of the chapter's code.
long long expected_launches(const Reduction& r, std::size_t n)
{
    if (n == 0) return 0;
    if (&r == &strided) return 8 + 1;  // strides 128, 64, ..., 1, then sum_partials
    long long launches = 1;            // sum_partials
    for (std::size_t first = 0; first < n; first += nested_segment) {
        const std::size_t len = std::min<std::size_t>(nested_segment, n - first);
        long long levels = 0;  // ceil(log2 len): halvings until one value is left
        for (std::size_t values = len; values > 1; values = (values + 1) / 2) ++levels;
        if (levels > 1) launches += levels - 1;  // the top-level grid does the first halving itself
    }
    return launches;
}

// 05.3 builds on 05.1 and 05.2: a variant that gives no right sum fails 05.3 with that reason, once, instead of
// a list of launch counts that blame check_device_launch.
bool variant_works(const Reduction& r, const IntData& data)
{
    const std::size_t n = 1000;
    const Result got = course::checker::run(reduction_call(r, data, n));
    const auto error = got.value("error");
    const bool works = got.ok() && !error && got.element<long long>(1) == data.sum(0, n);
    return course::testing::depends_on("TODO(05.3)", r.task, r.op,
                                       works        ? ""
                                       : !got.ok()  ? call(r.op, n) + " " + got.what()
                                       : error      ? call(r.op, n) + " gave no sum: " + *error
                                                    : call(r.op, n) + " gave a wrong sum");
}

}  // namespace

// ---------------------------------------------------------------------------------------------------- 05.1
TEST_CASE("TODO(05.1) nested_reduce: 1..8, sizes 0 to 2^24+7, negative values, 64-bit totals, input untouched, two streams")
{
    REQUIRE_GPU_AND_CDP_TOOLS();
    check_variant(nested, 5, false);
}

TEST_CASE("TODO(05.1) nested_reduce with the race windows widened: the barrier before the launch, tail launches")
{
    REQUIRE_GPU_AND_CDP_TOOLS();
    check_widened(nested);
}

TEST_CASE("TODO(05.1) nested_reduce at n = 2^26: a million device-side launches, 5.3 GiB of pending-launch slots")
{
    REQUIRE_GPU();
    SKIP_UNDER_SANITIZER("n = 2^26 (a million device-side launches) is too slow under compute-sanitizer", "memcheck",
                         "racecheck", "synccheck", "initcheck");
    const std::size_t n = std::size_t{1} << 26;
    // The launcher asks for a pending-launch slot per launch of the tree (1,048,577 here); the driver may grant
    // fewer (the H100's driver kept 599,186, about 9.5 KB each), and the benchmark measured 5442 MiB for the whole
    // reservation at this n. slots * 5442 bytes is that measured total, not a per-slot size: slots = 2^20 + 1,
    // and 2^20 * 5442 bytes = 5442 MiB. All of it is counted here (what the runner has reserved already is not
    // known to this process), plus the input and the workspace (docs/05_nested_dynamic.md, "The pending-launch
    // reservation in numbers").
    const std::size_t slots = 1 + n / nested_segment * 8;
    REQUIRE_GPU_MEMORY(slots * 5442 + n * (4 + 4) + (std::size_t{256} << 20));
    const IntData data(course::random_ints(n + guard, seed(10)));
    Call c = reduction_call(nested, data, n);
    check_sum(nested.task, c.timeout(std::chrono::seconds(300)), data, n, call(nested.op, n));
}

TEST_CASE("TODO(05.1) nested_reduce: bad arguments are rejected, n = 0 launches nothing")
{
    REQUIRE_GPU_AND_CDP_TOOLS();
    const IntData data(course::random_ints(1001, seed(11)));
    for (const Reduction* r : trees) {
        const WorkspaceOptions w = kept(1000);  // one workspace through the calls below, as a caller would use it
        Call before("NestedWorkspace::check", 0);
        add_workspace(before, w);
        const Result checked = course::checker::run(before);
        VERIFY(checked.outcome == Result::Outcome::error,
               "TODO(05.1): NestedWorkspace::check() before any reduction must throw std::logic_error; it " << checked.what());

        const auto check_rejected = [&](Call& c, const std::string& what) {
            add_workspace(c, w);
            course::testing::check_rejected("TODO(05.1)", what, course::checker::run(c));
        };
        Call too_long(r->op, 1001), null_in(r->op, 10), null_total(r->op, 10);
        check_rejected(too_long.input(data.input(), 0, 1001).output<long long>(1, poison),
                       call(r->op, 1001) + " with a workspace made for 1000");
        check_rejected(null_in.null(sizeof(int)).output<long long>(1, poison), r->op + " with a null d_in and n = 10");
        check_rejected(null_total.input(data.input(), 0, 10).null(sizeof(long long)), r->op + " with a null d_total");

        Call empty(r->op, 0);
        empty.null(sizeof(int)).output<long long>(1, poison);
        add_workspace(empty, w);
        const Result got = course::checker::run(empty);
        const std::string what = call(r->op, 0) + " of a null pointer";
        if (!returned("TODO(05.1)", what, got)) continue;
        CHECK_RESULT("TODO(05.1)", what << ": device-side launches", got.number("launches"), 0LL);
        CHECK_RESULT("TODO(05.1)", what, got.element<long long>(1), 0LL);
    }
}

// ---------------------------------------------------------------------------------------------------- 05.2
TEST_CASE("TODO(05.2) nested_reduce_strided: 1..8, sizes 0 to 2^26, negative values, 64-bit totals, input untouched, two streams")
{
    REQUIRE_GPU_AND_CDP_TOOLS();
    check_variant(strided, 5, true);
}

TEST_CASE("TODO(05.2) nested_reduce_strided with the race windows widened: tail launches")
{
    REQUIRE_GPU_AND_CDP_TOOLS();
    check_widened(strided);
}

// Past 2^32 elements: a random period of odd length repeated (made on the runner's side), so that an index that
// wraps at 2^31 (int) or at 2^32 (a 32-bit product, cast too late) reads other values or nothing. nested_reduce
// cannot go there: slots for its n/64 launches would take about 600 GiB (derived: 67,108,881 slots at about
// 9.5 KB each, the per-slot size measured at n = 2^26); the driver granted 599,186 slots at n = 2^26.
TEST_CASE("TODO(05.2) large: nested_reduce_strided past 2^32 elements (64-bit indices)")
{
    REQUIRE_GPU();
    const std::size_t n = (std::size_t{1} << 32) + 1000;
    // the input and the level buffer (4 bytes per element each), the partial sums, and room to spare
    REQUIRE_GPU_MEMORY(n * 4 + n * 4 + (std::size_t{512} << 20));
    const std::size_t period = 1000003;
    const std::vector<int> values = course::random_ints(period, seed(12));
    const course::checker::Input tile(values);
    Call c(strided.op, n);
    c.periodic(tile, n).output<long long>(1, poison).timeout(std::chrono::seconds(300));
    add_workspace(c, {});
    const std::string what = call(strided.op, n) + " of " + std::to_string(period) +
                             " random ints repeated (past 2^32 elements: is every index 64-bit?)";
    const Result got = course::checker::run(c);
    if (!returned(strided.task, what, got)) return;
    if (const auto sum = total(strided.task, what, got))
        CHECK_RESULT(strided.task, what, *sum, course::periodic_sum_reference(values.data(), period, n));
}

// ---------------------------------------------------------------------------------------------------- 05.3
TEST_CASE("TODO(05.3) check_device_launch: every device-side launch is counted")
{
    REQUIRE_GPU_AND_CDP_TOOLS();
    const IntData data(course::random_ints(1000003 + guard, seed(53)));
    const WorkspaceOptions w = kept(1000003);
    for (const Reduction* r : trees) {
        if (!variant_works(*r, data)) continue;
        for (std::size_t n : {1, 2, 3, 5, 512, 513, 1025, 1000003}) {
            const auto got = check_sum("TODO(05.3)", reduction_call(*r, data, n, w), data, n, call(r->op, n));
            if (got)
                CHECK_RESULT("TODO(05.3)", call(r->op, n) << " counted device-side launches", got->number("launches"),
                             expected_launches(*r, n));
        }
    }
}

TEST_CASE("TODO(05.3) check_device_launch: a failed device-side launch is an error, never a sum")
{
    REQUIRE_GPU_AND_CDP_TOOLS();
    SKIP_UNDER_SANITIZER(invalid_launch_report, "memcheck");
    const IntData data(course::random_ints(1000 + guard, seed(54)));
    for (const Reduction* r : trees) {
        if (!variant_works(*r, data)) continue;
        for (std::size_t n : {1, 1000}) {
            const std::string what = call(r->op, n) + " with failing device-side launches";
            const Result got = course::checker::run(reduction_call(*r, data, n, {0, 0, false, true}));
            if (!returned("TODO(05.3)", what, got)) continue;
            const auto error = got.value("error");
            VERIFY(error.has_value(), "TODO(05.3): " << what << " returned " << got.element<long long>(1)
                                                     << " instead of an error");
            if (!error) continue;
            VERIFY(got.number("device_error", 0) != 0,
                   "TODO(05.3): " << what << ": the failed device-side launch never reached status->error (" << *error << ")");
            VERIFY(got.number("launches") == 0, "TODO(05.3): " << what << " counted " << got.number("launches")
                                                               << " device-side launches, but every one of them failed");
            MESSAGE(what << ": " << *error);
        }
        // The failure left nothing behind: the next reduction in the same runner is right.
        check_sum("TODO(05.3)", reduction_call(*r, data, 1000), data, 1000, call(r->op, 1000) + " after the failed runs");
    }
}

// ---------------------------------------------------------------------------------------------------- given
TEST_CASE("given flat_reduce: sizes 0 to 2^26, negative values, 64-bit totals, on a stream")
{
    REQUIRE_GPU_AND_CDP_TOOLS();
    check_variant(flat, 6, true);
    const IntData data(course::random_ints(999983 + guard, seed(6)));
    Call c = reduction_call(flat, data, 999983);
    check_sum(flat.task, c.on_own_stream(), data, 999983, call(flat.op, 999983) + " on a stream of its own");
}

// The launchers make no device-wide call: the workspace reserved the pending-launch slots when it was made. A
// launcher that raised the limit itself (cudaDeviceSetLimit) waited there for all of the GPU's work.
TEST_CASE("given nested_reduce returns at once while a stream is held: the workspace reserved its launches")
{
    REQUIRE_GPU_AND_CDP_TOOLS();
    const std::size_t n = (std::size_t{1} << 24) + 7;  // 262,145 pending launches: far past the default 2048
    const IntData data(course::random_ints(n, seed(14)));
    Call c("nested_reduce_while_busy", n);
    c.input(data.input(), 0, n).output<long long>(1, poison).param("busy_ms", 2000).timeout(std::chrono::seconds(60));
    const Result r = course::checker::run(c);
    if (!returned("given nested_reduce", call("nested_reduce", n) + " while a stream is held for 2 s", r)) return;
    const long long us = r.number("launch_us");
    VERIFY(us >= 0 && us < 250000,
           "given nested_reduce: the launcher took " << us / 1000 << " ms on the host while another stream was held "
               "for 2 s: it waited for the whole GPU (a device-wide call such as cudaDeviceSetLimit), which a "
               "stream-ordered launcher must not do");
}

// nested_reduce refuses past nested_max_n ints, before it launches: a workspace for more reserves only the
// pending-launch slots of nested_reduce_strided, which goes past 2^32 (TODO(05.2) large).
TEST_CASE("given nested_reduce refuses more than nested_max_n ints, naming the pending launches it would need")
{
    REQUIRE_GPU_AND_CDP_TOOLS();
    const std::size_t n = nested_max_n + 1;
    REQUIRE_GPU_MEMORY(n * 8 + (std::size_t{256} << 20));  // the input and the workspace's level buffer
    const std::vector<int> values = course::random_ints(1000, seed(15));
    const course::checker::Input tile(values);
    Call c("nested_reduce", n);
    c.periodic(tile, n).output<long long>(1, poison);  // a workspace of max_n = n
    course::testing::check_rejected("given nested_reduce", call("nested_reduce", n), course::checker::run(c),
                                    "pending-launch");
}
