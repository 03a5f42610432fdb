#include "course/reduction_checks.hpp"

#include "course/data.hpp"
#include "course/reference.hpp"
#include "course/testing.hpp"

#include <algorithm>
#include <climits>

namespace course::testing {
namespace {

constexpr unsigned char poison = 0xA5;  // a total that is never written reads as garbage

std::size_t largest_standard_size()
{
    std::size_t largest = 0;
    for (int block : power_of_two_blocks())
        for (std::size_t n : standard_sizes(block)) largest = std::max(largest, n);
    return largest;
}

std::string described(const Reduction& r, std::size_t n, int block, const std::string& what)
{
    return what.empty() ? call(r.op, n, block) : what;
}

}  // namespace

long long IntData::sum(std::size_t first, std::size_t n) const
{
    const auto key = std::make_pair(first, n);
    const auto found = sums_.find(key);
    if (found != sums_.end()) return found->second;
    return sums_[key] = sum_reference(values() + first, n);
}

checker::Call reduction_call(const Reduction& r, const IntData& data, std::size_t first, std::size_t n, int block,
                             std::size_t tail)
{
    checker::Call c(r.op, n, block);
    for (const auto& [key, value] : r.params) c.param(key, value);
    if (r.overwrites_input) c.inout(data.input(), first, n, first, tail);
    else c.input(data.input(), first, n, first, tail);
    if (!r.overwrites_input && n <= checked_input_limit) c.returned();
    return c.output<long long>(1, poison);
}

bool check_reduction(const Reduction& r, const checker::Call& call, const IntData& data, std::size_t first,
                     std::size_t n, const std::string& what)
{
    const checker::Result got = checker::run(call);
    if (!returned(r.task, what, got)) return false;
    const long long total = got.element<long long>(1);
    CHECK_RESULT(r.task, what, total, data.sum(first, n));
    bool right = total == data.sum(first, n);
    if (!r.overwrites_input && n <= checked_input_limit) {
        const auto mm = first_mismatch(data.values() + first, got.elements<int>(0), n);
        VERIFY(!mm, r.task << ": " << what << " changed its input: " << describe(*mm, n));
        right = right && !mm;
    }
    return right;
}

bool check_reduction(const Reduction& r, const IntData& data, std::size_t n, int block, const std::string& what)
{
    return check_reduction(r, reduction_call(r, data, 0, n, block), data, 0, n, described(r, n, block, what));
}

void check_standard_sizes(const Reduction& r)
{
    REQUIRE_GPU();
    const IntData example({1, 2, 3, 4, 5, 6, 7, 8});  // 36
    check_reduction(r, example, 8, 32, call(r.op, 8, 32) + " of 1..8");
    const IntData data(random_ints(largest_standard_size(), seed(1)));
    for (int block : power_of_two_blocks())
        for (std::size_t n : standard_sizes(block)) check_reduction(r, data, n, block);
}

void check_full_int_range(const Reduction& r)
{
    REQUIRE_GPU();
    const std::size_t n = (std::size_t{1} << 20) + 3;
    const IntData data(random_ints(n, seed(2), INT_MIN, INT_MAX));
    for (int block : power_of_two_blocks())
        check_reduction(r, data, n, block, call(r.op, n, block) + " of ints in [INT_MIN, INT_MAX]");
}

void check_extreme_values(const Reduction& r, int value)
{
    REQUIRE_GPU();
    const std::size_t n = (std::size_t{1} << 20) + 3;
    for (int v : {value, -value}) {
        const IntData data(std::vector<int>(n, v));
        for (int block : {32, 1024})
            check_reduction(r, data, n, block, call(r.op, n, block) + " with every element " + std::to_string(v));
    }
}

void check_nothing_read_past_n(const Reduction& r)
{
    REQUIRE_GPU();
    const int past_end = 1 << 20;
    const std::size_t longest = 999983;
    std::vector<int> values = random_ints(longest, seed(3));
    values.resize(longest + 1024, past_end);  // the block of 2^20's after every prefix below is here ...
    for (int block : power_of_two_blocks()) {
        const std::size_t b = static_cast<std::size_t>(block);
        for (std::size_t n : {std::size_t{1}, std::size_t{33}, b + 1, 5 * b + 3, longest}) {
            std::vector<int> host(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(n));
            host.resize(n + b, past_end);  // ... and here, right after n
            const IntData data(host);
            const std::string what = call(r.op, n, block) + " with " + std::to_string(past_end) + " in the " +
                                     std::to_string(block) + " ints after the array (a read at or past n?)";
            check_reduction(r, reduction_call(r, data, 0, n, block, b), data, 0, n, what);
        }
    }
}

void check_own_stream(const Reduction& r)
{
    REQUIRE_GPU();
    const std::size_t n = (std::size_t{1} << 22) + 5;
    const IntData data(random_ints(n, seed(4)));
    checker::Call c = reduction_call(r, data, 0, n, 256);
    c.on_own_stream();
    check_reduction(r, c, data, 0, n, call(r.op, n, 256) + " on a non-blocking stream");
}

void check_rejects_bad_arguments(const Reduction& r)
{
    REQUIRE_GPU();
    const IntData data(random_ints(1000, seed(5)));
    for (int block : {0, -32, 16, 33, 96, 2048}) {
        const auto got = checker::run(reduction_call(r, data, 0, 1000, block));
        check_rejected(r.task, call(r.op, 1000, block), got);
    }
    checker::Call null_input(r.op, 1000, 256);
    for (const auto& [key, value] : r.params) null_input.param(key, value);
    null_input.null(sizeof(int)).output<long long>(1, poison);
    check_rejected(r.task, r.op + " with a null d_in and n = 1000", checker::run(null_input));
    checker::Call null_total(r.op, 1000, 256);
    for (const auto& [key, value] : r.params) null_total.param(key, value);
    null_total.input(data.input(), 0, 1000).null(sizeof(long long));
    check_rejected(r.task, r.op + " with a null d_total", checker::run(null_total));
}

void check_small_sizes(const Reduction& r)
{
    REQUIRE_GPU();
    const IntData data(random_ints(5000, seed(6)));
    for (int block : {32, 256, 1024})
        for (std::size_t n : {std::size_t{1}, std::size_t{33}, std::size_t{1000}, std::size_t{5000}})
            check_reduction(r, data, n, block);
}

void check_race_free(const Reduction& r)
{
    REQUIRE_GPU();
    for (const char* tool : {"racecheck", "synccheck"}) check_tool_clean(r.task, tool, [&] { check_small_sizes(r); });
}

void check_large(const Reduction& r, std::size_t n, std::size_t period, const std::vector<int>& blocks,
                 const std::vector<std::size_t>& firsts, std::size_t extra_bytes)
{
    REQUIRE_GPU_MEMORY(n * sizeof(int) + extra_bytes + (std::size_t{512} << 20));
    const std::vector<int> values = random_ints(period, seed(7));
    const checker::Input tile(values);
    const auto below = [&](std::size_t end) { return periodic_sum_reference(values.data(), period, end); };
    for (int block : blocks)
        for (std::size_t first : firsts) {
            checker::Call c(r.op, n - first, block);
            for (const auto& [key, value] : r.params) c.param(key, value);
            c.periodic(tile, n - first, r.overwrites_input ? boundary::Role::inout : boundary::Role::in, first)
                .output<long long>(1, poison)
                .timeout(std::chrono::seconds(300));
            const std::string what = call(r.op, n - first, block) +
                                     (first > 0 ? " starting " + std::to_string(first) + " element(s) past a 16-byte boundary" : "") +
                                     " (past 2^" + std::to_string(n >> 32 ? 32 : 31) + " elements: is every index 64-bit?)";
            const checker::Result got = checker::run(c);
            if (!returned(r.task, what, got)) return;
            CHECK_RESULT(r.task, what, got.element<long long>(1), below(n) - below(first));
        }
}

void check_lesson_subject(const Reduction& r)
{
    REQUIRE_GPU();
    const std::size_t n = std::size_t{1} << 20;
    const IntData data(random_ints(n, seed(8)));
    check_reduction(r, data, n, 256);
}

}  // namespace course::testing
