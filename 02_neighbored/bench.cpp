// Chapter 02 benchmark (docs/02_neighbored.md, "The benchmark"): the progression against CUB DeviceReduce::Sum,
// then by size; every result is verified before it is timed.
//   meson test -C build --benchmark --suite 02_neighbored
#include "neighbored_problem.hpp"

int main(int argc, char** argv)
{
    return course::bench_main<NeighboredProblem>(argc, argv, "the 02_neighbored progression against CUB "
                                                             "DeviceReduce::Sum");
}
