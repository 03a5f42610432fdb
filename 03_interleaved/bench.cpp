// Chapter 03 benchmark: the progression and CUB's DeviceReduce::Sum on n int32 (default 2^28 = 1 GiB), median
// of --runs timed runs after a warm-up, then reduce_shared_sequential and CUB by size (2^10 up to n, cold and
// hot); every kernel's result is verified first (a wrong kernel gets no time).
//   meson test -C build --benchmark --suite 03_interleaved
//   build/bin/interleaved_bench --kernel reduce_shared_sequential --runs 50      (chapter built alone)
#include "interleaved_problem.hpp"
#include "interleaved_progression.hpp"

#include "course/args.hpp"
#include "course/chapter.hpp"
#include "course/check.hpp"

int main(int argc, char** argv)
{
    course::ArgSpec spec{"interleaved_bench", "the 03_interleaved progression against CUB DeviceReduce::Sum",
                         std::size_t{1} << 28, std::size_t{1} << 30};
    spec.benchmark = true;
    spec.steps = course::facts_of(interleaved_progression);
    const course::Args args = course::parse_args(argc, argv, spec);

    return course::run_gpu_main(spec.program, [&] {
        InterleavedProblem problem(args);
        course::cub_baseline(problem);
        return course::run_bench(spec, args, problem);
    });
}
