// Chapter 01 checks. Every test case name starts with its task, so `meson test` shows one line per task and a
// failure reads e.g. "TODO(01.2): recursive_sum_in_place(n=5) returned 12, expected 15".
#include "serial_reduce.hpp"

#include "course/data.hpp"
#include "course/reference.hpp"
#include "course/testing.hpp"

#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <exception>
#include <functional>
#include <string>
#include <vector>

using course::testing::call;

namespace {

// Odd and even, powers of two and their neighbours, and one a little past 2^20.
const std::size_t sizes[] = {0, 1, 2, 3, 5, 7, 8, 9, 31, 32, 33, 1000, 1023, 1024, 1025, (1u << 20) + 3};

const std::vector<int> one_to_eight{1, 2, 3, 4, 5, 6, 7, 8};  // the README's tree: 36

// Four values near INT_MAX: the total (about 8.6e9) does not fit in 32 bits.
const std::vector<int> near_int_max{2147483000, 2147483001, 2147483002, 2147483003};

std::vector<std::int64_t> widen(const std::vector<int>& v) { return {v.begin(), v.end()}; }

// ---- recursion depth -----------------------------------------------------------------------------------
// The library is built with -fno-optimize-sibling-calls (meson.build), so every recursive call keeps its stack
// frame: a recursion on n - 1 elements really is n frames deep, as it would be at -O0 or with another compiler.
// Two checks per recursive task, in a case that runs before its other cases (doctest runs a file's cases in
// order), since a recursion as deep as n would crash those (n = 2^20+3) without saying why:
//  1. the depth probe: n = 2^18 on a 64 MiB stack of its own, painted beforehand; the deepest byte written
//     tells the stack used. A tree of halves is 18 levels deep: about 1 KiB. One element per level takes
//     megabytes (GCC -O2: 10 to 16 bytes per element). Fails with a message that says so, no crash.
//  2. n = 2^27 on a stack of exactly 8 MiB, Linux's usual default, even where `ulimit -s` is unlimited (which
//     would let a recursion 2^27 levels deep succeed). An overflow crashes there, under this case's name.
const std::size_t probe_n = std::size_t{1} << 18;
const std::size_t probe_stack = std::size_t{64} << 20;
const std::size_t probe_limit = std::size_t{64} << 10;  // a tree of halves: ~18 frames, far below this
const std::size_t depth_n = std::size_t{1} << 27;
const std::size_t depth_stack = std::size_t{8} << 20;

struct StackRun {
    std::int64_t result = 0;
    std::size_t used = 0;  // bytes of its stack the call used (its deepest write below the thread's entry)
};

struct StackJob {
    const std::function<std::int64_t()>* fn = nullptr;
    std::int64_t result = 0;
    std::exception_ptr error;
    const unsigned char* entry = nullptr;
};

void* run_stack_job(void* arg)
{
    auto& job = *static_cast<StackJob*>(arg);
    volatile unsigned char here = 0;
    job.entry = const_cast<const unsigned char*>(&here);
    // An overflow faults in the guard region below the stack. doctest's SIGSEGV handler runs on an alternate
    // signal stack, but sigaltstack() is per thread: give this thread its own, so that the handler can run and
    // report the crash under the current test case ("TODO(01.x) ... CRASHED: SIGSEGV").
    std::vector<char> alt(std::size_t{256} << 10);
    stack_t on{};
    on.ss_sp = alt.data();
    on.ss_size = alt.size();
    sigaltstack(&on, nullptr);
    try {
        job.result = (*job.fn)();
    } catch (...) {
        job.error = std::current_exception();
    }
    stack_t off{};
    off.ss_flags = SS_DISABLE;
    sigaltstack(&off, nullptr);
    return nullptr;
}

// Runs fn() on a thread whose stack is exactly `stack_bytes` long, whatever `ulimit -s` says, and measures how
// much of it fn used.
StackRun run_on_stack(std::size_t stack_bytes, const std::function<std::int64_t()>& fn)
{
    constexpr unsigned char paint = 0xA5;
    const std::size_t guard = std::size_t{1} << 20;  // PROT_NONE: an overflow faults instead of writing on
    void* mem = mmap(nullptr, guard + stack_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                     -1, 0);
    REQUIRE_MESSAGE(mem != MAP_FAILED,
                    "mmap of a " << (stack_bytes >> 20) << " MiB stack failed: " << std::string(std::strerror(errno)));
    struct Unmap {
        void* p;
        std::size_t n;
        ~Unmap() { munmap(p, n); }
    } unmap{mem, guard + stack_bytes};
    auto* stack = static_cast<unsigned char*>(mem) + guard;
    REQUIRE(mprotect(mem, guard, PROT_NONE) == 0);
    std::memset(stack, paint, stack_bytes);

    StackJob job;
    job.fn = &fn;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstack(&attr, stack, stack_bytes);
    pthread_t thread;
    const int started = pthread_create(&thread, &attr, run_stack_job, &job);
    pthread_attr_destroy(&attr);
    REQUIRE_MESSAGE(started == 0, "pthread_create failed: " << std::string(std::strerror(started)));
    pthread_join(thread, nullptr);
    if (job.error) std::rethrow_exception(job.error);

    std::size_t lowest = 0;
    while (lowest < stack_bytes && stack[lowest] == paint) ++lowest;
    StackRun run;
    run.result = job.result;
    run.used = stack + lowest < job.entry ? static_cast<std::size_t>(job.entry - (stack + lowest)) : 0;
    return run;
}

std::string kib(std::size_t bytes) { return std::to_string((bytes + 1023) / 1024) + " KiB"; }

// Check 1 (see above): the sum at n = 2^18 and the stack it took. Returns whether the depth was fine.
bool check_stack_use(const char* task, const char* name, const std::function<std::int64_t()>& sum,
                     std::int64_t expected)
{
    const StackRun run = run_on_stack(probe_stack, sum);
    CHECK_RESULT(task, call(name, probe_n), run.result, expected);
    VERIFY(run.used <= probe_limit,
           std::string(task) << ": " << call(name, probe_n) << " used " << kib(run.used) << " of stack: its "
                             << "recursion depth grows with n, and n = 2^27 would need about " << (run.used >> 11)
                             << " MiB, where 8 MiB is the usual limit. Recurse on halves: depth log2(n) = 18, about "
                             << "1 KiB (limit " << kib(probe_limit) << ")");
    return run.used <= probe_limit;
}

}  // namespace

