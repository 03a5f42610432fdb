// Chapter 07 checks. Every test case name starts with its task, so `meson test` shows one line per task and a
// failure reads e.g. "TODO(07.3): scan_multiblock(n=33, block=32) inclusive: first mismatch at index 0 ...".
// Inputs include negative values; outputs are poisoned first and the elements after the output must stay
// poisoned; every accepted block size is checked; sizes past a kernel's limit must throw. Each task also has a
// graded racecheck + synccheck run of its "sanitized" cases (small sizes), and 07.3 to 07.5 a `large` case
// past 2^31 elements (07.1 and 07.2 are single-block scans: n <= 2 * block).
#include "scan.hpp"
#include "scan_progression.hpp"

#include "course/check.hpp"
#include "course/data.hpp"
#include "course/reference.hpp"
#include "course/testing.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

using course::testing::call;

namespace {

constexpr unsigned char poison_byte = 0xAB;  // every output int starts as 0xABABABAB
constexpr std::size_t guard = 64;            // elements after the output that a kernel must not touch
const std::vector<int> bad_blocks{0, 16, 31, 33, 48, 96, 2048, -32};
const ScanKind both_kinds[] = {ScanKind::inclusive, ScanKind::exclusive};
const std::vector<int> sanitized_blocks{32, 256, 1024};

// ------------------------------------------------------------------------ tasks that already failed this run
// A task's graded race check runs after its other cases (doctest runs a file's cases in order); when one of
// those failed, the task fails anyway and the slow compute-sanitizer runs are left out.
std::set<std::string> failed_tasks;

std::string task_of(const std::string& case_name)  // "TODO(07.5) ..." -> "TODO(07.5)"
{
    return case_name.rfind("TODO(", 0) == 0 ? case_name.substr(0, case_name.find(')') + 1) : std::string();
}

struct FailedTasks : doctest::IReporter {
    std::string current;
    explicit FailedTasks(const doctest::ContextOptions&) {}
    void report_query(const doctest::QueryData&) override {}
    void test_run_start() override {}
    void test_run_end(const doctest::TestRunStats&) override {}
    void test_case_start(const doctest::TestCaseData& data) override { current = data.m_name; }
    void test_case_reenter(const doctest::TestCaseData&) override {}
    void test_case_end(const doctest::CurrentTestCaseStats& stats) override
    {
        if (!stats.testCaseSuccess && !task_of(current).empty()) failed_tasks.insert(task_of(current));
    }
    void test_case_exception(const doctest::TestCaseException&) override {}
    void subcase_start(const doctest::SubcaseSignature&) override {}
    void subcase_end() override {}
    void log_assert(const doctest::AssertData&) override {}
    void log_message(const doctest::MessageData&) override {}
    void test_case_skipped(const doctest::TestCaseData&) override {}
};
REGISTER_LISTENER("scan_failed_tasks", 2, FailedTasks);

// The graded race check of a task: its "sanitized <task>" cases under racecheck and under synccheck.
void race_checks(const std::string& task)
{
    if (failed_tasks.count(task) > 0) {
        VERIFY(false, task << ": racecheck and synccheck were not run: the checks above fail already");
        return;
    }
    const std::string filter = "sanitized " + task + "*";
    course::testing::check_sanitizer_clean(task.c_str(), "racecheck", filter);
    course::testing::check_sanitizer_clean(task.c_str(), "synccheck", filter);
}

// --------------------------------------------------------------------------------------------- the tables
const course::Step<SingleBlockScan>& single_block_step(const std::string& task)
{
    for (const auto& step : single_block_scans)
        if (task == step.task) return step;
    throw std::logic_error("no single-block scan for task " + task);
}

const course::Step<MultiTileScan>& multi_tile_step(const std::string& task)
{
    for (const auto& step : multi_tile_scans)
        if (task == step.task) return step;
    throw std::logic_error("no multi-tile scan for task " + task);
}

std::string todo(const char* task) { return std::string("TODO(") + task + ")"; }

// ------------------------------------------------------------------------------------------------ helpers
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

std::size_t blelloch_tile(int block) { return 2 * static_cast<std::size_t>(block); }
std::size_t register_tile(int block) { return static_cast<std::size_t>(block) * scan_items_per_thread; }

// The items one block of a multi-tile scan handles, to aim sizes at tile edges and recursion depths.
std::size_t tile_items(const course::Step<MultiTileScan>& step, int block)
{
    return step.launch == scan_multiblock ? blelloch_tile(block) : register_tile(block);
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

// What scanning n inputs from element `shift` (shift > 0: pointers that are not 16-byte aligned) into the
// poisoned output at the same shift gave: "" when the result matches and nothing around it was written, else
// what is wrong. With a scratch, a look-back that gave up waiting throws (ScanScratch::check).
std::string scan_problem(const std::string& label, IntInput& data, ScanKind kind, std::size_t n, const IntScan& scan,
                         std::size_t shift, ScanScratch* scratch)
{
    data.out.fill_bytes(poison_byte);
    scan(data.device.data() + shift, data.out.data() + shift, n);
    std::vector<int> got(shift + n + guard);
    data.out.copy_to_host(got.data(), got.size());  // waits for the kernels; a fault surfaces here
    if (scratch != nullptr) scratch->check(label);

    std::vector<int> expected_shifted;
    const int* expected = (kind == ScanKind::inclusive ? data.inclusive : data.exclusive).data();
    if (shift > 0) {
        reference(kind, data.host.data() + shift, n, expected_shifted);
        expected = expected_shifted.data();
    }
    if (const auto mm = course::first_mismatch(expected, got.data() + shift, n)) return course::describe(*mm, n);
    std::size_t outside = 0;  // the first element written outside [shift, shift + n)
    while (outside < got.size() && ((outside >= shift && outside < shift + n) || got[outside] == poison_int()))
        ++outside;
    if (outside < got.size())
        return "wrote outside its output (element " +
               std::to_string(static_cast<long long>(outside) - static_cast<long long>(shift)) + ")";
    return "";
}

// The same as a graded check: true when right, else a failure that names the task and the call (also for an
// exception: a CUDA error, or a look-back that gave up waiting).
bool check_int_scan(const std::string& task, const std::string& what, IntInput& data, ScanKind kind, std::size_t n,
                    const IntScan& scan, std::size_t shift = 0, ScanScratch* scratch = nullptr)
{
    const std::string label = course::testing::detail::note_call(task, what + " " + to_string(kind));
    std::string problem;
    try {
        problem = scan_problem(label, data, kind, n, scan, shift, scratch);
        if (!problem.empty()) problem = label + ": " + problem;
    } catch (const std::exception& e) {
        problem = e.what();
        if (problem.rfind(label, 0) != 0) problem = label + ": " + problem;
    }
    VERIFY(problem.empty(), problem);
    return problem.empty();
}

std::vector<int> wrapping_values(std::size_t n, std::uint64_t salt)
{
    // Values in [2^30, INT_MAX]: the running total passes INT_MAX within a few elements, many times over.
    return course::random_ints(n, course::testing::seed(salt), 1 << 30, INT_MAX);
}

// ---------------------------------------------------------------------------------------- single block
// Every accepted block, every size up to the kernel's limit, both kinds; sizes past it must throw.
void check_single_block(const char* task_id)
{
    const std::string task = todo(task_id);
    const auto& step = single_block_step(task_id);
    IntInput data(course::random_ints(2048 + 1, course::testing::seed(1)));
    IntInput wrapping(wrapping_values(2048, 2));
    for (int block : course::testing::power_of_two_blocks()) {
        const std::size_t limit = single_block_max_n(step, block);
        auto sizes = course::testing::standard_sizes(block);
        sizes.insert(sizes.end(), {limit - 1, limit, limit + 1});
        for (ScanKind kind : both_kinds) {
            const IntScan run = [&](const int* in, int* out, std::size_t n) {
                step.launch(in, out, kind, n, block, nullptr);
            };
            for (std::size_t n : up_to(sizes, limit))
                if (!check_int_scan(task, call(step.name, n, block), data, kind, n, run)) return;
            const std::string wraps = call(step.name, limit, block) + " with wrapping int32 sums";
            if (!check_int_scan(task, wraps, wrapping, kind, limit, run)) return;
            for (std::size_t n : sizes)
                if (n > limit)
                    CHECK_THROWS_AS_MESSAGE(step.launch(nullptr, nullptr, kind, n, block, nullptr),
                                            std::invalid_argument,
                                            task << ": " << call(step.name, n, block) << " must throw (limit "
                                                 << limit << ")");
        }
    }
    for (int block : bad_blocks)
        CHECK_THROWS_AS_MESSAGE(step.launch(nullptr, nullptr, ScanKind::inclusive, 1, block, nullptr),
                                std::invalid_argument,
                                task << ": " << call(step.name, 1, block) << " must reject the block size");
}

// Small sizes for racecheck and synccheck: blocks 32, 256, 1024; n = 1, 33 and the limit.
void sanitized_single_block(const char* task_id)
{
    const std::string task = todo(task_id);
    const auto& step = single_block_step(task_id);
    IntInput data(course::random_ints(2048, course::testing::seed(7)));
    for (int block : sanitized_blocks)
        for (ScanKind kind : both_kinds) {
            const IntScan run = [&](const int* in, int* out, std::size_t n) {
                step.launch(in, out, kind, n, block, nullptr);
            };
            for (std::size_t n : up_to({1, 33, single_block_max_n(step, block)}, single_block_max_n(step, block)))
                if (!check_int_scan(task, call(step.name, n, block), data, kind, n, run)) return;
        }
}

// ------------------------------------------------------------------------------------------ multi-tile
// The earlier task a multi-tile task builds on must work first (one block's worth, block 256): otherwise the
// failure names that task instead of this one.
bool earlier_task_works(const std::string& task, const std::string& earlier, const std::string& what,
                        const IntScan& scan, std::size_t n)
{
    IntInput data(course::random_ints(n, course::testing::seed(9)));
    std::string problem;
    try {
        problem = scan_problem(what, data, ScanKind::inclusive, n, scan, 0, nullptr);
    } catch (const std::exception& e) {
        problem = e.what();
    }
    VERIFY(problem.empty(), task << ": depends on " << earlier << " (" << what << "), which fails: " << problem
                                 << "; fix " << earlier << " first");
    return problem.empty();
}

bool depends_on_earlier_task(const char* task_id)
{
    const std::string task = todo(task_id);
    if (task == "TODO(07.3)")
        return earlier_task_works(task, "TODO(07.2)", call("scan_blelloch", 512, 256),
                                  [](const int* in, int* out, std::size_t n) {
                                      scan_blelloch(in, out, ScanKind::inclusive, n, 256);
                                  },
                                  512);
    if (task == "TODO(07.5)") {
        ScanScratch scratch(register_tile(256));
        return earlier_task_works(task, "TODO(07.4)", call("scan_warp_shuffle", register_tile(256), 256),
                                  [&](const int* in, int* out, std::size_t n) {
                                      scan_warp_shuffle(in, out, ScanKind::inclusive, n, 256, scratch);
                                  },
                                  register_tile(256));
    }
    return true;
}

void check_multi_tile(const char* task_id, bool check_misaligned)
{
    const std::string task = todo(task_id);
    const auto& step = multi_tile_step(task_id);
    if (!depends_on_earlier_task(task_id)) return;
    const std::size_t largest = largest_size();
    IntInput data(course::random_ints(largest + 1, course::testing::seed(3)));
    IntInput wrapping(wrapping_values(99991, 4));
    ScanScratch scratch(largest + 1);
    for (int block : course::testing::power_of_two_blocks()) {
        for (ScanKind kind : both_kinds) {
            const IntScan run = [&](const int* in, int* out, std::size_t n) {
                step.launch(in, out, kind, n, block, scratch, nullptr);
            };
            for (std::size_t n : multi_tile_sizes(block, tile_items(step, block)))
                if (!check_int_scan(task, call(step.name, n, block), data, kind, n, run, 0, &scratch)) return;
            const std::string wraps = call(step.name, 99991, block) + " with wrapping int32 sums";
            if (!check_int_scan(task, wraps, wrapping, kind, 99991, run, 0, &scratch)) return;
            if (check_misaligned && block == 256 &&
                !check_int_scan(task, call(step.name, 999983, block) + " on pointers 4 bytes past 16-byte alignment",
                                data, kind, 999983, run, 1, &scratch))
                return;
        }
    }
    for (int block : bad_blocks)
        CHECK_THROWS_AS_MESSAGE(step.launch(nullptr, nullptr, ScanKind::inclusive, 1, block, scratch, nullptr),
                                std::invalid_argument,
                                task << ": " << call(step.name, 1, block) << " must reject the block size");
    CHECK_THROWS_AS_MESSAGE(step.launch(nullptr, nullptr, ScanKind::inclusive, scratch.max_n() + 1, 256, scratch,
                                        nullptr),
                            std::invalid_argument, task << ": " << std::string(step.name) << " must reject n > the scratch's max_n");
}

// Small sizes for racecheck and synccheck: blocks 32, 256, 1024; one tile, several tiles, two levels.
void sanitized_multi_tile(const char* task_id)
{
    const std::string task = todo(task_id);
    const auto& step = multi_tile_step(task_id);
    std::size_t largest = 5000;  // the largest n below: two tiles + 3 at the largest block
    for (int block : sanitized_blocks) largest = std::max(largest, 2 * tile_items(step, block) + 3);
    IntInput data(course::random_ints(largest, course::testing::seed(8)));
    ScanScratch scratch(largest);
    for (int block : sanitized_blocks)
        for (ScanKind kind : both_kinds) {
            const IntScan run = [&](const int* in, int* out, std::size_t n) {
                step.launch(in, out, kind, n, block, scratch, nullptr);
            };
            const std::size_t two_tiles = 2 * tile_items(step, block) + 3;
            for (std::size_t n : {std::size_t{1}, std::size_t{1000}, std::size_t{5000}, two_tiles})
                if (!check_int_scan(task, call(step.name, n, block), data, kind, n, run, 0, &scratch)) return;
        }
}

// 64-bit indexing: a scan of 2^31 + 2^16 + 7 ints (8 GiB in, 8 GiB out): past 2^31 by more than the largest
// tile (32768 items), so that whole tiles start past 2^31, where a 32-bit tile start goes negative. The input is
// the byte 0x01 everywhere, so element i of the inclusive scan is (i + 1) * 0x01010101 modulo 2^32 and no
// reference array is needed.
void check_large(const char* task_id)
{
    const std::string task = todo(task_id);
    const auto& step = multi_tile_step(task_id);
    const std::size_t n = (std::size_t{1} << 31) + (std::size_t{1} << 16) + 7;
    const int block = 256;
    REQUIRE_GPU_MEMORY(2 * n * sizeof(int) + (std::size_t{512} << 20));
    if (!depends_on_earlier_task(task_id)) return;
    course::DeviceBuffer<int> d_in(n), d_out(n);
    d_in.fill_bytes(0x01);
    d_out.fill_bytes(poison_byte);
    ScanScratch scratch(n);
    const std::string what = task + ": " + call(step.name, n, block) + " inclusive";
    step.launch(d_in.data(), d_out.data(), ScanKind::inclusive, n, block, scratch, nullptr);
    CUDA_CHECK(cudaDeviceSynchronize());
    scratch.check(what);

    std::vector<int> chunk(std::size_t{1} << 26);
    for (std::size_t start = 0; start < n; start += chunk.size()) {
        const std::size_t count = std::min(chunk.size(), n - start);
        CUDA_CHECK(cudaMemcpy(chunk.data(), d_out.data() + start, count * sizeof(int), cudaMemcpyDeviceToHost));
        const auto expected = [start](std::size_t k) {
            return static_cast<int>(static_cast<std::uint32_t>((start + k + 1) * 0x01010101ull));
        };
        std::size_t k = 0;
        while (k < count && chunk[k] == expected(k)) ++k;
        VERIFY(k == count, what << ": element " << start + k << " is " << chunk[k] << ", expected " << expected(k)
                                << std::string(chunk[k] == poison_int() ? " (never written: a 32-bit index?)" : ""));
        if (k != count) return;
    }
}

}  // namespace

// ---------------------------------------------------------------------------------------------------- 07.1
TEST_CASE("TODO(07.1) scan_hillis_steele: n <= block, every block, inclusive and exclusive, limits")
{
    REQUIRE_GPU();
    check_single_block("07.1");
}

TEST_CASE("sanitized TODO(07.1) scan_hillis_steele: small n, blocks 32, 256, 1024")
{
    REQUIRE_GPU();
    sanitized_single_block("07.1");
}

TEST_CASE("TODO(07.1) racecheck and synccheck")
{
    REQUIRE_GPU();
    race_checks("TODO(07.1)");
}

// ---------------------------------------------------------------------------------------------------- 07.2
TEST_CASE("TODO(07.2) scan_blelloch: n <= 2 * block, every block, inclusive and exclusive, limits")
{
    REQUIRE_GPU();
    check_single_block("07.2");
}

TEST_CASE("sanitized TODO(07.2) scan_blelloch: small n, blocks 32, 256, 1024")
{
    REQUIRE_GPU();
    sanitized_single_block("07.2");
}

TEST_CASE("TODO(07.2) racecheck and synccheck")
{
    REQUIRE_GPU();
    race_checks("TODO(07.2)");
}

// ---------------------------------------------------------------------------------------------------- 07.3
TEST_CASE("TODO(07.3) scan_multiblock: any n, every block, 1 to 4 recursion levels, inclusive and exclusive")
{
    REQUIRE_GPU();
    check_multi_tile("07.3", false);
}

TEST_CASE("TODO(07.3) large: scan_multiblock of 2^31 + 65543 ints")
{
    check_large("07.3");
}

TEST_CASE("sanitized TODO(07.3) scan_multiblock: n up to 2 tiles + 3, blocks 32, 256, 1024")
{
    REQUIRE_GPU();
    sanitized_multi_tile("07.3");
}

TEST_CASE("TODO(07.3) racecheck and synccheck")
{
    REQUIRE_GPU();
    race_checks("TODO(07.3)");
}

// ---------------------------------------------------------------------------------------------------- 07.4
TEST_CASE("TODO(07.4) scan_warp_shuffle: any n, every block, misaligned pointers, inclusive and exclusive")
{
    REQUIRE_GPU();
    check_multi_tile("07.4", true);
}

TEST_CASE("TODO(07.4) large: scan_warp_shuffle of 2^31 + 65543 ints")
{
    check_large("07.4");
}

TEST_CASE("sanitized TODO(07.4) scan_warp_shuffle: n up to 2 tiles + 3, blocks 32, 256, 1024")
{
    REQUIRE_GPU();
    sanitized_multi_tile("07.4");
}

TEST_CASE("TODO(07.4) racecheck and synccheck")
{
    REQUIRE_GPU();
    race_checks("TODO(07.4)");
}

// ---------------------------------------------------------------------------------------------------- 07.5
namespace {

// Float results: got[i] must lie within float_scan_tolerance of the double reference (README: "Floats").
bool check_float_scan(const std::string& task, const std::string& what, const std::vector<float>& host,
                      course::DeviceBuffer<float>& d_in, course::DeviceBuffer<float>& d_out, std::size_t n, int block,
                      ScanKind kind, ScanScratch& scratch, bool exact)
{
    d_out.fill_bytes(poison_byte);
    scan_single_pass(d_in.data(), d_out.data(), kind, n, block, scratch);
    std::vector<float> got(n);
    d_out.copy_to_host(got.data(), n);
    scratch.check(task + ": " + what + " " + to_string(kind));
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

// One call of decoupled_look_back as tile `tile` on the prepared statuses, checked: every lane returns
// `expected`, the tile's word ends as P of expected + aggregate, no wait gave up, and (with a late tile) the
// tile had published its A before it waited.
void check_look_back(const std::string& what, const std::vector<unsigned long long>& statuses, std::size_t tile,
                     unsigned aggregate, unsigned expected, std::size_t late_tile = static_cast<std::size_t>(-1),
                     unsigned long long late_word = 0)
{
    const std::string label = "TODO(07.5): decoupled_look_back as tile " + std::to_string(tile) + " " + what;
    const LookBackProbe probe = probe_decoupled_look_back(statuses, tile, aggregate, late_tile, late_word);
    VERIFY(probe.timeout_record == 0, label << ": tile " << (probe.timeout_record >> 32) << " waited on tile "
                                            << (probe.timeout_record & 0xffffffffull)
                                            << " for more than 1 s (it reads a tile that never publishes)");
    int lane = 0;
    while (lane < 32 && probe.prefix[lane] == expected) ++lane;
    VERIFY(lane == 32, label << ": lane " << lane << " returned " << probe.prefix[lane % 32] << ", expected "
                             << expected << " (the sum of the earlier tiles, in every lane)");
    const unsigned long long published = TileStatus::prefix | static_cast<unsigned>(expected + aggregate);
    VERIFY(probe.published == published,
           label << ": its status word ends as flag " << (probe.published >> 32) << " with value "
                 << static_cast<unsigned>(probe.published) << ", expected P (flag 2) with value "
                 << static_cast<unsigned>(expected + aggregate) << " (the prefix plus its own aggregate)");
    if (late_tile < tile)
        VERIFY(probe.late_writer_saw_aggregate,
               label << ": while it waited for tile " << late_tile
                     << ", its own status showed no A: publish A at once, before looking back (a later tile may be "
                        "waiting for it)");
}

unsigned long long status_word(unsigned long long flag, unsigned value) { return flag | value; }

}  // namespace

TEST_CASE("TODO(07.5) scan_single_pass: any n, every block, misaligned pointers, inclusive and exclusive")
{
    REQUIRE_GPU();
    check_multi_tile("07.5", true);
}

TEST_CASE("TODO(07.5) scan_single_pass<float>: within the derived bound; integer-valued floats exactly")
{
    REQUIRE_GPU();
    if (!depends_on_earlier_task("07.5")) return;
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
    CHECK_THROWS_AS(scan_single_pass(d_values.data(), d_out.data(), ScanKind::inclusive, 1, 100, scratch),
                    std::invalid_argument);
}

// The look-back alone, on statuses the check writes: the window slides (100 A's; a P 40 tiles back), the
// nearest P ends it, an X is waited for and counted once it turns into A, and the tile publishes A first and P
// last. Tiles the look-back must not reach hold A's of values that would spoil the sum.
TEST_CASE("TODO(07.5) decoupled_look_back on prepared statuses: 100 A's, a P 40 tiles back, an X that turns into A")
{
    REQUIRE_GPU();
    const std::vector<int> random = course::random_ints(101, course::testing::seed(10));
    const auto value = [&](std::size_t t) { return static_cast<unsigned>(random[t]) * 2654435761u; };
    const unsigned aggregate = value(100);
    const std::size_t tile = 100;

    std::vector<unsigned long long> all_aggregates(tile + 1, TileStatus::invalid);
    unsigned sum = 0;
    for (std::size_t t = 0; t < tile; ++t) {
        all_aggregates[t] = status_word(TileStatus::aggregate, value(t));
        sum += value(t);
    }
    check_look_back("after 100 A's (tile 0 too: before it counts as an empty P)", all_aggregates, tile, aggregate,
                    sum);

    std::vector<unsigned long long> prefix_40_back = all_aggregates;
    prefix_40_back[60] = status_word(TileStatus::prefix, value(60));
    unsigned from_prefix = 0;
    for (std::size_t t = 60; t < tile; ++t) from_prefix += value(t);
    check_look_back("after a P at tile 60 and A's after it", prefix_40_back, tile, aggregate, from_prefix);

    std::vector<unsigned long long> late_aggregate = all_aggregates;
    late_aggregate[90] = status_word(TileStatus::prefix, value(90));
    late_aggregate[95] = TileStatus::invalid;
    unsigned from_late = 0;
    for (std::size_t t = 90; t < tile; ++t) from_late += value(t);
    check_look_back("after a P at tile 90 and A's after it, tile 95 at X until it publishes A", late_aggregate, tile,
                    aggregate, from_late, 95, status_word(TileStatus::aggregate, value(95)));

    std::vector<unsigned long long> one_back(2, TileStatus::invalid);
    one_back[0] = status_word(TileStatus::prefix, value(0));
    check_look_back("after tile 0's P", one_back, 1, aggregate, value(0));
}

TEST_CASE("TODO(07.5) large: scan_single_pass of 2^31 + 65543 ints")
{
    check_large("07.5");
}

TEST_CASE("sanitized TODO(07.5) scan_single_pass: n up to 2 tiles + 3, blocks 32, 256, 1024")
{
    REQUIRE_GPU();
    sanitized_multi_tile("07.5");
}

TEST_CASE("TODO(07.5) racecheck and synccheck")
{
    REQUIRE_GPU();
    race_checks("TODO(07.5)");
}
