// Chapter 02 checks: every kernel of the progression against the CPU reference, for every block size the
// launchers accept and the standard sizes (0, 1, 2, 31, 32, 33, block-1, block, block+1, 999983, 2^24+7),
// with negative values and poisoned outputs. A failure reads e.g.
//   TODO(02.1): reduce_neighbored(n=33, block=32) returned ..., expected ...
// Per task also: no read past n, a stream of its own, bad arguments, racecheck and synccheck on small sizes
// ("sanitized ..." cases), and past 2^32 elements ("... large"). The lesson of 02.2 (fewer divergent branches)
// is measured with Nsight Compute ("TODO(02.2) lesson").
#include "neighbored_progression.hpp"

#include "course/data.hpp"
#include "course/device_buffer.hpp"
#include "course/reference.hpp"
#include "course/testing.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

using course::DeviceBuffer;
using course::testing::call;

namespace {

constexpr unsigned char poison = 0xA5;  // a block sum or total that is never written reads as garbage

const NeighboredStep& step_of(const std::string& task)
{
    for (const NeighboredStep& s : neighbored_progression)
        if (task == std::string("TODO(") + s.task + ")") return s;
    throw std::logic_error("no step for " + task);
}

std::size_t largest_standard_size()
{
    std::size_t largest = 0;
    for (int block : course::testing::power_of_two_blocks())
        for (std::size_t n : course::testing::standard_sizes(block)) largest = std::max(largest, n);
    return largest;
}

// Copies pristine[0, n) into a buffer of exactly n elements (a read past the end leaves the allocation,
// which compute-sanitizer's memcheck reports), poisons the workspace and the total, runs the step and
// returns the total.
long long run_on_copy(const NeighboredStep& step, const DeviceBuffer<int>& pristine, std::size_t n, int block,
                      NeighboredWorkspace& workspace)
{
    DeviceBuffer<int> data(n);
    if (n > 0) CUDA_CHECK(cudaMemcpy(data.data(), pristine.data(), n * sizeof(int), cudaMemcpyDeviceToDevice));
    DeviceBuffer<long long> total(1);
    if (workspace.capacity() > 0)
        CUDA_CHECK(cudaMemset(workspace.block_sums(), poison, workspace.capacity() * sizeof(long long)));
    total.fill_bytes(poison);
    step.launch(data.data(), total.data(), n, block, workspace, 0);
    return total.to_host()[0];
}

// The README's tree, then one random input of the largest size, copied to the device once; every size uses
// a prefix of it.
void check_standard_sizes(const std::string& task)
{
    const NeighboredStep& step = step_of(task);
    const std::vector<int> one_to_eight{1, 2, 3, 4, 5, 6, 7, 8};  // 36
    DeviceBuffer<int> small(one_to_eight.size());
    small.copy_from_host(one_to_eight);
    NeighboredWorkspace workspace(largest_standard_size());
    CHECK_RESULT(task, call(step.name, 8, 32) << " of 1..8", run_on_copy(step, small, 8, 32, workspace), 36);

    const auto host = course::random_ints(largest_standard_size(), course::testing::seed(1));
    DeviceBuffer<int> pristine(host.size());
    pristine.copy_from_host(host);
    for (int block : course::testing::power_of_two_blocks())
        for (std::size_t n : course::testing::standard_sizes(block))
            CHECK_RESULT(task, call(step.name, n, block), run_on_copy(step, pristine, n, block, workspace),
                         course::sum_reference(host.data(), n));
}

// Every element +-max_exact_abs_value: each block's int partial sums just fit, the total needs 64 bits.
void check_extreme_values(const std::string& task)
{
    const NeighboredStep& step = step_of(task);
    const std::size_t n = (std::size_t{1} << 20) + 3;
    NeighboredWorkspace workspace(n);
    for (int value : {max_exact_abs_value, -max_exact_abs_value}) {
        DeviceBuffer<int> pristine(n);
        pristine.copy_from_host(std::vector<int>(n, value));
        for (int block : {32, 1024})
            CHECK_RESULT(task, call(step.name, n, block) << " with every element " << value,
                         run_on_copy(step, pristine, n, block, workspace), static_cast<long long>(n) * value);
    }
}

// The array is followed by a block of large values: a partner read at or past n (the seed's bug) adds them.
void check_nothing_read_past_n(const std::string& task)
{
    const NeighboredStep& step = step_of(task);
    const int past_end = 1 << 20;
    const auto values = course::random_ints(999983, course::testing::seed(2));
    for (int block : course::testing::power_of_two_blocks()) {
        const std::size_t b = static_cast<std::size_t>(block);
        for (std::size_t n : {std::size_t{1}, std::size_t{33}, b + 1, 5 * b + 3, values.size()}) {
            std::vector<int> host(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(n));
            const long long expected = course::sum_reference(host.data(), n);
            host.resize(n + b, past_end);
            DeviceBuffer<int> data(host.size());
            data.copy_from_host(host);
            NeighboredWorkspace workspace(n);
            if (workspace.capacity() > 0)
                CUDA_CHECK(cudaMemset(workspace.block_sums(), poison, workspace.capacity() * sizeof(long long)));
            DeviceBuffer<long long> total(1);
            total.fill_bytes(poison);
            step.launch(data.data(), total.data(), n, block, workspace, 0);
            CHECK_RESULT(task, call(step.name, n, block) << " with " << past_end << " in the " << block
                                                         << " ints after the array (a read at or past n?)",
                         total.to_host()[0], expected);
        }
    }
}

// The launcher must put its work on the caller's stream: with a non-blocking stream, a launch on stream 0
// would not be ordered before the copy of the total on that stream.
void check_own_stream(const std::string& task)
{
    const NeighboredStep& step = step_of(task);
    const course::Stream stream;
    const std::size_t n = (std::size_t{1} << 22) + 5;
    const auto host = course::random_ints(n, course::testing::seed(3));
    DeviceBuffer<int> data(n);
    data.copy_from_host(host);
    NeighboredWorkspace workspace(n);
    DeviceBuffer<long long> total(1);
    total.fill_bytes(poison);
    long long got = 0;
    step.launch(data.data(), total.data(), n, 256, workspace, stream.get());
    CUDA_CHECK(cudaMemcpyAsync(&got, total.data(), sizeof got, cudaMemcpyDeviceToHost, stream.get()));
    CUDA_CHECK(cudaStreamSynchronize(stream.get()));
    CHECK_RESULT(task, call(step.name, n, 256) << " on a non-blocking stream", got,
                 course::sum_reference(host.data(), n));
}

// Validation happens before any CUDA call, so these cases need no GPU: the pointers are never dereferenced.
void check_rejects_bad_arguments(const std::string& task)
{
    const NeighboredStep& step = step_of(task);
    INFO(task << ": " << std::string(step.name));
    int* const data = reinterpret_cast<int*>(std::uintptr_t{0x1000});
    long long* const total = reinterpret_cast<long long*>(std::uintptr_t{0x2000});
    NeighboredWorkspace none(0);  // allocates nothing
    for (int block : {0, -32, 16, 33, 96, 2048}) {
        INFO("block = " << block);
        CHECK_THROWS_AS(step.launch(data, total, 0, block, none, 0), std::invalid_argument);
        CHECK_THROWS_AS(NeighboredWorkspace::block_sums_needed(1000, block), std::invalid_argument);
    }
    CHECK_THROWS_AS(step.launch(nullptr, total, 1000, 256, none, 0), std::invalid_argument);
    CHECK_THROWS_AS(step.launch(data, nullptr, 1000, 256, none, 0), std::invalid_argument);
    CHECK_THROWS_AS(step.launch(data, total, 1000, 256, none, 0), std::invalid_argument);  // n > max_n
}

// Small sizes for compute-sanitizer (racecheck, synccheck): the tools slow kernels down 10-100x.
void check_small_sizes(const std::string& task)
{
    const NeighboredStep& step = step_of(task);
    const auto host = course::random_ints(5000, course::testing::seed(4));
    DeviceBuffer<int> pristine(host.size());
    pristine.copy_from_host(host);
    NeighboredWorkspace workspace(host.size());
    for (int block : {32, 256, 1024})
        for (std::size_t n : {std::size_t{1}, std::size_t{33}, std::size_t{1000}, std::size_t{5000}})
            CHECK_RESULT(task, call(step.name, n, block), run_on_copy(step, pristine, n, block, workspace),
                         course::sum_reference(host.data(), n));
}

// ---- past 2^32 elements ----------------------------------------------------------------------------------
// 2^32 + 2^20 + 3 ints (17.2 GB): an int index goes negative past 2^31 elements, an unsigned one wraps past
// 2^32. The data repeats a random tile of odd length (so a wrapped index reads other values), written on the
// device by doubling copies; the expected sum has a closed form. The kernels overwrite their input, so the
// data is written again before every call.
constexpr std::size_t large_n = (std::size_t{1} << 32) + (std::size_t{1} << 20) + 3;
constexpr std::size_t tile_length = 1000003;

void check_large(const std::string& task)
{
    const NeighboredStep& step = step_of(task);
    const std::size_t workspace_bytes = NeighboredWorkspace::block_sums_needed(large_n, 32) * sizeof(long long);
    REQUIRE_GPU_MEMORY(large_n * sizeof(int) + workspace_bytes + (std::size_t{256} << 20));
    const auto tile = course::random_ints(tile_length, course::testing::seed(5));
    DeviceBuffer<int> data(large_n);
    NeighboredWorkspace workspace(large_n);
    DeviceBuffer<long long> total(1);
    for (int block : {32, 1024}) {
        course::fill_periodic(data.data(), large_n, tile);
        total.fill_bytes(poison);
        step.launch(data.data(), total.data(), large_n, block, workspace, 0);
        CHECK_RESULT(task, call(step.name, large_n, block) << " (past 2^32 elements: is every index 64-bit?)",
                     total.to_host()[0], course::periodic_sum_reference(tile.data(), tile.size(), large_n));
    }
}

// ---- lesson: one launch on 2^20 elements, profiled by Nsight Compute ----------------------------------------
constexpr std::size_t lesson_n = std::size_t{1} << 20;
constexpr int lesson_block = 256;

void run_lesson_subject(const std::string& task)
{
    const NeighboredStep& step = step_of(task);
    const auto host = course::random_ints(lesson_n, course::testing::seed(6));
    DeviceBuffer<int> pristine(lesson_n);
    pristine.copy_from_host(host);
    NeighboredWorkspace workspace(lesson_n);
    CHECK_RESULT(task, call(step.name, lesson_n, lesson_block),
                 run_on_copy(step, pristine, lesson_n, lesson_block, workspace),
                 course::sum_reference(host.data(), lesson_n));
}

}  // namespace

