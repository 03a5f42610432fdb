// Chapter 04 checks (docs/04_unroll_warp.md, "What the checks run"): every task's int reductions get the battery of
// course/reduction_checks.hpp, declared once per task below, through the chapter's runner (unroll_warp_runner.cpp);
// 04.6 adds misaligned starts, bytes, floats, two streams and its lesson; 04.7 is answered by hand.
#include "unroll_warp.hpp"

#include "course/battery.hpp"
#include "course/checker.hpp"
#include "course/data.hpp"
#include "course/reduction_checks.hpp"
#include "course/reference.hpp"
#include "course/testing.hpp"

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdint>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

using course::testing::Dependency;
using course::testing::IntData;
using course::testing::Launcher;
using course::testing::call;
using course::testing::new_workspace;
using course::testing::seed;

namespace {

constexpr unsigned char poison = course::testing::total_poison;

// ---- the chapter's int reductions, by task -------------------------------------------------------------------
// No cascades: the earlier tasks' device functions a task's kernels call, each checked alone first through its
// probe (unroll_warp.hpp); 04.3's race case first runs 04.2's last_warp_sum under the tools.
const Dependency unrolled{"TODO(04.1)", "thread_sum_unrolled", "reduce_unrolling8", true};
const Dependency last_warp{"TODO(04.2)", "last_warp_sum", "probe_last_warp_sum", false, true};
const Dependency tree{"TODO(04.3)", "tree_sum_complete_unroll", "probe_tree_sum_complete_unroll", false};
const Dependency grid_stride{"TODO(04.4)", "thread_sum_grid_stride", "probe_thread_sum_grid_stride", true};
const Dependency shfl{"TODO(04.5)", "ShflWarpSum", "probe_shfl_warp_sum", false};

// Large: 2^31 + 2^20 + 5 elements, made on the runner's side: one random period of 2^24 + 7 elements repeated
// (odd, so an index that stops or wraps at 2^31 reads other values), whose sums have a closed form.
constexpr std::size_t large_n = (std::size_t{1} << 31) + (std::size_t{1} << 20) + 5;
constexpr std::size_t large_period = (std::size_t{1} << 24) + 7;
constexpr std::size_t large_margin = std::size_t{512} << 20;

// Every task: the standard sizes and ints over the whole int range (sums that need 64 bits inside every block
// as well as in the total), +-INT_MAX, bad arguments whose messages name what is wrong, past 2^31 elements.
course::testing::ReductionTask int_task(const char* task, const char* label, std::vector<std::string> ops,
                                        std::vector<Dependency> depends)
{
    return course::testing::ReductionTask(task, label, std::move(ops))
        .depends_on(std::move(depends))
        .full_int_range()
        .values_at(INT_MAX)
        .naming_rejects()
        .large(large_n, large_period, {32, 256, 1024});
}

// The 04.6 launchers, each on a workspace the runner keeps per value of "workspace" (new_workspace): every case
// shares a new one between all its launches, so a kernel that does not reset it fails from the second launch on.
// reduce_vectorized_float has two overloads: the runner picks by accumulator_bits.
const Launcher vectorized_ints{"reduce_vectorized", "reduce_vectorized"};
const Launcher vectorized_bytes{"reduce_vectorized_bytes", "reduce_vectorized_bytes", 1, sizeof(long long)};
const Launcher float_in_double{"reduce_vectorized_float", "reduce_vectorized_float (double accumulation)",
                               sizeof(float), sizeof(double), {{"accumulator_bits", 64}}};
const Launcher float_in_float{"reduce_vectorized_float", "reduce_vectorized_float (float accumulation)",
                              sizeof(float), sizeof(float), {{"accumulator_bits", 32}}};
Launcher on(Launcher l, const std::pair<std::string, long long>& workspace = new_workspace())
{
    l.params.insert(l.params.begin(), workspace);
    return l;
}

const auto unrolling =
    int_task("TODO(04.1)", "reduce_unrolling2/4/8", {"reduce_unrolling2", "reduce_unrolling4", "reduce_unrolling8"}, {})
        .race_free();
const auto syncwarp =  // thread_sum_unrolled<8>, then the 04.2 tree
    int_task("TODO(04.2)", "reduce_unroll_warp_syncwarp", {"reduce_unroll_warp_syncwarp"}, {unrolled}).race_free();
const auto complete =  // thread_sum_unrolled<8>, the 04.3 tree -> last_warp_sum (every template instance)
    int_task("TODO(04.3)", "reduce_complete_unroll", {"reduce_complete_unroll"}, {unrolled, last_warp}).race_free();
const auto grid = int_task("TODO(04.4)", "reduce_grid_stride", {"reduce_grid_stride"},
                           {last_warp, tree});  // the 04.4 loads, then the 04.3 tree
const auto warp = int_task("TODO(04.5)", "reduce_shfl/cg/redux", {"reduce_shfl", "reduce_cg", "reduce_redux"},
                           {grid_stride});  // the 04.4 loads, then the 04.5 warp sums
const auto vectorized =  // block_sum<ShflWarpSum>; starts 0 and 3 past 2^31 elements
    int_task("TODO(04.6)", "reduce_vectorized", {"reduce_vectorized"}, {shfl})
        .workspace_per_case()
        .rejects_also("those of reduce_vectorized_float and _bytes",
                      [](const course::testing::Reduction&) {
                          const auto workspace = new_workspace();  // one for the three
                          for (const Launcher* l : {&float_in_double, &float_in_float, &vectorized_bytes})
                              course::testing::check_rejects_naming("TODO(04.6)", on(*l, workspace));
                      })
        .large(large_n, large_period, {32, 256, 1024}, {0, 3})
        .performance("reduce_vectorized");
COURSE_REDUCTION_TASKS(unrolling, syncwarp, complete, grid, warp, vectorized);

// ---- 04.6: misaligned starts, other element types, two streams ----------------------------------------------
// A case of 04.6's own: on a GPU, once the earlier tasks' functions its kernels call work.
std::function<void()> gated(std::function<void()> check)
{
    return [check] {
        REQUIRE_GPU();
        if (course::testing::dependencies_pass("TODO(04.6)", vectorized.depends())) check();
    };
}

std::string at_first(std::size_t first)
{
    return first == 0 ? std::string() : " starting " + std::to_string(first) + " element(s) past a 16-byte boundary";
}

// Every call of `l` on data[first, first + n), from a buffer that also holds the `first` elements before them (a
// misaligned pointer for first > 0): once it returned and left its input unchanged, judge(what, its total, n, the
// reference of data[first, first + n)). Block x start x size: the standard sizes plus sizes around multiples of 4
// (ints, floats) and 16 (bytes; bytes also around 32 and 256), so that the vector body, the scalar head and the
// scalar tail each get empty, partial and full cases; start 0 at every block, starts 1-3 (bytes also 5, 8 and 15)
// at blocks 32, 256 and 1024 (where the head and the tail fall depends on the start and n, not on the block).
template <class Total, class T, class R, class Judge>
void check_starts(const Launcher& l, const course::testing::RangeData<T, R>& data, const std::string& of,
                  const Judge& judge)
{
    std::vector<std::size_t> firsts = {0, 1, 2, 3};
    std::vector<std::size_t> sizes = {3, 4, 5, 7, 8, 9, 15, 16, 17, 63, 64, 65, 4095, 4096, 4097, 65535, 65536, 65537};
    if constexpr (sizeof(T) == 1) {
        firsts.insert(firsts.end(), {5, 8, 15});
        sizes.insert(sizes.end(), {31, 32, 33, 255, 256, 257});
    }
    for (int block : course::testing::power_of_two_blocks())
        for (std::size_t first : firsts) {
            if (first > 0 && !course::testing::is_sample_block(block)) continue;
            for (std::size_t n : course::testing::sizes_with(block, sizes)) {
                const std::string what = call(l.name, n, block) + at_first(first) + of;
                const bool back = n <= course::testing::checked_input_limit;
                auto c = l.call(n, block);
                c.input(data.input(), first, n, first);
                if (back) c.returned();
                const course::checker::Result got = course::checker::run(c.output<Total>(1, poison));
                if (!course::testing::returned("TODO(04.6)", what, got)) continue;
                const auto mm = back ? course::first_mismatch(data.values() + first, got.elements<T>(0), n)
                                     : std::nullopt;
                VERIFY(!mm, "TODO(04.6): " << what << " changed its input: " << course::describe(*mm, n));
                if (!mm) judge(what, got.element<Total>(1), n, data.expected(first, n));
            }
        }
}

// Exact sums of ints or bytes.
template <class T>
void check_exact(const Launcher& l, const std::vector<T>& values)
{
    const course::testing::RangeData<T, std::int64_t> data(values, course::sum_reference);
    check_starts<long long>(l, data, "", [](const std::string& what, long long got, std::size_t, std::int64_t sum) {
        CHECK_RESULT("TODO(04.6)", what, got, sum);
    });
}

std::string precise(double x)
{
    std::ostringstream s;
    s.precision(17);
    s << x;
    return s.str();
}

// The compensated sum of a range of floats and the sum of their magnitudes.
struct FloatSums {
    double sum, sum_abs;
};

// Every float sum of `l` (Total: its accumulator) equal to the compensated reference if `exact`, else (double
// accumulation) within 2 n u sum|x| of it, u = 2^-53: every element passes through at most n - 1 rounded double
// additions, in whatever order the GPU takes, so |got - exact| <= gamma(n - 1) * sum|x| with gamma(k) = k u /
// (1 - k u); the compensated reference is within about u |exact| <= u sum|x| of the exact sum. 2 n u sum|x| bounds
// both together (see the README).
template <class Total>
void check_floats(const Launcher& l, const std::vector<float>& values, const std::string& of, bool exact)
{
    const course::testing::RangeData<float, FloatSums> data(values, [](const float* x, std::size_t n) {
        return FloatSums{course::sum_reference(x, n), course::sum_abs_reference(x, n)};
    });
    check_starts<Total>(l, data, of, [exact](const std::string& what, Total got, std::size_t n, const FloatSums& sums) {
        const double within = exact ? 0.0 : 2.0 * static_cast<double>(n) * 0x1p-53 * sums.sum_abs;
        VERIFY(std::fabs(static_cast<double>(got) - sums.sum) <= within,  // also fails for NaN
               "TODO(04.6): " << what << " returned " << precise(static_cast<double>(got)) << ", expected "
                              << precise(sums.sum) << (within > 0 ? " +- " + precise(within) : std::string()));
    });
}

// Room for the largest standard size from any start.
std::size_t with_starts(std::size_t elements) { return course::testing::largest_standard_size() + elements; }

// Integer-valued floats in {-1, 0, 1}: every partial sum, in any order, is an integer of magnitude at most
// sum|x| <= 2^24, which a float holds exactly, so both accumulations must return the exact sum.
void check_integer_floats()
{
    const auto ints = course::random_ints(with_starts(16), seed(5), -1, 1);
    const std::vector<float> values(ints.begin(), ints.end());
    // About 2/3 of the values are +-1: sum|x| is near 1.1e7 for the largest size, far below 2^24 = 1.7e7.
    REQUIRE(course::sum_abs_reference(values.data(), values.size()) <= 0x1p24);
    const auto workspace = new_workspace();
    check_floats<double>(on(float_in_double, workspace), values, " of floats in {-1, 0, 1}", true);
    check_floats<float>(on(float_in_float, workspace), values, " of floats in {-1, 0, 1}", true);
}

// Two launches at once, on two streams of the runner's, with a workspace each: nothing else is shared, so both
// sums are right. Small inputs (grids of a few blocks, which run side by side) and large ones (grids that fill
// the GPU, whose blocks interleave as they finish), five rounds each on the same two workspaces.
void check_two_streams()
{
    const std::size_t largest = (std::size_t{1} << 24) + 3;
    const IntData data[] = {IntData(course::random_ints(largest, seed(11))),
                            IntData(course::random_ints(largest, seed(12)))};
    const auto workspace = new_workspace();
    const std::size_t sizes[][2] = {{(1u << 16) + 3, (1u << 15) + 1}, {largest, (1u << 23) + 1}};  // stream A, B
    for (const auto& n : sizes)
        for (int round = 0; round < 5; ++round) {
            const std::string what = "reduce_vectorized on two streams (n=" + std::to_string(n[0]) + " and " +
                                     std::to_string(n[1]) + ", block=256, round " + std::to_string(round) + ")";
            course::checker::Call c("reduce_vectorized on two streams", n[0], 256);
            c.param(workspace.first, workspace.second).param("n_b", static_cast<long long>(n[1]));
            for (std::size_t s : {0, 1}) c.input(data[s].input(), 0, n[s]).output<long long>(1, poison);
            const auto got = course::checker::run(c);
            if (!course::testing::returned("TODO(04.6)", what, got)) return;
            for (std::size_t s : {0, 1})
                CHECK_RESULT("TODO(04.6)", call("reduce_vectorized", n[s], 256) << " on stream " << "AB"[s]
                                               << ", beside stream " << "BA"[s] << " (round " << round << ")",
                             got.element<long long>(2 * s + 1), data[s].sum(0, n[s]));
        }
}

// Its own Meson test ('TODO(04.6) large', suite 'large'): 8.6 GB of ints, then 2.2 GB of bytes, on the GPU.
// 2^31 + 2^20 + 5 bytes, aligned and 3 bytes past a 16-byte boundary.
void check_large_bytes()
{
    REQUIRE_GPU_MEMORY(large_n + large_margin);
    if (!course::testing::dependencies_pass("TODO(04.6)", vectorized.depends())) return;
    const std::vector<std::uint8_t> values =
        course::random_bytes(large_period, seed(10), course::ByteDistribution::uniform);
    const course::checker::Input period(values);
    const long long whole = course::sum_reference(values.data(), large_period);
    const auto below = [&](std::size_t end) {
        return static_cast<long long>(end / large_period) * whole +
               course::sum_reference(values.data(), end % large_period);
    };
    const Launcher l = on(vectorized_bytes);
    for (int block : {256, 1024})
        for (std::size_t first : {std::size_t{0}, std::size_t{3}}) {
            const std::size_t n = large_n - first;
            const std::string what = call(l.name, n, block) + at_first(first);
            const auto got = course::checker::run(l.call(n, block)
                                                      .periodic(period, n, course::boundary::Role::in, first)
                                                      .output<long long>(1, poison)
                                                      .timeout(std::chrono::seconds(300)));
            if (!course::testing::returned("TODO(04.6)", what, got)) return;
            CHECK_RESULT("TODO(04.6)", what, got.element<long long>(1), below(large_n) - below(first));
        }
}

COURSE_TASK_CASES({"TODO(04.6)",
                   "reduce_vectorized: standard sizes and multiples of 4 +-1 x starts 0-3 (1-3 at blocks 32, 256, "
                   "1024)",
                   gated([] { check_exact(on(vectorized_ints), course::random_ints(with_starts(16), seed(1))); }),
                   {{"reduce_vectorized_bytes: standard sizes and multiples of 16 +-1 x starts 0-15 (all but 0 at "
                     "blocks 32, 256, 1024)",
                     gated([] {
                         const auto bytes =
                             course::random_bytes(with_starts(16 * 4), seed(3), course::ByteDistribution::uniform);
                         check_exact(on(vectorized_bytes), bytes);
                     })},
                    {"reduce_vectorized_float: random floats within 2 n 2^-53 sum|x| (double accumulation)", gated([] {
                         const auto floats = course::random_floats(with_starts(16), seed(4));
                         check_floats<double>(on(float_in_double), floats, "", false);
                     })},
                    {"reduce_vectorized_float: integer-valued floats summed exactly (double and float accumulation)",
                     gated(check_integer_floats)},
                    {"reduce_vectorized: two launches at once on two streams, one workspace each",
                     gated(check_two_streams)}},
                   nullptr,
                   "reduce_vectorized_bytes of more than 2^31 bytes, aligned and misaligned",
                   check_large_bytes});

// ---- 04.7: occupancy by hand ------------------------------------------------------------------------------
// The checks' own count, by Task 04.7's rules: what each resource alone allows, then the smallest (the table
// has no ties).
OccupancyAnswer occupancy_of(const OccupancyKernel& k)
{
    const auto least = std::min<std::pair<int, Limit>>(
        {{2048 / k.threads_per_block, Limit::threads},
         {32, Limit::blocks},
         {65536 / (k.threads_per_block * k.registers_per_thread), Limit::registers},
         {228 / (k.shared_kib_per_block + 1), Limit::shared_memory}},
        [](const auto& x, const auto& y) { return x.first < y.first; });
    return {least.first, least.first * k.threads_per_block / 32, least.second};
}

// Limit's answers by name, in its order (any other number reads as unanswered).
std::string limit_name(long long limit)
{
    const char* const names[] = {"nothing (unanswered)", "threads", "blocks", "registers", "shared memory"};
    return names[limit > 0 && limit < 5 ? limit : 0];
}

}  // namespace

