// Chapter 05 checks (README, "Check your work"; docs/05_nested_dynamic.md, "How the checks reach your code"): the
// total against the CPU sum, the input against what was sent, and the launch count check_device_launch made
// against the README's structure (expected_launches), all through the chapter's runner (nested_runner.cpp).
#include "nested.hpp"  // nested_segment, nested_max_n

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
#include <utility>
#include <vector>

using course::checker::Call;
using course::testing::call;
using course::testing::IntData;
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
// The fault hook's invalid device-side launches (docs/05_nested_dynamic.md, "What the sanitizers cannot see").
constexpr const char* invalid_launch_report =
    "the deliberately invalid device-side launch trips memcheck inside the device runtime (README, Task 05.3)";

// The chapter's reductions as data.
struct Reduction {
    std::string task;  // strings, not const char*: doctest prints a const char* in a message as a pointer
    std::string op;    // the runner's operation, named after the launcher
    bool tree;         // it runs a launch tree (a NestedWorkspace; the runner then reports what workspace.check() said)
};
const Reduction nested{"TODO(05.1)", "nested_reduce", true};
const Reduction strided{"TODO(05.2)", "nested_reduce_strided", true};
const Reduction flat{"flat_reduce", "flat_reduce", false};
const Reduction* const trees[] = {&nested, &strided};

constexpr unsigned char poison = 0xAB;  // the level buffer, the partial sums and the total, before every run
// Input elements after n in every call: they must come back unchanged, and a read past n adds them to the sum.
constexpr std::size_t guard = nested_segment;

// The NestedWorkspace of a call and its test hooks, as the runner's parameters (nested_runner.cpp); without
// "workspace" the call gets a fresh one of its n. kept(): the case's own, for up to max_n ints.
using Workspace = std::vector<std::pair<std::string, long long>>;
Workspace kept(std::size_t max_n)
{
    return {course::testing::new_workspace(), {"max_n", static_cast<long long>(max_n)}};
}

Call add_workspace(Call c, const Workspace& w)
{
    c.param("poison", poison);
    for (const auto& [key, value] : w) c.param(key, value);
    return c;
}

// The tools run every grid 10-100x slower.
std::chrono::seconds call_limit() { return std::chrono::seconds(course::testing::under_sanitizer() ? 240 : 60); }

// r on data[0, n) and the guard after it, in the workspace `w` when r runs a launch tree.
Call reduction_call(const Reduction& r, const IntData& data, std::size_t n, const Workspace& w = {})
{
    Call c(r.op, n);
    c.input(data.input(), 0, n, 0, std::min(guard, data.size() - n));
    if (n <= course::testing::checked_input_limit) c.returned();
    c.output<long long>(1, poison);
    return (r.tree ? add_workspace(c, w) : c).timeout(call_limit());
}

// What is wrong with the total in buffer `at` of a call ("" when nothing): the call did not return, its launch
// tree (the one whose values end in `suffix`) threw NestedLaunchError, or the total is not `expected`.
std::string wrong_total(const course::checker::Result& got, long long expected, std::size_t at = 1,
                        const std::string& suffix = "")
{
    if (!got.ok()) return got.what();
    if (const auto error = got.value("error" + suffix)) return "gave no sum: " + *error;
    const long long total = got.element<long long>(at);
    return total == expected ? "" : "returned " + std::to_string(total) + ", expected " + std::to_string(expected);
}

// Runs `c` (a reduction_call on data[0, n)), named call(op, n) + `how` in a failure: it returned, its launch tree
// finished, the total is the CPU's, the tree made `launches` device-side launches (when given), and the input and
// its guard came back unchanged (when they came back).
void check_sum(const std::string& task, const Call& c, const IntData& data, const std::string& how = "",
               std::optional<long long> launches = std::nullopt)
{
    const std::size_t n = c.n();
    const std::string what = call(c.op(), n) + how;
    const course::checker::Result got = course::checker::run(c);
    const std::string wrong = wrong_total(got, data.sum(0, n));
    VERIFY(wrong.empty(), task << ": " << what << " " << wrong);
    if (!got.ok() || got.value("error")) return;
    if (launches) CHECK_RESULT(task, what << " counted device-side launches", got.number("launches"), *launches);
    if (c.buffers()[0].back < 0) return;
    const std::size_t sent = n + c.buffers()[0].tail;
    const auto mm = course::first_mismatch(data.values(), got.elements<int>(0), sent);
    VERIFY(!mm, task << ": " << what << " changed its input (or the " << c.buffers()[0].tail
                     << " ints after it): " << course::describe(*mm, sent));
}

