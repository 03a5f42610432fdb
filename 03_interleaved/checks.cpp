// Chapter 03 checks: every kernel of the progression against the CPU reference, for every block size the
// launchers accept and the standard sizes (0, 1, 2, 31, 32, 33, block-1, block, block+1, 999983, 2^24+7),
// with negative values and a poisoned total (the launcher must zero it itself). A failure reads e.g.
//   TODO(03.2): reduce_shared_modulo(n=33, block=32) returned 0, expected -561
// Per task also: no read past n, a stream of its own, bad arguments, racecheck and synccheck on small sizes
// ("sanitized ..." cases), and past 2^32 elements ("... large"). The lessons of 03.2-03.4 (the modulo's cost,
// bank conflicts) are measured with Nsight Compute ("TODO(03.k) lesson").
#include "interleaved_progression.hpp"

#include "course/data.hpp"
#include "course/device_buffer.hpp"
#include "course/reference.hpp"
#include "course/testing.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

using course::DeviceBuffer;
using course::testing::call;

namespace {

constexpr unsigned char poison = 0xA5;  // a total that is not zeroed first reads as garbage

const InterleavedStep& step_of(const std::string& task)
{
    for (const InterleavedStep& s : interleaved_progression)
        if (task == std::string("TODO(") + s.task + ")") return s;
    throw std::logic_error("no step for " + task);
}

// reduce_interleaved reduces in place; the shared-memory kernels must leave their input untouched.
bool overwrites_input(const InterleavedStep& step) { return step.launch == reduce_interleaved; }

std::size_t largest_standard_size()
{
    std::size_t largest = 0;
    for (int block : course::testing::power_of_two_blocks())
        for (std::size_t n : course::testing::standard_sizes(block)) largest = std::max(largest, n);
    return largest;
}

// Runs the step on a copy of host[0, n) held in a buffer of exactly n elements (a read past the end leaves
// the allocation: memcheck reports it), with the total poisoned, and returns the total. A kernel that must
// not write its input is checked for that too.
long long run_on_copy(const std::string& task, const std::vector<int>& host, const DeviceBuffer<int>& pristine,
                      std::size_t n, int block)
{
    const InterleavedStep& step = step_of(task);
    DeviceBuffer<int> data(n);
    if (n > 0) CUDA_CHECK(cudaMemcpy(data.data(), pristine.data(), n * sizeof(int), cudaMemcpyDeviceToDevice));
    DeviceBuffer<long long> total(1);
    total.fill_bytes(poison);
    step.launch(data.data(), total.data(), n, block, 0);
    const long long got = total.to_host()[0];
    if (!overwrites_input(step)) {
        const auto after = data.to_host();
        CHECK_ARRAY(task, call(step.name, n, block) << " changed its input", after.data(), host.data(), n);
    }
    return got;
}

// The README's tree, then one random input of the largest size, copied to the device once; every size uses
// a prefix of it.
void check_standard_sizes(const std::string& task)
{
    const InterleavedStep& step = step_of(task);
    const std::vector<int> one_to_eight{1, 2, 3, 4, 5, 6, 7, 8};  // 36
    DeviceBuffer<int> small(one_to_eight.size());
    small.copy_from_host(one_to_eight);
    CHECK_RESULT(task, call(step.name, 8, 32) << " of 1..8", run_on_copy(task, one_to_eight, small, 8, 32), 36);

    const auto host = course::random_ints(largest_standard_size(), course::testing::seed(1));
    DeviceBuffer<int> pristine(host.size());
    pristine.copy_from_host(host);
    for (int block : course::testing::power_of_two_blocks())
        for (std::size_t n : course::testing::standard_sizes(block))
            CHECK_RESULT(task, call(step.name, n, block), run_on_copy(task, host, pristine, n, block),
                         course::sum_reference(host.data(), n));
}

// Every element +-max_exact_abs_value: each block's int partial sums just fit, the total needs 64 bits, and
// the negative one needs the two's-complement atomicAdd.
void check_extreme_values(const std::string& task)
{
    const InterleavedStep& step = step_of(task);
    const std::size_t n = (std::size_t{1} << 20) + 3;
    for (int value : {max_exact_abs_value, -max_exact_abs_value}) {
        const std::vector<int> host(n, value);
        DeviceBuffer<int> pristine(n);
        pristine.copy_from_host(host);
        for (int block : {32, 1024})
            CHECK_RESULT(task, call(step.name, n, block) << " with every element " << value,
                         run_on_copy(task, host, pristine, n, block), static_cast<long long>(n) * value);
    }
}

// The array is followed by a block of large values: a read at or past n (a partner, or a load) adds them.
void check_nothing_read_past_n(const std::string& task)
{
    const InterleavedStep& step = step_of(task);
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
            DeviceBuffer<long long> total(1);
            total.fill_bytes(poison);
            step.launch(data.data(), total.data(), n, block, 0);
            CHECK_RESULT(task, call(step.name, n, block) << " with " << past_end << " in the " << block
                                                         << " ints after the array (a read at or past n?)",
                         total.to_host()[0], expected);
        }
    }
}

