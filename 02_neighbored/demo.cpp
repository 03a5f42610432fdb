// Chapter 02 demo: one random input summed on the CPU and by the chapter's kernels, checked and timed.
//   build/bin/neighbored_demo --n 2^24 --block 256 --seed 1          (chapter built alone)
//   build/subprojects/02_neighbored/bin/neighbored_demo ...          (built from the top level)
//   --kernel NAME runs one kernel of the progression (repeatable); --list prints their names.
#include "neighbored_problem.hpp"

int main(int argc, char** argv)
{
    return course::demo_main<NeighboredProblem>(argc, argv, "sum random ints on the GPU: neighbored pairs, then with "
                                                            "less divergence");
}