// ---------------------------------------------------------------------------------------------------- 01.1
TEST_CASE("TODO(01.1) serial_sum: 1..8, sizes 0 to 2^20+3, negative values, 64-bit total")
{
    CHECK_RESULT("TODO(01.1)", call("serial_sum", 8), serial_sum(one_to_eight.data(), 8), 36);
    CHECK_RESULT("TODO(01.1)", call("serial_sum", 4) << " of four values near INT_MAX",
                 serial_sum(near_int_max.data(), 4), course::sum_reference(near_int_max.data(), 4));
    for (std::size_t n : sizes) {
        const auto data = course::random_ints(n, course::testing::seed(n));
        CHECK_RESULT("TODO(01.1)", call("serial_sum", n), serial_sum(data.data(), n),
                     course::sum_reference(data.data(), n));
    }
}

TEST_CASE("TODO(01.1) serial_sum: n = 2^27")
{
    const std::size_t n = std::size_t{1} << 27;
    const auto data = course::random_ints(n, course::testing::seed(1));
    CHECK_RESULT("TODO(01.1)", call("serial_sum", n), serial_sum(data.data(), n), course::sum_reference(data.data(), n));
}

// ---------------------------------------------------------------------------------------------------- 01.2
// The depth first: a recursion as deep as n would crash the next case (n = 2^20+3) before it could be named.
TEST_CASE("TODO(01.2) recursive_sum_in_place: recursion depth (stack used at n = 2^18, n = 2^27 on 8 MiB)")
{
    {
        const auto data = course::random_ints(probe_n, course::testing::seed(4));
        auto work = widen(data);
        if (!check_stack_use("TODO(01.2)", "recursive_sum_in_place",
                             [&] { return recursive_sum_in_place(work.data(), probe_n); },
                             course::sum_reference(data.data(), probe_n)))
            return;  // n = 2^27 would crash
    }
    const auto data = course::random_ints(depth_n, course::testing::seed(2));
    auto work = widen(data);
    const StackRun run = run_on_stack(depth_stack, [&] { return recursive_sum_in_place(work.data(), depth_n); });
    CHECK_RESULT("TODO(01.2)", call("recursive_sum_in_place", depth_n) << " on an 8 MiB stack", run.result,
                 course::sum_reference(data.data(), depth_n));
}

TEST_CASE("TODO(01.2) recursive_sum_in_place: 1..8, odd sizes, negative values, 64-bit total")
{
    auto example = widen(one_to_eight);
    CHECK_RESULT("TODO(01.2)", call("recursive_sum_in_place", 8), recursive_sum_in_place(example.data(), 8), 36);
    auto big = widen(near_int_max);
    CHECK_RESULT("TODO(01.2)", call("recursive_sum_in_place", 4) << " of four values near INT_MAX",
                 recursive_sum_in_place(big.data(), 4), course::sum_reference(near_int_max.data(), 4));
    for (std::size_t n : sizes) {
        const auto data = course::random_ints(n, course::testing::seed(n));
        auto work = widen(data);
        CHECK_RESULT("TODO(01.2)", call("recursive_sum_in_place", n), recursive_sum_in_place(work.data(), n),
                     course::sum_reference(data.data(), n));
    }
}

// ---------------------------------------------------------------------------------------------------- 01.3
// The depth first, as for 01.2.
TEST_CASE("TODO(01.3) recursive_sum: recursion depth (stack used at n = 2^18, n = 2^27 on 8 MiB)")
{
    {
        const auto data = course::random_ints(probe_n, course::testing::seed(5));
        if (!check_stack_use("TODO(01.3)", "recursive_sum", [&] { return recursive_sum(data.data(), probe_n); },
                             course::sum_reference(data.data(), probe_n)))
            return;  // n = 2^27 would crash
    }
    const auto data = course::random_ints(depth_n, course::testing::seed(3));
    const StackRun run = run_on_stack(depth_stack, [&] { return recursive_sum(data.data(), depth_n); });
    CHECK_RESULT("TODO(01.3)", call("recursive_sum", depth_n) << " on an 8 MiB stack", run.result,
                 course::sum_reference(data.data(), depth_n));
}

TEST_CASE("TODO(01.3) recursive_sum: 1..8, odd sizes, negative values, input untouched")
{
    CHECK_RESULT("TODO(01.3)", call("recursive_sum", 8), recursive_sum(one_to_eight.data(), 8), 36);
    CHECK_RESULT("TODO(01.3)", call("recursive_sum", 4) << " of four values near INT_MAX",
                 recursive_sum(near_int_max.data(), 4), course::sum_reference(near_int_max.data(), 4));
    for (std::size_t n : sizes) {
        const auto data = course::random_ints(n, course::testing::seed(n));
        const auto copy = data;
        CHECK_RESULT("TODO(01.3)", call("recursive_sum", n), recursive_sum(data.data(), n),
                     course::sum_reference(copy.data(), n));
        CHECK_ARRAY("TODO(01.3)", call("recursive_sum", n) << " changed its input", data.data(), copy.data(), n);
    }
}
