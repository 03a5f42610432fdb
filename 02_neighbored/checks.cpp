// Chapter 02 checks: every kernel against the CPU reference, for every block size the launchers accept and
// the standard sizes (0, 1, 2, 31, 32, 33, block-1, block, block+1, 999983, 2^24+7), with negative values and
// poisoned outputs. A failure reads e.g. "TODO(02.1): reduce_neighbored(n=33, block=32) returned ..., expected ...".
#include "neighbored.hpp"

#include "course/data.hpp"
#include "course/device_buffer.hpp"
#include "course/reference.hpp"
#include "course/testing.hpp"

#include <algorithm>
#include <stdexcept>
#include <vector>

using course::DeviceBuffer;
using course::testing::call;

namespace {

using Launcher = void (*)(int*, std::size_t, int, long long*, long long*);

constexpr unsigned char poison = 0xA5;  // a block sum or total that is never written reads as garbage

std::size_t largest_standard_size()
{
    std::size_t largest = 0;
    for (int block : course::testing::power_of_two_blocks())
        for (std::size_t n : course::testing::standard_sizes(block)) largest = std::max(largest, n);
    return largest;
}

// Copies host[0, n) to the device in a buffer of exactly n elements (a read past the end leaves the
// allocation, which compute-sanitizer's memcheck reports), runs `reduce`, and returns the total.
long long run_on_copy(Launcher reduce, const DeviceBuffer<int>& pristine, std::size_t n, int block)
{
    DeviceBuffer<int> data(n);
    if (n > 0) CUDA_CHECK(cudaMemcpy(data.data(), pristine.data(), n * sizeof(int), cudaMemcpyDeviceToDevice));
    DeviceBuffer<long long> workspace(neighbored_workspace_count(n, block));
    DeviceBuffer<long long> total(1);
    workspace.fill_bytes(poison);
    total.fill_bytes(poison);
    reduce(data.data(), n, block, workspace.data(), total.data());
    return total.to_host()[0];
}

// One random input of the largest size, copied to the device once; every size uses a prefix of it.
void check_standard_sizes(const std::string& task, const std::string& name, Launcher reduce)
{
    const auto host = course::random_ints(largest_standard_size(), course::testing::seed(1));
    DeviceBuffer<int> pristine(host.size());
    pristine.copy_from_host(host);
    for (int block : course::testing::power_of_two_blocks())
        for (std::size_t n : course::testing::standard_sizes(block))
            CHECK_RESULT(task, call(name, n, block), run_on_copy(reduce, pristine, n, block),
                         course::sum_reference(host.data(), n));
}

void check_small_example(const std::string& task, const std::string& name, Launcher reduce)
{
    const std::vector<int> one_to_eight{1, 2, 3, 4, 5, 6, 7, 8};  // the README's tree: 36
    DeviceBuffer<int> pristine(one_to_eight.size());
    pristine.copy_from_host(one_to_eight);
    CHECK_RESULT(task, call(name, 8, 32) << " of 1..8", run_on_copy(reduce, pristine, 8, 32), 36);
}

// Every element +-max_exact_abs_value: each block's int partial sums just fit, the total needs 64 bits.
void check_extreme_values(const std::string& task, const std::string& name, Launcher reduce)
{
    const std::size_t n = (std::size_t{1} << 20) + 3;
    for (int value : {max_exact_abs_value, -max_exact_abs_value}) {
        const std::vector<int> host(n, value);
        DeviceBuffer<int> pristine(n);
        pristine.copy_from_host(host);
        for (int block : {32, 1024})
            CHECK_RESULT(task, call(name, n, block) << " with every element " << value,
                         run_on_copy(reduce, pristine, n, block), static_cast<long long>(n) * value);
    }
}

// Validation happens before any CUDA call, so these cases need no GPU.
void check_rejects_bad_arguments(const std::string& name, Launcher reduce)
{
    INFO(std::string(name));
    for (int block : {0, -32, 16, 33, 96, 2048}) {
        INFO("block = " << block);
        CHECK_THROWS_AS(reduce(nullptr, 1000, block, nullptr, nullptr), std::invalid_argument);
        CHECK_THROWS_AS(neighbored_workspace_count(1000, block), std::invalid_argument);
    }
    CHECK_THROWS_AS(reduce(nullptr, 1000, 256, nullptr, nullptr), std::invalid_argument);  // null pointers
}

}  // namespace

// ---------------------------------------------------------------------------------------------------- 02.1
TEST_CASE("TODO(02.1) reduce_neighbored: 1..8, standard sizes x every block, negative values")
{
    REQUIRE_GPU();
    check_small_example("TODO(02.1)", "reduce_neighbored", reduce_neighbored);
    check_standard_sizes("TODO(02.1)", "reduce_neighbored", reduce_neighbored);
}

TEST_CASE("TODO(02.1) reduce_neighbored: values at +-(2^21 - 1), 64-bit total")
{
    REQUIRE_GPU();
    check_extreme_values("TODO(02.1)", "reduce_neighbored", reduce_neighbored);
}

TEST_CASE("TODO(02.1) reduce_neighbored rejects bad block sizes and null pointers")
{
    check_rejects_bad_arguments("reduce_neighbored", reduce_neighbored);
}

// ---------------------------------------------------------------------------------------------------- 02.2
TEST_CASE("TODO(02.2) reduce_neighbored_less: 1..8, standard sizes x every block, negative values")
{
    REQUIRE_GPU();
    check_small_example("TODO(02.2)", "reduce_neighbored_less", reduce_neighbored_less);
    check_standard_sizes("TODO(02.2)", "reduce_neighbored_less", reduce_neighbored_less);
}

TEST_CASE("TODO(02.2) reduce_neighbored_less: values at +-(2^21 - 1), 64-bit total")
{
    REQUIRE_GPU();
    check_extreme_values("TODO(02.2)", "reduce_neighbored_less", reduce_neighbored_less);
}

TEST_CASE("TODO(02.2) reduce_neighbored_less rejects bad block sizes and null pointers")
{
    check_rejects_bad_arguments("reduce_neighbored_less", reduce_neighbored_less);
}
