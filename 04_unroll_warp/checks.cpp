// Chapter 04 checks: every kernel against the CPU reference, for every block size the launchers accept
// (powers of two in [32, 1024]) and the standard sizes (0, 1, 2, 31, 32, 33, block-1, block, block+1, 1000,
// 5000, 999983, 2^24+7 and two odd sizes drawn from the run's seed), with negative values, ints over the whole
// int range and a poisoned total. The vectorized kernels also start 1, 2, 3 (bytes: up to 15) elements past a
// 16-byte boundary, at sizes around multiples of 4 and 16. A failure reads e.g.
//   TODO(04.1): reduce_unrolling2(n=33, block=32) returned 0, expected 561
//
// No cascades: a task whose kernel calls an earlier task's device function first runs that function's probe
// (unroll_warp.hpp: the function alone inside given code) and, if it fails, fails with "TODO(04.3): depends
// on TODO(04.2) (last_warp_sum), which fails: ..." instead of blaming the later task.
// Per task also: values at +-INT_MAX, no read past n, a stream of its own, bad arguments, racecheck and
// synccheck on small sizes (04.1 - 04.3) and a large case past 2^31 elements ("TODO(04.k) large"): the battery
// of course/reduction_checks.hpp, declared once per task below. 04.6 adds floats, bytes, two launches at once
// on two streams and the lesson (Nsight Compute: DRAM throughput).
//
// The checks link none of your code: every call goes to the chapter's runner (unroll_warp_runner.cpp), a
// program of its own, and only what comes back is judged, here (course/reduction_checks.hpp).
#include "unroll_warp.hpp"

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
#include <initializer_list>
#include <iterator>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

using course::checker::Call;
using course::checker::Input;
using course::checker::Result;
using course::testing::Dependency;
using course::testing::IntData;
using course::testing::Launcher;
using course::testing::ReductionTask;
using course::testing::call;
using course::testing::largest_standard_size;
using course::testing::new_workspace;

