// The benchmark half of course/chapter.hpp (course_cub: it reads the conditions and sweeps sizes).
#include "course/chapter.hpp"

#include "course/report.hpp"
#include "course/sweep.hpp"

#include <algorithm>
#include <iostream>

namespace course {

Bench::Bench(const Args& args, Problem& problem, double copy_gbps)
    : args(args), problem(problem), copy_gbps(copy_gbps), start_(read_conditions())
{
}

std::optional<Timing> Bench::verified(const std::string& label, std::size_t n, const std::function<void()>& run,
                                      const Kernel* kernel, int runs)
{
    problem.prepare();
    const auto check = [&]() -> std::string {
        const std::string wrong = wrong_after(kernel, problem, n);
        return wrong.empty() ? "" : "n = " + std::to_string(n) + ": " + wrong;
    };
    auto timing = time_gpu_verified(label, run, check, runs > 0 ? runs : args.runs);
    all_correct = all_correct && timing.has_value();
    return timing;
}

std::optional<Timing> Bench::measure(const Kernel& kernel, std::size_t n, int block, const std::string& label, int runs)
{
    return verified(label, n, [&] { kernel.run(n, block); }, &kernel, runs);
}

std::optional<Timing> Bench::measure_baseline(std::size_t n)
{
    if (!problem.baseline) return std::nullopt;
    return verified(problem.baseline_name, n, [&] { problem.baseline(n); }, nullptr, 0);
}

std::optional<Timing> Bench::first_table_timing(const std::string& kernel) const
{
    const auto it = first_table_.find(kernel);
    if (it == first_table_.end()) return std::nullopt;
    return it->second;
}

std::string Bench::conditions() const { return describe_conditions(start_, read_conditions()); }

int run_bench(const ArgSpec& spec, const Args& args, Problem& problem)
{
    print_header(spec, args, problem);
    std::cout << '\n';
    Bench bench(args, problem, copy_bandwidth_gbps(std::size_t{1} << 30));

    bool first_csv = true;
    for (const Table& declared : problem.tables) {
        const auto wanted = [&](const Row& row) { return args.wants(row.kernel); };
        if (std::none_of(declared.rows.begin(), declared.rows.end(), wanted)) continue;
        const std::size_t n = declared.n > 0 ? declared.n : args.n;
        problem.load(declared.input);
        BenchTable table(declared.title, n, bench.copy_gbps);
        for (const Row& row : declared.rows) {
            const Kernel& k = problem.kernel(row.kernel);
            if (!args.wants(k.name)) continue;
            const std::string label = row.label.empty() ? k.name : row.label;
            const auto timing = bench.measure(k, n, row.block > 0 ? row.block : args.block, label);
            if (!timing) continue;
            table.add(label, *timing, problem.bytes(n));
            // after_run of the last timed run: it throws if that run failed where the output cannot show it.
            if (const std::string detail = k.after_run ? k.after_run() : ""; !detail.empty())
                std::cout << label << ": " << detail << '\n';
            if (&declared == &problem.tables.front() && n == args.n) bench.first_table_[k.name] = *timing;
        }
        if (const auto timing = bench.measure_baseline(n))
            table.set_reference(problem.baseline_name, *timing, problem.bytes(n));
        const std::string conditions = bench.conditions();
        table.print(std::cout, conditions);
        if (!declared.note.empty()) std::cout << declared.note << "\n\n";
        if (!args.csv.empty()) table.write_csv(args.csv, conditions, !first_csv);
        first_csv = false;
    }

    bool first_sweep = true;
    for (const Sweep& declared : problem.sweeps) {
        if (!args.wants(declared.kernel)) continue;
        problem.load(declared.input);
        const Kernel& k = problem.kernel(declared.kernel);
        const int block = declared.block > 0 ? declared.block : args.block;
        SizeSweep sweep(declared.title, k.name, problem.baseline_name);
        for (const std::size_t n : SizeSweep::sizes(args.n))
            bench.all_correct &= sweep.add_verified(
                n, problem.bytes(n), [&, n] { k.run(n, block); }, [&, n] { problem.baseline(n); },
                [&] { problem.prepare(); }, [&, n] { return wrong_after(&k, problem, n); }, args.runs);
        const std::string conditions = bench.conditions();
        sweep.print(std::cout, conditions);
        if (!args.csv.empty()) sweep.write_csv(sweep_csv_path(args.csv), conditions, !first_sweep);
        first_sweep = false;
    }

    if (problem.bench_extra) problem.bench_extra(bench);
    return bench.all_correct ? 0 : 1;
}

}  // namespace course
