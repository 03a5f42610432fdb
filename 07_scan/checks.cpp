// Chapter 07 checks. Every test case name starts with its task, so `meson test` shows one line per task and a
// failure reads e.g. "TODO(07.3): scan_multiblock(n=33, block=32) inclusive: first mismatch at index 0 ...".
// Inputs include negative values; outputs are poisoned first and the elements after the output must stay
// poisoned; every accepted block size is checked; sizes past a kernel's limit must throw.
#include "scan.hpp"

#include "course/data.hpp"
#include "course/reference.hpp"
#include "course/testing.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

using course::testing::call;

namespace {

constexpr unsigned char poison_byte = 0xAB;  // every output int starts as 0xABABABAB
constexpr std::size_t guard = 64;            // elements after the output that a kernel must not touch
const std::vector<int> bad_blocks{0, 16, 31, 33, 48, 96, 2048, -32};
const ScanKind both_kinds[] = {ScanKind::inclusive, ScanKind::exclusive};

int poison_int()
{
    int value;
    std::memset(&value, poison_byte, sizeof value);
    return value;
}

// The largest of the standard sizes (2^24 + 7; 999983 under compute-sanitizer).
std::size_t largest_size() { return course::testing::standard_sizes(1024).back(); }

std::vector<std::size_t> up_to(std::vector<std::size_t> sizes, std::size_t limit)
{
    std::sort(sizes.begin(), sizes.end());
    sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
    sizes.erase(std::remove_if(sizes.begin(), sizes.end(), [&](std::size_t s) { return s > limit; }), sizes.end());
    return sizes;
}

// The standard sizes plus the tile edges and sizes whose recursion has 1, 2 and 3 levels of tile sums.
std::vector<std::size_t> multi_tile_sizes(int block, std::size_t tile)
{
    auto sizes = course::testing::standard_sizes(block);
    for (std::size_t extra : {tile - 1, tile, tile + 1, 2 * tile + 3, tile * tile, tile * tile + 1,
                              tile * tile * tile + 1})
        sizes.push_back(extra);
    return up_to(sizes, largest_size());
}

void reference(ScanKind kind, const int* in, std::size_t n, std::vector<int>& out)
{
    out.resize(n);
    if (kind == ScanKind::inclusive) course::inclusive_scan_reference(in, out.data(), n);
    else course::exclusive_scan_reference(in, out.data(), n);
}

// Float inputs, accumulated in double.
void reference(ScanKind kind, const float* in, std::size_t n, std::vector<double>& out)
{
    out.resize(n);
    if (kind == ScanKind::inclusive) course::inclusive_scan_reference(in, out.data(), n);
    else course::exclusive_scan_reference(in, out.data(), n);
}

// One int input, generated and copied to the GPU once per test case; a check of n elements scans its first n
// elements, whose scans are the first n elements of the full scans.
struct IntInput {
    std::vector<int> host, inclusive, exclusive;
    course::DeviceBuffer<int> device, out;

