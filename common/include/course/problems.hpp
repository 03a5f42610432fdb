// The data of the chapters' problems (course/chapter.hpp): a seeded random input of --n elements on the host and
// the device, the output the kernels write, and how it is judged against the CPU references of
// course/reference.hpp. A chapter binds its launchers to data() and the output, and cub_baseline() (linked into
// benchmarks only, through course_cub_dep) adds the toolkit's matching call.
#pragma once

#include "course/args.hpp"
#include "course/chapter.hpp"
#include "course/data.hpp"
#include "course/device_buffer.hpp"
#include "course/reference.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace course {

// n random ints (course::random_ints) summed into one long long (chapters 02 to 05).
class IntSum : public Problem {
public:
    // overwritten: the kernels reduce in place; every checked run (and every run of the demo, outside its
    // timing) starts from a fresh copy of the input.
    enum class Input { kept, overwritten };
    IntSum(std::string chapter, const Args& args, Input input = Input::kept);
    int* data() { return work_.data(); }
    long long* total() { return total_.data(); }
    const std::vector<int>& host() const { return host_; }
    std::int64_t expected(std::size_t n);  // the CPU's sum of the first n elements

    void prepare() override;
    bool overwrites_input() const override { return overwritten_; }
    void restore() override;
    std::string wrong(std::size_t n) override;
    std::string result(std::size_t n) override;
    double bytes(std::size_t n) const override { return static_cast<double>(n * sizeof(int)); }
    std::string about() override;
    CpuRow cpu_row() override;

private:
    std::size_t n_;
    bool overwritten_;
    std::vector<int> host_;
    DeviceBuffer<int> pristine_, work_;  // pristine_ is empty unless the kernels overwrite their input
    DeviceBuffer<long long> total_;
    std::optional<std::pair<std::size_t, std::int64_t>> expected_;  // the last sum asked for: n, sum
};

// A 256-bin histogram of n random bytes, one input per byte distribution (chapter 06). The input's name is
// to_string(distribution): "uniform", "identical", ...
class ByteHistogram : public Problem {
public:
    // The chapter's own CPU histogram, the demo's first row (its result is judged too).
    struct CpuHistogram {
        std::string label;
        void (*run)(const std::uint8_t* data, unsigned* bins, std::size_t n);
    };
    ByteHistogram(std::string chapter, const Args& args, std::vector<ByteDistribution> distributions,
                  CpuHistogram cpu);
    const std::uint8_t* data() const { return d_in_.data(); }
    unsigned* bins() { return d_bins_.data(); }
    std::size_t max_n() const { return n_; }
    const std::vector<std::uint8_t>& host() const { return host_; }  // the loaded input
    const Histogram256& expected(std::size_t n);                    // of its first n bytes

    std::vector<std::string> inputs() const override;
    void load(const std::string& input) override;
    void prepare() override { d_bins_.fill_bytes(0xAB); }
    std::string wrong(std::size_t n) override;
    std::string result(std::size_t n) override;
    double bytes(std::size_t n) const override { return static_cast<double>(n); }
    std::string about() override;
    CpuRow cpu_row() override;

private:
    std::size_t n_;
    std::uint64_t seed_;
    std::vector<ByteDistribution> distributions_;
    CpuHistogram cpu_;
    ByteDistribution loaded_;
    std::vector<std::uint8_t> host_;
    DeviceBuffer<std::uint8_t> d_in_;
    DeviceBuffer<unsigned> d_bins_;
    std::optional<std::pair<std::size_t, Histogram256>> expected_;  // of the loaded input's first n bytes
};

// The inclusive int32 scan of n random ints (chapter 07); GB/s count the bytes read and written.
class IntScan : public Problem {
public:
    IntScan(std::string chapter, const Args& args);
    const int* data() const { return d_in_.data(); }
    int* out() { return d_out_.data(); }
    const std::vector<int>& host() const { return host_; }
    // What is wrong with the first n outputs as an exclusive scan ("" if nothing).
    std::string wrong_exclusive(std::size_t n);

    void prepare() override { d_out_.fill_bytes(0xAB); }
    std::string wrong(std::size_t n) override;
    std::string result(std::size_t n) override;
    double bytes(std::size_t n) const override { return 8.0 * static_cast<double>(n); }
    std::string about() override { return "result = the last element of the scan"; }
    CpuRow cpu_row() override;

private:
    std::string first_mismatch_in(const std::vector<int>& expected, std::size_t n) const;
    std::size_t n_;
    std::vector<int> host_, inclusive_, exclusive_;  // exclusive_: made when first asked for
    DeviceBuffer<int> d_in_, d_out_;
};

// The toolkit's call each problem is measured against, on the problem's buffers: DeviceReduce::Sum,
// DeviceHistogram::HistogramEven, DeviceScan::InclusiveSum (course/cub_reference.hpp). Benchmarks only.
void cub_baseline(IntSum& problem);
void cub_baseline(ByteHistogram& problem);
void cub_baseline(IntScan& problem);

}  // namespace course
