// Chapter 02 demo: one random input summed on the CPU and by the chapter's kernels, checked and timed.
//   build/bin/neighbored_demo --n 2^24 --block 256 --seed 1          (chapter built alone)
//   build/subprojects/02_neighbored/bin/neighbored_demo ...          (built from the top level)
//   --kernel NAME runs one kernel of the progression (repeatable); --list prints their names.
#include "neighbored_problem.hpp"
#include "neighbored_progression.hpp"

#include "course/args.hpp"
#include "course/chapter.hpp"
#include "course/check.hpp"

int main(int argc, char** argv)
{
    course::ArgSpec spec{"neighbored_demo",
                         "sum random ints on the GPU: neighbored pairs, then with less divergence",
                         std::size_t{1} << 24, std::size_t{1} << 30};
    spec.steps = course::facts_of(neighbored_progression);
    const course::Args args = course::parse_args(argc, argv, spec);

    return course::run_gpu_main(spec.program, [&] {
        NeighboredProblem problem(args);
        return course::run_demo(spec, args, problem);
    });
}
