// Chapter 05 benchmark: what device-side launches cost.
//  1. The progression on one input (2^26 ints by default: nested_reduce makes about a million device-side
//     launches there) against CUB, each verified before it is timed; also as CSV with --csv PATH.
//  2. flat_reduce against CUB by size, 2^10 up to --n, cold and hot (course/sweep.hpp); with --csv PATH it
//     goes to PATH with "-sweep" before ".csv".
//  3. The cost of one device-side launch as a curve over n: nested_reduce and flat_reduce at n = 2^16, 2^17,
//     ..., --n, and (nested - flat) / device launches. It is not a constant. With --csv PATH the curve goes to
//     PATH with "-launch-costs" before ".csv".
// Above them, what making the NestedWorkspace took: the pending-launch limit it left, and its device memory.
//   meson test -C build --benchmark --suite 05_nested_dynamic
#include "nested_problem.hpp"

int main(int argc, char** argv)
{
    return course::bench_main<NestedProblem>(
        argc, argv, "nested reductions (device-side launches) vs a flat reduction vs CUB",
        [](NestedProblem& problem, const course::Args& args) {
            problem.header = problem.workspace_report();
            if (args.wants("nested_reduce"))
                problem.bench_extra = [&problem](course::Bench& bench) { problem.launch_costs(bench); };
        });
}
