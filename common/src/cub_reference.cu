#include "course/cub_reference.hpp"

#include <cub/device/device_histogram.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>

#include <stdexcept>
#include <string>

namespace course::cub_ref {
namespace {

void check_size(std::size_t n, std::size_t max_n)
{
    if (n > max_n) throw std::invalid_argument("cub_ref: n is larger than the size the call was set up for");
}

// CUB's two-phase protocol: a call with a null temp pointer only reports the bytes it needs.
template <class Query>
DeviceBuffer<unsigned char> temp_storage(Query query)
{
    std::size_t bytes = 0;
    CUDA_CHECK(query(bytes));
    return DeviceBuffer<unsigned char>(bytes > 0 ? bytes : 1);
}

}  // namespace

Sum::Sum(std::size_t max_n)
    : max_n_(max_n), temp_(temp_storage([&](std::size_t& bytes) {
          return cub::DeviceReduce::Sum(nullptr, bytes, static_cast<const int*>(nullptr),
                                        static_cast<long long*>(nullptr), static_cast<std::int64_t>(max_n));
      }))
{
}

void Sum::operator()(const int* d_in, long long* d_out, std::size_t n, cudaStream_t stream)
{
    check_size(n, max_n_);
    std::size_t bytes = temp_.bytes();
    CUDA_CHECK(cub::DeviceReduce::Sum(temp_.data(), bytes, d_in, d_out, static_cast<std::int64_t>(n), stream));
}

Histogram256::Histogram256(std::size_t max_n)
    : max_n_(max_n), temp_(temp_storage([&](std::size_t& bytes) {
          return cub::DeviceHistogram::HistogramEven(nullptr, bytes, static_cast<const std::uint8_t*>(nullptr),
                                                     static_cast<unsigned*>(nullptr), 257, 0, 256,
                                                     static_cast<std::int64_t>(max_n));
      }))
{
}

void Histogram256::operator()(const std::uint8_t* d_in, unsigned* d_bins, std::size_t n, cudaStream_t stream)
{
    check_size(n, max_n_);
    std::size_t bytes = temp_.bytes();
    // 257 levels make 256 bins of width 1: bin b counts the value b.
    CUDA_CHECK(cub::DeviceHistogram::HistogramEven(temp_.data(), bytes, d_in, d_bins, 257, 0, 256,
                                                   static_cast<std::int64_t>(n), stream));
}

Scan::Scan(std::size_t max_n)
    : max_n_(max_n), temp_(temp_storage([&](std::size_t& bytes) {
          std::size_t exclusive_bytes = 0;
          cudaError_t err = cub::DeviceScan::ExclusiveSum(nullptr, exclusive_bytes, static_cast<const int*>(nullptr),
                                                          static_cast<int*>(nullptr), static_cast<std::int64_t>(max_n));
          if (err != cudaSuccess) return err;
          err = cub::DeviceScan::InclusiveSum(nullptr, bytes, static_cast<const int*>(nullptr),
                                              static_cast<int*>(nullptr), static_cast<std::int64_t>(max_n));
          bytes = bytes > exclusive_bytes ? bytes : exclusive_bytes;
          return err;
      }))
{
}

void Scan::inclusive(const int* d_in, int* d_out, std::size_t n, cudaStream_t stream)
{
    check_size(n, max_n_);
    std::size_t bytes = temp_.bytes();
    CUDA_CHECK(cub::DeviceScan::InclusiveSum(temp_.data(), bytes, d_in, d_out, static_cast<std::int64_t>(n), stream));
}

void Scan::exclusive(const int* d_in, int* d_out, std::size_t n, cudaStream_t stream)
{
    check_size(n, max_n_);
    std::size_t bytes = temp_.bytes();
    CUDA_CHECK(cub::DeviceScan::ExclusiveSum(temp_.data(), bytes, d_in, d_out, static_cast<std::int64_t>(n), stream));
}

}  // namespace course::cub_ref

namespace course {

std::string cccl_version()
{
    // CUB_VERSION is major * 100000 + minor * 100 + patch (CCCL's CUB carries CCCL's version).
    return std::to_string(CUB_VERSION / 100000) + "." + std::to_string(CUB_VERSION / 100 % 1000) + "." +
           std::to_string(CUB_VERSION % 100);
}

}  // namespace course
