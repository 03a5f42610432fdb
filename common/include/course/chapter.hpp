// The demo and the benchmark of every GPU chapter, written once. A chapter's demo.cpp and bench.cpp declare its
// problem - the data (course/problems.hpp: IntSum, ByteHistogram, IntScan), its progression bound to that data,
// the CUB baseline, the benchmark's tables and size sweeps, and the few things only that chapter teaches (a
// hook) - and hand it to run_demo or run_bench, which own the harness:
//   demo   the CPU reference and every kernel on one input: each run once after the output is poisoned (and
//          the input restored) and judged, then timed; one ResultTable; exit 0 only if every row is right.
//   bench  the tables (each row verified before it is timed - a wrong kernel gets no time and the program
//          exits 1 - median of --runs after a warm-up, against the baseline timed in the same run, the copy
//          bandwidth and the conditions beside them; all in one CSV, its `title` column telling them apart),
//          then the size sweeps (course/sweep.hpp) into <csv>-sweep.csv.
// --kernel NAME selects rows by kernel name everywhere; a table or sweep with no selected kernel is left out.
#pragma once

#include "course/args.hpp"
#include "course/check.hpp"
#include "course/conditions.hpp"
#include "course/progression.hpp"
#include "course/timer.hpp"

#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace course {

// One step of the progression, bound to the problem's buffers.
struct Kernel {
    std::string name;                                    // the step's name (what --kernel selects)
    std::function<void(std::size_t n, int block)> run;  // enqueues it on the default stream
    // Optional. After a run (the device synchronized): words for the demo's label ("9 device launches"), "" for
    // none; throws when the run failed in a way its output cannot show (a failed device-side launch).
    std::function<std::string()> after_run = {};
    // Optional: the most elements it takes with `block` threads (single-block kernels); the demo runs it on
    // the first max_n(block) elements.
    std::function<std::size_t(int block)> max_n = {};
};

// The steps of a progression table bound to the problem's buffers: `call(launch, n, block)` calls one step's
// launcher (the chapters' launchers differ in their other arguments).
template <class Launcher, std::size_t N, class Call>
std::vector<Kernel> kernels_of(const Step<Launcher> (&steps)[N], const Call& call)
{
    std::vector<Kernel> kernels;
    for (const Step<Launcher>& step : steps) {
        const auto launch = step.launch;
        kernels.push_back({step.name, [call, launch](std::size_t n, int block) { call(launch, n, block); }});
    }
    return kernels;
}

// A progression in two tables, one per launcher signature (03, 04, 07): both, in order, each bound by its `call`.
template <class First, std::size_t N, class FirstCall, class Second, std::size_t M, class SecondCall>
std::vector<Kernel> kernels_of(const Step<First> (&first)[N], const FirstCall& first_call,
                               const Step<Second> (&second)[M], const SecondCall& second_call)
{
    std::vector<Kernel> kernels = kernels_of(first, first_call);
    for (Kernel& k : kernels_of(second, second_call)) kernels.push_back(std::move(k));
    return kernels;
}

// A benchmark row: a kernel at `block` threads (0: --block), labelled `label` (empty: the kernel's name).
struct Row {
    std::string kernel;
    int block = 0;
    std::string label;
};

// A benchmark table: its rows and the baseline on the first n elements (0: --n) of an input (empty: the first).
struct Table {
    std::string title;  // also the CSV's `title` column: tools read it
    std::vector<Row> rows;
    std::size_t n = 0;
    std::string input;
    std::string note;  // printed under the table
};

// A size sweep of one kernel (at `block`, 0: --block) against the baseline, cold and hot (course/sweep.hpp).
struct Sweep {
    std::string title;
    std::string kernel;
    int block = 0;
    std::string input;
};

// A demo row besides the progression's: run once after prepare(), judged by wrong() ("" when right), then timed.
struct DemoRow {
    std::string label;
    std::size_t n;
    std::function<void()> run;
    std::function<std::string()> wrong;
    std::function<std::string()> result;
    std::function<void()> prepare = [] {};
};

class Bench;

// What a chapter computes and runs. The data half (virtual) comes from course/problems.hpp; the chapter fills in
// the rest.
class Problem {
public:
    Problem(std::string chapter, std::string element) : chapter(std::move(chapter)), element(std::move(element)) {}
    virtual ~Problem() = default;

    // The command line of the chapter's programs (demo_main, bench_main): a chapter's problem type declares
    // demo_program and bench_program ("neighbored_demo") and steps() (its progression, for --kernel and --list),
    // and shadows these defaults where they do not fit.
    static constexpr std::size_t demo_n = std::size_t{1} << 24;  // default --n of the demo
    static constexpr std::size_t bench_n = std::size_t{1} << 28;  // ... of the bench
    static constexpr std::size_t max_n = std::size_t{1} << 30;
    static constexpr int bench_block = 256;  // default --block of the bench (the demo's is 256)
    static constexpr bool uses_block = true;

