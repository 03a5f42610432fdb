// Chapter 06's runner: the one program that links your histogram_student.cuh (through histogram_launch.cu). The
// checks (checks.cpp) send it calls and judge what comes back (course/runner.hpp). Every operation is one of
// the chapter's functions, named after it (the GPU ones: the progression's steps): buffer 0 the bytes, buffer 1
// the 256 bins.
#include "histogram_progression.hpp"

#include "course/runner.hpp"

#include <cstddef>
#include <cstdint>

namespace {

using course::runner::Call;

// Task 06.1 runs on the host: its buffers are host memory (a host operation).
void cpu(Call& c) { histogram_cpu(c.buffer<std::uint8_t>(0), c.buffer<unsigned>(1), c.n); }

void launch(Call& c, HistogramLauncher* histogram)
{
    histogram(c.buffer<std::uint8_t>(0), c.buffer<unsigned>(1), c.n, c.block, c.stream());
}

}  // namespace

int main()
{
    return course::runner::serve(
        {{{"histogram_cpu", cpu, true}}, course::runner::ops_of(histogram_progression, launch)});
}