namespace {

constexpr unsigned char poison = course::testing::total_poison;

// The 04.6 launchers keep their state in an UnrollWarpWorkspace, which the runner keeps, one per value of the
// parameter "workspace" (course::testing::new_workspace): every case takes a new one and shares it between all
// its launches, so a kernel that does not reset it fails from the second launch on. The other 04.6 launchers
// (reduce_vectorized_float in its two overloads: the runner picks by accumulator_bits):
Launcher vectorized_bytes(const std::pair<std::string, long long>& workspace)
{
    return {"reduce_vectorized_bytes", "reduce_vectorized_bytes", 1, sizeof(long long), {workspace}};
}
Launcher vectorized_float_double(const std::pair<std::string, long long>& workspace)
{
    return {"reduce_vectorized_float", "reduce_vectorized_float (double accumulation)", sizeof(float),
            sizeof(double), {workspace, {"accumulator_bits", 64}}};
}
Launcher vectorized_float_float(const std::pair<std::string, long long>& workspace)
{
    return {"reduce_vectorized_float", "reduce_vectorized_float (float accumulation)", sizeof(float), sizeof(float),
            {workspace, {"accumulator_bits", 32}}};
}

// ---- sizes -----------------------------------------------------------------------------------------------
// The standard sizes plus sizes around multiples of 4 (ints, floats) and 16 (bytes): the vector body, the
// scalar head and the scalar tail each get empty, partial and full cases.
std::vector<std::size_t> vector_sizes(int block, std::initializer_list<std::size_t> more = {})
{
    std::vector<std::size_t> sizes = course::testing::standard_sizes(block);
    sizes.insert(sizes.end(), {3, 4, 5, 7, 8, 9, 15, 16, 17, 63, 64, 65, 4095, 4096, 4097, 65535, 65536, 65537});
    sizes.insert(sizes.end(), more);
    std::sort(sizes.begin(), sizes.end());
    sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
    return sizes;
}

const std::initializer_list<std::size_t> int_firsts = {0, 1, 2, 3};
const std::initializer_list<std::size_t> byte_firsts = {0, 1, 2, 3, 5, 8, 15};

std::string at_first(std::size_t first)
{
    return first == 0 ? std::string() : " starting " + std::to_string(first) + " element(s) past a 16-byte boundary";
}

// ---- the chapter's int reductions, by task: each gets the battery of course/reduction_checks.hpp ----------
// No cascades: the earlier tasks' device functions a task's kernels call, each checked alone first through its
// probe (unroll_warp.hpp: the function alone inside given code); a large case first checks those that index the
// input past 2^31 elements, and 04.3's race case first runs 04.2's last_warp_sum under the tools (a race there
// is reported as 04.2's, before 04.3's own check, which then sees the same race).
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
ReductionTask int_task(const char* task, const char* label, std::vector<std::string> ops,
                       std::vector<Dependency> depends)
{
    return ReductionTask(task, label, std::move(ops))
        .depends_on(std::move(depends))
        .full_int_range()
        .values_at(INT_MAX)
        .naming_rejects()
        .large(large_n, large_period, {32, 256, 1024});
}

// The other 04.6 launchers' bad arguments (one workspace for the three).
void check_other_vectorized_rejects(const course::testing::Reduction&)
{
    const auto workspace = new_workspace();
    for (const Launcher& l :
         {vectorized_float_double(workspace), vectorized_float_float(workspace), vectorized_bytes(workspace)})
        course::testing::check_rejects_naming("TODO(04.6)", l);
}

const ReductionTask unrolling =
    int_task("TODO(04.1)", "reduce_unrolling2/4/8", {"reduce_unrolling2", "reduce_unrolling4", "reduce_unrolling8"}, {})
        .race_free();
const ReductionTask syncwarp =  // thread_sum_unrolled<8>, then the 04.2 tree
    int_task("TODO(04.2)", "reduce_unroll_warp_syncwarp", {"reduce_unroll_warp_syncwarp"}, {unrolled}).race_free();
const ReductionTask complete =  // thread_sum_unrolled<8>, the 04.3 tree -> last_warp_sum (every template instance)
    int_task("TODO(04.3)", "reduce_complete_unroll", {"reduce_complete_unroll"}, {unrolled, last_warp}).race_free();
const ReductionTask grid = int_task("TODO(04.4)", "reduce_grid_stride", {"reduce_grid_stride"},
                                    {last_warp, tree});  // the 04.4 loads, then the 04.3 tree
const ReductionTask warp = int_task("TODO(04.5)", "reduce_shfl/cg/redux", {"reduce_shfl", "reduce_cg", "reduce_redux"},
                                    {grid_stride});  // the 04.4 loads, then the 04.5 warp sums
const ReductionTask vectorized =  // block_sum<ShflWarpSum>; starts 0 and 3 past 2^31 elements
    int_task("TODO(04.6)", "reduce_vectorized", {"reduce_vectorized"}, {shfl})
        .workspace_per_case()
        .rejects_also("those of reduce_vectorized_float and _bytes", check_other_vectorized_rejects)
        .large(large_n, large_period, {32, 256, 1024}, {0, 3})
        .performance("reduce_vectorized");
COURSE_REDUCTION_TASKS(unrolling, syncwarp, complete, grid, warp, vectorized);

bool vectorized_dependencies_pass() { return course::testing::dependencies_pass("TODO(04.6)", vectorized.depends()); }

// 2^31 + 2^20 + 5 bytes, aligned and 3 bytes past a 16-byte boundary.
void check_large_bytes()
{
    REQUIRE_GPU_MEMORY(large_n + large_margin);
    if (!vectorized_dependencies_pass()) return;
    const std::vector<std::uint8_t> values =
        course::random_bytes(large_period, course::testing::seed(10), course::ByteDistribution::uniform);
    const Input period(values);
    const long long whole = course::sum_reference(values.data(), large_period);
    const auto below = [&](std::size_t end) {
        return static_cast<long long>(end / large_period) * whole +
               course::sum_reference(values.data(), end % large_period);
    };
    const Launcher l = vectorized_bytes(new_workspace());
    for (int block : {256, 1024})
        for (std::size_t first : {std::size_t{0}, std::size_t{3}}) {
            const std::size_t n = large_n - first;
            const std::string what = call(l.name, n, block) + at_first(first);
            const Result got = course::checker::run(l.call(n, block)
                                                        .periodic(period, n, course::boundary::Role::in, first)
                                                        .output<long long>(1, poison)
                                                        .timeout(std::chrono::seconds(300)));
            if (!course::testing::returned("TODO(04.6)", what, got)) return;
            CHECK_RESULT("TODO(04.6)", what, got.element<long long>(1), below(large_n) - below(first));
        }
}

// ---- 04.6: other element types, misaligned starts -----------------------------------------------------------

// A call of `l` on data[first, first + n), from a buffer that also holds the `first` elements before them (a
// misaligned pointer for first > 0): its total, once the call returned and left its input unchanged.
template <class T, class Total>
std::optional<Total> vectorized_total(const Launcher& l, const Input& data, std::size_t first, std::size_t n,
                                      int block, const std::string& what)
{
    const bool back = n <= course::testing::checked_input_limit;
    Call c = l.call(n, block);
    c.input(data, first, n, first);
    if (back) c.returned();
    const Result got = course::checker::run(c.output<Total>(1, poison));
    if (!course::testing::returned("TODO(04.6)", what, got)) return std::nullopt;
    if (back) {
        const auto mm = course::first_mismatch(data.data<T>() + first, got.elements<T>(0), n);
        VERIFY(!mm, "TODO(04.6): " << what << " changed its input: " << course::describe(*mm, n));
        if (mm) return std::nullopt;
    }
    return got.element<Total>(1);
}

// Exact sums of ints or bytes: every size of `sizes(block)` x every block x every start.
template <class T, class Sizes>
void check_exact(const Launcher& l, const std::vector<T>& values, std::initializer_list<std::size_t> firsts,
                 Sizes sizes)
{
    const Input data(values);
    std::map<std::pair<std::size_t, std::size_t>, long long> sums;
    for (int block : course::testing::power_of_two_blocks())
        for (std::size_t first : firsts)
            for (std::size_t n : sizes(block)) {
                const std::string what = call(l.name, n, block) + at_first(first);
                const auto got = vectorized_total<T, long long>(l, data, first, n, block, what);
                if (!got) continue;
                auto [at, fresh] = sums.try_emplace({first, n}, 0);
                if (fresh) at->second = course::sum_reference(values.data() + first, n);
                CHECK_RESULT("TODO(04.6)", what, *got, at->second);
            }
}

std::string precise(double x)
{
    std::ostringstream s;
    s.precision(17);
    s << x;
    return s.str();
}

// Float sums with double accumulation. Every element passes through at most n - 1 rounded double additions,
// in whatever order the GPU takes, so |got - exact| <= gamma(n - 1) * sum|x| with gamma(k) = k u / (1 - k u),
// u = 2^-53; the compensated reference is within about u |exact| <= u sum|x| of the exact sum. 2 n u sum|x|
// bounds both together (see the README).
double double_accumulation_tolerance(std::size_t n, double sum_abs)
{
    return 2.0 * static_cast<double>(n) * 0x1p-53 * sum_abs;
}

// Every float sum of `l` (every block x start x size) within `tolerance(first, n)` of the compensated reference
// (a tolerance of 0: exact).
template <class Total, class Tolerance>
void check_floats(const Launcher& l, const std::vector<float>& values, const std::string& of, Tolerance tolerance)
{
    const Input data(values);
    std::map<std::pair<std::size_t, std::size_t>, double> sums;
    for (int block : course::testing::power_of_two_blocks())
        for (std::size_t first : int_firsts)
            for (std::size_t n : vector_sizes(block)) {
                const std::string what = call(l.name, n, block) + at_first(first) + of;
                const auto got = vectorized_total<float, Total>(l, data, first, n, block, what);
                if (!got) continue;
                auto [at, fresh] = sums.try_emplace({first, n}, 0.0);
                if (fresh) at->second = course::sum_reference(values.data() + first, n);
                const double expected = at->second;
                const double within = tolerance(first, n);
                VERIFY(std::fabs(static_cast<double>(*got) - expected) <= within,  // also fails for NaN
                       "TODO(04.6): " << what << " returned " << precise(static_cast<double>(*got)) << ", expected "
                                      << precise(expected) << (within > 0 ? " +- " + precise(within) : std::string()));
            }
}

// Two launches at once, on two streams of the runner's, with a workspace each: nothing else is shared, so both
// sums are right. Small inputs (grids of a few blocks, which run side by side) and large ones (grids that fill
// the GPU, whose blocks interleave as they finish), five rounds each on the same two workspaces.
void check_two_streams()
{
    REQUIRE_GPU();
    if (!vectorized_dependencies_pass()) return;
    const std::size_t largest = (std::size_t{1} << 24) + 3;
    const IntData a(course::random_ints(largest, course::testing::seed(11)));
    const IntData b(course::random_ints(largest, course::testing::seed(12)));
    const auto workspace = new_workspace();
    const std::pair<std::size_t, std::size_t> sizes[] = {{(1u << 16) + 3, (1u << 15) + 1}, {largest, (1u << 23) + 1}};
    for (const auto& [n_a, n_b] : sizes)
        for (int round = 0; round < 5; ++round) {
            const std::string what = "reduce_vectorized on two streams (n=" + std::to_string(n_a) + " and " +
                                     std::to_string(n_b) + ", block=256, round " + std::to_string(round) + ")";
            const Result got = course::checker::run(Call("reduce_vectorized on two streams", n_a, 256)
                                                        .param(workspace.first, workspace.second)
                                                        .param("n_b", static_cast<long long>(n_b))
                                                        .input(a.input(), 0, n_a)
                                                        .output<long long>(1, poison)
                                                        .input(b.input(), 0, n_b)
                                                        .output<long long>(1, poison));
            if (!course::testing::returned("TODO(04.6)", what, got)) return;
            CHECK_RESULT("TODO(04.6)", call("reduce_vectorized", n_a, 256) << " on stream A, beside stream B (round "
                                                                            << round << ")",
                         got.element<long long>(1), a.sum(0, n_a));
            CHECK_RESULT("TODO(04.6)", call("reduce_vectorized", n_b, 256) << " on stream B, beside stream A (round "
                                                                            << round << ")",
                         got.element<long long>(3), b.sum(0, n_b));
        }
}

// ---- 04.7: occupancy by hand ------------------------------------------------------------------------------
struct Occupancy {
    int blocks;
    int warps;
    Limit limit;
};

// The checks' own count, by Task 04.7's rules: what each resource alone allows, then the smallest (the table
// has no ties).
Occupancy occupancy_of(const OccupancyKernel& k)
{
    const std::pair<int, Limit> allows[] = {
        {2048 / k.threads_per_block, Limit::threads},
        {32, Limit::blocks},
        {65536 / (k.threads_per_block * k.registers_per_thread), Limit::registers},
        {228 / (k.shared_kib_per_block + 1), Limit::shared_memory},
    };
    const auto least = *std::min_element(std::begin(allows), std::end(allows),
                                         [](const auto& x, const auto& y) { return x.first < y.first; });
    return {least.first, least.first * k.threads_per_block / 32, least.second};
}

const char* limit_name(long long limit)
{
    switch (static_cast<Limit>(limit)) {
    case Limit::threads: return "threads";
    case Limit::blocks: return "blocks";
    case Limit::registers: return "registers";
    case Limit::shared_memory: return "shared memory";
    default: return "nothing (unanswered)";
    }
}

void check_occupancy()
{
    const Result r = course::checker::run(Call("occupancy answers", 0));
    if (!course::testing::returned("TODO(04.7)", "occupancy_answers_by_hand", r)) return;
    for (const OccupancyKernel& k : occupancy_kernels) {
        const Occupancy want = occupancy_of(k);
        const std::string kernel(1, k.name);
        const long long blocks = r.number(kernel + ".blocks"), warps = r.number(kernel + ".warps"),
                        limit = r.number(kernel + ".limit");
        // std::string, not const char*: doctest before 2.4.10 streams a const char* in a message as a pointer
        const auto judged = [](bool right) { return std::string(right ? "right" : "wrong"); };
        VERIFY(blocks == want.blocks && warps == want.warps && limit == static_cast<long long>(want.limit),
               "TODO(04.7): kernel " << kernel << " (" << k.threads_per_block << " threads per block, "
                                     << k.registers_per_thread << " registers per thread, " << k.shared_kib_per_block
                                     << " KiB of shared memory per block): you answered " << blocks
                                     << " blocks per SM (" << judged(blocks == want.blocks) << "), " << warps
                                     << " warps (" << judged(warps == want.warps) << "), limited by "
                                     << std::string(limit_name(limit)) << " (" << judged(limit == static_cast<long long>(want.limit))
                                     << "): count what each resource allows alone, then take the smallest (Task 04.7 "
                                        "in unroll_warp.hpp)");
    }
}

}  // namespace