    std::string chapter;                  // "04_unroll_warp"
    std::string element;                  // "int32": what the demo's title says the data is
    std::string result_name = "result";   // what a run gives, in the demo's "no sum: ..." for a failed run
    std::vector<Kernel> kernels;          // the progression, in order
    std::string header;                   // more lines under "n = ..., block = ..., seed = ..." (may be empty)
    std::string baseline_name;            // bench: "CUB DeviceReduce::Sum"
    std::function<void(std::size_t n)> baseline;  // bench: the toolkit's call on the first n elements
    std::vector<Table> tables;            // bench
    std::vector<Sweep> sweeps;            // bench
    std::function<void(Bench&)> bench_extra = {};  // bench: after the sweeps, what only this chapter measures
    int demo_runs = 20;
    std::vector<DemoRow> demo_rows;       // demo: after the progression's rows
    std::string demo_note;                // demo: under the table
    std::function<bool()> demo_extra = {};  // demo: after the table; false when something in it was wrong

    const Kernel& kernel(const std::string& name) const;
    // The first table: every kernel at --block, under its name.
    Table progression_table(std::string title) const;

    // The data: the names of its inputs (the first is loaded from the start), ...
    virtual std::vector<std::string> inputs() const { return {""}; }
    virtual void load(const std::string& input) { (void)input; }
    // ... what a run needs before it is checked (poison the output, restore an input the kernels overwrite), ...
    virtual void prepare() = 0;
    virtual bool overwrites_input() const { return false; }
    virtual void restore() {}
    // ... after a run on the first n elements: what is wrong ("" if nothing), and the result in a few words.
    virtual std::string wrong(std::size_t n) = 0;
    virtual std::string result(std::size_t n) = 0;
    virtual double bytes(std::size_t n) const = 0;  // moved by one call: what GB/s count
    virtual std::string about() = 0;                // the demo's header: "expected sum = ..."
    struct CpuRow {
        std::string label, result;
        bool correct;
        Timing timing;
    };
    virtual CpuRow cpu_row() = 0;  // the demo's first row, its speed baseline
};

// The benchmark while it runs: for bench_extra.
class Bench {
public:
    Bench(const Args& args, Problem& problem, double copy_gbps);
    // `label`: `kernel` at `block` on the first n elements, after problem.prepare(), judged, then timed (`runs`
    // times, 0: --runs); nullopt when wrong (said on stderr; the program will exit 1).
    std::optional<Timing> measure(const Kernel& kernel, std::size_t n, int block, const std::string& label,
                                  int runs = 0);
    std::optional<Timing> measure_baseline(std::size_t n);
    // A kernel's timing at --n in the first table, if it was timed there.
    std::optional<Timing> first_table_timing(const std::string& kernel) const;
    std::string conditions() const;  // describe_conditions from the start of the run to now

    const Args& args;
    Problem& problem;
    const double copy_gbps;
    bool all_correct = true;

private:
    std::optional<Timing> verified(const std::string& label, std::size_t n, const std::function<void()>& run,
                                   const Kernel* kernel, int runs);
    friend int run_bench(const ArgSpec&, const Args&, Problem&);
    std::map<std::string, Timing> first_table_;
    Conditions start_;
};

// After a run of `kernel` (nullptr: the baseline) on the first n elements: "" when it is right, else what is
// wrong. Synchronizes the device first.
std::string wrong_after(const Kernel* kernel, Problem& problem, std::size_t n);
// "n = 1024, block = 256, seed = 1" (no block where the program takes none), and the problem's header lines.
void print_header(const ArgSpec& spec, const Args& args, const Problem& problem);

// The programs: each returns the exit code.
int run_demo(const ArgSpec& spec, const Args& args, Problem& problem);
int run_bench(const ArgSpec& spec, const Args& args, Problem& problem);

// A chapter's whole main(): its command line from what its problem type P declares (Problem's static members),
// then on the GPU P built from the arguments, `customize(problem, args)` (the hooks of that program, if any) and
// run_demo, or run_bench with CUB as the baseline (cub_baseline, course/problems.hpp: benches link CUB).
struct NoHooks {
    template <class P>
    void operator()(P&, const Args&) const {}
};

template <class P>
ArgSpec spec_of(const char* program, const char* summary, std::size_t default_n)
{
    ArgSpec spec{program, summary, default_n, P::max_n};
    spec.uses_block = P::uses_block;
    spec.steps = P::steps();
    return spec;
}

template <class P, class Hooks = NoHooks>
int demo_main(int argc, char** argv, const char* summary, Hooks hooks = {})
{
    const ArgSpec spec = spec_of<P>(P::demo_program, summary, P::demo_n);
    const Args args = parse_args(argc, argv, spec);
    return run_gpu_main(spec.program, [&] {
        P problem(args);
        hooks(problem, args);
        return run_demo(spec, args, problem);
    });
}

template <class P, class Hooks = NoHooks>
int bench_main(int argc, char** argv, const char* summary, Hooks hooks = {})
{
    ArgSpec spec = spec_of<P>(P::bench_program, summary, P::bench_n);
    spec.benchmark = true;
    spec.default_block = P::bench_block;
    const Args args = parse_args(argc, argv, spec);
    return run_gpu_main(spec.program, [&] {
        P problem(args);
        cub_baseline(problem);
        hooks(problem, args);
        return run_bench(spec, args, problem);
    });
}

}  // namespace course
