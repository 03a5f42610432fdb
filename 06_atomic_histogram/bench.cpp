// Chapter 06 benchmark (docs/06_atomic_histogram.md, "The benchmark"): the GPU histograms against CUB
// HistogramEven on uniform and identical bytes, then histogram_vectorized by size; every result checked first.
//   build/subprojects/06_atomic_histogram/bin/histogram_bench --runs 20 --block 1024 --csv histogram.csv
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
