// Chapter 07 benchmark (docs/07_scan.md, "The demo and the benchmark"): the scans against CUB's
// DeviceScan::InclusiveSum, scan_single_pass by block size and by size; every result checked first.
//   build/subprojects/07_scan/bin/scan_bench --n 2^28 --block 256 --csv 07_scan.csv
#include "scan_problem.hpp"

int main(int argc, char** argv)
{
    return course::bench_main<ScanProblem>(argc, argv, "inclusive int32 scans of chapter 07 against CUB "
                                                       "DeviceScan::InclusiveSum");
}
