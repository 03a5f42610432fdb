// Result tables for demos and benchmarks, printed as Markdown (so a measured table pastes into a README)
// and, for benchmarks, also written as CSV for plots.
#pragma once

#include "course/timer.hpp"

#include <iosfwd>
#include <string>
#include <vector>

namespace course {

// Demo table: one input, every variant; the first row (the CPU) is the speedup baseline.
class ResultTable {
public:
    explicit ResultTable(std::string title) : title_(std::move(title)) {}
    void add(std::string variant, std::string result, bool correct, double ms, double bytes);
    void print(std::ostream& out) const;
    bool all_correct() const;

private:
    struct Row {
        std::string variant, result;
        bool correct;
        double ms, bytes;
    };
    std::string title_;
    std::vector<Row> rows_;
};

// Device-to-device cudaMemcpy bandwidth, counting bytes read plus bytes written: the practical ceiling a
// memory-bound kernel is measured against. Median of `runs` copies of `bytes` bytes.
double copy_bandwidth_gbps(std::size_t bytes, int runs = 20);

// The Harris-style progression: kernel, median ms, GB/s, % of copy bandwidth, step and cumulative speedup,
// and the ratio to a reference call (CUB) timed in the same run (> 1 means faster than the reference).
class BenchTable {
public:
    BenchTable(std::string title, std::size_t n, double copy_gbps);
    void add(std::string kernel, const Timing& t, double bytes);
    void set_reference(std::string name, const Timing& t, double bytes);
    // `conditions` (course/conditions.hpp: describe_conditions) goes under the table and into every CSV row.
    void print(std::ostream& out, const std::string& conditions) const;
    // append = true adds the rows to an existing file (the header is written only into an empty file), so
    // a benchmark with several tables (inputs, sizes) writes one CSV.
    void write_csv(const std::string& path, const std::string& conditions, bool append = false) const;

private:
    struct Row {
        std::string kernel;
        Timing t;
        double bytes;
    };
    double gbps(const Row& r) const { return r.bytes / (r.t.median_ms * 1e6); }
    std::string title_;
    std::size_t n_;
    double copy_gbps_;
    std::vector<Row> rows_;
    std::vector<Row> reference_;  // zero or one row
};

std::string today_utc();  // "2026-11-21"
std::string csv_field(std::string s);  // one CSV field: quoted (a double quote inside becomes a single one)
std::string fixed(double value, int digits);  // fixed(3.14159, 2) == "3.14"

}  // namespace course
