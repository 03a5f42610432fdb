// Chapter 03 checks: every kernel against the CPU reference, for every block size the launchers accept and
// the standard sizes (0, 1, 2, 31, 32, 33, block-1, block, block+1, 999983, 2^24+7), with negative values and
// a poisoned total (the launcher must zero it itself). A failure reads e.g.
// "TODO(03.2): reduce_shared_modulo(n=33, block=32) returned 0, expected -561".
#include "interleaved.hpp"

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

using Launcher = void (*)(int*, std::size_t, int, long long*);

// The shared-memory launchers take const int*; wrapped so one check serves all four kernels.
template <void (*reduce)(const int*, std::size_t, int, long long*)>
void read_only(int* d_in, std::size_t n, int block, long long* d_total)
{
    reduce(d_in, n, block, d_total);
}

struct Kernel {
    std::string task;
    std::string name;
    Launcher reduce;
    bool overwrites_input;
};

constexpr unsigned char poison = 0xA5;  // a total that is not zeroed first reads as garbage

std::size_t largest_standard_size()
{
    std::size_t largest = 0;
    for (int block : course::testing::power_of_two_blocks())
        for (std::size_t n : course::testing::standard_sizes(block)) largest = std::max(largest, n);
    return largest;
}

// Runs the kernel on a copy of host[0, n) held in a buffer of exactly n elements (a read past the end
// leaves the allocation: memcheck reports it), with the total poisoned, and returns the total. A kernel that
// must not write its input is checked for that too.
long long run_on_copy(const Kernel& k, const std::vector<int>& host, const DeviceBuffer<int>& pristine,
                      std::size_t n, int block)
{
    DeviceBuffer<int> data(n);
    if (n > 0) CUDA_CHECK(cudaMemcpy(data.data(), pristine.data(), n * sizeof(int), cudaMemcpyDeviceToDevice));
    DeviceBuffer<long long> total(1);
    total.fill_bytes(poison);
    k.reduce(data.data(), n, block, total.data());
    const long long got = total.to_host()[0];
    if (!k.overwrites_input) {
        const auto after = data.to_host();
        CHECK_ARRAY(k.task, call(k.name, n, block) << " changed its input", after.data(), host.data(), n);
    }
    return got;
}

// One random input of the largest size, copied to the device once; every size uses a prefix of it.
void check_standard_sizes(const Kernel& k)
{
    const auto host = course::random_ints(largest_standard_size(), course::testing::seed(1));
    DeviceBuffer<int> pristine(host.size());
    pristine.copy_from_host(host);
    for (int block : course::testing::power_of_two_blocks())
        for (std::size_t n : course::testing::standard_sizes(block))
            CHECK_RESULT(k.task, call(k.name, n, block), run_on_copy(k, host, pristine, n, block),
                         course::sum_reference(host.data(), n));
}

void check_small_example(const Kernel& k)
{
    const std::vector<int> one_to_eight{1, 2, 3, 4, 5, 6, 7, 8};  // the README's tree: 36
    DeviceBuffer<int> pristine(one_to_eight.size());
    pristine.copy_from_host(one_to_eight);
    CHECK_RESULT(k.task, call(k.name, 8, 32) << " of 1..8", run_on_copy(k, one_to_eight, pristine, 8, 32), 36);
}

// Every element +-max_exact_abs_value: each block's int partial sums just fit, the total needs 64 bits, and
// the negative one needs the two's-complement atomicAdd.
void check_extreme_values(const Kernel& k)
{
    const std::size_t n = (std::size_t{1} << 20) + 3;
    for (int value : {max_exact_abs_value, -max_exact_abs_value}) {
        const std::vector<int> host(n, value);
        DeviceBuffer<int> pristine(n);
        pristine.copy_from_host(host);
        for (int block : {32, 1024})
            CHECK_RESULT(k.task, call(k.name, n, block) << " with every element " << value,
                         run_on_copy(k, host, pristine, n, block), static_cast<long long>(n) * value);
    }
}

// Validation happens before any CUDA call, so this needs no GPU.
void check_rejects_bad_arguments(const Kernel& k)
{
    INFO(std::string(k.name));
    for (int block : {0, -32, 16, 33, 96, 2048}) {
        INFO("block = " << block);
        CHECK_THROWS_AS(k.reduce(nullptr, 1000, block, nullptr), std::invalid_argument);
    }
    CHECK_THROWS_AS(k.reduce(nullptr, 1000, 256, nullptr), std::invalid_argument);  // null pointers
}

const Kernel interleaved{"TODO(03.1)", "reduce_interleaved", reduce_interleaved, true};
const Kernel shared_modulo{"TODO(03.2)", "reduce_shared_modulo", read_only<reduce_shared_modulo>, false};
const Kernel shared_strided{"TODO(03.3)", "reduce_shared_strided", read_only<reduce_shared_strided>, false};
const Kernel shared_sequential{"TODO(03.4)", "reduce_shared_sequential", read_only<reduce_shared_sequential>,
                               false};

}  // namespace

// ---------------------------------------------------------------------------------------------------- 03.1
TEST_CASE("TODO(03.1) reduce_interleaved: 1..8, standard sizes x every block, negative values")
{
    REQUIRE_GPU();
    check_small_example(interleaved);
    check_standard_sizes(interleaved);
}

TEST_CASE("TODO(03.1) reduce_interleaved: values at +-(2^21 - 1), 64-bit total")
{
    REQUIRE_GPU();
    check_extreme_values(interleaved);
}

TEST_CASE("TODO(03.1) reduce_interleaved rejects bad block sizes and null pointers")
{
    check_rejects_bad_arguments(interleaved);
}

// ---------------------------------------------------------------------------------------------------- 03.2
TEST_CASE("TODO(03.2) reduce_shared_modulo: 1..8, standard sizes x every block, input untouched")
{
    REQUIRE_GPU();
    check_small_example(shared_modulo);
    check_standard_sizes(shared_modulo);
}

TEST_CASE("TODO(03.2) reduce_shared_modulo: values at +-(2^21 - 1), 64-bit total")
{
    REQUIRE_GPU();
    check_extreme_values(shared_modulo);
}

TEST_CASE("TODO(03.2) reduce_shared_modulo rejects bad block sizes and null pointers")
{
    check_rejects_bad_arguments(shared_modulo);
}

// ---------------------------------------------------------------------------------------------------- 03.3
TEST_CASE("TODO(03.3) reduce_shared_strided: 1..8, standard sizes x every block, input untouched")
{
    REQUIRE_GPU();
    check_small_example(shared_strided);
    check_standard_sizes(shared_strided);
}

TEST_CASE("TODO(03.3) reduce_shared_strided: values at +-(2^21 - 1), 64-bit total")
{
    REQUIRE_GPU();
    check_extreme_values(shared_strided);
}

TEST_CASE("TODO(03.3) reduce_shared_strided rejects bad block sizes and null pointers")
{
    check_rejects_bad_arguments(shared_strided);
}

// ---------------------------------------------------------------------------------------------------- 03.4
TEST_CASE("TODO(03.4) reduce_shared_sequential: 1..8, standard sizes x every block, input untouched")
{
    REQUIRE_GPU();
    check_small_example(shared_sequential);
    check_standard_sizes(shared_sequential);
}

TEST_CASE("TODO(03.4) reduce_shared_sequential: values at +-(2^21 - 1), 64-bit total")
{
    REQUIRE_GPU();
    check_extreme_values(shared_sequential);
}

TEST_CASE("TODO(03.4) reduce_shared_sequential rejects bad block sizes and null pointers")
{
    check_rejects_bad_arguments(shared_sequential);
}
