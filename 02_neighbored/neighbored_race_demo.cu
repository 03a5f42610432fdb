// "Find the bug": the tutorial's first GPU reduction, without __syncthreads() between the tree's levels; not
// graded. Run it, then under compute-sanitizer (README, "Find the bug"; chapter alone: build/bin/):
//   build/subprojects/02_neighbored/bin/neighbored_race_demo   (compute-sanitizer --tool racecheck in front)
#include "course/args.hpp"
#include "course/check.hpp"
#include "course/device_buffer.hpp"
#include "course/launch.hpp"
#include "course/race_demo.hpp"

#include <cstdint>
#include <iostream>

namespace {

// The tutorial's version (global memory, in place) minus its barrier: nothing makes a thread wait until its
// partner element has received the previous level's addition, so it may add a stale value.
__global__ void reduce_neighbored_nosync(int* data, std::size_t n, long long* block_sums)
{
    const unsigned tid = threadIdx.x;
    const std::size_t begin = static_cast<std::size_t>(blockIdx.x) * blockDim.x;
    int* segment = data + begin;
    const unsigned valid = n - begin < blockDim.x ? static_cast<unsigned>(n - begin) : blockDim.x;
    for (unsigned stride = 1; stride < blockDim.x; stride *= 2)
        if (tid % (2 * stride) == 0 && tid + stride < valid) segment[tid] += segment[tid + stride];
    if (tid == 0) block_sums[blockIdx.x] = segment[0];
}

// The same missing barrier on a shared-memory copy of the segment: racecheck watches shared memory only, so
// this is the version it can report. (The load is followed by a barrier; only the ones between levels lack.)
__global__ void reduce_neighbored_nosync_shared(const int* data, std::size_t n, long long* block_sums)
{
    extern __shared__ int segment[];
    const unsigned tid = threadIdx.x;
    const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + tid;
    segment[tid] = i < n ? data[i] : 0;
    __syncthreads();
    for (unsigned stride = 1; stride < blockDim.x; stride *= 2)
        if (tid % (2 * stride) == 0) segment[tid] += segment[tid + stride];
    if (tid == 0) block_sums[blockIdx.x] = segment[0];
}

}  // namespace

int main(int argc, char** argv)
{
    course::ArgSpec spec{"neighbored_race_demo",
                         "the neighbored reduction without __syncthreads(): how often is it wrong?",
                         std::size_t{1} << 16, std::size_t{1} << 24};
    spec.default_block = 1024;
    return course::race_demo::run(argc, argv, spec, [](const course::Args& args) {
        const course::race_demo::SumInput input = course::race_demo::sum_input(args, " of each kernel");
        const unsigned blocks = static_cast<unsigned>(course::ceil_div(args.n, args.block));
        if (blocks == 0) return 0;

        const course::DeviceBuffer<int> pristine(input.data);
        course::DeviceBuffer<int> work(args.n);
        course::DeviceBuffer<long long> block_sums(blocks);
        const auto count = [&](const char* kernel, auto launch) {
            course::race_demo::report(kernel, course::race_demo::tally(input.expected, [&] {
                CUDA_CHECK(cudaMemcpy(work.data(), pristine.data(), pristine.bytes(), cudaMemcpyDeviceToDevice));
                launch();
                CUDA_CHECK_LAUNCH();
                std::int64_t got = 0;  // the block sums are added on the host: this demo is not timed
                for (long long s : block_sums.to_host()) got += s;
                return got;
            }));
        };
        count("reduce_neighbored_nosync (global memory)", [&] {
            reduce_neighbored_nosync<<<blocks, args.block>>>(work.data(), args.n, block_sums.data());
        });
        count("reduce_neighbored_nosync_shared (shared memory)", [&] {
            reduce_neighbored_nosync_shared<<<blocks, args.block, args.block * sizeof(int)>>>(
                work.data(), args.n, block_sums.data());
        });
        std::cout << "A correct result proves nothing: a race decides by timing, and timing differs from run to run\n"
                     "and from GPU to GPU. Run it under compute-sanitizer --tool racecheck.\n";
        return 0;
    });
}