// ---------------------------------------------------------------------------------------------------- 04.6

TEST_CASE("TODO(04.6) reduce_vectorized: standard sizes and multiples of 4 +-1 x every block x starts 0-3")
{
    REQUIRE_GPU();
    if (!vectorized_dependencies_pass()) return;
    const auto r = vectorized.reductions().front();  // on a new workspace
    const Launcher l{r.op, r.op, sizeof(int), sizeof(long long), r.params};
    check_exact(l, course::random_ints(largest_standard_size() + 16, course::testing::seed(1)), int_firsts,
                [](int block) { return vector_sizes(block); });
}

TEST_CASE("TODO(04.6) reduce_vectorized_bytes: standard sizes and multiples of 16 +-1 x every block x starts 0-15")
{
    REQUIRE_GPU();
    if (!vectorized_dependencies_pass()) return;
    check_exact(vectorized_bytes(new_workspace()),
                course::random_bytes(largest_standard_size() + 16 * 4, course::testing::seed(3),
                                     course::ByteDistribution::uniform),
                byte_firsts, [](int block) { return vector_sizes(block, {31, 32, 33, 255, 256, 257}); });
}

TEST_CASE("TODO(04.6) reduce_vectorized_float: random floats within 2 n 2^-53 sum|x| (double accumulation)")
{
    REQUIRE_GPU();
    if (!vectorized_dependencies_pass()) return;
    const std::vector<float> values = course::random_floats(largest_standard_size() + 16, course::testing::seed(4));
    std::map<std::pair<std::size_t, std::size_t>, double> tolerances;
    check_floats<double>(vectorized_float_double(new_workspace()), values, "", [&](std::size_t first, std::size_t n) {
        auto [at, fresh] = tolerances.try_emplace({first, n}, 0.0);
        if (fresh)
            at->second = double_accumulation_tolerance(n, course::sum_abs_reference(values.data() + first, n));
        return at->second;
    });
}

