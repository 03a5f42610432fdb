// Chapter 03 demo: one random input summed on the CPU and by the chapter's kernels, checked and timed.
//   build/bin/interleaved_demo --n 2^24 --block 256 --seed 1          (chapter built alone)
//   build/subprojects/03_interleaved/bin/interleaved_demo ...         (built from the top level)
//   --kernel NAME runs one kernel of the progression (repeatable); --list prints their names.
#include "interleaved_problem.hpp"

int main(int argc, char** argv)
{
    return course::demo_main<InterleavedProblem>(argc, argv, "sum random ints on the GPU: interleaved pairs, then "
                                                             "three shared-memory trees");
}
