// Chapter 05 demo: the CPU sum and the progression (both nested reductions, then the flat one) on one random
// input, checked and timed, with the number of device-side launches each made.
//   build/bin/nested_demo --n 2^24 --seed 1 [--kernel nested_reduce_strided] [--list]
#include "nested_problem.hpp"

int main(int argc, char** argv)
{
    return course::demo_main<NestedProblem>(
        argc, argv, "sum random ints with nested (dynamic-parallelism) reductions and a flat one");
}
