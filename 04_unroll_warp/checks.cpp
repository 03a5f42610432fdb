// Chapter 04 checks: every kernel against the CPU reference, for every block size the launchers accept
// (powers of two in [32, 1024]) and the standard sizes (0, 1, 2, 31, 32, 33, block-1, block, block+1, 999983,
// 2^24+7), with negative values and a poisoned total. The vectorized kernels also start 1, 2, 3 (bytes: up to
// 15) elements past a 16-byte boundary, at sizes around multiples of 4 and 16. Each run gets its own device
// buffer of exactly the elements it may read, so compute-sanitizer's memcheck sees any read past the end.
// A failure reads e.g. "TODO(04.1): reduce_unrolling2(n=33, block=32) returned 0, expected 561".
//
// No cascades: a task whose kernel calls an earlier task's device function first runs that function's probe
// (unroll_warp.hpp: the function alone inside given code) and, if it fails, fails with "TODO(04.3): depends
// on TODO(04.2) (last_warp_sum), which fails: ..." instead of blaming the later task.
// Per task: the checks, racecheck and synccheck on small sizes (04.1 - 04.3: "sanitized TODO(04.k) ..." cases,
// run again under compute-sanitizer by "TODO(04.k) racecheck and synccheck"), and a large case past 2^31
// elements ("TODO(04.k) large", its own Meson test in suite 'large'). 04.6 adds two launches at once on two
// streams and the lesson check (Nsight Compute: DRAM throughput).
#include "unroll_warp.hpp"
#include "unroll_warp_progression.hpp"

#include "course/data.hpp"
#include "course/device_buffer.hpp"
#include "course/reference.hpp"
#include "course/testing.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

using course::DeviceBuffer;
using course::testing::call;

namespace {

// A launcher with everything but the data bound: reduce(d_in, d_total, n, block).
template <class T, class Total>
struct Kernel {
    std::string task;  // "TODO(04.6)"
    std::string name;
    std::function<void(const T*, Total*, std::size_t, int)> reduce;
};

using IntKernel = Kernel<int, long long>;

std::string todo(const std::string& task) { return "TODO(" + task + ")"; }

// The steps of the progression table that belong to `task`, bound to `workspace` (only 04.6 uses it: the
// others may get nullptr).
std::vector<IntKernel> kernels_of(const std::string& task, ReduceWorkspace* workspace)
{
    std::vector<IntKernel> kernels;
    for (const course::Step<IntReduce>& step : progression)
        if (task == step.task)
            kernels.push_back({todo(task), step.name, [workspace, launch = step.launch](const int* in, long long* out,
                                                                                        std::size_t n, int block) {
                                   launch(in, out, n, block, workspace, 0);
                               }});
    return kernels;
}

constexpr unsigned char poison = 0xA5;  // a total that is never written reads as garbage

std::size_t largest_standard_size()
{
    std::size_t largest = 0;
    for (int block : course::testing::power_of_two_blocks())
        for (std::size_t n : course::testing::standard_sizes(block)) largest = std::max(largest, n);
    return largest;
}

// The standard sizes plus sizes around multiples of 4 (ints, floats) and 16 (bytes): the vector body, the
// scalar head and the scalar tail each get empty, partial and full cases.
std::vector<std::size_t> vector_sizes(int block)
{
    std::vector<std::size_t> sizes = course::testing::standard_sizes(block);
    for (std::size_t n : {3, 4, 5, 7, 8, 9, 15, 16, 17, 63, 64, 65, 4095, 4096, 4097, 65535, 65536, 65537})
        sizes.push_back(n);
    std::sort(sizes.begin(), sizes.end());
    sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
    return sizes;
}

// One random input, generated once and copied to the device once, plus cached CPU references. Every run
// reads elements [offset, offset + n) of it.
template <class T>
struct Input {
    std::vector<T> host;
    DeviceBuffer<T> pristine;
    std::map<std::pair<std::size_t, std::size_t>, decltype(course::sum_reference(std::declval<const T*>(), 0))> sums;

    explicit Input(std::vector<T> data) : host(std::move(data)), pristine(host.size())
    {
        pristine.copy_from_host(host);
    }

