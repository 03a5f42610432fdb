// Chapter 07 benchmark: the scan progression (scan_progression.hpp) on int32 (default n = 2^28, 1 GiB in + 1 GiB
// out; bytes counted = read + write = 8n), each kernel checked against the CPU before it is timed, against CUB's
// DeviceScan::InclusiveSum in the same run. Then two small tables: scan_single_pass by block size, and the
// single-block scans on one block's worth of data, where every call is launch-bound. --csv writes all three
// tables into one file; --kernel NAME (repeatable) runs only those kernels. Last, the size sweep: scan_single_pass
// against CUB from 2^10 to n, cold (L2 flushed) and hot, written to <csv>-sweep.csv.
//   build/subprojects/07_scan/bin/scan_bench --n 2^28 --block 256 --csv 07_scan.csv
#include "scan.hpp"
#include "scan_progression.hpp"

#include "course/args.hpp"
#include "course/check.hpp"
#include "course/conditions.hpp"
#include "course/cub_reference.hpp"
#include "course/data.hpp"
#include "course/device.hpp"
#include "course/reference.hpp"
#include "course/report.hpp"
#include "course/sweep.hpp"
#include "course/timer.hpp"
#include "course/verify.hpp"

#include <algorithm>
#include <functional>
#include <iterator>
#include <iostream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

