// Chapter 06 checks. Every test case name starts with its task, so `meson test` shows one line per task, and
// the first failure of a case stops it with a message such as
//   TODO(06.4): histogram_sub_histograms(n=33, block=64) on skewed bytes, start pointer +4: bins: first
//   mismatch at index 17 of 256: expected 3, got 2
// Every result's total is compared with n and its 256 bins exactly with course::histogram_reference, after the
// bins were poisoned (0xABABABAB on the device), so a launcher that does not zero them cannot pass.
#include "histogram.hpp"

#include "course/check.hpp"
#include "course/data.hpp"
#include "course/device_buffer.hpp"
#include "course/reference.hpp"
#include "course/testing.hpp"

#include <algorithm>
#include <map>
#include <numeric>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

using course::testing::call;

namespace {

using Launcher = void (*)(const std::uint8_t*, std::size_t, unsigned*, int);

constexpr std::size_t kMaxOffset = 15;  // inputs start at base + 0 .. base + 15 (base is 256-byte aligned)

// Not multiples of 4 or 16, on and around one 4 KiB page; checked besides the standard sizes.
const std::size_t odd_sizes[] = {3, 15, 16, 17, 4095, 4096, 4097};

std::vector<std::size_t> sizes_for(int block)
{
    auto sizes = course::testing::standard_sizes(block);
    sizes.insert(sizes.end(), std::begin(odd_sizes), std::end(odd_sizes));
    std::sort(sizes.begin(), sizes.end());
    sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
    return sizes;
}

// The start offset paired with size n: varies with n, and is the same for every block size (so the CPU
// reference of each (input, offset, n) is computed once).
std::size_t offset_for(std::size_t n) { return 1 + n % kMaxOffset; }

// Uniform bytes made into runs of `length` equal ones: some 16-byte loads hold one run, some straddle two,
// so within a warp some lanes see 16 equal bytes and others do not (15, 16, 17: just short of, exactly and
// just over one load).
std::vector<std::uint8_t> runs_of(std::size_t length, std::size_t n, std::uint64_t seed)
{
    auto bytes = course::random_bytes(n, seed, course::ByteDistribution::uniform);
    for (std::size_t i = 0; i < n; ++i) bytes[i] = bytes[i / length * length];
    return bytes;
}

// One 4-byte word repeated: every 16-byte load holds four equal words whose bytes differ, which a shortcut
// that compares the four words (and not the bytes within one) counts as 16 equal bytes. `pattern` 0x03020100
// is the byte sequence 0, 1, 2, 3, 0, 1, ... (i % 4).
std::vector<std::uint8_t> repeated_word(std::uint32_t pattern, std::size_t n)
{
    std::vector<std::uint8_t> bytes(n);
    for (std::size_t i = 0; i < n; ++i) bytes[i] = static_cast<std::uint8_t>(pattern >> (8 * (i % 4)));
    return bytes;
}

// One input of each kind, generated once per test case and copied to the device once.
struct Input {
    std::string name;
    std::vector<std::uint8_t> host;
    course::DeviceBuffer<std::uint8_t> device;
};

std::vector<Input> make_inputs(std::size_t max_n)
{
    const std::size_t size = max_n + kMaxOffset;
    std::vector<Input> inputs;
    auto add = [&](std::string name, std::vector<std::uint8_t> host) {
        course::DeviceBuffer<std::uint8_t> device(host.size());
        device.copy_from_host(host);
        inputs.push_back(Input{std::move(name), std::move(host), std::move(device)});
    };
    using course::ByteDistribution;
    std::uint64_t salt = 0x06;
    for (ByteDistribution d : {ByteDistribution::uniform, ByteDistribution::skewed, ByteDistribution::identical})
        add(std::string(course::to_string(d)) + " bytes", course::random_bytes(size, course::testing::seed(++salt), d));
    for (std::size_t length : {15, 16, 17, 20})
        add("runs of " + std::to_string(length) + " equal bytes", runs_of(length, size, course::testing::seed(++salt)));
    add("bytes i % 4", repeated_word(0x03020100u, size));
    const auto random = static_cast<std::uint32_t>(course::testing::seed(++salt));
    const std::uint32_t word = (random & 0xFFFF00FFu) | ((random & 0xFFu) ^ 0x5Au) << 8;  // bytes 0 and 1 differ
    add("a random 4-byte word repeated", repeated_word(word, size));
    return inputs;
}

// Fails the case at the first wrong result: one clear message instead of hundreds.
void require_histogram(const std::string& task, const std::string& what, const std::vector<unsigned>& got,
                       const course::Histogram256& expected, std::size_t n)
{
    const std::uint64_t total = std::accumulate(got.begin(), got.end(), std::uint64_t{0});
    REQUIRE_MESSAGE(total == n, task << ": " << what << " counted " << total << " bytes in all, expected n = " << n);
    const auto mismatch = course::first_mismatch(expected.data(), got.data(), histogram_bins);
    REQUIRE_MESSAGE(!mismatch, task << ": " << what << ": bins: " << course::describe(*mismatch, histogram_bins));
}

class KernelCheck {
public:
    KernelCheck(const std::string& task, const std::string& name, Launcher launch) : task_(task), name_(name), launch_(launch) {}

