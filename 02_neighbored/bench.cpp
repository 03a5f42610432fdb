// Chapter 02 benchmark: the progression and CUB's DeviceReduce::Sum on n int32 (default 2^28 = 1 GiB), median
// of --runs timed runs after a warm-up, then reduce_neighbored_less and CUB by size (2^10 up to n, cold and
// hot); every kernel's result is verified first (a wrong kernel gets no time).
//   meson test -C build --benchmark --suite 02_neighbored
//   build/bin/neighbored_bench --kernel reduce_neighbored_less --runs 50      (chapter built alone)
#include "neighbored_progression.hpp"

#include "course/args.hpp"
#include "course/check.hpp"
#include "course/reduction_bench.hpp"

int main(int argc, char** argv)
{
    course::ArgSpec spec{"neighbored_bench", "the 02_neighbored progression against CUB DeviceReduce::Sum",
                         std::size_t{1} << 28, std::size_t{1} << 30};
    spec.benchmark = true;
    spec.steps = course::facts_of(neighbored_progression);
    const course::Args args = course::parse_args(argc, argv, spec);

    return course::run_gpu_main(spec.program, [&] {
        NeighboredWorkspace workspace(args.n);
        return course::reduction_bench(
            "02_neighbored", args, neighbored_progression,
            [&](const NeighboredStep& step, int* d_data, long long* d_total, std::size_t n) {
                step.launch(d_data, d_total, n, args.block, workspace, 0);
            });
    });
}
