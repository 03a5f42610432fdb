// Chapter 07 checks (docs/07_scan.md, "What the checks test"): every call goes through the chapter's runner
// (scan_runner.cpp), and only what comes back is judged here, against the course's CPU references; a failure
// reads e.g. "TODO(07.3): scan_multiblock(n=33, block=32) inclusive: first mismatch at index 0 ...".
#include "scan.hpp"

#include "course/battery.hpp"
#include "course/data.hpp"
#include "course/performance.hpp"
#include "course/reference.hpp"

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

using course::checker::Call;
using course::checker::Result;
using course::testing::call;
using course::testing::seed;

namespace {

constexpr unsigned char poison = 0xAB;       // every output int starts as 0xABABABAB
constexpr std::size_t guard = 64;            // elements after the output that a kernel must not touch
constexpr std::size_t wrapping_n = 99991;    // the multi-tile scans' wrapping case (single-block: the limit)
constexpr std::size_t misaligned_n = 999983;

// --------------------------------------------------------------------------------- the chapter's scans
struct Scan {
    std::string task;                // "TODO(07.3)"
    std::string op;                  // the launcher, and the runner's operation of that name
    std::size_t (*tile)(int block);  // items one block scans: sizes are aimed at its edges and recursion levels
    bool multi_tile;                 // any n (a ScanWorkspace's max_n); else n <= tile, a single-block scan's limit
    bool misaligned;                 // also on pointers 4 bytes past 16-byte alignment (16-byte vector access)
    const Scan* earlier;             // the scan it builds on, probed first
};

std::size_t register_tile(int block) { return static_cast<std::size_t>(block) * scan_items_per_thread; }

const Scan hillis_steele{"TODO(07.1)", "scan_hillis_steele", hillis_steele_max_n, false, false, nullptr};
const Scan blelloch{"TODO(07.2)", "scan_blelloch", blelloch_max_n, false, false, nullptr};
const Scan multiblock{"TODO(07.3)", "scan_multiblock", blelloch_max_n, true, false, &blelloch};
const Scan warp_shuffle{"TODO(07.4)", "scan_warp_shuffle", register_tile, true, true, nullptr};
const Scan single_pass{"TODO(07.5)", "scan_single_pass", register_tile, true, true, &warp_shuffle};
const Scan single_pass_float{"TODO(07.5)", "scan_single_pass<float>", register_tile, true, true, &warp_shuffle};

// The largest of the standard sizes (2^24 + 7; 999983 under compute-sanitizer): the multi-tile scans' largest
// n, with a ScanWorkspace for one more (so that n = max_n + 1 can be rejected).
std::size_t largest_size() { return course::testing::standard_sizes(1024).back(); }
std::size_t capacity(const Scan& s, int block) { return s.multi_tile ? largest_size() : s.tile(block); }

// The standard sizes, the tile's edges and sizes whose recursion has 1, 2 and 3 levels of tile sums (for a
// single-block scan the tile is its limit: the limit and its neighbours).
std::vector<std::size_t> sizes(const Scan& s, int block)
{
    const std::size_t t = s.tile(block);
    return course::testing::sizes_with(block, {t - 1, t, t + 1, 2 * t + 3, t * t, t * t + 1, t * t * t + 1});
}

// The small sizes that racecheck and synccheck watch (all of them also in sizes()): a single-block scan at 1,
// 33 (where its limit allows) and its limit, a multi-tile one at 1, 5000 and two tiles + 3.
std::vector<std::size_t> small_sizes(const Scan& s, int block)
{
    const std::size_t t = s.tile(block);
    if (s.multi_tile) return {1, 5000, 2 * t + 3};
    return t < 33 ? std::vector<std::size_t>{1, t} : std::vector<std::size_t>{1, 33, t};
}

Call scan_call(const Scan& s, ScanKind kind, std::size_t n, int block, std::size_t max_n)
{
    Call c(s.op, n, block);
    c.param("kind", kind == ScanKind::inclusive ? 0 : 1);
    if (s.multi_tile) c.param("max_n", static_cast<long long>(max_n));
    return c;
}

// ------------------------------------------------------------------------------------------ judging
// Values in sealed shared memory, with the whole inclusive and exclusive scans of those from `first` on (ints wrap
// like the GPU's adds, floats are summed in double): the scan of n elements is the first n elements of those. A
// call's pointers sit `first` elements into their buffers (first = 1: not 16-byte aligned).
template <class T, class Acc>
struct ScanData {
    explicit ScanData(const std::vector<T>& values, std::size_t from = 0)
        : input(values), first(from), inclusive(values.size() - from), exclusive(values.size() - from)
    {
        course::inclusive_scan_reference(values.data() + first, inclusive.data(), inclusive.size());
        course::exclusive_scan_reference(values.data() + first, exclusive.data(), exclusive.size());
    }
    course::checker::Input input;
    std::size_t first;
    std::vector<Acc> inclusive, exclusive;
};
using IntData = ScanData<int, int>;
using FloatData = ScanData<float, double>;

// What is wrong with `got`, the scan of n elements of `data`, "" when nothing: ints exactly equal to the reference;
// floats within float_scan_tolerance of the double reference or, `exact`, equal to it.
template <class T, class Acc>
std::string mismatch(const ScanData<T, Acc>& data, ScanKind kind, std::size_t n, const T* got, bool exact)
{
    const bool inclusive = kind == ScanKind::inclusive;
    const std::vector<Acc>& expected = inclusive ? data.inclusive : data.exclusive;
    if constexpr (std::is_integral_v<T>) {
        const auto mm = course::first_mismatch(expected.data(), got, n);
        return mm ? course::describe(*mm, n) : "";
    } else {
        const T* values = data.input.template data<T>() + data.first;
        double abs_prefix = 0;  // |in[0]| + ... over the inputs summed into element i
        for (std::size_t i = 0; i < n; ++i) {
            if (inclusive) abs_prefix += std::fabs(static_cast<double>(values[i]));
            const std::size_t summed = inclusive ? i + 1 : i;
            const double error = std::fabs(static_cast<double>(got[i]) - expected[i]);
            // an error within 2 * summed * 2^-24 * abs_prefix is within float_scan_tolerance (expm1(x) >= x): its
            // expm1, the costly part of a 2^24-element check, is computed only for the others
            const bool surely_within = !exact && error <= 2.0 * static_cast<double>(summed) / 16777216.0 * abs_prefix;
            const double tolerance = exact || surely_within ? 0.0 : float_scan_tolerance(summed, abs_prefix);
            if (!surely_within && !(error <= tolerance)) {  // also catches NaN
                std::ostringstream s;
                s.precision(9);
                s << "element " << i << " of " << n << " is " << got[i] << ", expected " << expected[i] << " +- "
                  << tolerance;
                return s.str();
            }
            if (!inclusive) abs_prefix += std::fabs(static_cast<double>(values[i]));
        }
        return "";
    }
}

// `s` scanning n elements of `data`; `given`: a runner parameter set to 1 (scan_runner.cpp), or none.
template <class T, class Acc>
Result run_scan(const Scan& s, ScanKind kind, const ScanData<T, Acc>& data, std::size_t n, int block,
                std::size_t max_n, const char* given = nullptr)
{
    Call c = scan_call(s, kind, n, block, max_n);
    if (given != nullptr) c.param(given, 1);
    return course::checker::run(
        c.input(data.input, data.first, n, data.first).output(sizeof(T), n, poison, guard, data.first));
}

// What is wrong with run_scan(...) of these arguments, "" when nothing: the call returned, its n elements are
// right, and the elements before them and the guard after them still hold the poison.
template <class T, class Acc>
std::string problem_of(const Scan& s, ScanKind kind, const ScanData<T, Acc>& data, std::size_t n, int block,
                       std::size_t max_n, bool exact = false, const char* given = nullptr)
{
    const Result r = run_scan(s, kind, data, n, block, max_n, given);
    if (!r.ok()) return r.what();
    const std::string wrong = mismatch(data, kind, n, r.elements<T>(1), exact);
    const auto outside = course::testing::written_outside(r, 1, n, poison);
    if (!wrong.empty() || !outside) return wrong;
    return "wrote outside its output (element " + std::to_string(*outside) + ")";
}

// problem_of(...) of the inclusive, then the exclusive scan, verified: a failure names the task, the call (`on`
// says on what) and the kind. False at the first failure.
template <class Data>
bool check_both_kinds(const Scan& s, const Data& data, std::size_t n, int block, std::size_t max_n,
                      const std::string& on = "", bool exact = false)
{
    for (ScanKind kind : {ScanKind::inclusive, ScanKind::exclusive}) {
        const std::string what = call(s.op, n, block) + on + " " + to_string(kind);
        const std::string label = course::testing::detail::note_call(s.task, what);
        const std::string problem = problem_of(s, kind, data, n, block, max_n, exact);
        VERIFY(problem.empty(), label << ": " << problem);
        if (!problem.empty()) return false;
    }
    return true;
}

// `s` must reject these arguments before it runs anything. Its pointers hold an address below Linux's
// mmap_min_addr, never a buffer: a launcher that runs the call anyway faults.
void check_rejects(const Scan& s, std::size_t n, int block, std::size_t max_n, const std::string& why = "",
                   ScanKind kind = ScanKind::inclusive)
{
    constexpr unsigned long long unmapped = 0x1000;
    const Call c = scan_call(s, kind, n, block, max_n).fake(4, unmapped).fake(4, unmapped);
    const std::string what = call(s.op, n, block) + " " + to_string(kind) + why;
    course::testing::check_rejected(s.task, what, course::checker::run(c));
}

// ------------------------------------------------------------------------------------------- the checks
// The scan a task builds on must work first (one tile of block 256, inclusive): otherwise the failure names
// that task instead of this one.
bool earlier_task_works(const Scan& s)
{
    if (s.earlier == nullptr) return true;
    const Scan& earlier = *s.earlier;
    const std::size_t n = earlier.tile(256);
    const IntData data(course::random_ints(n, seed(9)));
    return course::testing::depends_on(s.task, earlier.task, call(earlier.op, n, 256),
                                       problem_of(earlier, ScanKind::inclusive, data, n, 256, n));
}

// Both kinds of `s` at n and block: checked up to what the scan takes, rejected past a single-block scan's limit.
bool check_size(const Scan& s, const IntData& data, std::size_t n, int block, std::size_t max_n)
{
    const std::size_t most = capacity(s, block);
    if (n <= most) return check_both_kinds(s, data, n, block, max_n);
    if (!s.multi_tile)
        for (ScanKind kind : {ScanKind::inclusive, ScanKind::exclusive})
            check_rejects(s, n, block, max_n, " (past its limit " + std::to_string(most) + ")", kind);
    return true;
}

// The battery (check_size at every block x sizes()), then wrapping sums and misaligned pointers, both kinds.
void check_scan(const Scan& s)
{
    REQUIRE_GPU();
    const std::size_t max_n = largest_size() + 1;
    const IntData data(course::random_ints(capacity(s, 1024) + 1, seed(s.multi_tile ? 3 : 1)));
    // Values in [2^30, INT_MAX]: the running total passes INT_MAX within a few elements, many times over.
    const IntData wrapping(course::random_ints(std::min(capacity(s, 1024), wrapping_n), seed(2), 1 << 30, INT_MAX));
    // data[1, misaligned_n + 1) (the same seed gives the same values), one element into its buffers.
    const IntData misaligned(course::random_ints(s.misaligned ? misaligned_n + 1 : 1, seed(3)), 1);
    course::testing::Battery b;
    b.task = s.task;
    b.gate = [&] { return earlier_task_works(s); };
    b.sizes = [&](int block) { return sizes(s, block); };
    b.check = [&](std::size_t n, int block) { return check_size(s, data, n, block, max_n); };
    b.unique = [&] {
        for (int block : course::testing::power_of_two_blocks()) {
            const std::size_t wraps = std::min(capacity(s, block), wrapping_n);
            if (!check_both_kinds(s, wrapping, wraps, block, max_n, " with wrapping int32 sums")) return;
        }
        if (s.misaligned)
            check_both_kinds(s, misaligned, misaligned_n, 256, max_n, " on pointers 4 bytes past 16-byte alignment");
    };
    b.reject = [&](int bad_block) { check_rejects(s, 1, bad_block, max_n); };
    if (s.multi_tile)
        b.bad_arguments = [&] {
            check_rejects(s, max_n + 1, 256, max_n, " with a ScanWorkspace for max_n = " + std::to_string(max_n));
        };
    course::testing::check_battery(b);
}

// The graded race check: blocks 32, 256, 1024 x small_sizes(), both kinds, under racecheck, then synccheck.
void check_race_free(const Scan& s)
{
    const auto small = [&](int block) { return small_sizes(s, block); };
    const std::size_t max_n = course::testing::largest_of(small, course::testing::sample_blocks);
    const IntData data(course::random_ints(max_n, seed(8)));
    course::testing::check_race_free(s.task, [&] {
        course::testing::check_each(course::testing::sample_blocks, small, [&](std::size_t n, int block) {
            return check_size(s, data, n, block, max_n);
        });
    });
}

// What is wrong with the inclusive scan of n ints held by the runner's last call (buffer 1), element i expected(i),
// and the `tail` poisoned elements after it ("" when nothing), fetched and judged 256 MiB at a time.
template <class Expected>
std::string held_scan_problem(course::checker::Session& runner, std::size_t n, std::size_t tail, Expected expected)
{
    const int poisoned = static_cast<int>(0x01010101u * poison);  // 0xABABABAB
    constexpr std::size_t window = std::size_t{1} << 26;            // ints: 256 MiB
    constexpr std::size_t chunk = 4096;  // expected in order into `want`, then compared in a loop without exits
    int want[chunk];
    std::string problem;
    for (std::size_t start = 0; problem.empty() && start < n + tail; start += window) {
        const std::size_t count = std::min(window, n + tail - start);
        const std::size_t body = start < n ? std::min(count, n - start) : 0;  // elements of the output
        const Result w = runner.fetch(1, start * sizeof(int), count * sizeof(int), [&](const unsigned char* bytes) {
            const int* got = reinterpret_cast<const int*>(bytes);
            for (std::size_t from = 0; problem.empty() && from < body; from += chunk) {
                const std::size_t size = std::min(chunk, body - from);
                bool differs = false;
                for (std::size_t k = 0; k < size; ++k) want[k] = expected(start + from + k);
                for (std::size_t k = 0; k < size; ++k) differs |= got[from + k] != want[k];
                for (std::size_t k = 0; differs && problem.empty(); ++k)
                    if (got[from + k] != want[k])
                        problem = "element " + std::to_string(start + from + k) + " is " +
                                  std::to_string(got[from + k]) + ", expected " + std::to_string(want[k]) +
                                  (got[from + k] == poisoned ? " (never written: a 32-bit index?)" : "");
            }
            for (std::size_t k = body; problem.empty() && k < count; ++k)
                if (got[k] != poisoned)
                    problem = "wrote outside its output (element " + std::to_string(start + k) + ")";
        });
        if (!w.ok()) problem = w.what();
    }
    return problem;
}

// 64-bit indexing: 2^31 + 2^16 + 7 ints, so that whole tiles (up to 32768 items) start past 2^31. The input is the
// byte 0x01 everywhere (made by the runner): element i of the scan is (i + 1) * 0x01010101 modulo 2^32.
void check_large(const Scan& s)
{
    constexpr std::size_t n = (std::size_t{1} << 31) + (std::size_t{1} << 16) + 7;
    const int block = 256;
    REQUIRE_GPU_MEMORY(2 * n * sizeof(int) + (std::size_t{512} << 20));
    if (!earlier_task_works(s)) return;
    const std::string label = course::testing::detail::note_call(s.task, call(s.op, n, block) + " inclusive");
    course::checker::Session& runner = course::checker::session();
    const Result r = runner.run(scan_call(s, ScanKind::inclusive, n, block, n)
                                    .filled(sizeof(int), n, 0x01)
                                    .output<int>(n, poison, guard)
                                    .hold()
                                    .timeout(std::chrono::seconds(300)));
    const std::string problem = !r.ok() ? r.what() : held_scan_problem(runner, n, guard, [](std::size_t i) {
        return static_cast<int>(static_cast<std::uint32_t>(i + 1) * 0x01010101u);  // (i + 1) * 0x01010101 mod 2^32
    });
    VERIFY(problem.empty(), label << ": " << problem);
}

// A scan task's test cases: its battery, its own cases, its race check and, for a multi-tile scan, past 2^31.
course::testing::TaskCases scan_cases(const Scan& s, const char* title,
                                      std::vector<std::pair<std::string, std::function<void()>>> own = {})
{
    return {s.task, s.op + ": " + title, [&s] { check_scan(s); }, std::move(own), [&s] { check_race_free(s); },
            s.op + " of 2^31 + 65543 ints", s.multi_tile ? std::function<void()>([&s] { check_large(s); }) : nullptr};
}

// ---- the test cases (07.1 and 07.2 are single-block scans, n <= 2 * block: nothing of theirs reaches 2^31)
COURSE_TASK_CASES(scan_cases(hillis_steele, "n <= block, every block, inclusive and exclusive, limits"));
COURSE_TASK_CASES(scan_cases(blelloch, "n <= 2 * block, every block, inclusive and exclusive, limits"));
COURSE_TASK_CASES(scan_cases(multiblock, "any n, every block, 1 to 4 recursion levels, inclusive and exclusive"));
COURSE_TASK_CASES(scan_cases(warp_shuffle, "any n, every block, misaligned pointers, inclusive and exclusive"));

// ------------------------------------------------------------------------------- given code of 07.5
// The given-code checks below need a working 07.5 (a scan of all of `data`, block 256, on a ScanWorkspace for
// max_n): before that they have nothing to judge.
bool single_pass_works(const IntData& data, std::size_t max_n)
{
    if (problem_of(single_pass, ScanKind::inclusive, data, data.inclusive.size(), 256, max_n).empty()) return true;
    MESSAGE("scan_single_pass (TODO(07.5)) does not scan right yet: nothing to judge here");
    return false;
}

// scan_single_pass's host-side bookkeeping of its ScanWorkspace (which status words the next launch may use)
// follows the GPU even when an unrelated CUDA error is pending as it is called: that call fails with the error,
// the scans after it on the same scratch are right (a launcher that launched, then threw, fell a launch behind).
TEST_CASE("given: scan_single_pass keeps its ScanWorkspace in step when an unrelated CUDA error is pending")
{
    REQUIRE_GPU();
    const std::size_t n = 100003, max_n = 200000;
    const IntData data(course::random_ints(n, seed(11)));
    if (!single_pass_works(data, max_n)) return;
    const Result failed = run_scan(single_pass, ScanKind::inclusive, data, n, 256, max_n, "pending_error");
    VERIFY(failed.outcome == Result::Outcome::error,
           "scan_single_pass called with an unrelated CUDA error pending must fail with that error; it "
               << failed.what());
    for (int round = 0; round < 3; ++round) {
        const std::string problem = problem_of(single_pass, ScanKind::inclusive, data, n, 256, max_n);
        VERIFY(problem.empty(), "scan_single_pass(n=" << n << ", block=256), scan " << round + 1
                                << " on the same ScanWorkspace after a call that failed: " << problem);
    }
}

// A look-back record that an earlier launch left in the ScanWorkspace, never read by check(), changes nothing in
// a later scan: that scan is right, and the next check() still reports the old record once.
TEST_CASE("given: a look-back record left in the ScanWorkspace by an earlier launch changes no later scan")
{
    REQUIRE_GPU();
    const std::size_t n = 1000003, max_n = 2000000;
    const IntData data(course::random_ints(n, seed(12)));
    if (!single_pass_works(data, max_n)) return;
    const std::string problem =
        problem_of(single_pass, ScanKind::inclusive, data, n, 256, max_n, false, "stale_timeout_record");
    VERIFY(problem.empty(), "scan_single_pass(n=" << n << ", block=256) with an earlier launch's look-back record "
                            "still in its ScanWorkspace: " << problem);
    const Result reported = run_scan(single_pass, ScanKind::inclusive, data, n, 256, max_n);
    VERIFY(reported.outcome == Result::Outcome::error &&
               reported.message.find("tile 5 waited on tile 3") != std::string::npos,
           "the next check() must report the old record (tile 5 waited on tile 3); the call " << reported.what());
    VERIFY(problem_of(single_pass, ScanKind::inclusive, data, n, 256, max_n).empty(),
           "scan_single_pass after the old record was reported must be right");
}

// ------------------------------------------------------------------------------------ 07.5: float scans
// Random floats in [-1, 1), within the bound, and whole numbers in [-100, 100] whose partial sums stay below 2^23,
// so that every float addition a scan makes is exact (docs/07_scan.md, "Floats: the error bound").
void check_float_scans()
{
    REQUIRE_GPU();
    const Scan& s = single_pass_float;
    const std::size_t largest = largest_size();
    const std::size_t max_n = largest + 1;
    const FloatData values(course::random_floats(largest, seed(5)));
    const std::vector<int> ints = course::random_ints(largest, seed(6), -100, 100);
    const FloatData whole(std::vector<float>(ints.begin(), ints.end()));
    double largest_partial = 0;
    for (double v : whole.inclusive) largest_partial = std::max(largest_partial, std::fabs(v));
    REQUIRE_MESSAGE(largest_partial < 8388608.0, "the integer-valued input's partial sums reach 2^23; rerun");
    course::testing::Battery b;
    b.task = s.task;
    b.gate = [&] { return earlier_task_works(s); };
    b.sizes = [&](int block) { return sizes(s, block); };
    b.check = [&](std::size_t n, int block) {
        return n > largest || (check_both_kinds(s, values, n, block, max_n) &&
                               check_both_kinds(s, whole, n, block, max_n, " of whole numbers", true));
    };
    b.bad_arguments = [&] { check_rejects(s, 1, 100, max_n); };
    course::testing::check_battery(b);
}

// ------------------------------------------------------------------------ 07.5: the look-back alone
// decoupled_look_back run once as tile `tile` on statuses written here: tiles before it hold A's, except a P at
// `prefix_at` and an X at `late` that a second block turns into A while the look-back polls it (none: no such
// tile). Tiles the look-back must not reach hold A's of values that would spoil the sum.
constexpr std::size_t none = static_cast<std::size_t>(-1);
struct LookBack {
    const char* what;
    std::size_t tile;
    std::size_t prefix_at;
    std::size_t late;
};
const LookBack look_backs[] = {
    {"after 100 A's (tile 0 too: before it counts as an empty P)", 100, none, none},
    {"after a P at tile 60 and A's after it", 100, 60, none},
    {"after a P at tile 90 and A's after it, tile 95 at X until it publishes A", 100, 90, 95},
    {"after tile 0's P", 1, 0, none},
};

// Checked: every lane returns the sum of the tiles from the nearest P on, the tile's word ends as P of that sum
// plus its aggregate, no wait gave up, and (with a late tile) the tile had published its A before it waited.
void check_look_back(const LookBack& lb)
{
    const std::vector<int> random = course::random_ints(101, seed(10));
    const auto value = [&](std::size_t t) { return static_cast<unsigned>(random[t]) * 2654435761u; };
    const unsigned aggregate = value(100);
    std::vector<unsigned long long> statuses(lb.tile + 1, TileStatus::invalid);
    unsigned expected = 0;
    for (std::size_t t = 0; t < lb.tile; ++t) {
        statuses[t] = (t == lb.prefix_at ? TileStatus::prefix : TileStatus::aggregate) | value(t);
        if (lb.prefix_at == none || t >= lb.prefix_at) expected += value(t);
    }
    Call c("probe_decoupled_look_back", 0);
    c.param("tile", static_cast<long long>(lb.tile)).param("aggregate", aggregate);
    if (lb.late != none) {
        statuses[lb.late] = TileStatus::invalid;
        c.param("late_tile", static_cast<long long>(lb.late))
            .param("late_word", static_cast<long long>(TileStatus::aggregate | value(lb.late)));
    }
    const course::checker::Input input(statuses);
    c.input(input, 0, statuses.size()).output<unsigned>(32, poison).output<unsigned long long>(3, poison);
    const std::string what = "decoupled_look_back as tile " + std::to_string(lb.tile) + " " + lb.what;
    const Result r = course::checker::run(c);
    if (!course::testing::returned(single_pass.task, what, r)) return;
    const std::string label = single_pass.task + ": " + what;
    const unsigned* prefix = r.elements<unsigned>(1);
    const unsigned long long published = r.element<unsigned long long>(2, 0);
    const unsigned long long saw_aggregate = r.element<unsigned long long>(2, 1);
    const unsigned long long timeout_record = r.element<unsigned long long>(2, 2);
    VERIFY(timeout_record == 0, label << ": tile " << (timeout_record >> 32) << " waited on tile "
                                      << (timeout_record & 0xffffffffull)
                                      << " for more than 1 s (it reads a tile that never publishes)");
    int lane = 0;
    while (lane < 32 && prefix[lane] == expected) ++lane;
    VERIFY(lane == 32, label << ": lane " << lane << " returned " << prefix[lane % 32] << ", expected " << expected
                             << " (the sum of the earlier tiles, in every lane)");
    const unsigned long long p = TileStatus::prefix | static_cast<unsigned>(expected + aggregate);
    VERIFY(published == p, label << ": its status word ends as flag " << (published >> 32) << " with value "
                                 << static_cast<unsigned>(published) << ", expected P (flag 2) with value "
                                 << static_cast<unsigned>(expected + aggregate)
                                 << " (the prefix plus its own aggregate)");
    if (lb.late != none)
        VERIFY(saw_aggregate == 1, label << ": while it waited for tile " << lb.late
                                         << ", its own status showed no A: publish A at once, before looking back (a "
                                            "later tile may be waiting for it)");
}

// ------------------------------------------------------------------------------- 07.5: performance
// The performance task (course/performance.hpp) of 07.5: an inclusive scan_single_pass of 2^28 ints, block 256.
course::testing::Performance performance(const Scan& s)
{
    constexpr std::size_t n = std::size_t{1} << 28;
    const auto timed = [&s](const std::string&, std::uint64_t seed) {
        // A gigabyte made on all cores (the GPU, held alone for these calls, waits for it); its inclusive scan
        // computed as the output is compared, element by element in order: no gigabyte of reference.
        const auto data = std::make_shared<const course::checker::Input>(course::checker::Input(
            n, sizeof(int), [=](void* out) { course::random_ints(static_cast<int*>(out), n, seed); }));
        const Call c = scan_call(s, ScanKind::inclusive, n, 256, n).input(*data, 0, n).output<int>(n, poison).hold();
        return course::testing::TimedCall{c, [data](course::checker::Session& runner, const Result&) {
            const int* values = data->data<int>();
            std::size_t next = 0;  // the running total is that of values[0, next)
            std::uint32_t running = 0;
            return held_scan_problem(runner, n, 0, [&](std::size_t i) {
                if (i + 1 < next) throw std::logic_error("the timed scan's reference is asked out of order");
                for (; next <= i; ++next) running += static_cast<std::uint32_t>(values[next]);
                return static_cast<int>(running);
            });
        }};
    };
    return {s.task, s.op, "scan", n, "2^28 ints", 8.0 * n, 4.0 * n, 2 * n * sizeof(int) + (std::size_t{512} << 20),
            {""}, timed};
}

}  // namespace

// 07.5's own cases: its float scans, and the look-back alone (docs/07_scan.md, "What the checks test").
COURSE_TASK_CASES(scan_cases(
    single_pass, "any n, every block, misaligned pointers, inclusive and exclusive",
    {{"scan_single_pass<float>: within the derived bound; integer-valued floats exactly", check_float_scans},
     {"decoupled_look_back on prepared statuses: 100 A's, a P 40 tiles back, an X that turns into A", [] {
          REQUIRE_GPU();
          for (const LookBack& lb : look_backs) check_look_back(lb);
      }}}));
COURSE_PERFORMANCE(performance(single_pass));