// Integer-valued floats in {-1, 0, 1}: every partial sum, in any order, is an integer of magnitude at most
// sum|x| <= 2^24, which a float holds exactly, so both accumulations must return the exact sum.
TEST_CASE("TODO(04.6) reduce_vectorized_float: integer-valued floats summed exactly (double and float accumulation)")
{
    REQUIRE_GPU();
    if (!vectorized_dependencies_pass()) return;
    const auto ints = course::random_ints(largest_standard_size() + 16, course::testing::seed(5), -1, 1);
    const std::vector<float> values(ints.begin(), ints.end());
    // About 2/3 of the values are +-1: sum|x| is near 1.1e7 for the largest size, far below 2^24 = 1.7e7.
    REQUIRE(course::sum_abs_reference(values.data(), values.size()) <= 0x1p24);
    const auto exact = [](std::size_t, std::size_t) { return 0.0; };
    const auto workspace = new_workspace();
    check_floats<double>(vectorized_float_double(workspace), values, " of floats in {-1, 0, 1}", exact);
    check_floats<float>(vectorized_float_float(workspace), values, " of floats in {-1, 0, 1}", exact);
}

TEST_CASE("TODO(04.6) reduce_vectorized: two launches at once on two streams, one workspace each") { check_two_streams(); }


// Its own Meson test ('TODO(04.6) large', suite 'large'): 8.6 GB of ints, then 2.2 GB of bytes, on the GPU.
TEST_CASE("TODO(04.6) large: reduce_vectorized_bytes of more than 2^31 bytes, aligned and misaligned")
{
    check_large_bytes();
}

