// Chapter 04 benchmark (docs/04_unroll_warp.md, "The benchmark"): the progression against CUB DeviceReduce::Sum,
// at L2-resident sizes, and a size sweep of reduce_vectorized; every result is verified before it is timed.
//   meson test -C build --benchmark --suite 04_unroll_warp
#include "unroll_warp_problem.hpp"

int main(int argc, char** argv)
{
    return course::bench_main<UnrollWarpProblem>(argc, argv, "the 04_unroll_warp progression against CUB "
                                                             "DeviceReduce::Sum, at L2-resident sizes, and a size "
                                                             "sweep");
}
