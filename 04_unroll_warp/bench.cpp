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
#include "unroll_warp_progression.hpp"

#include "course/args.hpp"
#include "course/chapter.hpp"
#include "course/check.hpp"

int main(int argc, char** argv)
{
    course::ArgSpec spec{"unroll_warp_bench",
                         "the 04_unroll_warp progression against CUB DeviceReduce::Sum, at L2-resident sizes, and a "
                         "size sweep",
                         std::size_t{1} << 28, std::size_t{1} << 30};
    spec.benchmark = true;
    spec.steps = course::facts_of(unroll_warp_progression);
    const course::Args args = course::parse_args(argc, argv, spec);

    return course::run_gpu_main(spec.program, [&] {
        UnrollWarpProblem problem(args);
        course::cub_baseline(problem);
        return course::run_bench(spec, args, problem);
    });
}