    auto sum(std::size_t offset, std::size_t n)
    {
        const auto key = std::make_pair(offset, n);
        if (sums.count(key) == 0) sums[key] = course::sum_reference(host.data() + offset, n);
        return sums[key];
    }
};

// Copies elements [0, offset + n) into a buffer of exactly that size, poisons the total, runs the kernel on
// the last n of them and returns the total.
template <class T, class Total>
Total run(const Kernel<T, Total>& k, const Input<T>& in, std::size_t offset, std::size_t n, int block)
{
    DeviceBuffer<T> data(offset + n);
    if (offset + n > 0)
        CUDA_CHECK(cudaMemcpy(data.data(), in.pristine.data(), (offset + n) * sizeof(T), cudaMemcpyDeviceToDevice));
    DeviceBuffer<Total> total(1);
    total.fill_bytes(poison);
    k.reduce(data.data() + offset, total.data(), n, block);
    return total.to_host()[0];
}

std::string at_offset(std::size_t offset)
{
    return offset == 0 ? std::string() : " starting " + std::to_string(offset) + " element(s) past a 16-byte boundary";
}

// Exact integer kernels: every size of `sizes(block)` x every block x every offset.
template <class T, class Sizes>
void check_exact(const Kernel<T, long long>& k, Input<T>& in, std::initializer_list<std::size_t> offsets, Sizes sizes)
{
    for (int block : course::testing::power_of_two_blocks())
        for (std::size_t offset : offsets)
            for (std::size_t n : sizes(block))
                CHECK_RESULT(k.task, call(k.name, n, block) << at_offset(offset), run(k, in, offset, n, block),
                             in.sum(offset, n));
}

struct IntInputs {
    Input<int> standard{course::random_ints(largest_standard_size() + 16, course::testing::seed(1))};
    Input<int> full_range{course::random_ints((std::size_t{1} << 20) + 3, course::testing::seed(2), INT_MIN, INT_MAX)};
};

// The int kernels: the README's 1..8, the standard sizes, and ints over the whole int range, whose sums need
// 64 bits inside every block as well as in the total.
void check_int_kernel(const IntKernel& k, IntInputs& inputs)
{
    Input<int> one_to_eight({1, 2, 3, 4, 5, 6, 7, 8});
    CHECK_RESULT(k.task, call(k.name, 8, 32) << " of 1..8", run(k, one_to_eight, 0, 8, 32), 36);
    check_exact(k, inputs.standard, {0}, course::testing::standard_sizes);
    for (int block : course::testing::power_of_two_blocks()) {
        const std::size_t n = inputs.full_range.host.size();
        CHECK_RESULT(k.task, call(k.name, n, block) << " of ints in [INT_MIN, INT_MAX]",
                     run(k, inputs.full_range, 0, n, block), inputs.full_range.sum(0, n));
    }
}

// ---- no cascades: the earlier tasks' functions a task's kernel calls, each checked alone first -------------

struct Dependency {
    const char* task;      // the earlier task
    const char* function;  // its device function that the later kernel calls
    const char* probe;     // the launcher that runs it alone (unroll_warp.hpp)
    void (*launch)(const int*, long long*, std::size_t, int, cudaStream_t);
    bool loads;            // it indexes the input: the large cases check it past 2^31 elements first
};

std::vector<Dependency> dependencies_of(const std::string& task)
{
    const Dependency unrolled{"04.1", "thread_sum_unrolled", "reduce_unrolling8", reduce_unrolling8, true};
    const Dependency last_warp{"04.2", "last_warp_sum", "probe_last_warp_sum", probe_last_warp_sum, false};
    const Dependency tree{"04.3", "tree_sum_complete_unroll", "probe_tree_sum_complete_unroll",
                          probe_tree_sum_complete_unroll, false};
    const Dependency grid_stride{"04.4", "thread_sum_grid_stride", "probe_thread_sum_grid_stride",
                                 probe_thread_sum_grid_stride, true};
    const Dependency shfl{"04.5", "ShflWarpSum", "probe_shfl_warp_sum", probe_shfl_warp_sum, false};
    if (task == "04.2") return {unrolled};                // thread_sum_unrolled<8>, then the 04.2 tree
    if (task == "04.3") return {unrolled, last_warp};     // thread_sum_unrolled<8>, the 04.3 tree -> last_warp_sum
    if (task == "04.4") return {last_warp, tree};         // the 04.4 loads, then the 04.3 tree
    if (task == "04.5") return {grid_stride};             // the 04.4 loads, then the 04.5 warp sums
    if (task == "04.6") return {shfl};                    // block_sum<ShflWarpSum>
    return {};
}

// "" when the probe sums right on a few sizes and blocks, else the first wrong result.
std::string probe_failure(const Dependency& d)
{
    static std::map<std::string, std::string> verdicts;  // each probe runs once per program
    if (const auto known = verdicts.find(d.probe); known != verdicts.end()) return known->second;
    Input<int> in(course::random_ints(70001, course::testing::seed(7)));
    const Kernel<int, long long> k{todo(d.task), d.probe, [&d](const int* a, long long* b, std::size_t n, int block) {
                                       d.launch(a, b, n, block, 0);
                                   }};
    std::string wrong;
    for (int block : {32, 64, 256, 1024})
        for (std::size_t n : {std::size_t{1}, std::size_t{33}, std::size_t{1000}, std::size_t{70001}}) {
            const long long got = run(k, in, 0, n, block), expected = in.sum(0, n);
            if (wrong.empty() && got != expected)
                wrong = call(d.probe, n, block) + " returned " + std::to_string(got) + ", expected " +
                        std::to_string(expected);
        }
    return verdicts[d.probe] = wrong;
}

// True when every earlier function `task` uses works; otherwise fails the case, naming the earlier task.
bool dependencies_pass(const std::string& task)
{
    for (const Dependency& d : dependencies_of(task))
        if (const std::string wrong = probe_failure(d); !wrong.empty()) {
            VERIFY(false, todo(task) << ": depends on " << todo(d.task) << " (" << std::string(d.function)
                                     << "), which fails: " << wrong << ". Fix " << todo(d.task) << " first.");
            return false;
        }
    return true;
}

// ---- graded race checks (04.1 - 04.3) ---------------------------------------------------------------------

// The task's kernels on small sizes, results verified: what racecheck and synccheck watch.
void check_small_sizes(const std::string& task)
{
    Input<int> in(course::random_ints(5000, course::testing::seed(8)));
    for (const IntKernel& k : kernels_of(task, nullptr))
        for (int block : {32, 256, 1024})
            for (std::size_t n : {1, 33, 1000, 5000})
                CHECK_RESULT(k.task, call(k.name, n, block), run(k, in, 0, n, block), in.sum(0, n));
}

// 04.3's tree ends with 04.2's last_warp_sum, so its check first runs 04.2's: a race there is reported as
// 04.2's, before 04.3's own check (which then sees the same race).
void check_race_free(const std::string& task)
{
    const std::string name = todo(task);
    for (const char* tool : {"racecheck", "synccheck"}) {
        if (task == "04.3") {
            const std::string dependency = name + ": depends on TODO(04.2) (last_warp_sum), which fails; TODO(04.2)";
            course::testing::check_sanitizer_clean(dependency.c_str(), tool, "sanitized TODO(04.2)*");
        }
        course::testing::check_sanitizer_clean(name.c_str(), tool, "sanitized " + name + "*");
    }
}

// ---- large: more than 2^31 elements -----------------------------------------------------------------------

// n elements made on the device: one random period of `period` elements repeated, so that the sum of any
// range is cheap to know, and an index that stops or wraps at 2^31 (or 2^32) reads other values than the
// right one. The period is odd, so no power of two is a multiple of it.
template <class T>
struct LargeInput {
    std::size_t n;
    std::size_t period;
    std::vector<long long> prefix;  // prefix[i] = sum of the first i elements of a period
    DeviceBuffer<T> data;

