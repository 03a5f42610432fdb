// The last-warp unroll of the tutorial this chapter follows (Zhang Wuju's, after Harris's slides, Kernel 5),
// kept as a warning: `volatile` shared memory and no synchronization, relying on the 32 threads of a warp
// running in lockstep. Not graded; build it with `ninja -C build`, run it, then
// under racecheck (README, "Task 04.2 · The last warp, and why the tutorial's version is undefined behaviour"):
//   build/subprojects/04_unroll_warp/bin/unroll_warp_race_demo
//   compute-sanitizer --tool racecheck build/subprojects/04_unroll_warp/bin/unroll_warp_race_demo --n 2^16
// (build/bin/unroll_warp_race_demo when the chapter is built alone.)
#include "course/args.hpp"
#include "course/check.hpp"
#include "course/device_buffer.hpp"
#include "course/race_demo.hpp"

#include <iostream>

namespace {

// The tutorial's version: every step is `sdata[tid] += sdata[tid + offset]` by all 32 threads at once. Thread t reads
// sdata[t + 16] while thread t + 16 writes it; that was harmless only while a warp executed one instruction
// for all its threads at the same time. Since Volta (independent thread scheduling) the threads of a warp
// may be at different steps, nothing orders the read before the write, and the C++ model calls it a data
// race: undefined behaviour, whatever the result looks like. `volatile` only stops the compiler from keeping
// values in registers; it orders nothing between threads.
__device__ void warp_sum_volatile(volatile long long* sdata, unsigned tid)
{
    sdata[tid] += sdata[tid + 32];
    sdata[tid] += sdata[tid + 16];
    sdata[tid] += sdata[tid + 8];
    sdata[tid] += sdata[tid + 4];
    sdata[tid] += sdata[tid + 2];
    sdata[tid] += sdata[tid + 1];
}

// reduce_unrolling8 with the tutorial's last warp. Needs blockDim.x >= 64 (the first step reads sdata[tid + 32]).
__global__ void reduce_unroll_warp_volatile(const int* in, std::size_t n, long long* total)
{
    extern __shared__ long long sdata[];
    const unsigned tid = threadIdx.x;
    const std::size_t first = static_cast<std::size_t>(blockIdx.x) * blockDim.x * 8 + tid;
    long long sum = 0;
    for (int k = 0; k < 8; ++k) {
        const std::size_t i = first + static_cast<std::size_t>(k) * blockDim.x;
        if (i < n) sum += in[i];
    }
    sdata[tid] = sum;
    __syncthreads();
    for (unsigned stride = blockDim.x / 2; stride > 32; stride /= 2) {
        if (tid < stride) sdata[tid] += sdata[tid + stride];
        __syncthreads();
    }
    if (tid < 32) warp_sum_volatile(sdata, tid);
    if (tid == 0) atomicAdd(reinterpret_cast<unsigned long long*>(total), static_cast<unsigned long long>(sdata[0]));
}

}  // namespace

int main(int argc, char** argv)
{
    course::ArgSpec spec{"unroll_warp_race_demo",
                         "the tutorial's volatile last-warp unroll (undefined behaviour since Volta); run it under "
                         "racecheck",
                         std::size_t{1} << 20, std::size_t{1} << 28};
    spec.min_block = 64;
    return course::race_demo::run(argc, argv, spec, [](const course::Args& args) {
        const course::race_demo::SumInput input = course::race_demo::sum_input(args);
        if (args.n == 0) return 0;

        const course::DeviceBuffer<int> d_in(input.data);
        course::DeviceBuffer<long long> total(1);
        const std::size_t per_block = static_cast<std::size_t>(args.block) * 8;
        const auto blocks = static_cast<unsigned>((args.n + per_block - 1) / per_block);
        course::race_demo::report("reduce_unroll_warp_volatile", course::race_demo::tally(input.expected, [&] {
            total.fill_bytes(0);
            reduce_unroll_warp_volatile<<<blocks, args.block, args.block * sizeof(long long)>>>(d_in.data(), args.n,
                                                                                              total.data());
            CUDA_CHECK_LAUNCH();
            return total.to_host()[0];
        }));
        std::cout << "A correct result proves nothing: the warp happened to stay in step this time, on this GPU,\n"
                     "with this compiler. compute-sanitizer --tool racecheck reports the hazards either way;\n"
                     "reduce_unroll_warp_syncwarp (Task 04.2) is the correct version.\n";
        return 0;
    });
}
