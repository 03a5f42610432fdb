// Chapter 03 demo (docs/03_interleaved.md, "The demo"): the CPU and the kernels on one random input.
//   build/bin/interleaved_demo --n 2^24 --block 256 --seed 1 [--kernel NAME] [--list]
#include "interleaved_problem.hpp"

int main(int argc, char** argv)
{
    return course::demo_main<InterleavedProblem>(argc, argv, "sum random ints on the GPU: interleaved pairs, then "
                                                             "three shared-memory trees");
}