    LargeInput(std::size_t n_, const std::vector<T>& one_period)
        : n(n_), period(one_period.size()), prefix(period + 1, 0), data(n_)
    {
        for (std::size_t i = 0; i < period; ++i) prefix[i + 1] = prefix[i] + one_period[i];
        course::fill_periodic(data.data(), n, one_period);
    }
    long long sum_below(std::size_t end) const { return static_cast<long long>(end / period) * prefix[period] + prefix[end % period]; }
    long long sum(std::size_t first, std::size_t count) const { return sum_below(first + count) - sum_below(first); }
};

constexpr std::size_t large_n = (std::size_t{1} << 31) + (std::size_t{1} << 20) + 5;
constexpr std::size_t large_period = (std::size_t{1} << 24) + 7;

// One buffer per program, made by the first large case that needs it and shared by the others (8.6 GB of
// ints); nullptr, and the case is skipped with the reason, when the GPU has too little free memory.
template <class T>
const LargeInput<T>* large_input()
{
    static std::unique_ptr<LargeInput<T>> input;
    if (!input) {
        if (!course::testing::gpu_memory_or_skip(large_n * sizeof(T) + (std::size_t{256} << 20))) return nullptr;
        std::vector<T> one_period;
        if constexpr (std::is_same_v<T, int>) one_period = course::random_ints(large_period, course::testing::seed(9));
        else one_period = course::random_bytes(large_period, course::testing::seed(10), course::ByteDistribution::uniform);
        input = std::make_unique<LargeInput<T>>(large_n, one_period);
    }
    return input.get();
}

template <class T>
void check_large(const Kernel<T, long long>& k, const LargeInput<T>& in, std::initializer_list<std::size_t> offsets,
                 std::initializer_list<int> blocks)
{
    DeviceBuffer<long long> total(1);
    for (int block : blocks)
        for (std::size_t offset : offsets) {
            total.fill_bytes(poison);
            k.reduce(in.data.data() + offset, total.data(), in.n - offset, block);
            CHECK_RESULT(k.task, call(k.name, in.n - offset, block) << at_offset(offset), total.to_host()[0],
                         in.sum(offset, in.n - offset));
        }
}

void check_large_ints(const std::string& task)
{
    const LargeInput<int>* in = large_input<int>();
    if (in == nullptr) return;
    // The earlier tasks' loads this task's kernel uses, past 2^31 elements first (no cascades).
    DeviceBuffer<long long> total(1);
    for (const Dependency& d : dependencies_of(task)) {
        if (!d.loads) continue;
        total.fill_bytes(poison);
        d.launch(in->data.data(), total.data(), in->n, 256, 0);
        const long long got = total.to_host()[0], expected = in->sum(0, in->n);
        if (got != expected) {
            VERIFY(false, todo(task) << ": depends on " << todo(d.task) << " (" << std::string(d.function)
                                     << "), which fails past 2^31 elements: " << call(d.probe, in->n, 256)
                                     << " returned " << got << ", expected " << expected << ". Fix "
                                     << todo(d.task) << " first.");
            return;
        }
    }
    ReduceWorkspace workspace;
    for (const IntKernel& k : kernels_of(task, &workspace))
        check_large(k, *in, task == "04.6" ? std::initializer_list<std::size_t>{0, 3} : std::initializer_list<std::size_t>{0},
                    {32, 256, 1024});
}

// ---- bad arguments ----------------------------------------------------------------------------------------

// Validation happens before any CUDA call. The totals passed are host variables that a correct launcher never
// touches.
template <class T, class Total>
void check_rejects_bad_arguments(const Kernel<T, Total>& k)
{
    Total host_total{};
    const T* no_input = nullptr;
    for (int block : {-32, 0, 1, 16, 31, 33, 48, 96, 1000, 2048, 4096}) {
        INFO(std::string(k.task) << ": " << call(k.name, 0, block) << " must throw std::invalid_argument naming the block");
        CHECK_THROWS_WITH_AS(k.reduce(no_input, &host_total, 0, block), doctest::Contains("block"),
                             std::invalid_argument);
    }
    INFO(std::string(k.task) << ": " << std::string(k.name) << " must reject null or misaligned pointers with std::invalid_argument");
    CHECK_THROWS_WITH_AS(k.reduce(no_input, nullptr, 0, 256), doctest::Contains("d_total"), std::invalid_argument);
    CHECK_THROWS_WITH_AS(k.reduce(no_input, &host_total, 1, 256), doctest::Contains("d_in"), std::invalid_argument);
    if (alignof(T) > 1) {
        const auto* misaligned = reinterpret_cast<const T*>(std::uintptr_t{0x1001});
        CHECK_THROWS_WITH_AS(k.reduce(misaligned, &host_total, 1, 256), doctest::Contains("aligned"),
                             std::invalid_argument);
    }
}

void check_int_rejects(const std::string& task, ReduceWorkspace* workspace = nullptr)
{
    for (const IntKernel& k : kernels_of(task, workspace)) check_rejects_bad_arguments(k);
}

// ---- 04.6 --------------------------------------------------------------------------------------------------

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

const std::initializer_list<std::size_t> int_offsets = {0, 1, 2, 3};
const std::initializer_list<std::size_t> byte_offsets = {0, 1, 2, 3, 5, 8, 15};

// The 04.6 launchers beside the table's reduce_vectorized, bound to `workspace`.
Kernel<float, double> vectorized_float_double(ReduceWorkspace& workspace)
{
    return {"TODO(04.6)", "reduce_vectorized_float (double accumulation)",
            [&workspace](const float* in, double* out, std::size_t n, int block) {
                reduce_vectorized_float(in, out, n, block, workspace);
            }};
}
Kernel<float, float> vectorized_float_float(ReduceWorkspace& workspace)
{
    return {"TODO(04.6)", "reduce_vectorized_float (float accumulation)",
            [&workspace](const float* in, float* out, std::size_t n, int block) {
                reduce_vectorized_float(in, out, n, block, workspace);
            }};
}
Kernel<std::uint8_t, long long> vectorized_bytes(ReduceWorkspace& workspace)
{
    return {"TODO(04.6)", "reduce_vectorized_bytes",
            [&workspace](const std::uint8_t* in, long long* out, std::size_t n, int block) {
                reduce_vectorized_bytes(in, out, n, block, workspace);
            }};
}

// Integer-valued floats in {-1, 0, 1}: every partial sum, in any order, is an integer of magnitude at most
// sum|x| <= 2^24, which a float holds exactly, so both accumulations must return the exact sum.
template <class Total>
void check_integer_valued_floats(const Kernel<float, Total>& k, Input<float>& in)
{
    for (int block : course::testing::power_of_two_blocks())
        for (std::size_t offset : int_offsets)
            for (std::size_t n : vector_sizes(block))
                CHECK_RESULT(k.task, call(k.name, n, block) << at_offset(offset) << " of floats in {-1, 0, 1}",
                             static_cast<double>(run(k, in, offset, n, block)), in.sum(offset, n));
}


}  // namespace

