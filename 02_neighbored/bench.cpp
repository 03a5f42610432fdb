// Chapter 02 benchmark: the progression and CUB's DeviceReduce::Sum on n int32 (default 2^28 = 1 GiB), median
// of --runs timed runs after a warm-up, then reduce_neighbored_less and CUB by size (2^10 up to n, cold and
// hot); every kernel's result is verified first (a wrong kernel gets no time).
//   meson test -C build --benchmark --suite 02_neighbored
//   build/bin/neighbored_bench --kernel reduce_neighbored_less --runs 50      (chapter built alone)
#include "neighbored_problem.hpp"

int main(int argc, char** argv)
{
    return course::bench_main<NeighboredProblem>(argc, argv, "the 02_neighbored progression against CUB "
                                                             "DeviceReduce::Sum");
}
