// The runner of the boundary's own checks (test_boundary.cpp): host operations only, so that they run on any
// machine. Each one does one thing the checks must see exactly as it happened.
#include "course/runner.hpp"

#include <sys/resource.h>

#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <utility>

extern char** environ;

namespace {

// Buffer 0: out[i] = i for its count elements.
void iota(course::runner::Call& c)
{
    int* out = c.buffer<int>(0);
    for (std::size_t i = 0; i < c.count(0); ++i) out[i] = static_cast<int>(i);
}

// Buffer 0 (an input, read where it lies) into buffer 1.
void copy(course::runner::Call& c)
{
    const int* in = c.buffer<int>(0);
    int* out = c.buffer<int>(1);
    for (std::size_t i = 0; i < c.count(0); ++i) out[i] = in[i];
}

// Writes its input, which is mapped read-only: the runner dies.
void write_input(course::runner::Call& c) { c.buffer<int>(0)[0] = 1; }

void reject(course::runner::Call& c)
{
    throw std::invalid_argument("n = " + std::to_string(c.n) + " is not allowed");
}

void crash(course::runner::Call&) { std::abort(); }

// What a fork bomb or a memory hog would do first: raise its limits as far as they go (the hard limit to
// infinity, else the soft one to the hard one). Answers the soft limits it is left with.
void raise_limits(course::runner::Call& c)
{
    const std::pair<const char*, int> limits[] = {
        {"core", RLIMIT_CORE}, {"fsize", RLIMIT_FSIZE}, {"nproc", RLIMIT_NPROC}, {"data", RLIMIT_DATA}};
    for (const auto& [name, resource] : limits) {
        rlimit l{RLIM_INFINITY, RLIM_INFINITY};
        if (setrlimit(resource, &l) != 0 && getrlimit(resource, &l) == 0) {
            l.rlim_cur = l.rlim_max;
            setrlimit(resource, &l);
        }
        getrlimit(resource, &l);
        c.value(name, l.rlim_cur == RLIM_INFINITY ? -1LL : static_cast<long long>(l.rlim_cur));
    }
}

// What the runner's environment holds of the checker's: how many COURSE_ variables (the seed is one), and
// CUDA's hardware queues per context (-1: not set).
void environment(course::runner::Call& c)
{
    long long course_variables = 0;
    for (char** e = environ; *e != nullptr; ++e) course_variables += std::strncmp(*e, "COURSE_", 7) == 0;
    c.value("course_variables", course_variables);
    const char* connections = std::getenv("CUDA_DEVICE_MAX_CONNECTIONS");
    c.value("connections", connections != nullptr ? std::atoll(connections) : -1LL);
}

const course::runner::Op ops[] = {
    {"iota", iota, true},     {"copy", copy, true},   {"write_input", write_input, true},
    {"reject", reject, true}, {"crash", crash, true}, {"raise_limits", raise_limits, true},
    {"environment", environment, true},
};

}  // namespace

int main() { return course::runner::serve(ops); }
