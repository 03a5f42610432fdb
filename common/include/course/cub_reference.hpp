// The toolkit's own CUB calls that the benchmarks compare against, with their temporary storage allocated
// once (so timing a call times the algorithm, not cudaMalloc). Build line: linked through course_cub_dep.
#pragma once

#include "course/device_buffer.hpp"

#include <cstddef>
#include <cstdint>

namespace course::cub_ref {

// cub::DeviceReduce::Sum of int32 into an int64 total (64-bit accumulation, like the course's kernels).
class Sum {
public:
    explicit Sum(std::size_t max_n);
    void operator()(const int* d_in, long long* d_out, std::size_t n, cudaStream_t stream = nullptr);

private:
    std::size_t max_n_;
    DeviceBuffer<unsigned char> temp_;
};

// cub::DeviceHistogram::HistogramEven with 256 bins over all byte values.
class Histogram256 {
public:
    explicit Histogram256(std::size_t max_n);
    void operator()(const std::uint8_t* d_in, unsigned* d_bins, std::size_t n, cudaStream_t stream = nullptr);

private:
    std::size_t max_n_;
    DeviceBuffer<unsigned char> temp_;
};

// cub::DeviceScan::InclusiveSum / ExclusiveSum of int32 (wrapping on overflow).
class Scan {
public:
    explicit Scan(std::size_t max_n);
    void inclusive(const int* d_in, int* d_out, std::size_t n, cudaStream_t stream = nullptr);
    void exclusive(const int* d_in, int* d_out, std::size_t n, cudaStream_t stream = nullptr);

private:
    std::size_t max_n_;
    DeviceBuffer<unsigned char> temp_;
};

}  // namespace course::cub_ref
