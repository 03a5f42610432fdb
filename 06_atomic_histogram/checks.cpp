// Chapter 06 checks. Every graded test case name starts with its task, so `meson test` shows one line per task,
// and the first failure of a case stops it with a message such as
//   TODO(06.4): histogram_sub_histograms(n=33, block=64) on skewed bytes, start pointer +4: bins: first
//   mismatch at index 17 of 256: expected 3, got 2
// Every result's total is compared with n and its 256 bins exactly with course::histogram_reference (or, past
// 2^31 bytes, with bins computed from the input's pattern), after the bins were poisoned (0xABABABAB on the
// device), so a launcher that does not zero them cannot pass.
#include "histogram.hpp"
#include "histogram_progression.hpp"

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

const HistogramStep& step_of(const std::string& task)
{
    for (const HistogramStep& step : histogram_progression)
        if (task == step.task) return step;
    throw std::logic_error("no task " + task + " in histogram_progression");
}

std::string todo(const HistogramStep& step) { return std::string("TODO(") + step.task + ")"; }

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

void add_input(std::vector<Input>& inputs, std::string name, std::vector<std::uint8_t> host)
{
    course::DeviceBuffer<std::uint8_t> device(host.size());
    device.copy_from_host(host);
    inputs.push_back(Input{std::move(name), std::move(host), std::move(device)});
}

std::vector<Input> make_inputs(std::size_t max_n)
{
    const std::size_t size = max_n + kMaxOffset;
    std::vector<Input> inputs;
    using course::ByteDistribution;
    std::uint64_t salt = 0x06;
    for (ByteDistribution d : {ByteDistribution::uniform, ByteDistribution::skewed, ByteDistribution::identical})
        add_input(inputs, std::string(course::to_string(d)) + " bytes",
                  course::random_bytes(size, course::testing::seed(++salt), d));
    for (std::size_t length : {15, 16, 17, 20})
        add_input(inputs, "runs of " + std::to_string(length) + " equal bytes",
                  runs_of(length, size, course::testing::seed(++salt)));
    add_input(inputs, "bytes i % 4", repeated_word(0x03020100u, size));
    const auto random = static_cast<std::uint32_t>(course::testing::seed(++salt));
    const std::uint32_t word = (random & 0xFFFF00FFu) | ((random & 0xFFu) ^ 0x5Au) << 8;  // bytes 0 and 1 differ
    add_input(inputs, "a random 4-byte word repeated", repeated_word(word, size));
    return inputs;
}

// Notes the call about to run, so that a crash inside it prints the task, the call and n with the seed.
void note(const std::string& task, const std::string& what) { course::testing::detail::note_call(task, what); }

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
    explicit KernelCheck(const HistogramStep& step) : task_(todo(step)), name_(step.name), launch_(step.launch) {}

    void run(const Input& in, std::size_t offset, std::size_t n, int block)
    {
        const std::string what = describe(in, offset, n, block);
        note(task_, what);
        bins_.fill_bytes(0xAB);
        launch_(in.device.data() + offset, bins_.data(), n, block, 0);
        require_histogram(task_, what, bins_.to_host(), expected(in, offset, n), n);
    }

    // The same on a stream of its own that does not wait for stream 0: the launcher's memset and kernel must
    // both go on it (the poison before and the copy after do), else the copy can overtake them.
    void run_on_stream(const Input& in, std::size_t offset, std::size_t n, int block)
    {
        const course::Stream stream;
        std::vector<unsigned> got(histogram_bins);
        CUDA_CHECK(cudaMemsetAsync(bins_.data(), 0xAB, bins_.bytes(), stream.get()));
        launch_(in.device.data() + offset, bins_.data(), n, block, stream.get());
        CUDA_CHECK(cudaMemcpyAsync(got.data(), bins_.data(), bins_.bytes(), cudaMemcpyDeviceToHost, stream.get()));
        stream.synchronize();
        require_histogram(task_, describe(in, offset, n, block) + " on a non-blocking stream", got,
                          expected(in, offset, n), n);
    }

    // n = 0 with a null input: nothing may be read, the bins must still come back zeroed.
    void run_empty(int block)
    {
        bins_.fill_bytes(0xAB);
        launch_(nullptr, bins_.data(), 0, block, 0);
        require_histogram(task_, call(name_, 0, block) + " with d_in = nullptr", bins_.to_host(),
                          course::Histogram256{}, 0);
    }

    void check_rejects_bad_arguments(const Input& in)
    {
        for (int bad : {0, 16, 31, 33, 48, 96, 2048, -32}) {
            INFO(task_ << ": " << call(name_, 100, bad) << " must throw std::invalid_argument");
            CHECK_THROWS_AS(launch_(in.device.data(), bins_.data(), 100, bad, 0), std::invalid_argument);
        }
        INFO(task_ << ": " << name_ << " must reject n > 2^32 - 1 (a 32-bit bin could wrap) and null pointers");
        CHECK_THROWS_AS(launch_(in.device.data(), bins_.data(), histogram_max_n + 1, 256, 0), std::invalid_argument);
        CHECK_THROWS_AS(launch_(in.device.data(), nullptr, 100, 256, 0), std::invalid_argument);
        CHECK_THROWS_AS(launch_(nullptr, bins_.data(), 100, 256, 0), std::invalid_argument);
    }