    void run(const Input& in, std::size_t offset, std::size_t n, int block)
    {
        bins_.fill_bytes(0xAB);
        launch_(in.device.data() + offset, n, bins_.data(), block);
        const std::string what =
            call(name_.c_str(), n, block) + " on " + in.name + ", start pointer +" + std::to_string(offset);
        require_histogram(task_, what, bins_.to_host(), expected(in, offset, n), n);
    }

    // n = 0 with a null input: nothing may be read, the bins must still come back zeroed.
    void run_empty(int block)
    {
        bins_.fill_bytes(0xAB);
        launch_(nullptr, 0, bins_.data(), block);
        require_histogram(task_, call(name_.c_str(), 0, block) + " with d_in = nullptr", bins_.to_host(),
                          course::Histogram256{}, 0);
    }

    void check_rejects_bad_arguments(const Input& in)
    {
        for (int bad : {0, 16, 31, 33, 48, 96, 2048, -32}) {
            INFO(task_ << ": " << call(name_.c_str(), 100, bad) << " must throw std::invalid_argument");
            CHECK_THROWS_AS(launch_(in.device.data(), 100, bins_.data(), bad), std::invalid_argument);
        }
        INFO(task_ << ": " << name_ << " must reject n > 2^32 - 1 (a 32-bit bin could wrap) and null pointers");
        CHECK_THROWS_AS(launch_(in.device.data(), histogram_max_n + 1, bins_.data(), 256), std::invalid_argument);
        CHECK_THROWS_AS(launch_(in.device.data(), 100, nullptr, 256), std::invalid_argument);
        CHECK_THROWS_AS(launch_(nullptr, 100, bins_.data(), 256), std::invalid_argument);
    }

private:
    const course::Histogram256& expected(const Input& in, std::size_t offset, std::size_t n)
    {
        const auto key = std::make_tuple(&in, offset, n);
        auto it = expected_.find(key);
        if (it == expected_.end())
            it = expected_.emplace(key, course::histogram_reference(in.host.data() + offset, n)).first;
        return it->second;
    }

    std::string task_;
    std::string name_;
    Launcher launch_;
    course::DeviceBuffer<unsigned> bins_{histogram_bins};
    std::map<std::tuple<const Input*, std::size_t, std::size_t>, course::Histogram256> expected_;
};

// Every input kind x every accepted block size x every size (each at an aligned and at an unaligned start),
// then every start offset 0..15 for sizes around 16 and 4096, then n = 0 with a null pointer and bad arguments.
void check_launcher(const std::string& task, const std::string& name, Launcher launch)
{
    const auto blocks = course::testing::power_of_two_blocks(32, 1024);
    std::size_t max_n = 0;
    for (int block : blocks) max_n = std::max(max_n, sizes_for(block).back());
    const auto inputs = make_inputs(max_n);
    KernelCheck check(task, name, launch);
    for (const Input& in : inputs)
        for (int block : blocks)
            for (std::size_t n : sizes_for(block)) {
                check.run(in, 0, n, block);
                check.run(in, offset_for(n), n, block);
            }
    for (const Input& in : inputs)
        for (std::size_t offset = 0; offset <= kMaxOffset; ++offset)
            for (std::size_t n : {std::size_t{1}, std::size_t{15}, std::size_t{16}, std::size_t{17}, std::size_t{4097}})
                check.run(in, offset, n, 256);
    for (int block : blocks) check.run_empty(block);
    check.check_rejects_bad_arguments(inputs.front());
}

}  // namespace

