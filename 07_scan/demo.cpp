// Chapter 07 demo: the chapter's scans (scan_progression.hpp) on one random input, checked against the CPU and
// timed. --kernel NAME (repeatable) runs only those; --list prints the names.
//   build/subprojects/07_scan/bin/scan_demo --n 2^24 --block 256 --seed 1
// The single-block scans can only take one block's worth: they scan the first block (or 2 * block) items.
#include "scan.hpp"
#include "scan_progression.hpp"

#include "course/args.hpp"
#include "course/check.hpp"
#include "course/data.hpp"
#include "course/reference.hpp"
#include "course/report.hpp"
#include "course/timer.hpp"
#include "course/verify.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

namespace {

template <class T>
std::string last_value(const std::vector<T>& v)
{
    return v.empty() ? "-" : std::to_string(v.back());
}

}  // namespace

int main(int argc, char** argv)
{
    course::ArgSpec spec{"scan_demo", "prefix sums of random ints: the CPU reference and every GPU scan of chapter 07",
                         std::size_t{1} << 24, std::size_t{1} << 30};
    spec.steps = scan_step_facts();
    const course::Args args = course::parse_args(argc, argv, spec);

    return course::run_gpu_main(spec.program, [&] {
        const std::size_t n = args.n;
        const int block = args.block;
        const auto host = course::random_ints(n, args.seed);
        std::vector<int> inclusive(n), exclusive(n);
        const auto cpu = course::time_cpu([&] { course::inclusive_scan_reference(host.data(), inclusive.data(), n); });
        course::exclusive_scan_reference(host.data(), exclusive.data(), n);
        std::cout << "n = " << n << ", block = " << block << ", seed = " << args.seed
                  << "; result = the last element of the scan\n\n";

        course::DeviceBuffer<int> d_in(n), d_out(n);
        d_in.copy_from_host(host);
        ScanWorkspace scratch(n);
        course::ResultTable table("07_scan: one input, every scan (GPU: median of 5 runs; bytes = read + write)");
        table.add("CPU inclusive_scan_reference", last_value(inclusive), true, cpu.median_ms, 8.0 * n);

        // Runs `scan` on the first m items once to check it against the CPU, then times it.
        const auto gpu_row = [&](const std::string& name, std::size_t m, ScanKind kind,
                                 const std::function<void(std::size_t)>& scan) {
            d_out.fill_bytes(0xAB);
            scan(m);
            std::vector<int> got(m);
            d_out.copy_to_host(got.data(), m);
            scratch.check(name);
            const auto& expected = kind == ScanKind::inclusive ? inclusive : exclusive;
            const bool correct = !course::first_mismatch(expected.data(), got.data(), m);
            const course::Timing t = course::time_gpu([&] { scan(m); }, 5, 1);
            table.add(name, last_value(got), correct, t.median_ms, 8.0 * m);
        };
        const auto in = d_in.data();
        const auto out = d_out.data();
        const ScanKind inc = ScanKind::inclusive;

        for (const auto& step : scan_single_block_progression) {
            if (!args.wants(step.name)) continue;
            const std::size_t m = std::min(n, single_block_max_n(step, block));
            gpu_row(std::string(step.name) + " (first " + std::to_string(m) + ")", m, inc,
                    [&](std::size_t k) { step.launch(in, out, inc, k, block, nullptr); });
        }
        for (const auto& step : scan_multi_tile_progression) {
            if (!args.wants(step.name)) continue;
            gpu_row(step.name, n, inc, [&](std::size_t k) { step.launch(in, out, inc, k, block, scratch, nullptr); });
        }
        if (args.wants("scan_single_pass")) {
            gpu_row("scan_single_pass, exclusive", n, ScanKind::exclusive,
                    [&](std::size_t k) { scan_single_pass(in, out, ScanKind::exclusive, k, block, scratch); });

            // The float variant on floats in [-1, 1), within the error bound of docs/07_scan.md, "Floats".
            const auto floats = course::random_floats(n, args.seed);
            std::vector<double> float_reference(n);
            course::inclusive_scan_reference(floats.data(), float_reference.data(), n);
            course::DeviceBuffer<float> d_floats(n), d_float_out(n);
            d_floats.copy_from_host(floats);
            const auto float_scan = [&] {
                scan_single_pass(d_floats.data(), d_float_out.data(), inc, n, block, scratch);
            };
            float_scan();
            const std::vector<float> got = d_float_out.to_host();
            scratch.check("scan_single_pass<float>");
            bool within = true;
            double abs_prefix = 0;
            for (std::size_t i = 0; i < n && within; ++i) {
                abs_prefix += std::fabs(static_cast<double>(floats[i]));
                within = std::fabs(static_cast<double>(got[i]) - float_reference[i]) <=
                         float_scan_tolerance(i + 1, abs_prefix);
            }
            const course::Timing t = course::time_gpu(float_scan, 5, 1);
            table.add("scan_single_pass<float>", last_value(got), within, t.median_ms, 8.0 * n);
        }

        table.print(std::cout);
        return table.all_correct() ? 0 : 1;
    });
}
