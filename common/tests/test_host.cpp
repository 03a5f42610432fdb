// Checks of common/'s host code: they run everywhere, CI included.
#include "course/args.hpp"
#include "course/data.hpp"
#include "course/reference.hpp"
#include "course/testing.hpp"
#include "course/timer.hpp"
#include "course/verify.hpp"

#include <algorithm>
#include <vector>

using course::ParsedArgs;

namespace {

const course::ArgSpec spec{"test", "a test program", 1000, std::size_t{1} << 30};

ParsedArgs parse(std::vector<const char*> words)
{
    words.insert(words.begin(), "prog");
    return course::try_parse_args(static_cast<int>(words.size()), words.data(), spec);
}

}  // namespace

TEST_SUITE("host")
{
TEST_CASE("arguments: defaults, both spellings, 2^K")
{
    auto p = parse({});
    REQUIRE(p.outcome == ParsedArgs::Outcome::run);
    CHECK(p.args.n == 1000);
    CHECK(p.args.block == 256);
    p = parse({"--n", "33", "--block=64", "--seed", "7"});
    REQUIRE(p.outcome == ParsedArgs::Outcome::run);
    CHECK(p.args.n == 33);
    CHECK(p.args.block == 64);
    CHECK(p.args.seed == 7);
    CHECK(parse({"--n", "2^20"}).args.n == (1u << 20));
    CHECK(parse({"--n", "0"}).args.n == 0);
    CHECK(parse({"--help"}).outcome == ParsedArgs::Outcome::help);
}

TEST_CASE("arguments: bad values are errors that name the option and the value")
{
    struct Bad {
        std::vector<const char*> words;
        const char* must_mention;
    };
    const Bad bad[] = {
        {{"--n", "abc"}, "'abc'"},     {{"--n", "-5"}, "'-5'"},         {{"--n", "12x"}, "'12x'"},
        {{"--n", ""}, "--n"},          {{"--n", "99999999999999999999999"}, "--n"},
        {{"--n", "2^31"}, "more than"}, {{"--block", "33"}, "power of two"}, {{"--block", "16"}, "'16'"},
        {{"--block", "2048"}, "'2048'"}, {{"--seed", "x"}, "--seed"},      {{"--n"}, "needs a value"},
        {{"--frobnicate"}, "unknown"},  {{"--runs", "5"}, "unknown"},
    };
    for (const auto& b : bad) {
        const auto p = parse(b.words);
        CAPTURE(b.words[0]);
        CHECK(p.outcome == ParsedArgs::Outcome::error);
        CHECK(p.error.find(b.must_mention) != std::string::npos);
    }
}

TEST_CASE("arguments: a program with a progression takes --kernel, --list and --list --json")
{
    course::ArgSpec with_steps = spec;
    with_steps.steps = {{"02.1", "reduce_a", "first"}, {"02.2", "reduce_b", "the \"second\""}};
    const auto parse_with = [&](std::vector<const char*> words) {
        words.insert(words.begin(), "prog");
        return course::try_parse_args(static_cast<int>(words.size()), words.data(), with_steps);
    };
    auto p = parse_with({"--kernel", "reduce_b"});
    REQUIRE(p.outcome == ParsedArgs::Outcome::run);
    CHECK(p.args.wants("reduce_b"));
    CHECK_FALSE(p.args.wants("reduce_a"));
    CHECK(parse_with({"--list"}).outcome == ParsedArgs::Outcome::list);
    CHECK(parse_with({"--json", "--list"}).outcome == ParsedArgs::Outcome::list_json);
    CHECK(parse_with({"--json"}).outcome == ParsedArgs::Outcome::error);
    p = parse_with({"--kernel", "reduce_c"});
    CHECK(p.outcome == ParsedArgs::Outcome::error);
    CHECK(p.error.find("'reduce_c'") != std::string::npos);
    CHECK(parse({"--list"}).outcome == ParsedArgs::Outcome::error);  // no progression: no --list
}

TEST_CASE("data: deterministic per seed, in range, with negatives")
{
    const auto a = course::random_ints(100000, 42);
    CHECK(a == course::random_ints(100000, 42));
    CHECK(a != course::random_ints(100000, 43));
    CHECK(*std::min_element(a.begin(), a.end()) == -1000);
    CHECK(*std::max_element(a.begin(), a.end()) == 1000);
    const auto f = course::random_floats(100000, 1, -2.0f, 3.0f);
    CHECK(*std::min_element(f.begin(), f.end()) >= -2.0f);
    CHECK(*std::max_element(f.begin(), f.end()) < 3.0f);
}

TEST_CASE("data: byte distributions have their shape")
{
    const std::size_t n = 1 << 20;
    const auto count_distinct = [](const std::vector<std::uint8_t>& v) {
        const auto h = course::histogram_reference(v.data(), v.size());
        return std::count_if(h.begin(), h.end(), [](auto c) { return c > 0; });
    };
    const auto identical = course::random_bytes(n, 5, course::ByteDistribution::identical);
    CHECK(count_distinct(identical) == 1);
    const auto uniform = course::random_bytes(n, 5, course::ByteDistribution::uniform);
    CHECK(count_distinct(uniform) == 256);
    const auto skewed = course::random_bytes(n, 5, course::ByteDistribution::skewed);
    auto h = course::histogram_reference(skewed.data(), n);
    std::sort(h.begin(), h.end(), std::greater<>());
    CHECK(h[0] + h[1] + h[2] + h[3] > n * 9 / 10);  // the 4 hot values hold 15/16 of the bytes
}

TEST_CASE("data: written in place on all cores, the same values; a reference merged from chunks")
{
    const std::size_t n = 100003;  // not a multiple of any core count
    std::vector<int> ints(n);
    course::random_ints(ints.data(), n, 42);
    CHECK(ints == course::random_ints(n, 42));
    std::vector<std::uint8_t> bytes(n);
    course::random_bytes(bytes.data(), n, 7, course::ByteDistribution::skewed);
    CHECK(bytes == course::random_bytes(n, 7, course::ByteDistribution::skewed));
    const long long total = course::merge_chunks<long long>(
        n, [&](std::size_t first, std::size_t last) { return course::sum_reference(ints.data() + first, last - first); },
        [](long long& sum, long long part) { sum += part; });
    CHECK(total == course::sum_reference(ints.data(), n));
    std::vector<int> covered(n);
    course::for_each_chunk(n, [&](std::size_t first, std::size_t last) {
        for (std::size_t i = first; i < last; ++i) ++covered[i];
    });
    CHECK(std::all_of(covered.begin(), covered.end(), [](int c) { return c == 1; }));
}

TEST_CASE("references on worked examples")
{
    const std::vector<int> v{1, 2, 3, 4, 5, 6, 7, 8};
    CHECK(course::sum_reference(v.data(), v.size()) == 36);
    CHECK(course::sum_reference(v.data(), 0) == 0);
    std::vector<int> out(8);
    course::inclusive_scan_reference(v.data(), out.data(), 8);
    CHECK(out == std::vector<int>{1, 3, 6, 10, 15, 21, 28, 36});
    course::exclusive_scan_reference(v.data(), out.data(), 8);
    CHECK(out == std::vector<int>{0, 1, 3, 6, 10, 15, 21, 28});
    const std::vector<int> big(3, 2000000000);  // int32 scans wrap modulo 2^32, like the GPU's adds
    course::inclusive_scan_reference(big.data(), out.data(), 3);
    CHECK(out[1] == static_cast<int>(4000000000u));
    CHECK(course::sum_reference(big.data(), 3) == 6000000000);
    const std::vector<std::uint8_t> bytes{0, 255, 255, 7};
    const auto h = course::histogram_reference(bytes.data(), bytes.size());
    CHECK(h[0] == 1);
    CHECK(h[255] == 2);
    CHECK(h[7] == 1);
    const std::vector<float> f{1e8f, 1.0f, -1e8f, 1.0f};  // float adds in order give 1; the exact sum is 2
    CHECK(course::sum_reference(f.data(), f.size()) == 2.0);
}

TEST_CASE("verification reports the first mismatch")
{
    const std::vector<int> expected{1, 2, 3, 4};
    std::vector<int> got{1, 2, 3, 4};
    CHECK_FALSE(course::first_mismatch(expected.data(), got.data(), 4));
    got[2] = 0;
    got[3] = 0;
    const auto m = course::first_mismatch(expected.data(), got.data(), 4);
    REQUIRE(m);
    CHECK(m->index == 2);
    CHECK(course::describe(*m, 4) == "first mismatch at index 2 of 4: expected 3, got 0");
    const std::vector<double> ref{1.0, 100.0};
    const std::vector<float> approx{1.0f, 100.01f};
    CHECK_FALSE(course::first_mismatch(ref.data(), approx.data(), 2, 0.0, 1e-3));
    CHECK(course::first_mismatch(ref.data(), approx.data(), 2, 0.0, 1e-6));
    const std::vector<float> nan{1.0f, std::numeric_limits<float>::quiet_NaN()};
    CHECK(course::first_mismatch(ref.data(), nan.data(), 2, 1.0, 1.0));
}

TEST_CASE("test sizes and block sizes")
{
    const auto sizes = course::testing::standard_sizes(256);
    std::vector<std::size_t> fixed{0, 1, 2, 31, 32, 33, 255, 256, 257, 1000, 5000, 999983, (1u << 24) + 7};
    if (course::testing::under_sanitizer()) fixed.pop_back();
    for (std::size_t n : fixed) CHECK(std::count(sizes.begin(), sizes.end(), n) == 1);
    CHECK(std::is_sorted(sizes.begin(), sizes.end()));
    CHECK(std::adjacent_find(sizes.begin(), sizes.end()) == sizes.end());
    // Two more, drawn from the run's seed (the same in every call of the run): odd, one in [3, 4097], one in
    // [4097, 2^20 + 4095] (testing.cpp; a bound of 2^20 failed about one run in 250).
    std::vector<std::size_t> drawn;
    for (std::size_t n : sizes)
        if (std::count(fixed.begin(), fixed.end(), n) == 0) drawn.push_back(n);
    CHECK(drawn.size() <= 2);
    for (std::size_t n : drawn) CHECK((n % 2 == 1 && n >= 3 && n < (std::size_t{1} << 20) + 4096));
    CHECK(course::testing::standard_sizes(256) == sizes);
    // For block 32, block-1, block, block+1 are 31, 32, 33 again: 255, 256 and 257 go, unless a drawn size
    // (odd) is 255 or 257; nothing else changes.
    const auto sizes32 = course::testing::standard_sizes(32);
    for (std::size_t n : sizes32) CHECK(std::count(sizes.begin(), sizes.end(), n) == 1);
    for (std::size_t n : sizes)
        if (std::count(sizes32.begin(), sizes32.end(), n) == 0) CHECK((n == 255 || n == 256 || n == 257));
    CHECK(std::count(sizes32.begin(), sizes32.end(), 256) == 0);
    CHECK(course::testing::power_of_two_blocks() == std::vector<int>{32, 64, 128, 256, 512, 1024});
    CHECK(course::median({3, 1, 2}) == 2);
    CHECK(course::median({4, 1, 2, 3}) == 2.5);
}
TEST_CASE("compute-sanitizer reports: a hazard, a clean run, and the tool's own failure to watch")
{
    namespace d = course::testing::detail;
    // racecheck beside a program that held the GPU's free memory (H100, CUDA 13.0, 2026-11-27): the tool counts
    // its own failure as an error, which must not read as the student's race
    const std::string could_not_watch =
        "========= COMPUTE-SANITIZER\n"
        "========= Error: Device not supported. Please refer to the \"Supported Devices\" section of the sanitizer "
        "documentation\n=========\n========= Target application returned an error\n"
        "========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)\n";
    // scan_race_demo under racecheck (docs/07_scan.md)
    const std::string race =
        "========= Error: Race reported between Read access at <unnamed>::hillis_steele_single_buffer(const int *, "
        "int *)+0x150 in scan_race_demo.cu:26\n=========     and Write access at "
        "<unnamed>::hillis_steele_single_buffer(const int *, int *)+0x170 in scan_race_demo.cu:26 [27692 hazards]\n"
        "========= RACECHECK SUMMARY: 10 hazards displayed (20 errors, 0 warnings)\n";
    const std::string clean = "========= COMPUTE-SANITIZER\n========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, "
                              "0 warnings)\n";
    CHECK_FALSE(d::summaries_clean(could_not_watch));
    CHECK(d::tool_could_not_watch(could_not_watch));
    CHECK_FALSE(d::summaries_clean(race));
    CHECK_FALSE(d::tool_could_not_watch(race));
    CHECK(d::summaries_clean(clean));
    CHECK_FALSE(d::tool_could_not_watch(clean));
    CHECK_FALSE(d::summaries_clean(""));  // no summary: the tool never finished
}
}