    explicit IntInput(std::vector<int> values)
        : host(std::move(values)), device(host.size()), out(host.size() + guard + 4)
    {
        reference(ScanKind::inclusive, host.data(), host.size(), inclusive);
        reference(ScanKind::exclusive, host.data(), host.size(), exclusive);
        device.copy_from_host(host);
    }
};

using IntScan = std::function<void(const int* in, int* out, std::size_t n)>;

// Scans n inputs starting at element `shift` (shift > 0: pointers that are not 16-byte aligned) into the
// poisoned output at the same shift; true when the result matches and nothing around it was written.
bool check_int_scan(const std::string& task, const std::string& what, IntInput& data, ScanKind kind, std::size_t n,
                    const IntScan& scan, std::size_t shift = 0)
{
    data.out.fill_bytes(poison_byte);
    scan(data.device.data() + shift, data.out.data() + shift, n);
    std::vector<int> got(shift + n + guard);
    data.out.copy_to_host(got.data(), got.size());  // waits for the kernels; a fault surfaces here

    std::vector<int> expected_shifted;
    const int* expected = (kind == ScanKind::inclusive ? data.inclusive : data.exclusive).data();
    if (shift > 0) {
        reference(kind, data.host.data() + shift, n, expected_shifted);
        expected = expected_shifted.data();
    }
    const std::string label = what + " " + to_string(kind);
    const auto mm = course::first_mismatch(expected, got.data() + shift, n);
    VERIFY(!mm, task << ": " << label << ": " << course::describe(*mm, n));
    if (mm) return false;
    std::size_t outside = 0;  // the first element written outside [shift, shift + n)
    while (outside < got.size() && ((outside >= shift && outside < shift + n) || got[outside] == poison_int()))
        ++outside;
    VERIFY(outside == got.size(), task << ": " << label << " wrote outside its output (element "
                                       << static_cast<long long>(outside) - static_cast<long long>(shift) << ")");
    return outside == got.size();
}

std::vector<int> wrapping_values(std::size_t n, std::uint64_t salt)
{
    // Values in [2^30, INT_MAX]: the running total passes INT_MAX within a few elements, many times over.
    return course::random_ints(n, course::testing::seed(salt), 1 << 30, INT_MAX);
}

// Every accepted block, every size up to the kernel's limit, both kinds; sizes past it must throw.
using SingleBlockScan = void (*)(const int*, int*, std::size_t, int, ScanKind);

void check_single_block(const std::string& task, const std::string& name, SingleBlockScan scan, std::size_t (*max_n)(int))
{
    IntInput data(course::random_ints(2048 + 1, course::testing::seed(1)));
    IntInput wrapping(wrapping_values(2048, 2));
    for (int block : course::testing::power_of_two_blocks()) {
        const std::size_t limit = max_n(block);
        auto sizes = course::testing::standard_sizes(block);
        sizes.insert(sizes.end(), {limit - 1, limit, limit + 1});
        for (ScanKind kind : both_kinds) {
            const IntScan run = [&](const int* in, int* out, std::size_t n) { scan(in, out, n, block, kind); };
            for (std::size_t n : up_to(sizes, limit))
                if (!check_int_scan(task, call(name, n, block), data, kind, n, run)) return;
            const std::string wraps = call(name, limit, block) + " with wrapping int32 sums";
            if (!check_int_scan(task, wraps, wrapping, kind, limit, run)) return;
            for (std::size_t n : sizes)
                if (n > limit)
                    CHECK_THROWS_AS_MESSAGE(scan(nullptr, nullptr, n, block, kind), std::invalid_argument,
                                            task << ": " << call(name, n, block) << " must throw (limit " << limit
                                                 << ")");
        }
    }
    for (int block : bad_blocks)
        CHECK_THROWS_AS_MESSAGE(scan(nullptr, nullptr, 1, block, ScanKind::inclusive), std::invalid_argument,
                                task << ": " << call(name, 1, block) << " must reject the block size");
}

using MultiTileScan = void (*)(const int*, int*, std::size_t, int, ScanKind, ScanScratch&);

// tile_items(block): the items one block handles, to aim sizes at tile edges and recursion depths.
void check_multi_tile(const std::string& task, const std::string& name, MultiTileScan scan, std::size_t (*tile_items)(int),
                      bool check_misaligned)
{
    const std::size_t largest = largest_size();
    IntInput data(course::random_ints(largest + 1, course::testing::seed(3)));
    IntInput wrapping(wrapping_values(99991, 4));
    ScanScratch scratch(largest + 1);
    for (int block : course::testing::power_of_two_blocks()) {
        for (ScanKind kind : both_kinds) {
            const IntScan run = [&](const int* in, int* out, std::size_t n) { scan(in, out, n, block, kind, scratch); };
            for (std::size_t n : multi_tile_sizes(block, tile_items(block)))
                if (!check_int_scan(task, call(name, n, block), data, kind, n, run)) return;
            const std::string wraps = call(name, 99991, block) + " with wrapping int32 sums";
            if (!check_int_scan(task, wraps, wrapping, kind, 99991, run)) return;
            if (check_misaligned && block == 256 &&
                !check_int_scan(task, call(name, 999983, block) + " on pointers 4 bytes past 16-byte alignment", data,
                                kind, 999983, run, 1))
                return;
        }
    }
    for (int block : bad_blocks)
        CHECK_THROWS_AS_MESSAGE(scan(nullptr, nullptr, 1, block, ScanKind::inclusive, scratch), std::invalid_argument,
                                task << ": " << call(name, 1, block) << " must reject the block size");
    CHECK_THROWS_AS_MESSAGE(scan(nullptr, nullptr, scratch.max_n() + 1, 256, ScanKind::inclusive, scratch),
                            std::invalid_argument, task << ": " << name << " must reject n > the scratch's max_n");
}

std::size_t blelloch_tile(int block) { return 2 * static_cast<std::size_t>(block); }
std::size_t register_tile(int block) { return static_cast<std::size_t>(block) * scan_items_per_thread; }

}  // namespace