// The lesson: 16-byte loads, four in flight per thread, a grid that fills the GPU keep DRAM busy. Nsight Compute
// measures one checked launch at n = 2^26 (its own Meson test 'TODO(04.6) lesson', suite 'lesson').
TEST_CASE("TODO(04.6) lesson: reduce_vectorized keeps DRAM more than 70% busy at n = 2^26")
{
    REQUIRE_GPU();
    if (!vectorized_dependencies_pass()) return;
    const std::size_t n = std::size_t{1} << 26;
    const IntData data(course::random_ints(n, course::testing::seed(13)));
    const auto r = vectorized.reductions().front();
    const std::string metric = "dram__throughput.avg.pct_of_peak_sustained_elapsed";
    const auto profile = course::testing::ncu_profile({"reduce_vectorized_kernel"}, {metric},
                                                      [&] { course::testing::check_reduction(r, data, n, 256); });
    if (!profile) return;
    const double busy = profile->at("reduce_vectorized_kernel").at(metric);
    VERIFY(busy > 70.0, "TODO(04.6): reduce_vectorized(n=2^26, block=256) keeps DRAM " << busy
                             << "% busy (of the peak Nsight Compute assumes); the lesson expects more than 70%: "
                                "16-byte loads, four in flight per thread, a grid that fills the GPU");
}

// ---------------------------------------------------------------------------------------------------- 04.7
TEST_CASE("TODO(04.7) occupancy by hand: blocks and warps per SM of five kernels on an H100, and what limits them")
{
    check_occupancy();
}
