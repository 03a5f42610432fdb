// Chapter 07 benchmark: the scan progression on int32 (default n = 2^28, 1 GiB in + 1 GiB out; bytes counted
// = read + write = 8n), each kernel checked against the CPU before it is timed, against CUB's
// DeviceScan::InclusiveSum in the same run. Then two small tables: scan_single_pass by block size, and the
// single-block scans on one block's worth of data, where every call is launch-bound.
//   build/07_scan/scan_bench --n 2^28 --block 256 --csv 07_scan.csv
#include "scan.hpp"

#include "course/args.hpp"
#include "course/check.hpp"
#include "course/cub_reference.hpp"
#include "course/data.hpp"
#include "course/device.hpp"
#include "course/reference.hpp"
#include "course/report.hpp"
#include "course/timer.hpp"
#include "course/verify.hpp"

#include <algorithm>
#include <functional>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

int main(int argc, char** argv)
{
    course::ArgSpec spec{"scan_bench", "inclusive int32 scans of chapter 07 against CUB DeviceScan::InclusiveSum",
                         std::size_t{1} << 28, std::size_t{1} << 30};
    spec.benchmark = true;
    const course::Args args = course::parse_args(argc, argv, spec);

    return course::run_gpu_main(spec.program, [&] {
        const std::size_t n = args.n;
        const int block = args.block;
        std::cout << course::describe(course::device_info()) << "\nn = " << n << ", block = " << block
                  << ", seed = " << args.seed << "\n\n";
        const auto host = course::random_ints(n, args.seed);
        std::vector<int> expected(n);
        course::inclusive_scan_reference(host.data(), expected.data(), n);

        course::DeviceBuffer<int> d_in(n), d_out(n);
        d_in.copy_from_host(host);
        ScanScratch scratch(n);
        const double copy_gbps = course::copy_bandwidth_gbps(std::size_t{1} << 30);
        bool all_correct = true;

        // One checked run of the first m items (a wrong kernel gets no time), then warm-up and timed runs.
        const auto measure = [&](const std::string& name, std::size_t m,
                                 const std::function<void()>& scan) -> std::optional<course::Timing> {
            d_out.fill_bytes(0xAB);
            scan();
            std::vector<int> got(m);
            d_out.copy_to_host(got.data(), m);
            if (const auto mm = course::first_mismatch(expected.data(), got.data(), m)) {
                std::cout << name << ": WRONG, not timed: " << course::describe(*mm, m) << "\n";
                all_correct = false;
                return std::nullopt;
            }
            return course::time_gpu(scan, args.runs);
        };
        const auto add = [](course::BenchTable& table, const std::string& name, const std::optional<course::Timing>& t,
                            double bytes) {
            if (t) table.add(name, *t, bytes);
        };
        const int* in = d_in.data();
        int* out = d_out.data();
        const ScanKind inc = ScanKind::inclusive;
        const double bytes = 8.0 * static_cast<double>(n);

        course::cub_ref::Scan cub(n);
        const auto cub_time = measure("CUB DeviceScan::InclusiveSum", n, [&] { cub.inclusive(in, out, n); });

        course::BenchTable table("07_scan: inclusive int32 scan, block " + std::to_string(block), n, copy_gbps);
        add(table, "scan_multiblock (Blelloch tiles, 4n moves)", measure("scan_multiblock", n, [&] {
                scan_multiblock(in, out, n, block, inc, scratch);
            }), bytes);
        add(table, "scan_warp_shuffle (reduce-then-scan, 3n)", measure("scan_warp_shuffle", n, [&] {
                scan_warp_shuffle(in, out, n, block, inc, scratch);
            }), bytes);
        add(table, "scan_single_pass (decoupled look-back, 2n)", measure("scan_single_pass", n, [&] {
                scan_single_pass(in, out, n, block, inc, scratch);
            }), bytes);
        if (cub_time) table.set_reference("CUB DeviceScan::InclusiveSum", *cub_time, bytes);
        table.print(std::cout);
        if (!args.csv.empty()) table.write_csv(args.csv);

        course::BenchTable sweep("07_scan: scan_single_pass by block size", n, copy_gbps);
        for (int b : {64, 128, 256, 512, 1024})
            add(sweep, "scan_single_pass, block " + std::to_string(b), measure("scan_single_pass", n, [&] {
                    scan_single_pass(in, out, n, b, inc, scratch);
                }), bytes);
        if (cub_time) sweep.set_reference("CUB DeviceScan::InclusiveSum", *cub_time, bytes);
        sweep.print(std::cout);

        // One block's worth: a few microseconds per call, almost all of it launch and latency.
        const std::size_t small = std::min<std::size_t>(n, 1024);
        const double small_bytes = 8.0 * static_cast<double>(small);
        course::BenchTable single_block("07_scan: single-block scans (launch-bound)", small, copy_gbps);
        add(single_block, "scan_hillis_steele, block 1024", measure("scan_hillis_steele", small, [&] {
                scan_hillis_steele(in, out, small, 1024, inc);
            }), small_bytes);
        add(single_block, "scan_blelloch, block 512", measure("scan_blelloch", small, [&] {
                scan_blelloch(in, out, small, 512, inc);
            }), small_bytes);
        add(single_block, "scan_single_pass, block " + std::to_string(block), measure("scan_single_pass", small, [&] {
                scan_single_pass(in, out, small, block, inc, scratch);
            }), small_bytes);
        course::cub_ref::Scan cub_small(small);
        if (const auto t = measure("CUB (small)", small, [&] { cub_small.inclusive(in, out, small); }))
            single_block.set_reference("CUB DeviceScan::InclusiveSum", *t, small_bytes);
        single_block.print(std::cout);

        return all_correct ? 0 : 1;
    });
}