// Two trees at once, on two streams with a workspace each: both sums right.
void check_two_streams(const Reduction& r)
{
    const IntData data[] = {IntData(course::random_ints(100003, seed(7))),
                            IntData(course::random_ints(99991, seed(8)))};
    Call c(r.op + "_two_streams", data[0].size());
    for (const IntData& d : data) c.input(d.input(), 0, d.size()).output<long long>(1, poison);
    const auto got = course::checker::run(add_workspace(c, {}).timeout(call_limit()));
    const auto what = [&](std::size_t i) { return call(r.op, data[i].size()); };
    if (!course::testing::returned(r.task, what(0) + " and " + what(1) + " on two streams at once", got)) return;
    for (std::size_t i = 0; i < 2; ++i) {
        const std::string wrong = wrong_total(got, data[i].sum(0, data[i].size()), 2 * i + 1, "_" + std::to_string(i));
        VERIFY(wrong.empty(), r.task << ": " << what(i) << " on one of two streams at once " << wrong);
    }
}

// The README's tree, values near INT_MAX (a 32-bit partial sum would overflow), every size of random data; then
// two trees at once (the flat reduction: on a stream of the runner's own).
void check_variant(const Reduction& r, std::uint64_t salt, bool up_to_2_26)
{
    REQUIRE_GPU_AND_CDP_TOOLS();
    // Small and odd sizes, one segment (512) and its neighbours, a prime near 10^6, then (not under a tool) more.
    std::vector<std::size_t> sizes{0,   1,   2,   3,   4,   5,    7,    8,    31,     32,     33,     255,
                                   256, 257, 511, 512, 513, 1023, 1024, 1025, 999983, 1000003};
    if (!course::testing::under_sanitizer()) sizes.push_back((std::size_t{1} << 24) + 7);
    if (!course::testing::under_sanitizer() && up_to_2_26) sizes.push_back(std::size_t{1} << 26);
    const Workspace w = kept(sizes.back());
    const IntData one_to_eight({1, 2, 3, 4, 5, 6, 7, 8});
    check_sum(r.task, reduction_call(r, one_to_eight, 8, w), one_to_eight, " of 1..8");
    const IntData near_int_max(std::vector<int>(100003, INT_MAX - 7));
    check_sum(r.task, reduction_call(r, near_int_max, 100003, w), near_int_max, " of values near INT_MAX");
    const IntData data(course::random_ints(sizes.back() + guard, seed(salt)));
    for (std::size_t n : sizes) check_sum(r.task, reduction_call(r, data, n, w), data);
    if (r.tree)
        check_two_streams(r);
    else
        check_sum(r.task, reduction_call(r, data, 999983).on_own_stream(), data, " on a stream of its own");
}

// The race windows widened (README, "Check your work"): every warp but the first of each block starts about 200 us
// late, so a grid that reads this grid's values before they are all written reads poison.
void check_widened(const Reduction& r)
{
    REQUIRE_GPU_AND_CDP_TOOLS();
    const IntData data(course::random_ints(100003 + guard, seed(9)));
    Workspace w = kept(100003);
    w.emplace_back("widen_race_windows", 1);
    for (int round = 0; round < 3; ++round)
        for (std::size_t n : {300, 1000, 4099, 100003})
            check_sum(r.task, reduction_call(r, data, n, w), data,
                      " with the race windows widened (some warps of every grid start 200 us late)");
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
    const std::string wrong = wrong_total(course::checker::run(reduction_call(r, data, n)), data.sum(0, n));
    return course::testing::depends_on("TODO(05.3)", r.task, r.op, wrong.empty() ? "" : call(r.op, n) + " " + wrong);
}