// ---------------------------------------------------------------------------------------------------- 04.1
TEST_CASE("TODO(04.1) reduce_unrolling2/4/8: 1..8, standard sizes x every block, negative values, full int range")
{
    REQUIRE_GPU();
    IntInputs inputs;
    for (const IntKernel& k : kernels_of("04.1", nullptr)) check_int_kernel(k, inputs);
}

TEST_CASE("TODO(04.1) reduce_unrolling2/4/8 reject bad block sizes and pointers") { check_int_rejects("04.1"); }

TEST_CASE("sanitized TODO(04.1) reduce_unrolling2/4/8 on small sizes")
{
    REQUIRE_GPU();
    check_small_sizes("04.1");
}

TEST_CASE("TODO(04.1) racecheck and synccheck")
{
    REQUIRE_GPU();
    check_race_free("04.1");
}

TEST_CASE("TODO(04.1) large: reduce_unrolling2/4/8 of more than 2^31 ints")
{
    REQUIRE_GPU();
    check_large_ints("04.1");
}

// ---------------------------------------------------------------------------------------------------- 04.2
TEST_CASE("TODO(04.2) reduce_unroll_warp_syncwarp: 1..8, standard sizes x every block, negative values, full int range")
{
    REQUIRE_GPU();
    if (!dependencies_pass("04.2")) return;
    IntInputs inputs;
    for (const IntKernel& k : kernels_of("04.2", nullptr)) check_int_kernel(k, inputs);
}

