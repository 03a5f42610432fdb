// Chapter 04 demo (docs/04_unroll_warp.md, "The demo"): every kernel of the progression on one random input,
// checked and timed; then (with reduce_vectorized) floats - the order of the blocks' atomics - and bytes.
//   build/subprojects/04_unroll_warp/bin/unroll_warp_demo --n 2^24 --block 256 --seed 1 [--kernel NAME] [--list]
#include "unroll_warp.hpp"
#include "unroll_warp_problem.hpp"
#include "unroll_warp_progression.hpp"

#include "course/args.hpp"
#include "course/chapter.hpp"
#include "course/check.hpp"
#include "course/data.hpp"
#include "course/device_buffer.hpp"
#include "course/reference.hpp"

#include <cmath>
#include <cstdint>
#include <iomanip>
#include <iostream>
#include <set>
#include <string>
#include <vector>

namespace {

constexpr int order_runs = 10;

// Runs a float kernel `order_runs` times on the same input and prints every distinct result.
template <class Total>
void print_distinct_results(const char* label, const course::DeviceBuffer<float>& d_in, std::size_t n, int block,
                            UnrollWarpWorkspace& workspace, int digits)
{
    course::DeviceBuffer<Total> total(1);
    std::set<Total> results;
    for (int run = 0; run < order_runs; ++run) {
        reduce_vectorized_float(d_in.data(), total.data(), n, block, workspace);
        results.insert(total.to_host()[0]);
    }
    std::cout << std::setprecision(digits) << "  reduce_vectorized_float, " << label << ", " << order_runs
              << " runs: " << results.size() << " distinct result(s):";
    for (Total r : results) std::cout << ' ' << r;
    std::cout << '\n';
}

// After the int table: reduce_vectorized's float and byte variants on the same n. True when both are right.
bool floats_and_bytes(const course::Args& args, UnrollWarpWorkspace& workspace)
{
    // Floats: the same kernel, float4 loads, two accumulators.
    const auto floats = course::random_floats(args.n, args.seed);
    const double reference = course::sum_reference(floats.data(), args.n);
    const double tolerance = 2.0 * static_cast<double>(args.n) * 0x1p-53 *
                             course::sum_abs_reference(floats.data(), args.n);
    float forward = 0, backward = 0;
    for (std::size_t i = 0; i < args.n; ++i) forward += floats[i];
    for (std::size_t i = args.n; i > 0; --i) backward += floats[i - 1];
    std::cout << std::setprecision(17) << "Floats: " << args.n
              << " random values in [-1, 1), reference sum (double, compensated) " << reference << '\n'
              << std::setprecision(9) << "  CPU, float accumulator, index order " << forward << ", reverse order "
              << backward << '\n';
    const course::DeviceBuffer<float> d_floats(floats);
    print_distinct_results<float>("float accumulation", d_floats, args.n, args.block, workspace, 9);
    print_distinct_results<double>("double accumulation", d_floats, args.n, args.block, workspace, 17);
    course::DeviceBuffer<double> double_total(1);
    reduce_vectorized_float(d_floats.data(), double_total.data(), args.n, args.block, workspace);
    const double error = std::fabs(double_total.to_host()[0] - reference);
    std::cout << std::setprecision(3) << "  double accumulation: |error| = " << error
              << ", bound 2 n 2^-53 sum|x| = " << tolerance
              << "\n  (float addition is not associative, and the blocks' atomicAdds land in a different order\n"
                 "  in every run; in float that changes the last digits, in double it stays far below float\n"
                 "  precision)\n\n";

    // Bytes: 16 per load, summed with __dp4a.
    const auto byte_data = course::random_bytes(args.n, args.seed, course::ByteDistribution::uniform);
    const long long byte_expected = course::sum_reference(byte_data.data(), args.n);
    const course::DeviceBuffer<std::uint8_t> d_bytes(byte_data);
    course::DeviceBuffer<long long> byte_total(1);
    byte_total.fill_bytes(0xA5);
    reduce_vectorized_bytes(d_bytes.data(), byte_total.data(), args.n, args.block, workspace);
    const long long byte_got = byte_total.to_host()[0];
    std::cout << "Bytes: " << args.n << " random bytes, reduce_vectorized_bytes " << byte_got << ", expected "
              << byte_expected << (byte_got == byte_expected ? " (correct)" : " (WRONG)") << '\n';

    return error <= tolerance && byte_got == byte_expected;
}

}  // namespace

int main(int argc, char** argv)
{
    return course::demo_main<UnrollWarpProblem>(
        argc, argv, "sum random ints, floats and bytes with every chapter 04 kernel",
        [](UnrollWarpProblem& problem, const course::Args& args) {
            if (args.wants("reduce_vectorized"))
                problem.demo_extra = [&] { return floats_and_bytes(args, problem.workspace); };
        });
}
