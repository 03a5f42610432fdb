// Chapter 04 checks: every kernel against the CPU reference, for every block size the launchers accept
// (powers of two in [32, 1024]) and the standard sizes (0, 1, 2, 31, 32, 33, block-1, block, block+1, 999983,
// 2^24+7), with negative values and a poisoned total. The vectorized kernels also start 1, 2, 3 (bytes: up to
// 15) elements past a 16-byte boundary, at sizes around multiples of 4 and 16. Each run gets its own device
// buffer of exactly the elements it may read, so compute-sanitizer's memcheck sees any read past the end.
// A failure reads e.g. "TODO(04.1): reduce_unrolling2(n=33, block=32) returned 0, expected 561".
#include "unroll_warp.hpp"

#include "course/data.hpp"
#include "course/device_buffer.hpp"
#include "course/reference.hpp"
#include "course/testing.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

using course::DeviceBuffer;
using course::testing::call;

namespace {

template <class T, class Total>
struct Kernel {
    std::string task;
    std::string name;
    void (*reduce)(const T*, std::size_t, Total*, int);
};

using IntKernel = Kernel<int, long long>;

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
    k.reduce(data.data() + offset, n, total.data(), block);
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

// The int kernels: the README's 1..8, the standard sizes, and ints over the whole int range, whose sums need
// 64 bits inside every block as well as in the total.
void check_int_kernel(const IntKernel& k, Input<int>& standard, Input<int>& full_range)
{
    Input<int> one_to_eight({1, 2, 3, 4, 5, 6, 7, 8});
    CHECK_RESULT(k.task, call(k.name, 8, 32) << " of 1..8", run(k, one_to_eight, 0, 8, 32), 36);
    check_exact(k, standard, {0}, course::testing::standard_sizes);
    for (int block : course::testing::power_of_two_blocks()) {
        const std::size_t n = full_range.host.size();
        CHECK_RESULT(k.task, call(k.name, n, block) << " of ints in [INT_MIN, INT_MAX]",
                     run(k, full_range, 0, n, block), full_range.sum(0, n));
    }
}

struct IntInputs {
    Input<int> standard{course::random_ints(largest_standard_size() + 16, course::testing::seed(1))};
    Input<int> full_range{course::random_ints((std::size_t{1} << 20) + 3, course::testing::seed(2), INT_MIN, INT_MAX)};
};

void check_int_kernels(std::initializer_list<IntKernel> kernels)
{
    IntInputs inputs;
    for (const IntKernel& k : kernels) check_int_kernel(k, inputs.standard, inputs.full_range);
}

// Validation happens before any CUDA call, so these cases need no GPU. The totals passed are host variables
// that a correct launcher never touches.
template <class T, class Total>
void check_rejects_bad_arguments(const Kernel<T, Total>& k)
{
    Total host_total{};
    const T* no_input = nullptr;
    for (int block : {-32, 0, 1, 16, 31, 33, 48, 96, 1000, 2048, 4096}) {
        INFO(std::string(k.task) << ": " << call(k.name, 0, block) << " must throw std::invalid_argument naming the block");
        CHECK_THROWS_WITH_AS(k.reduce(no_input, 0, &host_total, block), doctest::Contains("block"),
                             std::invalid_argument);
    }
    INFO(std::string(k.task) << ": " << std::string(k.name) << " must reject null or misaligned pointers with std::invalid_argument");
    CHECK_THROWS_WITH_AS(k.reduce(no_input, 0, nullptr, 256), doctest::Contains("d_total"), std::invalid_argument);
    CHECK_THROWS_WITH_AS(k.reduce(no_input, 1, &host_total, 256), doctest::Contains("d_in"), std::invalid_argument);
    if (alignof(T) > 1) {
        const auto* misaligned = reinterpret_cast<const T*>(std::uintptr_t{0x1001});
        CHECK_THROWS_WITH_AS(k.reduce(misaligned, 1, &host_total, 256), doctest::Contains("aligned"),
                             std::invalid_argument);
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

const std::initializer_list<std::size_t> int_offsets = {0, 1, 2, 3};
const std::initializer_list<std::size_t> byte_offsets = {0, 1, 2, 3, 5, 8, 15};

const Kernel<int, long long> vectorized{"TODO(04.6)", "reduce_vectorized", reduce_vectorized};
const Kernel<float, double> vectorized_float_double{"TODO(04.6)", "reduce_vectorized_float (double accumulation)",
                                                    reduce_vectorized_float};
const Kernel<float, float> vectorized_float_float{"TODO(04.6)", "reduce_vectorized_float (float accumulation)",
                                                  reduce_vectorized_float};
const Kernel<std::uint8_t, long long> vectorized_bytes{"TODO(04.6)", "reduce_vectorized_bytes",
                                                       reduce_vectorized_bytes};

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
    check_int_kernels({{"TODO(04.1)", "reduce_unrolling2", reduce_unrolling2},
                       {"TODO(04.1)", "reduce_unrolling4", reduce_unrolling4},
                       {"TODO(04.1)", "reduce_unrolling8", reduce_unrolling8}});
}

TEST_CASE("TODO(04.1) reduce_unrolling2/4/8 reject bad block sizes and pointers")
{
    for (const IntKernel& k : {IntKernel{"TODO(04.1)", "reduce_unrolling2", reduce_unrolling2},
                               IntKernel{"TODO(04.1)", "reduce_unrolling4", reduce_unrolling4},
                               IntKernel{"TODO(04.1)", "reduce_unrolling8", reduce_unrolling8}})
        check_rejects_bad_arguments(k);
}

// ---------------------------------------------------------------------------------------------------- 04.2
TEST_CASE("TODO(04.2) reduce_unroll_warp_syncwarp: 1..8, standard sizes x every block, negative values, full int range")
{
    REQUIRE_GPU();
    check_int_kernels({{"TODO(04.2)", "reduce_unroll_warp_syncwarp", reduce_unroll_warp_syncwarp}});
}

TEST_CASE("TODO(04.2) reduce_unroll_warp_syncwarp rejects bad block sizes and pointers")
{
    check_rejects_bad_arguments(IntKernel{"TODO(04.2)", "reduce_unroll_warp_syncwarp", reduce_unroll_warp_syncwarp});
}

// ---------------------------------------------------------------------------------------------------- 04.3
TEST_CASE("TODO(04.3) reduce_complete_unroll: 1..8, standard sizes x every block (every template instance)")
{
    REQUIRE_GPU();
    check_int_kernels({{"TODO(04.3)", "reduce_complete_unroll", reduce_complete_unroll}});
}

TEST_CASE("TODO(04.3) reduce_complete_unroll rejects bad block sizes and pointers")
{
    check_rejects_bad_arguments(IntKernel{"TODO(04.3)", "reduce_complete_unroll", reduce_complete_unroll});
}

// ---------------------------------------------------------------------------------------------------- 04.4
TEST_CASE("TODO(04.4) reduce_grid_stride: 1..8, standard sizes x every block, negative values, full int range")
{
    REQUIRE_GPU();
    check_int_kernels({{"TODO(04.4)", "reduce_grid_stride", reduce_grid_stride}});
}

TEST_CASE("TODO(04.4) reduce_grid_stride rejects bad block sizes and pointers")
{
    check_rejects_bad_arguments(IntKernel{"TODO(04.4)", "reduce_grid_stride", reduce_grid_stride});
}

// ---------------------------------------------------------------------------------------------------- 04.5
TEST_CASE("TODO(04.5) reduce_shfl/cg/redux: 1..8, standard sizes x every block, negative values, full int range")
{
    REQUIRE_GPU();
    check_int_kernels({{"TODO(04.5)", "reduce_shfl", reduce_shfl},
                       {"TODO(04.5)", "reduce_cg", reduce_cg},
                       {"TODO(04.5)", "reduce_redux", reduce_redux}});
}

TEST_CASE("TODO(04.5) reduce_shfl/cg/redux reject bad block sizes and pointers")
{
    for (const IntKernel& k : {IntKernel{"TODO(04.5)", "reduce_shfl", reduce_shfl},
                               IntKernel{"TODO(04.5)", "reduce_cg", reduce_cg},
                               IntKernel{"TODO(04.5)", "reduce_redux", reduce_redux}})
        check_rejects_bad_arguments(k);
}

// ---------------------------------------------------------------------------------------------------- 04.6
TEST_CASE("TODO(04.6) reduce_vectorized: standard sizes and multiples of 4 +-1 x every block x offsets 0-3")
{
    REQUIRE_GPU();
    IntInputs inputs;
    check_int_kernel(vectorized, inputs.standard, inputs.full_range);
    check_exact(vectorized, inputs.standard, int_offsets, vector_sizes);
}

TEST_CASE("TODO(04.6) reduce_vectorized_bytes: standard sizes and multiples of 16 +-1 x every block x offsets 0-15")
{
    REQUIRE_GPU();
    Input<std::uint8_t> bytes(course::random_bytes(largest_standard_size() + 16 * 4, course::testing::seed(3),
                                                   course::ByteDistribution::uniform));
    check_exact(vectorized_bytes, bytes, byte_offsets, [](int block) {
        std::vector<std::size_t> sizes = vector_sizes(block);
        for (std::size_t n : {31, 32, 33, 255, 256, 257}) sizes.push_back(n);  // a few more multiples of 16
        return sizes;
    });
}

TEST_CASE("TODO(04.6) reduce_vectorized_float: random floats within 2 n 2^-53 sum|x| (double accumulation)")
{
    REQUIRE_GPU();
    Input<float> in(course::random_floats(largest_standard_size() + 16, course::testing::seed(4)));
    std::map<std::pair<std::size_t, std::size_t>, double> sum_abs;
    for (int block : course::testing::power_of_two_blocks())
        for (std::size_t offset : int_offsets)
            for (std::size_t n : vector_sizes(block)) {
                const auto key = std::make_pair(offset, n);
                if (sum_abs.count(key) == 0) sum_abs[key] = course::sum_abs_reference(in.host.data() + offset, n);
                const double got = run(vectorized_float_double, in, offset, n, block);
                const double expected = in.sum(offset, n);
                const double tolerance = double_accumulation_tolerance(n, sum_abs[key]);
                VERIFY(std::fabs(got - expected) <= tolerance,  // also fails for NaN
                       "TODO(04.6): " << call(vectorized_float_double.name, n, block) << at_offset(offset)
                                      << " returned " << precise(got) << ", expected " << precise(expected)
                                      << " +- " << precise(tolerance));
            }
}

TEST_CASE("TODO(04.6) reduce_vectorized_float: integer-valued floats summed exactly (double and float accumulation)")
{
    REQUIRE_GPU();
    Input<float> in([] {
        const auto ints = course::random_ints(largest_standard_size() + 16, course::testing::seed(5), -1, 1);
        return std::vector<float>(ints.begin(), ints.end());
    }());
    // About 2/3 of the values are +-1: sum|x| is near 1.1e7 for the largest size, far below 2^24 = 1.7e7.
    REQUIRE(course::sum_abs_reference(in.host.data(), in.host.size()) <= 0x1p24);
    check_integer_valued_floats(vectorized_float_double, in);
    check_integer_valued_floats(vectorized_float_float, in);
}

TEST_CASE("TODO(04.6) reduce_vectorized, _float and _bytes reject bad block sizes and pointers")
{
    check_rejects_bad_arguments(vectorized);
    check_rejects_bad_arguments(vectorized_float_double);
    check_rejects_bad_arguments(vectorized_float_float);
    check_rejects_bad_arguments(vectorized_bytes);
}

// Its own Meson test ('TODO(04.6) large', suite 'large'): about 2.2 GB of host and device memory.
TEST_CASE("TODO(04.6) large: reduce_vectorized_bytes of more than 2^31 bytes, aligned and misaligned")
{
    const std::size_t n = (std::size_t{1} << 31) + (std::size_t{1} << 20) + 5;
    REQUIRE_GPU_MEMORY(n + (std::size_t{256} << 20));
    const auto host = course::random_bytes(n, course::testing::seed(6), course::ByteDistribution::uniform);
    const long long total_sum = course::sum_reference(host.data(), n);
    DeviceBuffer<std::uint8_t> d_in(n);
    d_in.copy_from_host(host);
    DeviceBuffer<long long> total(1);
    for (int block : {256, 1024})
        for (std::size_t offset : {0, 3}) {
            total.fill_bytes(poison);
            reduce_vectorized_bytes(d_in.data() + offset, n - offset, total.data(), block);
            CHECK_RESULT("TODO(04.6)", call("reduce_vectorized_bytes", n - offset, block) << at_offset(offset),
                         total.to_host()[0], total_sum - course::sum_reference(host.data(), offset));
        }
}