TEST_CASE("TODO(04.2) reduce_unroll_warp_syncwarp rejects bad block sizes and pointers") { check_int_rejects("04.2"); }

TEST_CASE("sanitized TODO(04.2) reduce_unroll_warp_syncwarp on small sizes")
{
    REQUIRE_GPU();
    check_small_sizes("04.2");
}

TEST_CASE("TODO(04.2) racecheck and synccheck")
{
    REQUIRE_GPU();
    if (!dependencies_pass("04.2")) return;
    check_race_free("04.2");
}

TEST_CASE("TODO(04.2) large: reduce_unroll_warp_syncwarp of more than 2^31 ints")
{
    REQUIRE_GPU();
    if (!dependencies_pass("04.2")) return;
    check_large_ints("04.2");
}

// ---------------------------------------------------------------------------------------------------- 04.3
TEST_CASE("TODO(04.3) reduce_complete_unroll: 1..8, standard sizes x every block (every template instance)")
{
    REQUIRE_GPU();
    if (!dependencies_pass("04.3")) return;
    IntInputs inputs;
    for (const IntKernel& k : kernels_of("04.3", nullptr)) check_int_kernel(k, inputs);
}

TEST_CASE("TODO(04.3) reduce_complete_unroll rejects bad block sizes and pointers") { check_int_rejects("04.3"); }

