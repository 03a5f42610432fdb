// Command-line options shared by every demo and benchmark:
//   --n N        number of elements (decimal, or 2^K)
//   --block B    threads per block (a power of two in the range the program accepts)
//   --seed S     input seed (default: a fresh one, printed)
//   --runs R     timed runs per kernel (benchmarks only)
//   --csv PATH   where to write the table as CSV (benchmarks only)
//   --kernel K   run only kernel K of the chapter's progression (repeatable; programs with a progression)
//   --list       print the progression's kernel names, one per line, and exit (with --json: every step's task,
//                name and change, as JSON)
//   --help
// A bad value prints one line naming the option and the value, and exits with code 2.
#pragma once

#include "course/progression.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace course {

struct ArgSpec {
    const char* program;      // shown in messages, e.g. "02_neighbored demo"
    const char* summary;      // one line for --help
    std::size_t default_n;
    std::size_t max_n;
    int default_block = 256;
    int min_block = 32;        // --block must be a power of two in [min_block, max_block]
    int max_block = 1024;
    bool uses_block = true;   // false: --block is still validated, and --help says the program ignores it
    bool benchmark = false;   // accept --runs and --csv
    int default_runs = 20;
    std::vector<StepFacts> steps;  // the progression: --kernel takes one of its names (empty: no --kernel)
};

struct Args {
    std::size_t n;
    int block;
    std::uint64_t seed;
    int runs;
    std::string csv;  // empty: no CSV
    std::vector<std::string> kernels;  // --kernel values; empty: all

    // Whether kernel `name` was asked for (every kernel when no --kernel was given).
    bool wants(const std::string& name) const;
};

// What a command line asks for: run with `args`, print the help, or stop with `error`.
struct ParsedArgs {
    enum class Outcome { run, help, list, list_json, error } outcome;
    Args args;
    std::string error;  // one line, naming the option and the value
};
ParsedArgs try_parse_args(int argc, const char* const* argv, const ArgSpec& spec);

// For main(): prints the help and exits with 0, or prints "<program>: error: ... (try --help)" and exits
// with 2; otherwise returns the arguments.
Args parse_args(int argc, char** argv, const ArgSpec& spec);

std::string help_text(const ArgSpec& spec);

}  // namespace course