// The lesson: 16-byte loads, four in flight per thread, a grid that fills the GPU keep DRAM busy. Nsight Compute
// measures one checked launch at n = 2^26 (its own Meson test 'TODO(04.6) lesson', suite 'lesson').
TEST_CASE("TODO(04.6) lesson: reduce_vectorized keeps DRAM more than 70% busy at n = 2^26")
{
    REQUIRE_GPU();
    if (!course::testing::dependencies_pass("TODO(04.6)", vectorized.depends())) return;
    const std::size_t n = std::size_t{1} << 26;
    const IntData data(course::random_ints(n, seed(13)));
    const auto r = vectorized.reductions().front();
    const std::string metric = "dram__throughput.avg.pct_of_peak_sustained_elapsed";
    const auto profile = course::testing::ncu_profile({"reduce_vectorized_kernel"}, {metric},
                                                      [&] { course::testing::check_reduction(r, data, n, 256); });
    if (!profile) return;
    const double busy = profile->at("reduce_vectorized_kernel").at(metric);
    MESSAGE(metric << ", n = " << n << ", block = 256: reduce_vectorized " << busy);
    VERIFY(course::testing::rate_passes(busy, 70.0),
           "TODO(04.6): reduce_vectorized(n=2^26, block=256) keeps DRAM "
               << busy << "% busy (of the peak Nsight Compute assumes); the lesson expects more than 70%: "
                          "16-byte loads, four in flight per thread, a grid that fills the GPU");
}

