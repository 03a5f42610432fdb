// Chapter 06 benchmark: the progression of the GPU histograms against CUB's DeviceHistogram::HistogramEven, for
// uniform and for all-identical bytes, on --n bytes (default 1 GiB) and on the tutorial's 100 MiB; then the size
// sweep of histogram_vectorized against CUB from 1 KiB to --n bytes, cold (L2 flushed) and hot. Every result
// is checked before it is timed. One CSV (--csv) with the four tables (its `title` column tells them apart),
// and the sweep in <csv>-sweep.csv.
//   build/subprojects/06_atomic_histogram/bin/histogram_bench --runs 20 --block 1024 --csv histogram.csv
//   ... --kernel histogram_vectorized    (only that kernel, and CUB; repeatable; --list names them)
#include "histogram_problem.hpp"
#include "histogram_progression.hpp"

#include "course/args.hpp"
#include "course/chapter.hpp"
#include "course/check.hpp"

#include <string>

int main(int argc, char** argv)
{
    course::ArgSpec spec{"histogram_bench", "the chapter's histograms vs CUB HistogramEven, uniform and identical bytes",
                         std::size_t{1} << 30, histogram_max_n};
    spec.benchmark = true;
    spec.default_block = 1024;
    spec.steps = course::facts_of(histogram_progression);
    const course::Args args = course::parse_args(argc, argv, spec);

    return course::run_gpu_main(spec.program, [&] {
        HistogramProblem problem(args);
        course::cub_baseline(problem);
        problem.header = "block " + std::to_string(args.block) + " for 06.4 and 06.5, " +
                         std::to_string(HistogramProblem::tutorial_block) + " for the tutorial's kernels\n";
        return course::run_bench(spec, args, problem);
    });
}
