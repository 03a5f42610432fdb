#include "course/reduction_checks.hpp"

#include "course/battery.hpp"
#include "course/data.hpp"
#include "course/performance.hpp"
#include "course/reference.hpp"
#include "course/testing.hpp"

#include <algorithm>
#include <chrono>
#include <climits>
#include <map>
#include <memory>

namespace course::testing {
namespace {

constexpr unsigned char poison = total_poison;

std::string described(const Reduction& r, std::size_t n, int block, const std::string& what)
{
    return what.empty() ? call(r.op, n, block) : what;
}

}  // namespace

std::size_t largest_standard_size() { return largest_of(standard_sizes); }

std::pair<std::string, long long> new_workspace()
{
    static long long cases = 0;
    return {"workspace", ++cases};
}

IntData::IntData(const std::vector<int>& values) : RangeData(values, sum_reference) {}
IntData::IntData(checker::Input values) : RangeData(std::move(values), sum_reference) {}

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

void check_large(const Reduction& r, std::size_t n, std::size_t period, const std::vector<int>& blocks,
                 const std::vector<std::size_t>& firsts, std::size_t extra_bytes, std::size_t margin)
{
    REQUIRE_GPU_MEMORY(n * sizeof(int) + extra_bytes + margin);
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
    const IntData data(random_ints(lesson_n, seed(8)));
    check_reduction(r, data, lesson_n, lesson_block);
}

std::optional<Profile> lesson_profile(const std::vector<Reduction>& rs, const std::vector<std::string>& metrics)
{
    std::vector<std::string> kernels;
    for (const Reduction& r : rs) kernels.push_back(r.op + "_kernel");
    const auto by_kernel = ncu_profile(kernels, metrics, [&] {
        for (const Reduction& r : rs) check_lesson_subject(r);
    });
    if (!by_kernel) return std::nullopt;
    Profile profile;
    for (std::size_t i = 0; i < rs.size(); ++i) {
        profile[rs[i].op] = by_kernel->at(kernels[i]);
        for (const std::string& metric : metrics)
            MESSAGE(metric << ", n = " << lesson_n << ", block = " << lesson_block << ": " << rs[i].op << " "
                           << profile[rs[i].op].at(metric));
    }
    return profile;
}

// ---- dependencies --------------------------------------------------------------------------------------------
namespace {

// "" when a probe's call returned `expected` as its total (buffer 1), else what it did instead.
std::string probe_wrong(const checker::Result& got, long long expected)
{
    if (!got.ok()) return got.what();
    const long long total = got.element<long long>(1);
    return total == expected ? "" : "returned " + std::to_string(total) + ", expected " + std::to_string(expected);
}

// "" when the probe sums right on a few sizes and blocks, else the first wrong result.
std::string probe_failure(const Dependency& d)
{
    static std::map<std::string, std::string> verdicts;  // each probe runs once per program
    if (const auto known = verdicts.find(d.probe); known != verdicts.end()) return known->second;
    const IntData data(random_ints(70001, seed(7)));
    const Reduction probe{d.task, d.probe};
    for (int block : {32, 64, 256, 1024})
        for (std::size_t n : {std::size_t{1}, std::size_t{33}, std::size_t{1000}, std::size_t{70001}}) {
            const checker::Result got = checker::run(reduction_call(probe, data, 0, n, block));
            if (const std::string wrong = probe_wrong(got, data.sum(0, n)); !wrong.empty())
                return verdicts[d.probe] = call(d.probe, n, block) + " " + wrong;
        }
    return verdicts[d.probe] = "";
}

// The dependencies that index the input, past 2^31 elements (n ints of a random period of `period`).
bool dependencies_pass_large(const std::string& task, const std::vector<Dependency>& depends, std::size_t n,
                             std::size_t period)
{
    const std::vector<int> values = random_ints(period, seed(9));
    const checker::Input tile(values);
    const long long expected = periodic_sum_reference(values.data(), period, n);
    for (const Dependency& d : depends) {
        if (!d.loads) continue;
        const checker::Result got = checker::run(checker::Call(d.probe, n, 256)
                                                     .periodic(tile, n)
                                                     .output<long long>(1, poison)
                                                     .timeout(std::chrono::seconds(300)));
        if (const std::string wrong = probe_wrong(got, expected); !wrong.empty()) {
            return depends_on(task, d.task, d.function, "past 2^31 elements: " + call(d.probe, n, 256) + " " + wrong);
        }
    }
    return true;
}

}  // namespace

bool dependencies_pass(const std::string& task, const std::vector<Dependency>& depends)
{
    for (const Dependency& d : depends)
        if (const std::string wrong = probe_failure(d); !wrong.empty()) {
            return depends_on(task, d.task, d.function, wrong);
        }
    return true;
}

// ---- rejections that name the argument --------------------------------------------------------------------------
checker::Call Launcher::call(std::size_t n, int block) const
{
    checker::Call c(op, n, block);
    for (const auto& [key, value] : params) c.param(key, value);
    return c;
}

void check_rejects_naming(const std::string& task, const Launcher& l)
{
    const auto rejected = [&](const std::string& what, checker::Call c, const std::string& named) {
        const checker::Result got = checker::run(c);
        check_rejected(task, what, got);
        if (got.rejected())
            VERIFY(got.message.find(named) != std::string::npos,
                   task << ": " << what << " threw \"" << got.message << "\", which does not name " << named);
    };
    for (int block : {-32, 0, 1, 16, 31, 33, 48, 96, 1000, 2048, 4096})
        rejected(testing::call(l.name, 0) + " with block " + std::to_string(block),
                 l.call(0, block).null(l.in_elem).output(l.total_elem, 1, poison), "block");
    rejected(l.name + " with a null d_total", l.call(0, 256).null(l.in_elem).null(l.total_elem), "d_total");
    rejected(l.name + " with a null d_in and n = 1", l.call(1, 256).null(l.in_elem).output(l.total_elem, 1, poison),
             "d_in");
    if (l.in_elem > 1)
        rejected(l.name + " with d_in at address 0x1001",
                 l.call(1, 256).fake(l.in_elem, 0x1001).output(l.total_elem, 1, poison), "aligned");
}

// ---- the declared battery ---------------------------------------------------------------------------------------
std::vector<Reduction> ReductionTask::reductions() const
{
    Params params = params_;
    if (workspace_per_case_) params.push_back(new_workspace());
    std::vector<Reduction> found;
    for (const std::string& op : ops_) found.push_back({task_, op, in_place_, params});
    return found;
}

namespace {

// "(2^21 - 1)" for 2097151, INT_MAX, else the number.
std::string value_text(int value)
{
    if (value == INT_MAX) return "INT_MAX";
    for (int k = 1; k < 31; ++k)
        if (value == (1 << k) - 1) return "(2^" + std::to_string(k) + " - 1)";
    return std::to_string(value);
}

// "a", "a and b", "a, b and c"
std::string listed(const std::vector<std::string>& items)
{
    std::string s;
    for (std::size_t i = 0; i < items.size(); ++i)
        s += (i == 0 ? "" : i + 1 == items.size() ? " and " : ", ") + items[i];
    return s;
}

}  // namespace

int ReductionTask::registered(const char* file, int line) const
{
    const ReductionTask t = *this;
    const bool plural = t.ops_.size() > 1;
    // Every case that runs the task's kernels: the GPU, then the earlier tasks' functions they call.
    const auto each = [t](const std::function<void(const Reduction&)>& check) {
        return [t, check] {
            REQUIRE_GPU();
            if (!dependencies_pass(t.task_, t.depends_)) return;
            for (const Reduction& r : t.reductions()) check(r);
        };
    };
    TaskCases cases{t.task_,
                    t.label_ + ": 1..8, standard sizes x every block, negative values" +
                        (t.in_place_ ? "" : ", input untouched") + (t.full_int_range_ ? ", full int range" : ""),
                    each([t](const Reduction& r) {
                        check_standard_sizes(r);
                        if (t.full_int_range_) check_full_int_range(r);
                    }),
                    {{t.label_ + ": values at +-" + value_text(t.value_) + ", 64-bit total",
                      each([t](const Reduction& r) { check_extreme_values(r, t.value_); })},
                     {t.label_ + (plural ? " read" : " reads") + " nothing at or past n",
                      each(check_nothing_read_past_n)},
                     {t.label_ + " on a stream of its own", each(check_own_stream)}}};
    std::vector<std::string> rejected{"bad block sizes", t.naming_ ? "null and misaligned pointers" : "null pointers"};
    if (t.rejects_also_) rejected.push_back(t.rejects_what_);
    cases.own.emplace_back(t.label_ + (plural ? " reject " : " rejects ") + listed(rejected) +
                               (t.naming_ ? ", naming what is wrong" : ""),
                           [t] {
                               REQUIRE_GPU();
                               for (const Reduction& r : t.reductions()) {
                                   check_rejects_bad_arguments(r);
                                   if (t.naming_)
                                       check_rejects_naming(t.task_,
                                                            {r.op, r.op, sizeof(int), sizeof(long long), r.params});
                               }
                               if (t.rejects_also_)
                                   for (const Reduction& r : t.reductions()) t.rejects_also_(r);
                           });
    for (const auto& [name, check] : t.also_)
        cases.own.emplace_back(name, [task = t.task_, check = check] { check(task); });
    if (t.race_)
        cases.race = [t] {
            REQUIRE_GPU();
            if (!dependencies_pass(t.task_, t.depends_)) return;
            const std::vector<Reduction> reductions = t.reductions();
            const std::vector<bool> clean = check_race_free(t.task_, [&] {
                for (const Reduction& r : reductions) check_small_sizes(r);
            });
            for (std::size_t i = 0; i < race_tools.size(); ++i) {
                if (clean[i]) continue;
                // an earlier task's warp synchronization that these kernels use: a race there is that task's
                for (const Dependency& d : t.depends_)
                    if (d.synchronizes) {
                        const Reduction probe{d.task, d.probe};
                        check_tool_clean(t.task_ + ": depends on " + d.task + " (" + d.function + "), which fails; " +
                                             d.task,
                                         race_tools[i], [&] { check_small_sizes(probe); });
                    }
            }
        };
    if (t.large_n_ > 0) {
        const bool misaligned = std::any_of(t.firsts_.begin(), t.firsts_.end(), [](std::size_t f) { return f > 0; });
        cases.large_title = t.label_ + " past 2^" + (t.large_n_ >> 32 ? "32" : "31") + " elements" +
                            (misaligned ? ", aligned and misaligned" : "");
        cases.large = [t] {
            REQUIRE_GPU_MEMORY(t.large_n_ * sizeof(int) + t.extra_bytes_ + t.margin_);
            if (!dependencies_pass(t.task_, t.depends_)) return;
            if (!dependencies_pass_large(t.task_, t.depends_, t.large_n_, t.period_)) return;
            for (const Reduction& r : t.reductions())
                check_large(r, t.large_n_, t.period_, t.large_blocks_, t.firsts_, t.extra_bytes_, t.margin_);
        };
    }
    register_task(file, line, cases);
    if (!t.performance_op_.empty()) {
        constexpr std::size_t n = std::size_t{1} << 28;
        Performance p{t.task_, t.performance_op_, "reduce", n, "2^28 ints", 4.0 * n, 4.0 * n,
                      n * sizeof(int) + (std::size_t{512} << 20), {""}, nullptr};
        p.timed = [t](const std::string&, std::uint64_t seed) {
            Reduction r = t.reductions().front();
            for (const Reduction& each : t.reductions())
                if (each.op == t.performance_op_) r = each;
            // A gigabyte made and summed on all cores: the GPU, held alone for these calls, waits for it.
            const auto data = std::make_shared<const IntData>(
                checker::Input(n, sizeof(int), [=](void* out) { random_ints(static_cast<int*>(out), n, seed); }));
            const long long expected = merge_chunks<long long>(
                n, [&](std::size_t first, std::size_t last) { return sum_reference(data->values() + first, last - first); },
                [](long long& total, long long part) { total += part; });
            return TimedCall{reduction_call(r, *data, 0, n, 256),
                             [data, expected](checker::Session&, const checker::Result& got) {
                                 const long long total = got.element<long long>(1);
                                 return total == expected ? std::string() : "returned " + std::to_string(total) +
                                                                                ", expected " + std::to_string(expected);
                             }};
        };
        register_performance(file, line, p);
    }
    return 0;
}

int register_tasks(const char* file, int line, std::initializer_list<ReductionTask> tasks)
{
    for (const ReductionTask& t : tasks) t.registered(file, line);
    return 0;
}

}  // namespace course::testing