// ---------------------------------------------------------------------------------------------------- 06.1
TEST_CASE("TODO(06.1) histogram_cpu: every size and byte distribution, bins zeroed first")
{
    using course::ByteDistribution;
    const std::size_t cpu_sizes[] = {0, 1, 2, 3, 15, 16, 17, 31, 32, 33, 4097, 999983, (std::size_t{1} << 24) + 7};
    for (ByteDistribution d : {ByteDistribution::uniform, ByteDistribution::skewed, ByteDistribution::identical}) {
        const auto data = course::random_bytes(cpu_sizes[12], course::testing::seed(0x61), d);
        for (std::size_t n : cpu_sizes) {
            std::vector<unsigned> bins(histogram_bins, 0xDEADBEEFu);
            histogram_cpu(data.data(), n, bins.data());
            require_histogram("TODO(06.1)", call("histogram_cpu", n) + " on " + course::to_string(d) + " bytes", bins,
                              course::histogram_reference(data.data(), n), n);
        }
    }
    std::vector<unsigned> bins(histogram_bins);
    INFO("TODO(06.1): histogram_cpu must reject n > 2^32 - 1 (a 32-bit bin could wrap)");
    CHECK_THROWS_AS(histogram_cpu(nullptr, histogram_max_n + 1, bins.data()), std::invalid_argument);
}

// ---------------------------------------------------------------------------------------------------- 06.2
TEST_CASE("TODO(06.2) histogram_global_atomics: sizes, distributions, start offsets, block sizes")
{
    REQUIRE_GPU();
    check_launcher("TODO(06.2)", "histogram_global_atomics", histogram_global_atomics);
}

// ---------------------------------------------------------------------------------------------------- 06.3
TEST_CASE("TODO(06.3) histogram_shared_atomics: sizes, distributions, start offsets, block sizes")
{
    REQUIRE_GPU();
    check_launcher("TODO(06.3)", "histogram_shared_atomics", histogram_shared_atomics);
}

// ---------------------------------------------------------------------------------------------------- 06.4
TEST_CASE("TODO(06.4) histogram_sub_histograms: sizes, distributions, start offsets, block sizes")
{
    REQUIRE_GPU();
    check_launcher("TODO(06.4)", "histogram_sub_histograms", histogram_sub_histograms);
}

// ---------------------------------------------------------------------------------------------------- 06.5
TEST_CASE("TODO(06.5) histogram_vectorized: sizes, distributions, start offsets, block sizes")
{
    REQUIRE_GPU();
    check_launcher("TODO(06.5)", "histogram_vectorized", histogram_vectorized);
}

// Past 2^31 bytes (the `large` suite): a 32-bit index would stop or go negative there. Then all bytes equal, so
// one bin must hold more than 2^31 counts exactly - it is an unsigned 32-bit counter, its limit is 2^32 - 1.
TEST_CASE("TODO(06.5) large: histogram_vectorized past 2^31 bytes")
{
    const std::size_t n = (std::size_t{1} << 31) + (std::size_t{1} << 20) + 9;  // not a multiple of 16
    const std::size_t offset = 3;                                              // unaligned start
    REQUIRE_GPU_MEMORY(n + offset + (std::size_t{256} << 20));
    course::DeviceBuffer<std::uint8_t> d_in(n + offset);
    course::DeviceBuffer<unsigned> d_bins(histogram_bins);
    {
        const auto host = course::random_bytes(n + offset, course::testing::seed(0x62), course::ByteDistribution::uniform);
        d_in.copy_from_host(host);
        const auto expected = course::histogram_reference(host.data() + offset, n);
        for (int block : {32, 256, 1024}) {
            d_bins.fill_bytes(0xAB);
            histogram_vectorized(d_in.data() + offset, n, d_bins.data(), block);
            require_histogram("TODO(06.5)",
                              call("histogram_vectorized", n, block) + " on uniform bytes, start pointer +3",
                              d_bins.to_host(), expected, n);
        }
    }
    const unsigned char value = 0xA7;
    CUDA_CHECK(cudaMemset(d_in.data(), value, n + offset));
    course::Histogram256 expected{};
    expected[value] = n;
    d_bins.fill_bytes(0xAB);
    histogram_vectorized(d_in.data() + offset, n, d_bins.data(), 256);
    require_histogram("TODO(06.5)", call("histogram_vectorized", n, 256) + " on identical bytes, start pointer +3",
                      d_bins.to_host(), expected, n);
}
