// Chapter 07 benchmark: the scan progression (scan_progression.hpp) on int32 (default n = 2^28, 1 GiB in + 1 GiB
// out; bytes counted = read + write = 8n), each kernel checked against the CPU before it is timed, against CUB's
// DeviceScan::InclusiveSum in the same run. Then two small tables: scan_single_pass by block size, and the
// single-block scans on one block's worth of data, where every call is launch-bound. --csv writes all three
// tables into one file; --kernel NAME (repeatable) runs only those kernels. Last, the size sweep: scan_single_pass
// against CUB from 2^10 to n, cold (L2 flushed) and hot, written to <csv>-sweep.csv.
//   build/subprojects/07_scan/bin/scan_bench --n 2^28 --block 256 --csv 07_scan.csv
#include "scan_problem.hpp"

int main(int argc, char** argv)
{
    return course::bench_main<ScanProblem>(argc, argv, "inclusive int32 scans of chapter 07 against CUB "
                                                       "DeviceScan::InclusiveSum");
}
