// The demo half of course/chapter.hpp, and what the benchmark shares with it (course_lib: demos link no CUB).
#include "course/chapter.hpp"

#include "course/check.hpp"
#include "course/device.hpp"
#include "course/report.hpp"

#include <algorithm>
#include <iostream>
#include <stdexcept>

namespace course {

const Kernel& Problem::kernel(const std::string& name) const
{
    for (const Kernel& k : kernels)
        if (k.name == name) return k;
    throw std::logic_error(chapter + ": no kernel '" + name + "' in the progression");
}

Table Problem::progression_table(std::string title) const
{
    Table table{std::move(title), {}};
    for (const Kernel& k : kernels) table.rows.push_back({k.name});
    return table;
}

std::string wrong_after(const Kernel* kernel, Problem& problem, std::size_t n)
{
    CUDA_CHECK(cudaDeviceSynchronize());
    if (kernel != nullptr && kernel->after_run) {
        try {
            kernel->after_run();
        } catch (const std::exception& e) {
            return e.what();
        }
    }
    return problem.wrong(n);
}

void print_header(const ArgSpec& spec, const Args& args, const Problem& problem)
{
    std::cout << describe(device_info()) << "\nn = " << args.n;
    if (spec.uses_block) std::cout << ", block = " << args.block;
    std::cout << ", seed = " << args.seed << '\n' << problem.header;
}

namespace {

// One row: run once after prepare(), judged, then timed; a kernel's after_run adds to the label, or, when it
// throws, the row is "no result" and is not timed.
void add_row(ResultTable& table, Problem& problem, const DemoRow& row, const Kernel* kernel)
{
    row.prepare();
    row.run();
    CUDA_CHECK(cudaDeviceSynchronize());
    std::string label = row.label;
    if (kernel != nullptr && kernel->after_run) {
        try {
            if (const std::string detail = kernel->after_run(); !detail.empty()) label += " (" + detail + ")";
        } catch (const std::exception& e) {
            table.add(label, "no " + problem.result_name + ": " + e.what(), false, 0, problem.bytes(row.n));
            return;
        }
    }
    const bool correct = row.wrong().empty();
    const std::string result = row.result();
    // Kernels that overwrite their input get a fresh copy before every run, outside the timing.
    const Timing t = problem.overwrites_input()
                         ? time_gpu_with_reset([&] { problem.restore(); }, row.run, problem.demo_runs, 1)
                         : time_gpu(row.run, problem.demo_runs, 1);
    table.add(label, result, correct, t.median_ms, problem.bytes(row.n));
}

}  // namespace

int run_demo(const ArgSpec& spec, const Args& args, Problem& problem)
{
    print_header(spec, args, problem);
    std::cout << problem.about() << "\n\n";
    std::string title = problem.chapter + ", " + problem.element;
    if (spec.uses_block) title += ", block = " + std::to_string(args.block);
    title += ": median of " + std::to_string(problem.demo_runs) + " GPU runs";
    if (problem.overwrites_input()) title += ", each on a fresh copy of the input";
    ResultTable table(title);
    const Problem::CpuRow cpu = problem.cpu_row();
    table.add(cpu.label, cpu.result, cpu.correct, cpu.timing.median_ms, problem.bytes(args.n));

    for (const Kernel& k : problem.kernels) {
        if (!args.wants(k.name)) continue;
        // A single-block kernel takes the first max_n(block) elements.
        const std::size_t n = k.max_n ? std::min(args.n, k.max_n(args.block)) : args.n;
        const std::string label = k.max_n ? k.name + " (first " + std::to_string(n) + ")" : k.name;
        add_row(table, problem,
                {label, n, [&k, &args, n] { k.run(n, args.block); }, [&problem, n] { return problem.wrong(n); },
                 [&problem, n] { return problem.result(n); }, [&problem] { problem.prepare(); }},
                &k);
    }
    for (const DemoRow& row : problem.demo_rows) add_row(table, problem, row, nullptr);
    table.print(std::cout);
    if (!problem.demo_note.empty()) std::cout << problem.demo_note << '\n';
    const bool extra_right = !problem.demo_extra || problem.demo_extra();
    return table.all_correct() && extra_right ? 0 : 1;
}

}  // namespace course