// ---------------------------------------------------------------------------------------------------- 02.1
TEST_CASE("TODO(02.1) reduce_neighbored: 1..8, standard sizes x every block, negative values")
{
    REQUIRE_GPU();
    check_standard_sizes("TODO(02.1)");
}

TEST_CASE("TODO(02.1) reduce_neighbored: values at +-(2^21 - 1), 64-bit total")
{
    REQUIRE_GPU();
    check_extreme_values("TODO(02.1)");
}

TEST_CASE("TODO(02.1) reduce_neighbored reads nothing at or past n")
{
    REQUIRE_GPU();
    check_nothing_read_past_n("TODO(02.1)");
}

TEST_CASE("TODO(02.1) reduce_neighbored on a stream of its own")
{
    REQUIRE_GPU();
    check_own_stream("TODO(02.1)");
}

TEST_CASE("TODO(02.1) reduce_neighbored rejects bad block sizes, null pointers and n past the workspace")
{
    check_rejects_bad_arguments("TODO(02.1)");
}

TEST_CASE("sanitized TODO(02.1) reduce_neighbored: small sizes")
{
    REQUIRE_GPU();
    check_small_sizes("TODO(02.1)");
}

TEST_CASE("TODO(02.1) racecheck and synccheck")
{
    REQUIRE_GPU();
    course::testing::check_sanitizer_clean("TODO(02.1)", "racecheck", "sanitized TODO(02.1)*");
    course::testing::check_sanitizer_clean("TODO(02.1)", "synccheck", "sanitized TODO(02.1)*");
}

