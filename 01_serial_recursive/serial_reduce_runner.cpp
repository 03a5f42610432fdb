// Chapter 01's runner: the one program that links your serial_reduce_student.cpp. The checks (checks.cpp) send
// it calls and judge what comes back (course/runner.hpp).
//
// Every operation takes the input (n ints) as buffer 0 and writes the 64-bit sum to buffer 1. With the parameter
// `stack` (bytes) the function runs on a thread whose stack is exactly that long, whatever `ulimit -s` says,
// and the runner reports how much of it the call used (value "stack_used"): a recursion as deep as n runs out
// of it (the runner then crashes, and the checks say why).
#include "serial_reduce.hpp"

#include "course/runner.hpp"

#include <pthread.h>
#include <sys/mman.h>

#include <cstring>
#include <exception>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

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
    try {
        job.result = (*job.fn)();
    } catch (...) {
        job.error = std::current_exception();
    }
    return nullptr;
}

// fn() on a thread whose stack is `stack_bytes` long, painted first; the deepest byte written below the thread's
// entry tells the stack used. Below the stack lies 1 MiB of PROT_NONE: an overflow faults instead of writing on.
std::int64_t run_on_stack(std::size_t stack_bytes, const std::function<std::int64_t()>& fn, std::size_t& used)
{
    constexpr unsigned char paint = 0xA5;
    const std::size_t guard = std::size_t{1} << 20;
    void* mem = mmap(nullptr, guard + stack_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                     -1, 0);
    if (mem == MAP_FAILED) throw std::runtime_error("mmap of a stack failed");
    struct Unmap {
        void* p;
        std::size_t n;
        ~Unmap() { munmap(p, n); }
    } unmap{mem, guard + stack_bytes};
    auto* stack = static_cast<unsigned char*>(mem) + guard;
    mprotect(mem, guard, PROT_NONE);
    std::memset(stack, paint, stack_bytes);

    StackJob job;
    job.fn = &fn;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstack(&attr, stack, stack_bytes);
    pthread_t thread;
    const int started = pthread_create(&thread, &attr, run_stack_job, &job);
    pthread_attr_destroy(&attr);
    if (started != 0) throw std::runtime_error(std::string("pthread_create failed: ") + std::strerror(started));
    pthread_join(thread, nullptr);
    if (job.error) std::rethrow_exception(job.error);
    std::size_t lowest = 0;
    while (lowest < stack_bytes && stack[lowest] == paint) ++lowest;
    used = stack + lowest < job.entry ? static_cast<std::size_t>(job.entry - (stack + lowest)) : 0;
    return job.result;
}

// The sum of `fn`, on a stack of its own when the call asks for one.
void sum(course::runner::Call& c, const std::function<std::int64_t()>& fn)
{
    std::int64_t total = 0;
    if (c.has("stack")) {
        std::size_t used = 0;
        total = run_on_stack(static_cast<std::size_t>(c.param("stack")), fn, used);
        c.value("stack_used", static_cast<long long>(used));
    } else {
        total = fn();
    }
    *c.buffer<std::int64_t>(1) = total;
}

void serial(course::runner::Call& c)
{
    sum(c, [&] { return serial_sum(c.buffer<int>(0), c.n); });
}

// The in-place tree works on 64-bit values, so that no partial sum can overflow: the caller widens the ints.
void in_place(course::runner::Call& c)
{
    const int* data = c.buffer<int>(0);
    std::vector<std::int64_t> wide(data, data + c.n);
    sum(c, [&] { return recursive_sum_in_place(wide.data(), c.n); });
}

void recursive(course::runner::Call& c)
{
    sum(c, [&] { return recursive_sum(c.buffer<int>(0), c.n); });
}

const course::runner::Op ops[] = {
    {"serial_sum", serial, true},
    {"recursive_sum_in_place", in_place, true},
    {"recursive_sum", recursive, true},
};

}  // namespace

int main() { return course::runner::serve(ops); }
