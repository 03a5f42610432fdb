// Chapter 03's runner: the one program that links your interleaved_student.cuh (through interleaved_launch.cu).
// The checks (checks.cpp) send it calls and judge what comes back (course/runner.hpp). Every operation is a
// launcher: buffer 0 the input, buffer 1 the total.
#include "interleaved.hpp"

#include "course/runner.hpp"

namespace {

using course::runner::Call;

void interleaved(Call& c) { reduce_interleaved(c.buffer<int>(0), c.buffer<long long>(1), c.n, c.block, c.stream()); }

template <void (*Launch)(const int*, long long*, std::size_t, int, cudaStream_t)>
void shared(Call& c)
{
    Launch(c.buffer<int>(0), c.buffer<long long>(1), c.n, c.block, c.stream());
}

const course::runner::Op ops[] = {
    {"reduce_interleaved", interleaved},
    {"reduce_shared_modulo", shared<reduce_shared_modulo>},
    {"reduce_shared_strided", shared<reduce_shared_strided>},
    {"reduce_shared_sequential", shared<reduce_shared_sequential>},
};

}  // namespace

int main() { return course::runner::serve(ops); }