// ---------------------------------------------------------------------------------------------------- 05.1
// One workspace through all the calls, as a caller would use it: its check() before any reduction, then calls
// it must reject, then n = 0.
void check_bad_arguments()
{
    REQUIRE_GPU_AND_CDP_TOOLS();
    const IntData data(course::random_ints(1001, seed(11)));
    for (const Reduction* r : trees) {
        const Workspace w = kept(1000);
        const auto checked = course::checker::run(add_workspace(Call("NestedWorkspace::check", 0), w));
        VERIFY(checked.outcome == course::checker::Result::Outcome::error,
               "TODO(05.1): NestedWorkspace::check() before any reduction must throw std::logic_error; it "
                   << checked.what());

        const std::pair<Call, std::string> rejected[] = {
            {Call(r->op, 1001).input(data.input(), 0, 1001).output<long long>(1, poison),
             call(r->op, 1001) + " with a workspace made for 1000"},
            {Call(r->op, 10).null(sizeof(int)).output<long long>(1, poison), r->op + " with a null d_in and n = 10"},
            {Call(r->op, 10).input(data.input(), 0, 10).null(sizeof(long long)), r->op + " with a null d_total"}};
        for (const auto& [c, what] : rejected)
            course::testing::check_rejected("TODO(05.1)", what, course::checker::run(add_workspace(c, w)));

        const Call empty = add_workspace(Call(r->op, 0).null(sizeof(int)).output<long long>(1, poison), w);
        check_sum("TODO(05.1)", empty, data, " of a null pointer", 0);  // a total of 0, no error, no launch
    }
}

COURSE_TASK_CASES({nested.task,
                   "nested_reduce: 1..8, sizes 0 to 2^24+7, negative values, 64-bit totals, input untouched, two "
                   "streams",
                   [] { check_variant(nested, 5, false); },
                   {{"nested_reduce with the race windows widened: the barrier before the launch, tail launches",
                     [] { check_widened(nested); }},
                    {"nested_reduce: bad arguments are rejected, n = 0 launches nothing", check_bad_arguments}}});

// ---------------------------------------------------------------------------------------------------- 05.2
// Past 2^32 elements: a random period of odd length repeated on the runner's side, so that an index that wraps at
// 2^31 or 2^32 reads other values (docs/05_nested_dynamic.md: nested_reduce cannot go there).
void check_past_2_32()
{
    REQUIRE_GPU();
    const std::size_t n = (std::size_t{1} << 32) + 1000;
    // the input and the level buffer (4 bytes per element each), the partial sums, and room to spare
    REQUIRE_GPU_MEMORY(n * 4 + n * 4 + (std::size_t{512} << 20));
    const std::size_t period = 1000003;
    const course::checker::Input tile(course::random_ints(period, seed(12)));
    Call c(strided.op, n);
    c.periodic(tile, n).output<long long>(1, poison).timeout(std::chrono::seconds(300));
    const std::string wrong = wrong_total(course::checker::run(add_workspace(c, {})),
                                          course::periodic_sum_reference(tile.data<int>(), period, n));
    VERIFY(wrong.empty(), strided.task << ": " << call(strided.op, n) << " of " << period
                                       << " random ints repeated (past 2^32 elements: is every index 64-bit?) "
                                       << wrong);
}

COURSE_TASK_CASES({strided.task,
                   "nested_reduce_strided: 1..8, sizes 0 to 2^26, negative values, 64-bit totals, input untouched, two "
                   "streams",
                   [] { check_variant(strided, 5, true); },
                   {{"nested_reduce_strided with the race windows widened: tail launches",
                     [] { check_widened(strided); }}},
                   nullptr, "nested_reduce_strided past 2^32 elements (64-bit indices)", check_past_2_32});

// ---------------------------------------------------------------------------------------------------- 05.3
void check_launch_counts()
{
    REQUIRE_GPU_AND_CDP_TOOLS();
    const IntData data(course::random_ints(1000003 + guard, seed(53)));
    const Workspace w = kept(1000003);
    for (const Reduction* r : trees) {
        if (!variant_works(*r, data)) continue;
        for (std::size_t n : {1, 2, 3, 5, 512, 513, 1025, 1000003})
            check_sum("TODO(05.3)", reduction_call(*r, data, n, w), data, "", expected_launches(*r, n));
    }
}

