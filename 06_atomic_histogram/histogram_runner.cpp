// Chapter 06's runner: the one program that links your histogram_student.cuh (through histogram_launch.cu). The
// checks (checks.cpp) send it calls and judge what comes back (course/runner.hpp). Every operation is one of
// the chapter's functions, named after it: buffer 0 the bytes, buffer 1 the 256 bins.
#include "histogram.hpp"

#include "course/runner.hpp"

#include <cstddef>
#include <cstdint>

namespace {

using course::runner::Call;

// Task 06.1 runs on the host: its buffers are host memory (a host operation).
void cpu(Call& c) { histogram_cpu(c.buffer<std::uint8_t>(0), c.buffer<unsigned>(1), c.n); }

template <void (*Launch)(const std::uint8_t*, unsigned*, std::size_t, int, cudaStream_t)>
void launch(Call& c)
{
    Launch(c.buffer<std::uint8_t>(0), c.buffer<unsigned>(1), c.n, c.block, c.stream());
}

const course::runner::Op ops[] = {
    {"histogram_cpu", cpu, true},
    {"histogram_global_atomics", launch<histogram_global_atomics>},
    {"histogram_shared_atomics", launch<histogram_shared_atomics>},
    {"histogram_sub_histograms", launch<histogram_sub_histograms>},
    {"histogram_vectorized", launch<histogram_vectorized>},
};

}  // namespace

int main() { return course::runner::serve(ops); }
