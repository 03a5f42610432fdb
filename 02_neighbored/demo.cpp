// Chapter 02 demo (docs/02_neighbored.md, "The demo in detail"): the CPU and the kernels on one random input.
//   build/bin/neighbored_demo --n 2^24 --block 256 --seed 1 [--kernel NAME] [--list]
#include "neighbored_problem.hpp"

int main(int argc, char** argv)
{
    return course::demo_main<NeighboredProblem>(argc, argv, "sum random ints on the GPU: neighbored pairs, then with "
                                                            "less divergence");
}
