// The runner of the boundary's own checks (test_boundary.cpp): host operations only, so that they run on any
// machine. Each one does one thing the checks must see exactly as it happened.
#include "course/runner.hpp"

#include <cstdlib>
#include <stdexcept>

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

const course::runner::Op ops[] = {
    {"iota", iota, true},   {"copy", copy, true},   {"write_input", write_input, true},
    {"reject", reject, true}, {"crash", crash, true},
};

}  // namespace

int main() { return course::runner::serve(ops); }
