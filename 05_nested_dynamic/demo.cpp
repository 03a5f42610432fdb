// Chapter 05 demo: the CPU sum and the progression (both nested reductions, then the flat one) on one random
// input, checked and timed, with the number of device-side launches each made.
//   build/bin/nested_demo --n 2^24 --seed 1 [--kernel nested_reduce_strided] [--list]
#include "nested_problem.hpp"
#include "nested_progression.hpp"

#include "course/args.hpp"
#include "course/chapter.hpp"
#include "course/check.hpp"

int main(int argc, char** argv)
{
    course::ArgSpec spec{"nested_demo", "sum random ints with nested (dynamic-parallelism) reductions and a flat one",
                         std::size_t{1} << 24, std::size_t{1} << 28};
    spec.uses_block = false;
    spec.steps = course::facts_of(nested_progression);
    const course::Args args = course::parse_args(argc, argv, spec);

    return course::run_gpu_main(spec.program, [&] {
        NestedWorkspace workspace(args.n);
        NestedProblem problem(args, workspace);
        return course::run_demo(spec, args, problem);
    });
}
