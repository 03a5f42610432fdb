// Chapter 02 benchmark: the progression and CUB's DeviceReduce::Sum on n int32 (default 2^28 = 1 GiB), median
// of --runs timed runs after a warm-up, then reduce_neighbored_less and CUB by size (2^10 up to n, cold and
// hot); every kernel's result is verified first (a wrong kernel gets no time).
//   meson test -C build --benchmark --suite 02_neighbored
//   build/bin/neighbored_bench --kernel reduce_neighbored_less --runs 50      (chapter built alone)
#include "neighbored_problem.hpp"
#include "neighbored_progression.hpp"

#include "course/args.hpp"
#include "course/chapter.hpp"
#include "course/check.hpp"

int main(int argc, char** argv)
{
    course::ArgSpec spec{"neighbored_bench", "the 02_neighbored progression against CUB DeviceReduce::Sum",
                         std::size_t{1} << 28, std::size_t{1} << 30};
    spec.benchmark = true;
    spec.steps = course::facts_of(neighbored_progression);
    const course::Args args = course::parse_args(argc, argv, spec);

    return course::run_gpu_main(spec.program, [&] {
        NeighboredProblem problem(args);
        course::cub_baseline(problem);
        return course::run_bench(spec, args, problem);
    });
}