TEST_CASE("sanitized TODO(04.3) reduce_complete_unroll on small sizes")
{
    REQUIRE_GPU();
    check_small_sizes("04.3");
}

TEST_CASE("TODO(04.3) racecheck and synccheck")
{
    REQUIRE_GPU();
    if (!dependencies_pass("04.3")) return;
    check_race_free("04.3");
}

TEST_CASE("TODO(04.3) large: reduce_complete_unroll of more than 2^31 ints")
{
    REQUIRE_GPU();
    if (!dependencies_pass("04.3")) return;
    check_large_ints("04.3");
}

// ---------------------------------------------------------------------------------------------------- 04.4
TEST_CASE("TODO(04.4) reduce_grid_stride: 1..8, standard sizes x every block, negative values, full int range")
{
    REQUIRE_GPU();
    if (!dependencies_pass("04.4")) return;
    IntInputs inputs;
    for (const IntKernel& k : kernels_of("04.4", nullptr)) check_int_kernel(k, inputs);
}

TEST_CASE("TODO(04.4) reduce_grid_stride rejects bad block sizes and pointers") { check_int_rejects("04.4"); }

TEST_CASE("TODO(04.4) large: reduce_grid_stride of more than 2^31 ints")
{
    REQUIRE_GPU();
    if (!dependencies_pass("04.4")) return;
    check_large_ints("04.4");
}

// ---------------------------------------------------------------------------------------------------- 04.5
TEST_CASE("TODO(04.5) reduce_shfl/cg/redux: 1..8, standard sizes x every block, negative values, full int range")
{
    REQUIRE_GPU();
    if (!dependencies_pass("04.5")) return;
    IntInputs inputs;
    for (const IntKernel& k : kernels_of("04.5", nullptr)) check_int_kernel(k, inputs);
}

TEST_CASE("TODO(04.5) reduce_shfl/cg/redux reject bad block sizes and pointers") { check_int_rejects("04.5"); }

TEST_CASE("TODO(04.5) large: reduce_shfl/cg/redux of more than 2^31 ints")
{
    REQUIRE_GPU();
    if (!dependencies_pass("04.5")) return;
    check_large_ints("04.5");
}

// ---------------------------------------------------------------------------------------------------- 04.6
// One workspace per case, shared by all its launches: a kernel that does not reset it fails from the second
// launch on.
TEST_CASE("TODO(04.6) reduce_vectorized: standard sizes and multiples of 4 +-1 x every block x offsets 0-3")
{
    REQUIRE_GPU();
    if (!dependencies_pass("04.6")) return;
    ReduceWorkspace workspace;
    IntInputs inputs;
    for (const IntKernel& k : kernels_of("04.6", &workspace)) {
        check_int_kernel(k, inputs);
        check_exact(k, inputs.standard, int_offsets, vector_sizes);
    }
}