// The launcher must put its memset and its launch on the caller's stream: with a non-blocking stream, work
// on stream 0 would not be ordered before the copy of the total on that stream.
void check_own_stream(const std::string& task)
{
    const InterleavedStep& step = step_of(task);
    const course::Stream stream;
    const std::size_t n = (std::size_t{1} << 22) + 5;
    const auto host = course::random_ints(n, course::testing::seed(3));
    DeviceBuffer<int> data(n);
    data.copy_from_host(host);
    DeviceBuffer<long long> total(1);
    total.fill_bytes(poison);
    long long got = 0;
    step.launch(data.data(), total.data(), n, 256, stream.get());
    CUDA_CHECK(cudaMemcpyAsync(&got, total.data(), sizeof got, cudaMemcpyDeviceToHost, stream.get()));
    CUDA_CHECK(cudaStreamSynchronize(stream.get()));
    CHECK_RESULT(task, call(step.name, n, 256) << " on a non-blocking stream", got,
                 course::sum_reference(host.data(), n));
}

// Validation happens before any CUDA call, so this needs no GPU: the pointers are never dereferenced.
void check_rejects_bad_arguments(const std::string& task)
{
    const InterleavedStep& step = step_of(task);
    INFO(task << ": " << std::string(step.name));
    int* const data = reinterpret_cast<int*>(std::uintptr_t{0x1000});
    long long* const total = reinterpret_cast<long long*>(std::uintptr_t{0x2000});
    for (int block : {0, -32, 16, 33, 96, 2048}) {
        INFO("block = " << block);
        CHECK_THROWS_AS(step.launch(data, total, 1000, block, 0), std::invalid_argument);
    }
    CHECK_THROWS_AS(step.launch(nullptr, total, 1000, 256, 0), std::invalid_argument);
    CHECK_THROWS_AS(step.launch(data, nullptr, 1000, 256, 0), std::invalid_argument);
}

// Small sizes for compute-sanitizer (racecheck, synccheck): the tools slow kernels down 10-100x.
void check_small_sizes(const std::string& task)
{
    const InterleavedStep& step = step_of(task);
    const auto host = course::random_ints(5000, course::testing::seed(4));
    DeviceBuffer<int> pristine(host.size());
    pristine.copy_from_host(host);
    for (int block : {32, 256, 1024})
        for (std::size_t n : {std::size_t{1}, std::size_t{33}, std::size_t{1000}, std::size_t{5000}})
            CHECK_RESULT(task, call(step.name, n, block), run_on_copy(task, host, pristine, n, block),
                         course::sum_reference(host.data(), n));
}

// ---- past 2^32 elements ----------------------------------------------------------------------------------
// 2^32 + 2^20 + 3 ints (17.2 GB): an int index goes negative past 2^31 elements, an unsigned one wraps past
// 2^32. The data repeats a random tile of odd length (so a wrapped index reads other values), written on the
// device by doubling copies; the expected sum has a closed form. reduce_interleaved overwrites its input, so
// the data is written again before every call.
constexpr std::size_t large_n = (std::size_t{1} << 32) + (std::size_t{1} << 20) + 3;
constexpr std::size_t tile_length = 1000003;

void check_large(const std::string& task)
{
    const InterleavedStep& step = step_of(task);
    REQUIRE_GPU_MEMORY(large_n * sizeof(int) + (std::size_t{256} << 20));
    const auto tile = course::random_ints(tile_length, course::testing::seed(5));
    DeviceBuffer<int> data(large_n);
    DeviceBuffer<long long> total(1);
    for (int block : {32, 1024}) {
        if (block == 32 || overwrites_input(step)) course::fill_periodic(data.data(), large_n, tile);
        total.fill_bytes(poison);
        step.launch(data.data(), total.data(), large_n, block, 0);
        CHECK_RESULT(task, call(step.name, large_n, block) << " (past 2^32 elements: is every index 64-bit?)",
                     total.to_host()[0], course::periodic_sum_reference(tile.data(), tile.size(), large_n));
    }
}