TEST_CASE("TODO(02.1) large: reduce_neighbored past 2^32 elements")
{
    REQUIRE_GPU();
    check_large("TODO(02.1)");
}

TEST_CASE("lesson subject TODO(02.1) reduce_neighbored")
{
    REQUIRE_GPU();
    run_lesson_subject("TODO(02.1)");
}

// ---------------------------------------------------------------------------------------------------- 02.2
TEST_CASE("TODO(02.2) reduce_neighbored_less: 1..8, standard sizes x every block, negative values")
{
    REQUIRE_GPU();
    check_standard_sizes("TODO(02.2)");
}

TEST_CASE("TODO(02.2) reduce_neighbored_less: values at +-(2^21 - 1), 64-bit total")
{
    REQUIRE_GPU();
    check_extreme_values("TODO(02.2)");
}

TEST_CASE("TODO(02.2) reduce_neighbored_less reads nothing at or past n")
{
    REQUIRE_GPU();
    check_nothing_read_past_n("TODO(02.2)");
}

TEST_CASE("TODO(02.2) reduce_neighbored_less on a stream of its own")
{
    REQUIRE_GPU();
    check_own_stream("TODO(02.2)");
}

TEST_CASE("TODO(02.2) reduce_neighbored_less rejects bad block sizes, null pointers and n past the workspace")
{
    check_rejects_bad_arguments("TODO(02.2)");
}

