// Checks of common/'s GPU helpers (skipped with the reason on a machine without a usable GPU).
#include "course/check.hpp"
#include "course/cub_reference.hpp"
#include "course/data.hpp"
#include "course/device_buffer.hpp"
#include "course/reference.hpp"
#include "course/report.hpp"
#include "course/testing.hpp"

#include <string>

void launch_with_too_many_threads();  // bad_launch.cu

namespace {

bool contains(const std::string& text, const char* part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_SUITE("gpu")
{
TEST_CASE("CUDA_CHECK names the file, the line, the call and the error")
{
    REQUIRE_GPU();
    void* p = nullptr;
    try {
        CUDA_CHECK(cudaMalloc(&p, std::size_t{1} << 60));  // 1 EiB: no GPU has that
        FAIL("cudaMalloc of 1 EiB succeeded");
    } catch (const course::CudaError& e) {
        MESSAGE("CUDA_CHECK reported: " << std::string(e.what()));
        CHECK(e.code() == cudaErrorMemoryAllocation);
        CHECK(contains(e.what(), "test_gpu.cpp:"));
        CHECK(contains(e.what(), "cudaMalloc(&p, std::size_t{1} << 60) failed"));
        CHECK(contains(e.what(), "cudaErrorMemoryAllocation"));
    }
    CHECK(cudaGetLastError() == cudaErrorMemoryAllocation);  // clear the (non-sticky) error
}

TEST_CASE("CUDA_CHECK_LAUNCH reports a bad launch configuration")
{
    REQUIRE_GPU();
    try {
        launch_with_too_many_threads();
        FAIL("a 4096-thread block launched");
    } catch (const course::CudaError& e) {
        MESSAGE("CUDA_CHECK_LAUNCH reported: " << std::string(e.what()));
        CHECK(e.code() != cudaSuccess);
        CHECK(contains(e.what(), cudaGetErrorName(e.code())));
        CHECK(contains(e.what(), "bad_launch.cu:"));
        CHECK(contains(e.what(), "kernel launch failed"));
    }
}

TEST_CASE("DeviceBuffer round trip, poison, empty buffer")
{
    REQUIRE_GPU();
    const auto host = course::random_ints(1000, course::testing::seed());
    course::DeviceBuffer<int> d(host.size());
    d.copy_from_host(host);
    CHECK(d.to_host() == host);
    d.fill_bytes(0xFF);
    CHECK(d.to_host() == std::vector<int>(1000, -1));
    course::DeviceBuffer<int> moved = std::move(d);
    CHECK(moved.size() == 1000);
    CHECK(d.data() == nullptr);
    course::DeviceBuffer<int> empty(0);
    CHECK(empty.data() == nullptr);
    CHECK(empty.to_host().empty());
    CHECK_THROWS_AS(empty.copy_from_host(host), std::out_of_range);
}

TEST_CASE("timers and the copy-bandwidth probe give positive numbers")
{
    REQUIRE_GPU();
    const double gbps = course::copy_bandwidth_gbps(std::size_t{64} << 20, 5);
    MESSAGE("device-to-device copy of 64 MiB: " << gbps << " GB/s");
    CHECK(gbps > 1.0);
    CHECK(gbps < 100000.0);
}

TEST_CASE("CUB baselines agree with the CPU references")
{
    REQUIRE_GPU();
    for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{1000003}}) {
        CAPTURE(n);
        const auto ints = course::random_ints(n, course::testing::seed(n));
        course::DeviceBuffer<int> d_in(n), d_scan(n);
        d_in.copy_from_host(ints);
        course::DeviceBuffer<long long> d_sum(1);
        d_sum.fill_bytes(0xAB);
        course::cub_ref::Sum sum(n);
        sum(d_in.data(), d_sum.data(), n);
        CHECK(d_sum.to_host()[0] == course::sum_reference(ints.data(), n));

        course::cub_ref::Scan scan(n);
        std::vector<int> expected(n);
        scan.inclusive(d_in.data(), d_scan.data(), n);
        course::inclusive_scan_reference(ints.data(), expected.data(), n);
        CHECK_ARRAY("cub_ref", "inclusive scan", d_scan.to_host().data(), expected.data(), n);
        scan.exclusive(d_in.data(), d_scan.data(), n);
        course::exclusive_scan_reference(ints.data(), expected.data(), n);
        CHECK_ARRAY("cub_ref", "exclusive scan", d_scan.to_host().data(), expected.data(), n);

        const auto bytes = course::random_bytes(n, course::testing::seed(n), course::ByteDistribution::skewed);
        course::DeviceBuffer<std::uint8_t> d_bytes(n);
        d_bytes.copy_from_host(bytes);
        course::DeviceBuffer<unsigned> d_bins(256);
        course::cub_ref::Histogram256 histogram(n);
        histogram(d_bytes.data(), d_bins.data(), n);
        const auto bins = d_bins.to_host();
        const auto ref = course::histogram_reference(bytes.data(), n);
        CHECK(std::equal(bins.begin(), bins.end(), ref.begin()));
    }
}
}