// ---------------------------------------------------------------------------------------------------- 07.1
TEST_CASE("TODO(07.1) scan_hillis_steele: n <= block, every block, inclusive and exclusive, limits")
{
    REQUIRE_GPU();
    check_single_block("TODO(07.1)", "scan_hillis_steele", scan_hillis_steele, hillis_steele_max_n);
}

// ---------------------------------------------------------------------------------------------------- 07.2
TEST_CASE("TODO(07.2) scan_blelloch: n <= 2 * block, every block, inclusive and exclusive, limits")
{
    REQUIRE_GPU();
    check_single_block("TODO(07.2)", "scan_blelloch", scan_blelloch, blelloch_max_n);
}

// ---------------------------------------------------------------------------------------------------- 07.3
TEST_CASE("TODO(07.3) scan_multiblock: any n, every block, 1 to 4 recursion levels, inclusive and exclusive")
{
    REQUIRE_GPU();
    check_multi_tile("TODO(07.3)", "scan_multiblock", scan_multiblock, blelloch_tile, false);
}

// ---------------------------------------------------------------------------------------------------- 07.4
TEST_CASE("TODO(07.4) scan_warp_shuffle: any n, every block, misaligned pointers, inclusive and exclusive")
{
    REQUIRE_GPU();
    check_multi_tile("TODO(07.4)", "scan_warp_shuffle", scan_warp_shuffle, register_tile, true);
}

// ---------------------------------------------------------------------------------------------------- 07.5
namespace {

void int_single_pass(const int* in, int* out, std::size_t n, int block, ScanKind kind, ScanScratch& scratch)
{
    scan_single_pass(in, out, n, block, kind, scratch);
}

// Float results: got[i] must lie within float_scan_tolerance of the double reference (README: "Floats").
bool check_float_scan(const std::string& task, const std::string& what, const std::vector<float>& host,
                      course::DeviceBuffer<float>& d_in, course::DeviceBuffer<float>& d_out, std::size_t n, int block,
                      ScanKind kind, ScanScratch& scratch, bool exact)
{
    d_out.fill_bytes(poison_byte);
    scan_single_pass(d_in.data(), d_out.data(), n, block, kind, scratch);
    std::vector<float> got(n);
    d_out.copy_to_host(got.data(), n);
    std::vector<double> expected;
    reference(kind, host.data(), n, expected);
    double abs_prefix = 0;  // |in[0]| + ... over the inputs summed into element i
    std::size_t i = 0;      // the first element outside its tolerance
    double tolerance = 0;
    for (; i < n; ++i) {
        const bool inclusive = kind == ScanKind::inclusive;
        if (inclusive) abs_prefix += std::fabs(static_cast<double>(host[i]));
        tolerance = exact ? 0.0 : float_scan_tolerance(inclusive ? i + 1 : i, abs_prefix);
        const double error = std::fabs(static_cast<double>(got[i]) - expected[i]);
        if (!(error <= tolerance)) break;  // also catches NaN (the poison is a finite float, but wrong)
        if (!inclusive) abs_prefix += std::fabs(static_cast<double>(host[i]));
    }
    VERIFY(i == n, task << ": " << what << " " << to_string(kind) << ": element " << i << " of " << n << " is "
                        << got[i] << ", expected " << expected[i] << " +- " << tolerance);
    return i == n;
}

}  // namespace