private:
    std::string describe(const Input& in, std::size_t offset, std::size_t n, int block) const
    {
        return call(name_, n, block) + " on " + in.name + ", start pointer +" + std::to_string(offset);
    }

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
    HistogramLauncher* launch_;
    course::DeviceBuffer<unsigned> bins_{histogram_bins};
    std::map<std::tuple<const Input*, std::size_t, std::size_t>, course::Histogram256> expected_;
};

// Every input kind x every accepted block size x every size (each at an aligned and at an unaligned start),
// then every start offset 0..15 for sizes around 16 and 4096, one launch on a stream of its own, then n = 0 with
// a null pointer and bad arguments.
void check_launcher(const HistogramStep& step)
{
    REQUIRE_GPU();
    const auto blocks = course::testing::power_of_two_blocks(32, 1024);
    std::size_t max_n = 0;
    for (int block : blocks) max_n = std::max(max_n, sizes_for(block).back());
    const auto inputs = make_inputs(max_n);
    KernelCheck check(step);
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
    check.run_on_stream(inputs.front(), offset_for(999983), 999983, 256);
    for (int block : blocks) check.run_empty(block);
    check.check_rejects_bad_arguments(inputs.front());
}

// The cases that the graded racecheck and synccheck runs repeat under compute-sanitizer, which slows kernels
// down 10-100x: small sizes, the smallest, a middle and the largest block size, bytes that put many lanes on one
// counter and runs of 17, each from an aligned and an unaligned start.
void check_small_sizes(const HistogramStep& step)
{
    REQUIRE_GPU();
    const std::size_t sizes[] = {1, 33, 1000, 5000};
    const std::size_t size = 5000 + kMaxOffset;
    using course::ByteDistribution;
    std::vector<Input> inputs;
    add_input(inputs, "uniform bytes", course::random_bytes(size, course::testing::seed(0x63), ByteDistribution::uniform));
    add_input(inputs, "identical bytes",
              course::random_bytes(size, course::testing::seed(0x64), ByteDistribution::identical));
    add_input(inputs, "runs of 17 equal bytes", runs_of(17, size, course::testing::seed(0x65)));
    KernelCheck check(step);
    for (const Input& in : inputs)
        for (int block : {32, 256, 1024})
            for (std::size_t n : sizes) {
                check.run(in, 0, n, block);
                check.run(in, 3, n, block);
            }
}

// The graded race check of a task: its "sanitized TODO(06.k)" cases run again under racecheck and synccheck,
// and any hazard either tool reports fails the task.
void check_races(const HistogramStep& step)
{
    REQUIRE_GPU();
    const std::string task = todo(step);
    const std::string filter = "sanitized " + task + "*";
    course::testing::check_sanitizer_clean(task.c_str(), "racecheck", filter);
    course::testing::check_sanitizer_clean(task.c_str(), "synccheck", filter);
}

// Past 2^31 bytes (the `large` suite), where a 32-bit index stops or goes negative: n = 2^31 + 2^20 + 5 bytes
// from a start pointer +3 (in 06.5 a head of 13 bytes, then whole vectors, then a tail of 8). The input is made
// on the device: one period of kPeriod bytes (random, its second half in runs of 20 equal bytes) is copied
// there and doubled with device-to-device copies, so the expected bins follow from the period alone.
constexpr std::size_t kLargeN = (std::size_t{1} << 31) + (std::size_t{1} << 20) + 5;
constexpr std::size_t kLargeOffset = 3;
constexpr std::size_t kPeriod = 4099;  // a prime: the pattern does not repeat in step with 16-byte vectors

class LargeInput {
public:
    explicit LargeInput(std::uint64_t seed)
        : period_(course::random_bytes(kPeriod, seed, course::ByteDistribution::uniform)),
          device_(kLargeOffset + kLargeN)
    {
        for (std::size_t i = kPeriod / 2; i < kPeriod; ++i) period_[i] = period_[i / 20 * 20];
        course::fill_periodic(device_.data(), device_.size(), period_);
    }

    const std::uint8_t* data() const { return device_.data() + kLargeOffset; }  // kLargeN bytes

