// course_baselines PROBLEM N RUNS: what a performance task (course/performance.hpp) compares a student's kernel
// with, run under Nsight Compute by the checks. Built from the course's own code only (no student links it).
// Before each call it launches course_timed_call_marker, as a runner does, then: RUNS copies of 1 GiB (the
// copy bandwidth: the same read and write a perfect kernel makes), then RUNS calls of CUB's answer to PROBLEM
// at N elements (reduce: N ints; histogram: N bytes, uniform then the same byte throughout, RUNS of each; scan:
// N ints, inclusive).
#include "course/check.hpp"
#include "course/cub_reference.hpp"
#include "course/device_buffer.hpp"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

__global__ void course_timed_call_marker() {}

// One call, after its marker, waited for.
template <class Call>
void timed(Call call)
{
    course_timed_call_marker<<<1, 1>>>();
    CUDA_CHECK(cudaGetLastError());
    call();
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());
}

// 16 bytes per load and store, a grid-stride loop over a grid that fills the GPU (bytes: a multiple of 16).
__global__ void course_baseline_copy(const int4* in, int4* out, std::size_t count)
{
    for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < count;
         i += std::size_t{gridDim.x} * blockDim.x)
        out[i] = in[i];
}

int usage()
{
    std::fprintf(stderr, "usage: course_baselines reduce|histogram|scan N RUNS\n");
    return 2;
}

}  // namespace

int main(int argc, char** argv)
{
    if (argc != 4) return usage();
    const std::string problem = argv[1];
    const std::size_t n = std::strtoull(argv[2], nullptr, 10);
    const int runs = std::atoi(argv[3]);
    if (n == 0 || runs <= 0 || (problem != "reduce" && problem != "histogram" && problem != "scan")) return usage();

    constexpr std::size_t copy_bytes = std::size_t{1} << 30;
    {
        course::DeviceBuffer<int4> src(copy_bytes / 16), dst(copy_bytes / 16);
        CUDA_CHECK(cudaMemset(src.data(), 1, copy_bytes));
        int sms = 0;
        CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
        for (int r = 0; r < runs; ++r)
            timed([&] { course_baseline_copy<<<sms * 8, 256>>>(src.data(), dst.data(), copy_bytes / 16); });
    }
    if (problem == "reduce") {
        course::DeviceBuffer<int> in(n);
        course::DeviceBuffer<long long> total(1);
        CUDA_CHECK(cudaMemset(in.data(), 1, n * sizeof(int)));
        course::cub_ref::Sum sum(n);
        for (int r = 0; r < runs; ++r) timed([&] { sum(in.data(), total.data(), n); });
    } else if (problem == "histogram") {
        course::DeviceBuffer<std::uint8_t> in(n);
        course::DeviceBuffer<unsigned> bins(256);
        course::cub_ref::Histogram256 histogram(n);
        for (const bool uniform : {true, false}) {
            std::string bytes(n, '\x5a');
            if (uniform)
                for (std::size_t i = 0; i < n; ++i) bytes[i] = static_cast<char>((i * 2654435761u) >> 24);
            CUDA_CHECK(cudaMemcpy(in.data(), bytes.data(), n, cudaMemcpyHostToDevice));
            for (int r = 0; r < runs; ++r) timed([&] { histogram(in.data(), bins.data(), n); });
        }
    } else {
        course::DeviceBuffer<int> in(n), out(n);
        CUDA_CHECK(cudaMemset(in.data(), 1, n * sizeof(int)));
        course::cub_ref::Scan scan(n);
        for (int r = 0; r < runs; ++r) timed([&] { scan.inclusive(in.data(), out.data(), n); });
    }
    return 0;
}