TEST_CASE("sanitized TODO(02.2) reduce_neighbored_less: small sizes")
{
    REQUIRE_GPU();
    check_small_sizes("TODO(02.2)");
}

TEST_CASE("TODO(02.2) racecheck and synccheck")
{
    REQUIRE_GPU();
    course::testing::check_sanitizer_clean("TODO(02.2)", "racecheck", "sanitized TODO(02.2)*");
    course::testing::check_sanitizer_clean("TODO(02.2)", "synccheck", "sanitized TODO(02.2)*");
}

TEST_CASE("TODO(02.2) large: reduce_neighbored_less past 2^32 elements")
{
    REQUIRE_GPU();
    check_large("TODO(02.2)");
}

TEST_CASE("lesson subject TODO(02.2) reduce_neighbored_less")
{
    REQUIRE_GPU();
    run_lesson_subject("TODO(02.2)");
}

// The lesson of 02.2, measured: in reduce_neighbored every warp has busy and idle lanes at the first five
// levels (a divergent branch per warp and level); in reduce_neighbored_less the busy threads fill whole warps
// and only the last five levels, with fewer than 32 busy threads, diverge. README: 47 against 5 divergent
// warp-steps per block of 256 threads.
TEST_CASE("TODO(02.2) lesson: reduce_neighbored_less has far fewer divergent branches than reduce_neighbored")
{
    REQUIRE_GPU();
    const char* metric = "smsp__sass_branch_targets_threads_divergent.sum";
    const auto neighbored = course::testing::ncu_metric("lesson subject TODO(02.1)*", "reduce_neighbored_kernel", metric);
    if (!neighbored) return;
    const auto less = course::testing::ncu_metric("lesson subject TODO(02.2)*", "reduce_neighbored_less_kernel", metric);
    if (!less) return;
    const double blocks = static_cast<double>(lesson_n / lesson_block);
    MESSAGE("divergent branch targets, n = " << lesson_n << ", block = " << lesson_block << ": reduce_neighbored "
                                             << *neighbored << ", reduce_neighbored_less " << *less);
    VERIFY(*neighbored >= 8 * blocks,
           "TODO(02.2) lesson compares with reduce_neighbored (TODO(02.1)), which shows only "
               << *neighbored << " divergent branch targets for " << blocks
               << " blocks: is TODO(02.1) the tid % (2*stride) tree, with a branch around the addition?");
    VERIFY(*less * 4 <= *neighbored,
           "TODO(02.2): reduce_neighbored_less has " << *less << " divergent branch targets, not under a quarter of "
                                                     << "reduce_neighbored's " << *neighbored
                                                     << ": do the busy threads fill whole warps (thread tid on "
                                                        "element 2*stride*tid)?");
}