    // Byte j of data() is period_[(kLargeOffset + j) % kPeriod]: whole periods, then the first r bytes of one.
    course::Histogram256 expected() const
    {
        course::Histogram256 once{}, bins{};
        for (std::uint8_t b : period_) ++once[b];
        for (std::size_t v = 0; v < histogram_bins; ++v) bins[v] = kLargeN / kPeriod * once[v];
        for (std::size_t j = 0; j < kLargeN % kPeriod; ++j) ++bins[period_[(kLargeOffset + j) % kPeriod]];
        return bins;
    }

    // Every byte `value`: one bin must count all n > 2^31 bytes exactly (its limit is 2^32 - 1).
    course::Histogram256 fill(std::uint8_t value)
    {
        CUDA_CHECK(cudaMemset(device_.data(), value, device_.bytes()));
        course::Histogram256 bins{};
        bins[value] = kLargeN;
        return bins;
    }

private:
    std::vector<std::uint8_t> period_;
    course::DeviceBuffer<std::uint8_t> device_;
};

void check_large(const HistogramStep& step)
{
    REQUIRE_GPU_MEMORY(kLargeOffset + kLargeN + (std::size_t{256} << 20));
    LargeInput input(course::testing::seed(0x62));
    course::DeviceBuffer<unsigned> d_bins(histogram_bins);
    const auto run = [&](int block, const std::string& bytes, const course::Histogram256& expected) {
        const std::string what = call(step.name, kLargeN, block) + " on " + bytes + ", start pointer +3";
        note(todo(step), what);
        d_bins.fill_bytes(0xAB);
        step.launch(input.data(), d_bins.data(), kLargeN, block, 0);
        require_histogram(todo(step), what, d_bins.to_host(), expected, kLargeN);
    };
    const course::Histogram256 expected = input.expected();
    for (int block : {32, 256, 1024}) run(block, "a repeated pattern of random bytes and runs", expected);
    run(256, "identical bytes", input.fill(0xA7));
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
            const std::string what = call("histogram_cpu", n) + " on " + course::to_string(d) + " bytes";
            note("TODO(06.1)", what);
            std::vector<unsigned> bins(histogram_bins, 0xDEADBEEFu);
            histogram_cpu(data.data(), bins.data(), n);
            require_histogram("TODO(06.1)", what, bins, course::histogram_reference(data.data(), n), n);
        }
    }
    std::vector<unsigned> bins(histogram_bins);
    INFO("TODO(06.1): histogram_cpu must reject n > 2^32 - 1 (a 32-bit bin could wrap)");
    CHECK_THROWS_AS(histogram_cpu(nullptr, bins.data(), histogram_max_n + 1), std::invalid_argument);
}

// ---------------------------------------------------------------------------------------------------- 06.2
TEST_CASE("TODO(06.2) histogram_global_atomics: sizes, distributions, start offsets, block sizes")
{
    check_launcher(step_of("06.2"));
}

TEST_CASE("TODO(06.2) large: histogram_global_atomics past 2^31 bytes") { check_large(step_of("06.2")); }

// ---------------------------------------------------------------------------------------------------- 06.3
TEST_CASE("TODO(06.3) histogram_shared_atomics: sizes, distributions, start offsets, block sizes")
{
    check_launcher(step_of("06.3"));
}

TEST_CASE("sanitized TODO(06.3) histogram_shared_atomics: small sizes") { check_small_sizes(step_of("06.3")); }

TEST_CASE("TODO(06.3) racecheck and synccheck") { check_races(step_of("06.3")); }

TEST_CASE("TODO(06.3) large: histogram_shared_atomics past 2^31 bytes") { check_large(step_of("06.3")); }

// ---------------------------------------------------------------------------------------------------- 06.4
TEST_CASE("TODO(06.4) histogram_sub_histograms: sizes, distributions, start offsets, block sizes")
{
    check_launcher(step_of("06.4"));
}

TEST_CASE("sanitized TODO(06.4) histogram_sub_histograms: small sizes") { check_small_sizes(step_of("06.4")); }

TEST_CASE("TODO(06.4) racecheck and synccheck") { check_races(step_of("06.4")); }

TEST_CASE("TODO(06.4) large: histogram_sub_histograms past 2^31 bytes") { check_large(step_of("06.4")); }

// ---------------------------------------------------------------------------------------------------- 06.5
TEST_CASE("TODO(06.5) histogram_vectorized: sizes, distributions, start offsets, block sizes")
{
    check_launcher(step_of("06.5"));
}

TEST_CASE("sanitized TODO(06.5) histogram_vectorized: small sizes") { check_small_sizes(step_of("06.5")); }

TEST_CASE("TODO(06.5) racecheck and synccheck") { check_races(step_of("06.5")); }

TEST_CASE("TODO(06.5) large: histogram_vectorized past 2^31 bytes") { check_large(step_of("06.5")); }