// ---- lessons: one launch on 2^20 elements, profiled by Nsight Compute ---------------------------------------
constexpr std::size_t lesson_n = std::size_t{1} << 20;
constexpr int lesson_block = 256;
constexpr double lesson_blocks = static_cast<double>(lesson_n / lesson_block);

void run_lesson_subject(const std::string& task)
{
    const InterleavedStep& step = step_of(task);
    const auto host = course::random_ints(lesson_n, course::testing::seed(6));
    DeviceBuffer<int> pristine(lesson_n);
    pristine.copy_from_host(host);
    CHECK_RESULT(task, call(step.name, lesson_n, lesson_block),
                 run_on_copy(task, host, pristine, lesson_n, lesson_block), course::sum_reference(host.data(), lesson_n));
}

// Shared-memory bank conflicts (loads plus stores) of the kernel named like `kernel` in the lesson subject of
// `task`, as Nsight Compute counts them: the extra passes ("wavefronts") a warp's access needed because it
// asked one bank for several different words.
std::optional<double> bank_conflicts(const std::string& task, const std::string& kernel)
{
    const std::string subject = "lesson subject " + task + "*";
    const auto loads = course::testing::ncu_metric(subject, kernel, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum");
    if (!loads) return std::nullopt;
    const auto stores = course::testing::ncu_metric(subject, kernel, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum");
    if (!stores) return std::nullopt;
    MESSAGE(kernel << ", n = " << lesson_n << ", block = " << lesson_block << ": " << *loads
                   << " shared-load and " << *stores << " shared-store bank conflicts");
    return *loads + *stores;
}

// The bank conflicts of one block of the strided tree (Task 03.3) by the README's model: 32 banks of 4-byte
// words, and a warp's access takes as many passes as the most different words it asks one bank for. Counted
// for the two loads (word index and index + s) and the store of every level, in every warp with a busy lane.
// For blocks of 256 threads: 70 for the loads and 35 for the stores.
double strided_conflicts_per_block(int block)
{
    double conflicts = 0;
    for (unsigned s = 1; s < static_cast<unsigned>(block); s *= 2)
        for (unsigned warp = 0; warp < static_cast<unsigned>(block) / 32; ++warp)
            for (unsigned offset : {0u, s, 0u}) {  // load partial[index], load partial[index + s], store
                std::set<unsigned> words[32];
                for (unsigned lane = 0; lane < 32; ++lane) {
                    const unsigned index = 2 * s * (warp * 32 + lane);
                    if (index < static_cast<unsigned>(block)) words[(index + offset) % 32].insert(index + offset);
                }
                std::size_t passes = 0;
                for (const auto& bank : words) passes = std::max(passes, bank.size());
                if (passes > 1) conflicts += static_cast<double>(passes - 1);
            }
    return conflicts;
}

}  // namespace

// ---------------------------------------------------------------------------------------------------- 03.1
TEST_CASE("TODO(03.1) reduce_interleaved: 1..8, standard sizes x every block, negative values")
{
    REQUIRE_GPU();
    check_standard_sizes("TODO(03.1)");
}

TEST_CASE("TODO(03.1) reduce_interleaved: values at +-(2^21 - 1), 64-bit total")
{
    REQUIRE_GPU();
    check_extreme_values("TODO(03.1)");
}

TEST_CASE("TODO(03.1) reduce_interleaved reads nothing at or past n")
{
    REQUIRE_GPU();
    check_nothing_read_past_n("TODO(03.1)");
}

TEST_CASE("TODO(03.1) reduce_interleaved on a stream of its own")
{
    REQUIRE_GPU();
    check_own_stream("TODO(03.1)");
}

TEST_CASE("TODO(03.1) reduce_interleaved rejects bad block sizes and null pointers")
{
    check_rejects_bad_arguments("TODO(03.1)");
}

TEST_CASE("sanitized TODO(03.1) reduce_interleaved: small sizes")
{
    REQUIRE_GPU();
    check_small_sizes("TODO(03.1)");
}

TEST_CASE("TODO(03.1) racecheck and synccheck")
{
    REQUIRE_GPU();
    course::testing::check_sanitizer_clean("TODO(03.1)", "racecheck", "sanitized TODO(03.1)*");
    course::testing::check_sanitizer_clean("TODO(03.1)", "synccheck", "sanitized TODO(03.1)*");
}

TEST_CASE("TODO(03.1) large: reduce_interleaved past 2^32 elements")
{
    REQUIRE_GPU();
    check_large("TODO(03.1)");
}

// ---------------------------------------------------------------------------------------------------- 03.2
TEST_CASE("TODO(03.2) reduce_shared_modulo: 1..8, standard sizes x every block, input untouched")
{
    REQUIRE_GPU();
    check_standard_sizes("TODO(03.2)");
}

TEST_CASE("TODO(03.2) reduce_shared_modulo: values at +-(2^21 - 1), 64-bit total")
{
    REQUIRE_GPU();
    check_extreme_values("TODO(03.2)");
}

TEST_CASE("TODO(03.2) reduce_shared_modulo reads nothing at or past n")
{
    REQUIRE_GPU();
    check_nothing_read_past_n("TODO(03.2)");
}

TEST_CASE("TODO(03.2) reduce_shared_modulo on a stream of its own")
{
    REQUIRE_GPU();
    check_own_stream("TODO(03.2)");
}

TEST_CASE("TODO(03.2) reduce_shared_modulo rejects bad block sizes and null pointers")
{
    check_rejects_bad_arguments("TODO(03.2)");
}

TEST_CASE("sanitized TODO(03.2) reduce_shared_modulo: small sizes")
{
    REQUIRE_GPU();
    check_small_sizes("TODO(03.2)");
}

TEST_CASE("TODO(03.2) racecheck and synccheck")
{
    REQUIRE_GPU();
    course::testing::check_sanitizer_clean("TODO(03.2)", "racecheck", "sanitized TODO(03.2)*");
    course::testing::check_sanitizer_clean("TODO(03.2)", "synccheck", "sanitized TODO(03.2)*");
}

TEST_CASE("TODO(03.2) large: reduce_shared_modulo past 2^32 elements")
{
    REQUIRE_GPU();
    check_large("TODO(03.2)");
}

TEST_CASE("lesson subject TODO(03.2) reduce_shared_modulo")
{
    REQUIRE_GPU();
    run_lesson_subject("TODO(03.2)");
}

// The lesson of 03.2, measured. The compiler turns each level's short `if` into predicated instructions (no
// branch), so every warp steps through every level in all three shared-memory kernels, whatever its lanes do;
// what reduce0 pays for is `tid % (2*s)`: a divisor known only at run time makes it an integer division, some
// fifteen instructions per thread and level. The warp instructions executed show it: about 1.8x those of the
// strided kernel for blocks of 256 threads (sm_90, CUDA 13).
TEST_CASE("TODO(03.2) lesson: reduce_shared_modulo executes the modulo's extra instructions")
{
    REQUIRE_GPU();
    const char* metric = "smsp__inst_executed.sum";
    const auto modulo = course::testing::ncu_metric("lesson subject TODO(03.2)*", "reduce_shared_modulo_kernel", metric);
    if (!modulo) return;
    const auto strided = course::testing::ncu_metric("lesson subject TODO(03.3)*", "reduce_shared_strided_kernel", metric);
    if (!strided) return;
    MESSAGE("warp instructions executed, n = " << lesson_n << ", block = " << lesson_block << ": reduce_shared_modulo "
                                               << *modulo << ", reduce_shared_strided " << *strided);
    VERIFY(*modulo >= 1.25 * *strided,
           "TODO(03.2): reduce_shared_modulo executed " << *modulo << " warp instructions, not 1.25x the "
               << *strided << " of reduce_shared_strided (TODO(03.3)): is it the seed's reduce0, busy threads "
                  "picked with tid % (2*s) == 0?");
}

// ---------------------------------------------------------------------------------------------------- 03.3
TEST_CASE("TODO(03.3) reduce_shared_strided: 1..8, standard sizes x every block, input untouched")
{
    REQUIRE_GPU();
    check_standard_sizes("TODO(03.3)");
}

TEST_CASE("TODO(03.3) reduce_shared_strided: values at +-(2^21 - 1), 64-bit total")
{
    REQUIRE_GPU();
    check_extreme_values("TODO(03.3)");
}

TEST_CASE("TODO(03.3) reduce_shared_strided reads nothing at or past n")
{
    REQUIRE_GPU();
    check_nothing_read_past_n("TODO(03.3)");
}

TEST_CASE("TODO(03.3) reduce_shared_strided on a stream of its own")
{
    REQUIRE_GPU();
    check_own_stream("TODO(03.3)");
}

TEST_CASE("TODO(03.3) reduce_shared_strided rejects bad block sizes and null pointers")
{
    check_rejects_bad_arguments("TODO(03.3)");
}

TEST_CASE("sanitized TODO(03.3) reduce_shared_strided: small sizes")
{
    REQUIRE_GPU();
    check_small_sizes("TODO(03.3)");
}

TEST_CASE("TODO(03.3) racecheck and synccheck")
{
    REQUIRE_GPU();
    course::testing::check_sanitizer_clean("TODO(03.3)", "racecheck", "sanitized TODO(03.3)*");
    course::testing::check_sanitizer_clean("TODO(03.3)", "synccheck", "sanitized TODO(03.3)*");
}

TEST_CASE("TODO(03.3) large: reduce_shared_strided past 2^32 elements")
{
    REQUIRE_GPU();
    check_large("TODO(03.3)");
}

TEST_CASE("lesson subject TODO(03.3) reduce_shared_strided")
{
    REQUIRE_GPU();
    run_lesson_subject("TODO(03.3)");
}

// The lesson of 03.3, measured: strided addressing has the bank conflicts the README's table counts. Nsight
// Compute matched that model to within a few per cent (H200, 2^24 ints, blocks of 256); at least half of it
// must be there.
TEST_CASE("TODO(03.3) lesson: reduce_shared_strided has the bank conflicts of strided addressing")
{
    REQUIRE_GPU();
    const auto strided = bank_conflicts("TODO(03.3)", "reduce_shared_strided_kernel");
    if (!strided) return;
    const double model = strided_conflicts_per_block(lesson_block) * lesson_blocks;
    VERIFY(*strided >= 0.5 * model,
           "TODO(03.3): reduce_shared_strided has " << *strided << " bank conflicts, not even half of the "
               << model << " that thread tid on word 2*s*tid makes (README, \"Shared-memory banks\"): is it the "
                  "strided addressing of the seed's reduce1?");
}

// ---------------------------------------------------------------------------------------------------- 03.4
TEST_CASE("TODO(03.4) reduce_shared_sequential: 1..8, standard sizes x every block, input untouched")
{
    REQUIRE_GPU();
    check_standard_sizes("TODO(03.4)");
}

TEST_CASE("TODO(03.4) reduce_shared_sequential: values at +-(2^21 - 1), 64-bit total")
{
    REQUIRE_GPU();
    check_extreme_values("TODO(03.4)");
}

TEST_CASE("TODO(03.4) reduce_shared_sequential reads nothing at or past n")
{
    REQUIRE_GPU();
    check_nothing_read_past_n("TODO(03.4)");
}

TEST_CASE("TODO(03.4) reduce_shared_sequential on a stream of its own")
{
    REQUIRE_GPU();
    check_own_stream("TODO(03.4)");
}

TEST_CASE("TODO(03.4) reduce_shared_sequential rejects bad block sizes and null pointers")
{
    check_rejects_bad_arguments("TODO(03.4)");
}

TEST_CASE("sanitized TODO(03.4) reduce_shared_sequential: small sizes")
{
    REQUIRE_GPU();
    check_small_sizes("TODO(03.4)");
}

TEST_CASE("TODO(03.4) racecheck and synccheck")
{
    REQUIRE_GPU();
    course::testing::check_sanitizer_clean("TODO(03.4)", "racecheck", "sanitized TODO(03.4)*");
    course::testing::check_sanitizer_clean("TODO(03.4)", "synccheck", "sanitized TODO(03.4)*");
}

TEST_CASE("TODO(03.4) large: reduce_shared_sequential past 2^32 elements")
{
    REQUIRE_GPU();
    check_large("TODO(03.4)");
}

TEST_CASE("lesson subject TODO(03.4) reduce_shared_sequential")
{
    REQUIRE_GPU();
    run_lesson_subject("TODO(03.4)");
}

// The lesson of 03.4, measured: sequential addressing has under 1/20 of the strided kernel's bank conflicts
// (measured 114x fewer shared-load conflicts on an H200). The strided count is the README's model of Task
// 03.3's addressing (what Nsight Compute measures for it, within a few per cent), so that this check does not
// depend on the student's own 03.3.
TEST_CASE("TODO(03.4) lesson: reduce_shared_sequential has under 1/20 of the strided kernel's bank conflicts")
{
    REQUIRE_GPU();
    const auto sequential = bank_conflicts("TODO(03.4)", "reduce_shared_sequential_kernel");
    if (!sequential) return;
    const double strided = strided_conflicts_per_block(lesson_block) * lesson_blocks;
    VERIFY(*sequential * 20 < strided,
           "TODO(03.4): reduce_shared_sequential has " << *sequential << " bank conflicts, not under 1/20 of the "
               << strided << " of strided addressing: do the busy lanes of a warp read consecutive words "
                  "(thread tid < s adds word tid + s)?");
}
