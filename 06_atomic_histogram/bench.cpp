// Chapter 06 benchmark: the progression of the GPU histograms against CUB's DeviceHistogram::HistogramEven, for
// uniform and for all-identical bytes, on --n bytes (default 1 GiB) and on the tutorial's 100 MiB; then the size
// sweep of histogram_vectorized against CUB from 1 KiB to --n bytes, cold (L2 flushed) and hot. Every result
// is checked before it is timed. One CSV (--csv) with the four tables (its `title` column tells them apart),
// and the sweep in <csv>-sweep.csv.
//   build/subprojects/06_atomic_histogram/bin/histogram_bench --runs 20 --block 1024 --csv histogram.csv
//   ... --kernel histogram_vectorized    (only that kernel, and CUB; repeatable; --list names them)
#include "histogram_problem.hpp"

#include <string>

int main(int argc, char** argv)
{
    return course::bench_main<HistogramProblem>(
        argc, argv, "the chapter's histograms vs CUB HistogramEven, uniform and identical bytes",
        [](HistogramProblem& problem, const course::Args& args) {
            problem.header = "block " + std::to_string(args.block) + " for 06.4 and 06.5, " +
                             std::to_string(HistogramProblem::tutorial_block) + " for the tutorial's kernels\n";
        });
}
