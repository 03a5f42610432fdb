// Chapter 01 checks: each call goes to the chapter's runner (serial_reduce_runner.cpp), and only what comes back
// is judged, against the CPU sum. A failure reads e.g. "TODO(01.2): recursive_sum_in_place(n=5) returned 12, ...".
#include "course/battery.hpp"
#include "course/data.hpp"
#include "course/reduction_checks.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

using course::checker::Call;
using course::checker::Result;
using course::testing::IntData;
using course::testing::call;

namespace {

// The three functions as data (course::testing::Reduction): the task, the runner's operation of the function's name,
// and whether the checks leave its input unchecked (recursive_sum_in_place works on a widened copy; serial_sum's is
// const); recursive_sum's must come back unchanged.
using Function = course::testing::Reduction;
const Function serial{"TODO(01.1)", "serial_sum", true};
const Function in_place{"TODO(01.2)", "recursive_sum_in_place", true};
const Function recursive{"TODO(01.3)", "recursive_sum"};

// Odd and even, powers of two and their neighbours, and one a little past 2^20.
const std::size_t sizes[] = {0, 1, 2, 3, 5, 7, 8, 9, 31, 32, 33, 1000, 1023, 1024, 1025, (1u << 20) + 3};
const std::vector<int> one_to_eight{1, 2, 3, 4, 5, 6, 7, 8};  // the README's tree: 36
// Four values near INT_MAX: the total (about 8.6e9) does not fit in 32 bits.
const std::vector<int> near_int_max{2147483000, 2147483001, 2147483002, 2147483003};
constexpr unsigned char poison = 0xA5;

// f over data[0, n), on a stack of `stack` bytes when not 0 (the depth checks leave the input's check to the
// others: it is half a gigabyte at n = 2^27).
Result sum(const Function& f, const IntData& data, std::size_t n, std::size_t stack = 0)
{
    Call c(f.op, n);
    c.input(data.input(), 0, n);
    if (!f.overwrites_input && stack == 0) c.returned();
    c.output<std::int64_t>(1, poison);
    if (stack > 0) c.param("stack", static_cast<long long>(stack));
    return course::checker::run(c);
}

// The call returned and its sum is right (and, where that matters, the input came back as it went in): its result.
std::optional<Result> check_sum(const Function& f, const IntData& data, std::size_t n, const std::string& what,
                                std::size_t stack = 0)
{
    const auto r = sum(f, data, n, stack);
    if (!course::testing::returned(f.task, what, r)) return std::nullopt;
    CHECK_RESULT(f.task, what, r.element<std::int64_t>(1), data.sum(0, n));
    if (!f.overwrites_input && stack == 0)
        CHECK_ARRAY(f.task, what << " changed its input", r.elements<int>(0), data.values(), n);
    return r;
}

void check_function(const Function& f)
{
    check_sum(f, IntData(one_to_eight), 8, call(f.op, 8));
    check_sum(f, IntData(near_int_max), 4, call(f.op, 4) + " of four values near INT_MAX");
    const IntData data(course::random_ints(sizes[std::size(sizes) - 1], course::testing::seed(1)));
    for (std::size_t n : sizes) check_sum(f, data, n, call(f.op, n));
}

// ---- recursion depth (README, "Check your work"): the library is built with -fno-optimize-sibling-calls, so a recursion
// on n - 1 elements is n frames deep. n = 2^18 on 64 MiB must use little stack, then n = 2^27 runs on 8 MiB.
const std::size_t probe_n = std::size_t{1} << 18;
const std::size_t probe_stack = std::size_t{64} << 20;
const std::size_t probe_limit = std::size_t{64} << 10;
const std::size_t depth_n = std::size_t{1} << 27;
const std::size_t depth_stack = std::size_t{8} << 20;

std::string kib(long long bytes) { return std::to_string((bytes + 1023) / 1024) + " KiB"; }

void check_depth(const Function& f)
{
    const IntData probe(course::random_ints(probe_n, course::testing::seed(4)));
    const std::string on_64_mib = call(f.op, probe_n) + " on a 64 MiB stack";
    const auto r = check_sum(f, probe, probe_n, on_64_mib, probe_stack);
    if (!r) return;
    const long long used = r->number("stack_used");
    const bool shallow = used >= 0 && static_cast<std::size_t>(used) <= probe_limit;
    VERIFY(shallow, f.task << ": " << on_64_mib << " used " << kib(used) << " of stack: its recursion depth grows "
                           << "with n, and n = 2^27 would need about " << (used >> 11) << " MiB, where 8 MiB is the "
                           << "usual limit. Recurse on halves: depth log2(n) = 18, about 1 KiB (limit "
                           << kib(probe_limit) << ")");
    if (!shallow) return;  // n = 2^27 would crash
    const IntData data(course::random_ints(depth_n, course::testing::seed(2)));
    const std::string what = call(f.op, depth_n) + " on an 8 MiB stack";
    const auto deep = sum(f, data, depth_n, depth_stack);
    VERIFY(deep.ok(), f.task << ": " << what << " " << deep.what()
                             << (deep.outcome == Result::Outcome::crashed
                                     ? " - a recursion as deep as n outgrows the stack: recurse on halves"
                                     : ""));
    if (deep.ok()) CHECK_RESULT(f.task, what, deep.element<std::int64_t>(1), data.sum(0, depth_n));
}

}  // namespace

COURSE_TASK_CASES({serial.task, "serial_sum: 1..8, sizes 0 to 2^20+3, negative values, 64-bit total",
                   [] { check_function(serial); },
                   {{"serial_sum: n = 2^27", [] {
                         const IntData data(course::random_ints(depth_n, course::testing::seed(1)));
                         check_sum(serial, data, depth_n, call(serial.op, depth_n));
                     }}}});
COURSE_TASK_CASES({in_place.task, "recursive_sum_in_place: recursion depth (stack used at n = 2^18, n = 2^27 on 8 MiB)",
                   [] { check_depth(in_place); },
                   {{"recursive_sum_in_place: 1..8, odd sizes, negative values, 64-bit total",
                     [] { check_function(in_place); }}}});
COURSE_TASK_CASES({recursive.task, "recursive_sum: recursion depth (stack used at n = 2^18, n = 2^27 on 8 MiB)",
                   [] { check_depth(recursive); },
                   {{"recursive_sum: 1..8, odd sizes, negative values, input untouched",
                     [] { check_function(recursive); }}}});
