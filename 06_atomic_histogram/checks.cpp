// Chapter 06 checks (docs/06_atomic_histogram.md, "What the checks cover"): every call goes through the chapter's
// runner (histogram_runner.cpp); the bins come back with poisoned guard words around them and are judged here,
// against course::histogram_reference, and the first wrong result stops a case, e.g.
//   TODO(06.4): histogram_sub_histograms(n=33, block=64) on skewed bytes, start pointer +4: bins: first ...
#include "histogram.hpp"

#include "course/battery.hpp"
#include "course/data.hpp"
#include "course/performance.hpp"
#include "course/reference.hpp"

#include <chrono>
#include <cstdint>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

using course::Histogram256;
using course::checker::Call;
using course::checker::Input;
using course::checker::Result;
using course::testing::call;

namespace {

struct Function {
    std::string task;  // a std::string: doctest before 2.4.10 streams a const char* in a message as a pointer
    std::string name;  // the chapter's function, and the runner's operation named after it
};
const Function cpu{"TODO(06.1)", "histogram_cpu"};  // a host operation of the runner
const Function global_atomics{"TODO(06.2)", "histogram_global_atomics"};
const Function shared_atomics{"TODO(06.3)", "histogram_shared_atomics"};
const Function sub_histograms{"TODO(06.4)", "histogram_sub_histograms"};
const Function vectorized{"TODO(06.5)", "histogram_vectorized"};

constexpr unsigned char poison = 0xAB;  // every byte of the bins and their guard words before a call
constexpr std::size_t guard_bins = 256;    // poisoned words before and after d_bins[0, 256)
constexpr std::size_t guard_bytes = 4096;  // input bytes after n, counted by a read at or past n
constexpr std::size_t max_offset = 15;     // start pointers +0 .. +15 past a device buffer's (256-byte aligned) start

// ---- the inputs -------------------------------------------------------------------------------------------
// Random bytes of a distribution, made into runs of `run` equal ones (some 16-byte loads hold one run, some straddle
// two: 15, 16, 17 are just short of, exactly and just over one load) or into one 4-byte word repeated (four equal
// words whose bytes differ, which a shortcut that compares words, not the bytes within one, counts as 16 equal
// bytes). Each kind gives the same first bytes whatever the size, so a short input is a prefix of a long one.
using course::ByteDistribution;
enum class Word { none, i_mod_4, random };
struct ByteKind {
    const char* name;
    std::uint64_t salt;  // its data: course::testing::seed(salt)
    ByteDistribution distribution = ByteDistribution::uniform;
    std::size_t run = 1;
    Word word = Word::none;
};

// The bytes of `kind`, written straight into sealed shared memory.
Input make(const ByteKind& kind, std::size_t size, std::uint64_t seed)
{
    return Input(size, 1, [&](void* out) {
        auto* bytes = static_cast<std::uint8_t*>(out);
        course::random_bytes(bytes, size, seed, kind.distribution);
        const auto random = static_cast<std::uint32_t>(seed);  // a random word's bytes 0 and 1 differ
        const std::uint32_t word =
            kind.word == Word::i_mod_4 ? 0x03020100u : (random & 0xFFFF00FFu) | ((random & 0xFFu) ^ 0x5Au) << 8;
        if (kind.word != Word::none)
            for (std::size_t i = 0; i < size; ++i) bytes[i] = static_cast<std::uint8_t>(word >> (8 * (i % 4)));
        else if (kind.run > 1)
            for (std::size_t i = 0; i < size; ++i) bytes[i] = bytes[i / kind.run * kind.run];
    });
}

const ByteKind uniform{"uniform bytes", 0x07};
const ByteKind identical{"identical bytes", 0x09, ByteDistribution::identical};
const ByteKind runs_of_17{"runs of 17 equal bytes", 0x0C, ByteDistribution::uniform, 17};
const std::vector<ByteKind> distributions{uniform, {"skewed bytes", 0x08, ByteDistribution::skewed}, identical};
const std::vector<ByteKind> every_kind{
    uniform,
    distributions[1],
    identical,
    {"runs of 15 equal bytes", 0x0A, ByteDistribution::uniform, 15},
    {"runs of 16 equal bytes", 0x0B, ByteDistribution::uniform, 16},
    runs_of_17,
    {"runs of 20 equal bytes", 0x0D, ByteDistribution::uniform, 20},
    {"bytes i % 4", 0, ByteDistribution::uniform, 1, Word::i_mod_4},
    {"a random 4-byte word repeated", 0x0E, ByteDistribution::uniform, 1, Word::random},
};

// The bytes of one kind in sealed shared memory, with the CPU histograms of their ranges, each computed once.
struct Bytes : course::testing::RangeData<std::uint8_t, Histogram256> {
    Bytes(const ByteKind& kind, std::size_t size)
        : RangeData(make(kind, size, course::testing::seed(kind.salt)), course::histogram_reference), name(kind.name)
    {
    }
    std::string name;
};

// One input per kind, long enough for n bytes from any start offset and the guard after them.
std::vector<Bytes> make_bytes(const std::vector<ByteKind>& kinds, std::size_t largest_n)
{
    std::vector<Bytes> bytes;
    bytes.reserve(kinds.size());
    for (const ByteKind& kind : kinds) bytes.emplace_back(kind, largest_n + max_offset + guard_bytes);
    return bytes;
}

// ---- one call and its verdict -----------------------------------------------------------------------------
Call& with_bins(Call& request) { return request.output<unsigned>(histogram_bins, poison, guard_bins, guard_bins); }

// Runs `request` with its bins: it returned; its bins count n bytes in all and equal `expected`; the guard words
// around them kept their poison; the input, when `in` is given, came back unchanged (element 0 of the buffer is
// element 0 of `in`, the call's pointer is `first` past it). False at the first thing wrong.
bool check_bins(const Function& f, const std::string& what, Call request, const Histogram256& expected,
                std::size_t n, const Bytes* in = nullptr, std::size_t first = 0)
{
    course::testing::detail::note_call(f.task, what);  // a crash inside it prints the task, the call and the seed
    const Result r = course::checker::run(with_bins(request));
    if (!course::testing::returned(f.task, what, r)) return false;
    const unsigned* bins = r.elements<unsigned>(1);
    const std::uint64_t total = std::accumulate(bins, bins + histogram_bins, std::uint64_t{0});
    VERIFY(total == n, f.task << ": " << what << " counted " << total << " bytes in all, expected n = " << n);
    if (total != n) return false;
    const auto wrong_bin = course::first_mismatch(expected.data(), bins, histogram_bins);
    VERIFY(!wrong_bin, f.task << ": " << what << ": bins: " << course::describe(*wrong_bin, histogram_bins));
    if (wrong_bin) return false;

    const auto outside = course::testing::written_outside(r, 1, histogram_bins, poison);
    VERIFY(!outside, f.task << ": " << what << " wrote outside its 256 bins: d_bins[" << *outside
                            << "] = " << r.whole<unsigned>(1)[guard_bins + *outside]);
    if (outside || in == nullptr) return !outside;

    const std::vector<std::uint8_t> back = r.whole<std::uint8_t>(0);
    const auto changed = course::first_mismatch(in->values(), back.data(), back.size());
    VERIFY(!changed, f.task << ": " << what << " changed its input: d_in["
                            << static_cast<long long>(changed->index) - static_cast<long long>(first) << "] was "
                            << +changed->expected << ", came back " << +changed->got);
    return !changed;
}

// n bytes from element `first` of `in`, in a buffer that starts at its element 0 (on the device the pointer is
// then `first` bytes past a 256-byte boundary) and goes on for guard_bytes after them; block 0 for histogram_cpu.
bool check_case(const Function& f, const Bytes& in, std::size_t first, std::size_t n, int block,
                bool own_stream = false)
{
    const std::string what = call(f.name, n, block) + " on " + in.name + ", start pointer +" + std::to_string(first) +
                             (own_stream ? " on a non-blocking stream" : "");
    Call request(f.name, n, block);
    request.input(in.input(), first, n, first, guard_bytes);
    const bool back = n <= course::testing::checked_input_limit;  // the input comes back unchanged
    if (back) request.returned();
    // On the runner's own non-blocking stream the poison goes first and the copy back follows on that stream
    // only: a launcher whose memset or kernel goes on another stream is read too early.
    if (own_stream) request.on_own_stream();
    return check_bins(f, what, request, in.expected(first, n), n, back ? &in : nullptr, first);
}

// ---- the battery ------------------------------------------------------------------------------------------
// The standard sizes and sizes that are not multiples of 4 or 16, on and around one 4 KiB page.
std::vector<std::size_t> sizes_for(int block)
{
    return course::testing::sizes_with(block, {3, 15, 16, 17, 4095, 4096, 4097});
}

// The unaligned start paired with size n: varies with n, the same for every block size (so the CPU reference of
// each input, start and n is computed once).
std::size_t offset_for(std::size_t n) { return 1 + n % max_offset; }

// n bytes of the first `kinds` inputs (all when 0) at `block`, from each start offset of `firsts` (none: an aligned
// and an unaligned one).
bool check_inputs(const Function& f, const std::vector<Bytes>& inputs, std::size_t n, int block,
                  std::vector<std::size_t> firsts = {}, std::size_t kinds = 0)
{
    if (firsts.empty()) firsts = {0, offset_for(n)};
    for (std::size_t k = 0; k < (kinds == 0 ? inputs.size() : kinds); ++k)
        for (std::size_t first : firsts)
            if (!check_case(f, inputs[k], first, n, block)) return false;
    return true;
}

// A call with one bad argument, which must throw std::invalid_argument before anything runs. The input holds 100
// bytes: n past histogram_max_n is only a number in the request (one let through crashes the runner instead).
void check_rejected(const Function& f, const Bytes& in, std::size_t n, int block, bool null_input, bool null_bins,
                    const std::string& why)
{
    Call request(f.name, n, block);
    if (null_input) request.null(1);
    else request.input(in.input(), 0, 100);
    if (null_bins) request.null(sizeof(unsigned));
    else with_bins(request);
    course::testing::check_rejected(f.task, call(f.name, n, block) + " with " + why, course::checker::run(request));
}
const char* const too_large = "n = 2^32 (a 32-bit bin could wrap)";

// ---- each test case ---------------------------------------------------------------------------------------
// 06.1: the three distributions at every size from aligned starts; n past histogram_max_n rejected.
void check_cpu()
{
    const std::vector<std::size_t> sizes{0, 1, 2, 3, 15, 16, 17, 31, 32, 33, 4097, 999983, (std::size_t{1} << 24) + 7};
    const auto inputs = make_bytes(distributions, sizes.back());
    course::testing::Battery b;
    b.task = cpu.task;
    b.blocks = {0};
    b.sizes = [&](int) { return sizes; };
    b.check = [&](std::size_t n, int block) { return check_inputs(cpu, inputs, n, block, {0}); };
    b.bad_arguments = [&] { check_rejected(cpu, inputs.front(), histogram_max_n + 1, 0, false, false, too_large); };
    course::testing::check_battery(b);
}

// 06.2-06.5: the battery, then every start offset, a stream of its own and n = 0 at every block (each part stops
// at its own first failure), then bad arguments.
void check_kernel(const Function& f)
{
    REQUIRE_GPU();
    const auto inputs = make_bytes(every_kind, course::testing::largest_of(sizes_for));
    course::testing::Battery b;
    b.task = f.task;
    b.sizes = sizes_for;
    // The three distributions (every_kind's first) at every block: how many threads contend for a bin depends on
    // it. The other kinds are about what a thread's loads hold (runs, words), which no block size changes: blocks
    // 32, 256 and 1024.
    b.check = [&](std::size_t n, int block) {
        const std::size_t kinds = course::testing::is_sample_block(block) ? every_kind.size() : distributions.size();
        return check_inputs(f, inputs, n, block, {}, kinds);
    };
    b.unique = [&] {
        // Sizes around 16 and 4096 bytes from every start offset 0..15, at block 256.
        std::vector<std::size_t> every_offset(max_offset + 1);
        std::iota(every_offset.begin(), every_offset.end(), std::size_t{0});
        for (std::size_t n : {1, 15, 16, 17, 4097})
            if (!check_inputs(f, inputs, n, 256, every_offset)) break;
        check_case(f, inputs.front(), offset_for(999983), 999983, 256, true);
        // n = 0 with a null input: nothing may be read, and the bins must still come back zeroed.
        for (int block : course::testing::power_of_two_blocks())
            if (!check_bins(f, call(f.name, 0, block) + " with d_in = nullptr", Call(f.name, 0, block).null(1), {}, 0))
                break;
    };
    b.reject = [&](int block) { check_rejected(f, inputs.front(), 100, block, false, false, "a bad block size"); };
    b.bad_arguments = [&] {
        check_rejected(f, inputs.front(), histogram_max_n + 1, 256, false, false, too_large);
        check_rejected(f, inputs.front(), 100, 256, false, true, "d_bins = nullptr");
        check_rejected(f, inputs.front(), 100, 256, true, false, "d_in = nullptr");
    };
    course::testing::check_battery(b);
}

// 06.3-06.5: a missing barrier usually still gives the right bins; racecheck and synccheck see it, on a few threads'
// bytes (33) and on every thread's (5000), spread over the bins and in runs across vectors, from both start
// offsets (calls check_kernel makes too). Few calls: each one is slow under the tools, whatever its n.
void check_race_free(const Function& f)
{
    const std::vector<std::size_t> race_sizes{33, 5000};
    const auto inputs = make_bytes({uniform, runs_of_17}, race_sizes.back());
    course::testing::check_race_free(f.task, [&] {
        course::testing::check_each(course::testing::sample_blocks, [&](int) { return race_sizes; },
                                    [&](std::size_t n, int block) { return check_inputs(f, inputs, n, block); });
    });
}

// Past 2^31 bytes, where a 32-bit index stops or goes negative: n = 2^31 + 2^20 + 5 bytes from a start pointer +3,
// made by the runner: a period (random bytes, then runs of 20) repeated, whose bins follow from the period. A kernel
// with counters of its own (`privatized`) runs blocks 32, 256, 1024, then one bin counts all n through its merge;
// 06.2 adds straight into the bins, so only its index is tested (block 256: 2^31 global atomics are slow).
constexpr std::size_t large_n = (std::size_t{1} << 31) + (std::size_t{1} << 20) + 5;
constexpr std::size_t large_first = 3;
constexpr std::size_t large_period = 4099;  // a prime: the pattern does not repeat in step with 16-byte vectors

void check_large(const Function& f, bool privatized)
{
    REQUIRE_GPU_MEMORY(large_first + large_n + (std::size_t{256} << 20));
    auto period = course::random_bytes(large_period, course::testing::seed(0x62), course::ByteDistribution::uniform);
    for (std::size_t i = large_period / 2; i < large_period; ++i) period[i] = period[i / 20 * 20];
    // Byte j of d_in is period[(large_first + j) % large_period]: whole periods, then the first r bytes of one.
    const Histogram256 once = course::histogram_reference(period.data(), large_period);
    Histogram256 pattern_bins{}, equal_bins{};
    for (std::size_t v = 0; v < histogram_bins; ++v) pattern_bins[v] = large_n / large_period * once[v];
    for (std::size_t j = 0; j < large_n % large_period; ++j) ++pattern_bins[period[(large_first + j) % large_period]];
    const std::uint8_t equal = 0xA7;
    equal_bins[equal] = large_n;

    const auto check_large_case = [&](const Input& tile, const char* bytes, const Histogram256& expected, int block) {
        const std::string what = call(f.name, large_n, block) + " on " + bytes +
                                 ", start pointer +3 (past 2^31 bytes: is every index 64-bit?)";
        Call request(f.name, large_n, block);
        request.periodic(tile, large_n, course::boundary::Role::in, large_first).timeout(std::chrono::seconds(300));
        return check_bins(f, what, request, expected, large_n);
    };
    const Input pattern(period), same(std::vector<std::uint8_t>(16, equal));
    for (int block : privatized ? std::vector<int>{32, 256, 1024} : std::vector<int>{256})
        if (!check_large_case(pattern, "a repeated pattern of random bytes and runs", pattern_bins, block)) return;
    if (privatized) check_large_case(same, "identical bytes", equal_bins, 256);
}

// The performance task (course/performance.hpp) of 06.5: histogram_vectorized on 1 GiB of uniform bytes and on
// 1 GiB of one byte throughout (every atomic on one bin: the contention of 06.3's lesson), block 256.
course::testing::Performance performance(const Function& f)
{
    constexpr std::size_t n = std::size_t{1} << 30;
    return {f.task, f.name, "histogram", n, "2^30 bytes", double(n), double(n), n + (std::size_t{256} << 20),
            {uniform.name, identical.name}, [&f](const std::string& input, std::uint64_t seed) {
        // A gigabyte made and counted on all cores: the GPU, held alone for these calls, waits for it.
        const auto bytes = std::make_shared<const Input>(make(input == uniform.name ? uniform : identical, n, seed));
        const auto expected = std::make_shared<const Histogram256>(course::merge_chunks<Histogram256>(
            n, [&](std::size_t first, std::size_t last) {
                return course::histogram_reference(bytes->data<std::uint8_t>() + first, last - first);
            },
            [](Histogram256& bins, const Histogram256& part) {
                for (std::size_t b = 0; b < bins.size(); ++b) bins[b] += part[b];
            }));
        Call request(f.name, n, 256);
        with_bins(request.input(*bytes, 0, n));
        return course::testing::TimedCall{request, [bytes, expected](course::checker::Session&, const Result& r) {
            const auto wrong = course::first_mismatch(expected->data(), r.elements<unsigned>(1), histogram_bins);
            return wrong ? "bins: " + course::describe(*wrong, histogram_bins) : std::string();
        }};
    }};
}

// privatized: the kernel counts in shared memory first, behind barriers (racecheck and synccheck watch them).
course::testing::TaskCases kernel_cases(const Function& f, bool privatized)
{
    return {f.task, f.name + ": sizes, distributions, start offsets, blocks, stream, bad arguments",
            [&f] { check_kernel(f); }, {},
            privatized ? std::function<void()>([&f] { check_race_free(f); }) : nullptr,
            f.name + " past 2^31 bytes", [&f, privatized] { check_large(f, privatized); }};
}

}  // namespace

// ---- the test cases: each task's battery, its race check (06.3-06.5: their lessons are barriers) and past 2^31
COURSE_TASK_CASES({cpu.task, "histogram_cpu: every size and byte distribution, bins zeroed first, n > 2^32 - 1 "
                              "rejected", check_cpu});
COURSE_TASK_CASES(kernel_cases(global_atomics, false));
COURSE_TASK_CASES(kernel_cases(shared_atomics, true));
COURSE_TASK_CASES(kernel_cases(sub_histograms, true));
COURSE_TASK_CASES(kernel_cases(vectorized, true));
COURSE_PERFORMANCE(performance(vectorized));
