// Chapter 03 benchmark: the progression and CUB's DeviceReduce::Sum on n int32 (default 2^28 = 1 GiB), median
// of --runs timed runs after a warm-up, then reduce_shared_sequential and CUB by size (2^10 up to n, cold and
// hot); every kernel's result is verified first (a wrong kernel gets no time).
//   meson test -C build --benchmark --suite 03_interleaved
//   build/bin/interleaved_bench --kernel reduce_shared_sequential --runs 50      (chapter built alone)
#include "interleaved_problem.hpp"

int main(int argc, char** argv)
{
    return course::bench_main<InterleavedProblem>(argc, argv, "the 03_interleaved progression against CUB "
                                                              "DeviceReduce::Sum");
}