void check_failed_launches()
{
    REQUIRE_GPU_AND_CDP_TOOLS();
    SKIP_UNDER_SANITIZER(invalid_launch_report, "memcheck");
    const IntData data(course::random_ints(1000 + guard, seed(54)));
    for (const Reduction* r : trees) {
        if (!variant_works(*r, data)) continue;
        for (std::size_t n : {1, 1000}) {
            const std::string what = call(r->op, n) + " with failing device-side launches";
            const auto got = course::checker::run(reduction_call(*r, data, n, {{"force_launch_failure", 1}}));
            if (!course::testing::returned("TODO(05.3)", what, got)) continue;
            const auto error = got.value("error");
            VERIFY(error.has_value(), "TODO(05.3): " << what << " returned " << got.element<long long>(1)
                                                     << " instead of an error");
            if (!error) continue;
            VERIFY(got.number("device_error", 0) != 0,
                   "TODO(05.3): " << what << ": the failed device-side launch never reached status->error ("
                                  << *error << ")");
            VERIFY(got.number("launches") == 0, "TODO(05.3): " << what << " counted " << got.number("launches")
                                                               << " device-side launches, but every one of them "
                                                                  "failed");
            MESSAGE(what << ": " << *error);
        }
        // The failure left nothing behind: the next reduction in the same runner is right.
        check_sum("TODO(05.3)", reduction_call(*r, data, 1000), data, " after the failed runs");
    }
}

COURSE_TASK_CASES({"TODO(05.3)", "check_device_launch: every device-side launch is counted", check_launch_counts,
                   {{"check_device_launch: a failed device-side launch is an error, never a sum",
                     check_failed_launches}}});

// ---------------------------------------------------------------------------------------------------- given
// The launchers make no device-wide call: the workspace reserved the pending-launch slots when it was made. A
// launcher that raised the limit itself (cudaDeviceSetLimit) waited there for all of the GPU's work.
void check_launcher_returns_at_once()
{
    REQUIRE_GPU_AND_CDP_TOOLS();
    const std::size_t n = (std::size_t{1} << 24) + 7;  // 262,145 pending launches: far past the default 2048
    const IntData data(course::random_ints(n, seed(14)));
    Call c("nested_reduce_while_busy", n);
    c.input(data.input(), 0, n).output<long long>(1, poison).param("busy_ms", 2000).timeout(std::chrono::seconds(60));
    const auto r = course::checker::run(c);
    const std::string what = call("nested_reduce", n) + " while a stream is held for 2 s";
    if (!course::testing::returned("given nested_reduce", what, r)) return;
    const long long us = r.number("launch_us");
    VERIFY(us >= 0 && us < 250000,
           "given nested_reduce: the launcher took " << us / 1000 << " ms on the host while another stream was held "
               "for 2 s: it waited for the whole GPU (a device-wide call such as cudaDeviceSetLimit), which a "
               "stream-ordered launcher must not do");
}

// nested_reduce refuses past nested_max_n ints, before it launches: a workspace for more reserves only the
// pending-launch slots of nested_reduce_strided, which goes past 2^32 (TODO(05.2) large).
void check_refuses_past_max_n()
{
    REQUIRE_GPU_AND_CDP_TOOLS();
    const std::size_t n = nested_max_n + 1;
    REQUIRE_GPU_MEMORY(n * 8 + (std::size_t{256} << 20));  // the input and the workspace's level buffer
    const course::checker::Input tile(course::random_ints(1000, seed(15)));
    Call c("nested_reduce", n);
    c.periodic(tile, n).output<long long>(1, poison);  // a workspace of max_n = n
    course::testing::check_rejected("given nested_reduce", call("nested_reduce", n), course::checker::run(c),
                                    "pending-launch");
}

COURSE_TASK_CASES({"given", "flat_reduce: sizes 0 to 2^26, negative values, 64-bit totals, on a stream",
                   [] { check_variant(flat, 6, true); },
                   {{"nested_reduce returns at once while a stream is held: the workspace reserved its launches",
                     check_launcher_returns_at_once},
                    {"nested_reduce refuses more than nested_max_n ints, naming the pending launches it would need",
                     check_refuses_past_max_n}}});

}  // namespace