int main(int argc, char** argv)
{
    course::ArgSpec spec{"scan_bench", "inclusive int32 scans of chapter 07 against CUB DeviceScan::InclusiveSum",
                         std::size_t{1} << 28, std::size_t{1} << 30};
    spec.benchmark = true;
    spec.steps = scan_step_facts();
    const course::Args args = course::parse_args(argc, argv, spec);

    return course::run_gpu_main(spec.program, [&] {
        const std::size_t n = args.n;
        const int block = args.block;
        std::cout << course::describe(course::device_info()) << "\nn = " << n << ", block = " << block
                  << ", seed = " << args.seed << "\n\n";
        const course::Conditions start = course::read_conditions();
        const auto host = course::random_ints(n, args.seed);
        std::vector<int> expected(n);
        course::inclusive_scan_reference(host.data(), expected.data(), n);

        course::DeviceBuffer<int> d_in(n), d_out(n);
        d_in.copy_from_host(host);
        ScanWorkspace scratch(n);
        const double copy_gbps = course::copy_bandwidth_gbps(std::size_t{1} << 30);
        bool all_correct = true;

        // What is wrong with the first m items of the output ("" if nothing) after a run of `name`.
        const auto check = [&](const std::string& name, std::size_t m) -> std::string {
            std::vector<int> got(m);
            d_out.copy_to_host(got.data(), m);
            try {
                scratch.check(name);
            } catch (const std::runtime_error& e) {
                return e.what();
            }
            const auto mm = course::first_mismatch(expected.data(), got.data(), m);
            return mm ? course::describe(*mm, m) : std::string();
        };
        // One checked run of the first m items (a wrong kernel gets no time), then warm-up and timed runs.
        const auto measure = [&](const std::string& name, std::size_t m,
                                 const std::function<void()>& scan) -> std::optional<course::Timing> {
            d_out.fill_bytes(0xAB);
            const auto t = course::time_gpu_verified(name, scan, [&] { return check(name, m); }, args.runs);
            all_correct = all_correct && t.has_value();
            return t;
        };
        const int* in = d_in.data();
        int* out = d_out.data();
        const ScanKind inc = ScanKind::inclusive;
        const double bytes = 8.0 * static_cast<double>(n);

        course::cub_ref::Scan cub(n);
        const auto cub_time = measure("CUB DeviceScan::InclusiveSum", n, [&] { cub.inclusive(in, out, n); });

        // The progression: the multi-tile scans, each labelled with what it changes in element moves.
        static constexpr const char* labels[] = {"scan_multiblock (Blelloch tiles, 4n moves)",
                                                 "scan_warp_shuffle (reduce-then-scan, 3n)",
                                                 "scan_single_pass (decoupled look-back, 2n)"};
        static_assert(std::size(labels) == std::size(scan_multi_tile_progression),
                      "one label per step of the progression");
        course::BenchTable table("07_scan: inclusive int32 scan, block " + std::to_string(block), n, copy_gbps);
        for (std::size_t k = 0; k < std::size(scan_multi_tile_progression); ++k) {
            const auto& step = scan_multi_tile_progression[k];
            if (!args.wants(step.name)) continue;
            if (const auto t = measure(step.name, n, [&] { step.launch(in, out, inc, n, block, scratch, nullptr); }))
                table.add(labels[k], *t, bytes);
        }
        if (cub_time) table.set_reference("CUB DeviceScan::InclusiveSum", *cub_time, bytes);
        const std::string conditions = course::describe_conditions(start, course::read_conditions());
        table.print(std::cout, conditions);
        if (!args.csv.empty()) table.write_csv(args.csv, conditions);

        if (args.wants("scan_single_pass")) {
            course::BenchTable sweep("07_scan: scan_single_pass by block size", n, copy_gbps);
            for (int b : {64, 128, 256, 512, 1024})
                if (const auto t = measure("scan_single_pass, block " + std::to_string(b), n,
                                           [&] { scan_single_pass(in, out, inc, n, b, scratch); }))
                    sweep.add("scan_single_pass, block " + std::to_string(b), *t, bytes);
            if (cub_time) sweep.set_reference("CUB DeviceScan::InclusiveSum", *cub_time, bytes);
            const std::string block_conditions = course::describe_conditions(start, course::read_conditions());
            sweep.print(std::cout, block_conditions);
            if (!args.csv.empty()) sweep.write_csv(args.csv, block_conditions, true);
        }

        // One block's worth: a few microseconds per call, almost all of it launch and latency (Hillis-Steele takes
        // 1024 items at block 1024, Blelloch at block 512).
        const std::size_t small = std::min<std::size_t>(n, 1024);
        const double small_bytes = 8.0 * static_cast<double>(small);
        course::BenchTable single_block("07_scan: single-block scans (launch-bound)", small, copy_gbps);
        for (const auto& step : scan_single_block_progression) {
            if (!args.wants(step.name)) continue;
            int fitting = 32;  // the smallest block that holds the items
            while (single_block_max_n(step, fitting) < small) fitting *= 2;
            const std::string name = std::string(step.name) + ", block " + std::to_string(fitting);
            if (const auto t = measure(name, small, [&] { step.launch(in, out, inc, small, fitting, nullptr); }))
                single_block.add(name, *t, small_bytes);
        }
        if (args.wants("scan_single_pass")) {
            const std::string name = "scan_single_pass, block " + std::to_string(block);
            if (const auto t = measure(name, small, [&] { scan_single_pass(in, out, inc, small, block, scratch); }))
                single_block.add(name, *t, small_bytes);
        }
        course::cub_ref::Scan cub_small(small);
        if (const auto t = measure("CUB (small)", small, [&] { cub_small.inclusive(in, out, small); }))
            single_block.set_reference("CUB DeviceScan::InclusiveSum", *t, small_bytes);
        const std::string small_conditions = course::describe_conditions(start, course::read_conditions());
        single_block.print(std::cout, small_conditions);
        if (!args.csv.empty()) single_block.write_csv(args.csv, small_conditions, true);

        if (args.wants("scan_single_pass")) {
            course::SizeSweep sweep("07_scan, inclusive int32, block " + std::to_string(block), "scan_single_pass",
                                    "CUB DeviceScan::InclusiveSum");
            for (const std::size_t m : course::SizeSweep::sizes(n))
                all_correct &= sweep.add_verified(
                    m, 8.0 * static_cast<double>(m), [&, m] { scan_single_pass(in, out, inc, m, block, scratch); },
                    [&, m] { cub.inclusive(in, out, m); }, [&] { d_out.fill_bytes(0xAB); },
                    [&, m] { return check("size sweep", m); }, args.runs);
            const std::string conditions = course::describe_conditions(start, course::read_conditions());
            sweep.print(std::cout, conditions);
            if (!args.csv.empty()) sweep.write_csv(course::sweep_csv_path(args.csv), conditions);
        }

        return all_correct ? 0 : 1;
    });
}