TEST_CASE("TODO(04.6) reduce_vectorized_bytes: standard sizes and multiples of 16 +-1 x every block x offsets 0-15")
{
    REQUIRE_GPU();
    if (!dependencies_pass("04.6")) return;
    ReduceWorkspace workspace;
    Input<std::uint8_t> bytes(course::random_bytes(largest_standard_size() + 16 * 4, course::testing::seed(3),
                                                   course::ByteDistribution::uniform));
    check_exact(vectorized_bytes(workspace), bytes, byte_offsets, [](int block) {
        std::vector<std::size_t> sizes = vector_sizes(block);
        for (std::size_t n : {31, 32, 33, 255, 256, 257}) sizes.push_back(n);  // a few more multiples of 16
        return sizes;
    });
}

TEST_CASE("TODO(04.6) reduce_vectorized_float: random floats within 2 n 2^-53 sum|x| (double accumulation)")
{
    REQUIRE_GPU();
    if (!dependencies_pass("04.6")) return;
    ReduceWorkspace workspace;
    const auto k = vectorized_float_double(workspace);
    Input<float> in(course::random_floats(largest_standard_size() + 16, course::testing::seed(4)));
    std::map<std::pair<std::size_t, std::size_t>, double> sum_abs;
    for (int block : course::testing::power_of_two_blocks())
        for (std::size_t offset : int_offsets)
            for (std::size_t n : vector_sizes(block)) {
                const auto key = std::make_pair(offset, n);
                if (sum_abs.count(key) == 0) sum_abs[key] = course::sum_abs_reference(in.host.data() + offset, n);
                const double got = run(k, in, offset, n, block);
                const double expected = in.sum(offset, n);
                const double tolerance = double_accumulation_tolerance(n, sum_abs[key]);
                VERIFY(std::fabs(got - expected) <= tolerance,  // also fails for NaN
                       "TODO(04.6): " << call(k.name, n, block) << at_offset(offset) << " returned " << precise(got)
                                      << ", expected " << precise(expected) << " +- " << precise(tolerance));
            }
}

TEST_CASE("TODO(04.6) reduce_vectorized_float: integer-valued floats summed exactly (double and float accumulation)")
{
    REQUIRE_GPU();
    if (!dependencies_pass("04.6")) return;
    ReduceWorkspace workspace;
    Input<float> in([] {
        const auto ints = course::random_ints(largest_standard_size() + 16, course::testing::seed(5), -1, 1);
        return std::vector<float>(ints.begin(), ints.end());
    }());
    // About 2/3 of the values are +-1: sum|x| is near 1.1e7 for the largest size, far below 2^24 = 1.7e7.
    REQUIRE(course::sum_abs_reference(in.host.data(), in.host.size()) <= 0x1p24);
    check_integer_valued_floats(vectorized_float_double(workspace), in);
    check_integer_valued_floats(vectorized_float_float(workspace), in);
}