TEST_CASE("TODO(07.5) scan_single_pass: any n, every block, misaligned pointers, inclusive and exclusive")
{
    REQUIRE_GPU();
    check_multi_tile("TODO(07.5)", "scan_single_pass", int_single_pass, register_tile, true);
}

TEST_CASE("TODO(07.5) scan_single_pass<float>: within the derived bound; integer-valued floats exactly")
{
    REQUIRE_GPU();
    const std::size_t largest = largest_size();
    // Random floats in [-1, 1): every order of additions rounds differently; the bound covers them all.
    const std::vector<float> values = course::random_floats(largest, course::testing::seed(5));
    // Whole numbers in [-100, 100] whose every partial sum stays below 2^23 in magnitude: each sum of a
    // contiguous range is then below 2^24, so every float addition a scan makes is exact, in any order.
    const std::vector<int> ints = course::random_ints(largest, course::testing::seed(6), -100, 100);
    const std::vector<float> whole(ints.begin(), ints.end());
    std::vector<double> whole_scan;
    reference(ScanKind::inclusive, whole.data(), largest, whole_scan);
    double largest_partial = 0;
    for (double v : whole_scan) largest_partial = std::max(largest_partial, std::fabs(v));
    REQUIRE_MESSAGE(largest_partial < 8388608.0, "the integer-valued input's partial sums reach 2^23; rerun");

    course::DeviceBuffer<float> d_values(largest), d_whole(largest), d_out(largest);
    d_values.copy_from_host(values);
    d_whole.copy_from_host(whole);
    ScanScratch scratch(largest);
    for (int block : course::testing::power_of_two_blocks())
        for (ScanKind kind : both_kinds)
            for (std::size_t n : multi_tile_sizes(block, register_tile(block))) {
                const std::string what = call("scan_single_pass<float>", n, block);
                if (!check_float_scan("TODO(07.5)", what, values, d_values, d_out, n, block, kind, scratch, false) ||
                    !check_float_scan("TODO(07.5)", what + " of whole numbers", whole, d_whole, d_out, n, block, kind,
                                      scratch, true))
                    return;
            }
    CHECK_THROWS_AS(scan_single_pass(d_values.data(), d_out.data(), 1, 100, ScanKind::inclusive, scratch),
                    std::invalid_argument);
}

// ---------------------------------------------------------------------------------------------------- large
// 64-bit indexing: a 2^31 + 7 element scan (8 GiB in, 8 GiB out). The input is the byte 0x01 everywhere, so
// element i of the inclusive scan is (i + 1) * 0x01010101 modulo 2^32 and no reference array is needed.
TEST_CASE("large: scan_single_pass of 2^31 + 7 ints")
{
    const std::size_t n = (std::size_t{1} << 31) + 7;
    REQUIRE_GPU_MEMORY(2 * n * sizeof(int) + (std::size_t{512} << 20));
    course::DeviceBuffer<int> d_in(n), d_out(n);
    d_in.fill_bytes(0x01);
    d_out.fill_bytes(poison_byte);
    ScanScratch scratch(n);
    scan_single_pass(d_in.data(), d_out.data(), n, 256, ScanKind::inclusive, scratch);

    std::vector<int> chunk(std::size_t{1} << 26);
    for (std::size_t start = 0; start < n; start += chunk.size()) {
        const std::size_t count = std::min(chunk.size(), n - start);
        CUDA_CHECK(cudaMemcpy(chunk.data(), d_out.data() + start, count * sizeof(int), cudaMemcpyDeviceToHost));
        const auto expected = [start](std::size_t k) {
            return static_cast<int>(static_cast<std::uint32_t>((start + k + 1) * 0x01010101ull));
        };
        std::size_t k = 0;
        while (k < count && chunk[k] == expected(k)) ++k;
        VERIFY(k == count, "scan_single_pass(n=" << n << ", block=256): element " << start + k << " is "
                                                 << chunk[k] << ", expected " << expected(k));
        if (k != count) return;
    }
}
