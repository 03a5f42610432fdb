// Chapter 03 demo: one random input summed on the CPU and by the chapter's kernels, checked and timed.
//   build/bin/interleaved_demo --n 2^24 --block 256 --seed 1          (chapter built alone)
//   build/subprojects/03_interleaved/bin/interleaved_demo ...         (built from the top level)
//   --kernel NAME runs one kernel of the progression (repeatable); --list prints their names.
#include "interleaved_problem.hpp"
#include "interleaved_progression.hpp"

#include "course/args.hpp"
#include "course/chapter.hpp"
#include "course/check.hpp"

int main(int argc, char** argv)
{
    course::ArgSpec spec{"interleaved_demo",
                         "sum random ints on the GPU: interleaved pairs, then three shared-memory trees",
                         std::size_t{1} << 24, std::size_t{1} << 30};
    spec.steps = course::facts_of(interleaved_progression);
    const course::Args args = course::parse_args(argc, argv, spec);

    return course::run_gpu_main(spec.program, [&] {
        InterleavedProblem problem(args);
        return course::run_demo(spec, args, problem);
    });
}