// ---------------------------------------------------------------------------------------------------- 04.7
TEST_CASE("TODO(04.7) occupancy by hand: blocks and warps per SM of five kernels on an H100, and what limits them")
{
    const auto r = course::checker::run(course::checker::Call("occupancy answers", 0));
    if (!course::testing::returned("TODO(04.7)", "occupancy_answers_by_hand", r)) return;
    for (const OccupancyKernel& k : occupancy_kernels) {
        const OccupancyAnswer want = occupancy_of(k);
        const std::string kernel(1, k.name);
        const long long blocks = r.number(kernel + ".blocks"), warps = r.number(kernel + ".warps"),
                        limit = r.number(kernel + ".limit");
        const bool right_blocks = blocks == want.blocks_per_sm, right_warps = warps == want.warps_per_sm,
                   right_limit = limit == static_cast<long long>(want.limited_by);
        // std::string, not const char*: doctest before 2.4.10 streams a const char* in a message as a pointer
        const auto judged = [](bool right) { return std::string(right ? "right" : "wrong"); };
        VERIFY(right_blocks && right_warps && right_limit,
               "TODO(04.7): kernel " << kernel << " (" << k.threads_per_block << " threads per block, "
                                     << k.registers_per_thread << " registers per thread, " << k.shared_kib_per_block
                                     << " KiB of shared memory per block): you answered " << blocks
                                     << " blocks per SM (" << judged(right_blocks) << "), " << warps << " warps ("
                                     << judged(right_warps) << "), limited by " << limit_name(limit) << " ("
                                     << judged(right_limit)
                                     << "): count what each resource allows alone, then take the smallest (Task 04.7 "
                                        "in unroll_warp.hpp)");
    }
}