// Two launches at once, on two streams, with a workspace each: nothing else is shared, so both sums are right.
// Small inputs (grids of a few blocks, which run side by side) and large ones (grids that fill the GPU, whose
// blocks interleave as they finish).
TEST_CASE("TODO(04.6) reduce_vectorized: two launches at once on two streams, one workspace each")
{
    REQUIRE_GPU();
    if (!dependencies_pass("04.6")) return;
    const std::size_t largest = (std::size_t{1} << 24) + 3;
    Input<int> a(course::random_ints(largest, course::testing::seed(11)));
    Input<int> b(course::random_ints(largest, course::testing::seed(12)));
    const course::Stream stream_a, stream_b;
    ReduceWorkspace workspace_a, workspace_b;
    DeviceBuffer<long long> total_a(1), total_b(1);
    const std::pair<std::size_t, std::size_t> sizes[] = {{(1u << 16) + 3, (1u << 15) + 1}, {largest, (1u << 23) + 1}};
    for (const auto& [n_a, n_b] : sizes)
        for (int round = 0; round < 5; ++round) {
            CUDA_CHECK(cudaMemsetAsync(total_a.data(), poison, sizeof(long long), stream_a.get()));
            CUDA_CHECK(cudaMemsetAsync(total_b.data(), poison, sizeof(long long), stream_b.get()));
            reduce_vectorized(a.pristine.data(), total_a.data(), n_a, 256, workspace_a, stream_a.get());
            reduce_vectorized(b.pristine.data(), total_b.data(), n_b, 256, workspace_b, stream_b.get());
            CUDA_CHECK(cudaStreamSynchronize(stream_a.get()));
            CUDA_CHECK(cudaStreamSynchronize(stream_b.get()));
            CHECK_RESULT("TODO(04.6)", call("reduce_vectorized", n_a, 256) << " on stream A, beside stream B (round "
                                                                            << round << ")",
                         total_a.to_host()[0], a.sum(0, n_a));
            CHECK_RESULT("TODO(04.6)", call("reduce_vectorized", n_b, 256) << " on stream B, beside stream A (round "
                                                                            << round << ")",
                         total_b.to_host()[0], b.sum(0, n_b));
        }
}

TEST_CASE("TODO(04.6) reduce_vectorized, _float and _bytes reject bad block sizes and pointers")
{
    REQUIRE_GPU();  // a workspace is device memory (the launchers reject the arguments before they use it)
    ReduceWorkspace workspace;
    check_int_rejects("04.6", &workspace);
    check_rejects_bad_arguments(vectorized_float_double(workspace));
    check_rejects_bad_arguments(vectorized_float_float(workspace));
    check_rejects_bad_arguments(vectorized_bytes(workspace));
}

// Its own Meson test ('TODO(04.6) large', suite 'large'): 8.6 GB of ints and 2.2 GB of bytes on the GPU.
TEST_CASE("TODO(04.6) large: reduce_vectorized of more than 2^31 ints, aligned and misaligned")
{
    REQUIRE_GPU();
    if (!dependencies_pass("04.6")) return;
    check_large_ints("04.6");
}

TEST_CASE("TODO(04.6) large: reduce_vectorized_bytes of more than 2^31 bytes, aligned and misaligned")
{
    REQUIRE_GPU();
    if (!dependencies_pass("04.6")) return;
    const LargeInput<std::uint8_t>* in = large_input<std::uint8_t>();
    if (in == nullptr) return;
    ReduceWorkspace workspace;
    check_large(vectorized_bytes(workspace), *in, {0, 3}, {256, 1024});
}

// The lesson: 16-byte loads, four in flight per thread, a grid that fills the GPU keep DRAM busy. Nsight Compute
// measures the one launch of the subject case (its own Meson test 'TODO(04.6) lesson', suite 'lesson').
TEST_CASE("lesson subject TODO(04.6) reduce_vectorized once at n = 2^26")
{
    REQUIRE_GPU();
    const std::size_t n = std::size_t{1} << 26;
    Input<int> in(course::random_ints(n, course::testing::seed(13)));
    ReduceWorkspace workspace;
    DeviceBuffer<long long> total(1);
    total.fill_bytes(poison);
    reduce_vectorized(in.pristine.data(), total.data(), n, 256, workspace);
    CHECK_RESULT("TODO(04.6)", call("reduce_vectorized", n, 256), total.to_host()[0], in.sum(0, n));
}

TEST_CASE("TODO(04.6) lesson: reduce_vectorized keeps DRAM more than 70% busy at n = 2^26")
{
    REQUIRE_GPU();
    if (!dependencies_pass("04.6")) return;
    const auto busy = course::testing::ncu_metric("lesson subject TODO(04.6)*", "reduce_vectorized_kernel",
                                                  "dram__throughput.avg.pct_of_peak_sustained_elapsed");
    if (!busy) return;
    VERIFY(*busy > 70.0, "TODO(04.6): reduce_vectorized(n=2^26, block=256) keeps DRAM " << *busy
                             << "% busy (of the peak Nsight Compute assumes); the lesson expects more than 70%: "
                                "16-byte loads, four in flight per thread, a grid that fills the GPU");
}
