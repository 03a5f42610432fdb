// Chapter 03's runner: the one program that links your interleaved_student.cuh (through interleaved_launch.cu).
// The checks (checks.cpp) send it calls and judge what comes back (course/runner.hpp). Every operation is a
// launcher, a step of the progression by name: buffer 0 the input, buffer 1 the total.
#include "interleaved_progression.hpp"

#include "course/runner.hpp"

namespace {

using course::runner::Call;

// Both tables' launchers: reduce_interleaved's input is int*, the shared-memory trees' const int*.
constexpr auto reduce = [](Call& c, auto* launch) {
    launch(c.buffer<int>(0), c.buffer<long long>(1), c.n, c.block, c.stream());
};

}  // namespace

int main()
{
    return course::runner::serve({course::runner::ops_of(interleaved_global_progression, reduce),
                                  course::runner::ops_of(interleaved_shared_progression, reduce)});
}
