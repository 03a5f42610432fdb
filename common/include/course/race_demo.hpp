// What the race demos (<topic>_race_demo.cu, never graded) share: the command line, a reduction's input, and
// the runs of a racy kernel with the wrong results counted. A demo keeps its kernels and its lesson.
#pragma once

#include "course/args.hpp"
#include "course/check.hpp"
#include "course/data.hpp"
#include "course/reference.hpp"

#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

namespace course::race_demo {

inline constexpr int trials = 20;  // runs of each racy kernel: a race decides by timing, one run proves nothing

// A demo's main(): its command line, then `body(args)` on the GPU (run_gpu_main); returns the exit code.
template <class Body>
int run(int argc, char** argv, const ArgSpec& spec, const Body& body)
{
    const Args args = parse_args(argc, argv, spec);
    return run_gpu_main(spec.program, [&] { return body(args); });
}

// A reduction's input, --n random ints from --seed, and their sum, said in one line with the runs to come:
// "n = 65536, block = 1024, seed = 1, expected sum = 133790; 20 runs" and `of_what` (" of each kernel").
struct SumInput {
    std::vector<int> data;
    std::int64_t expected;
};
inline SumInput sum_input(const Args& args, const std::string& of_what = "")
{
    SumInput input{random_ints(args.n, args.seed), 0};
    input.expected = sum_reference(input.data.data(), args.n);
    std::cout << "n = " << args.n << ", block = " << args.block << ", seed = " << args.seed
              << ", expected sum = " << input.expected << "; " << trials << " runs" << of_what << '\n';
    return input;
}

// Of `trials` calls of `run()` (one launch of the racy kernel on fresh input, its result), how many were not
// `expected`, and the last of those.
template <class Result>
struct Tally {
    int wrong;
    Result example;
};
template <class Result, class Run>
Tally<Result> tally(const Result& expected, const Run& run)
{
    Tally<Result> t{0, expected};
    for (int i = 0; i < trials; ++i)
        if (const Result got = run(); got != expected) t = {t.wrong + 1, got};
    return t;
}

// "reduce_unroll_warp_volatile: wrong in 3 of 20 runs (e.g. 124819)"
template <class Result>
void report(const std::string& kernel, const Tally<Result>& t)
{
    std::cout << kernel << ": wrong in " << t.wrong << " of " << trials << " runs";
    if (t.wrong > 0) std::cout << " (e.g. " << t.example << ")";
    std::cout << '\n';
}

}  // namespace course::race_demo
