// Chapter 05 benchmark (docs/05_nested_dynamic.md, "The benchmark"): what device-side launches cost - the
// progression against CUB, flat_reduce by size, and the cost of one device-side launch as a curve over n.
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
