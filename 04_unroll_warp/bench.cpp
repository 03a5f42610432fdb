// Chapter 04 benchmark: every int kernel of the progression and CUB's DeviceReduce::Sum on n int32 (default
// 2^28 = 1 GiB), median of --runs timed runs after a warm-up; then the same for 04.1's best kernel, 04.2 and
// 04.3 at 2^20 and 2^22 ints, inputs that stay in the L2 cache from one run to the next (where 04.2 and 04.3
// can gain what they cannot at 2^28); then a size sweep, n = 2^10, 2^12, ..., n, of reduce_vectorized (at block
// 1024) against CUB, cold (L2 flushed) and hot. Every result is verified before it is timed (a wrong kernel gets
// no time).
// --kernel NAME runs only the named kernels. With --csv PATH the tables go to PATH, the sweep to PATH with
// "-sweep" before ".csv".
//   meson test -C build --benchmark --suite 04_unroll_warp
#include "unroll_warp_problem.hpp"

int main(int argc, char** argv)
{
    return course::bench_main<UnrollWarpProblem>(argc, argv, "the 04_unroll_warp progression against CUB "
                                                             "DeviceReduce::Sum, at L2-resident sizes, and a size "
                                                             "sweep");
}
