// Chapter 03 benchmark (docs/03_interleaved.md, "The benchmark"): the progression against CUB DeviceReduce::Sum,
// then by size; every result is verified before it is timed.
//   meson test -C build --benchmark --suite 03_interleaved
#include "interleaved_problem.hpp"

int main(int argc, char** argv)
{
    return course::bench_main<InterleavedProblem>(argc, argv, "the 03_interleaved progression against CUB "
                                                              "DeviceReduce::Sum");
}
