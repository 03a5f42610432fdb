// Chapter 03 demo: one random input summed on the CPU and by all four kernels, checked and timed.
//   build/subprojects/03_interleaved/interleaved_demo --n 2^24 --block 256 --seed 1
#include "interleaved.hpp"

#include "course/args.hpp"
#include "course/check.hpp"
#include "course/data.hpp"
#include "course/device.hpp"
#include "course/device_buffer.hpp"
#include "course/reference.hpp"
#include "course/report.hpp"
#include "course/timer.hpp"

#include <iostream>
#include <string>

namespace {

struct SharedVariant {
    const char* name;
    void (*reduce)(const int*, std::size_t, int, long long*);
};
const SharedVariant shared_variants[] = {{"reduce_shared_modulo", reduce_shared_modulo},
                                         {"reduce_shared_strided", reduce_shared_strided},
                                         {"reduce_shared_sequential", reduce_shared_sequential}};
constexpr int gpu_runs = 20;

}  // namespace

int main(int argc, char** argv)
{
    const course::ArgSpec spec{"interleaved_demo",
                               "sum random ints on the GPU: interleaved pairs, then three shared-memory trees",
                               std::size_t{1} << 24, std::size_t{1} << 30};
    const course::Args args = course::parse_args(argc, argv, spec);

    return course::run_gpu_main(spec.program, [&] {
        std::cout << course::describe(course::device_info()) << '\n';
        const auto data = course::random_ints(args.n, args.seed);
        const std::int64_t expected = course::sum_reference(data.data(), args.n);
        std::cout << "n = " << args.n << ", block = " << args.block << ", seed = " << args.seed
                  << ", expected sum = " << expected << "\n\n";

        const double bytes = static_cast<double>(args.n * sizeof(int));
        course::ResultTable table("03_interleaved, block = " + std::to_string(args.block) + ": median of " +
                                  std::to_string(gpu_runs) + " GPU runs");
        std::int64_t cpu = 0;
        const auto cpu_time = course::time_cpu([&] { cpu = course::sum_reference(data.data(), args.n); });
        table.add("CPU sum_reference", std::to_string(cpu), cpu == expected, cpu_time.median_ms, bytes);

        course::DeviceBuffer<int> pristine(args.n), work(args.n);
        pristine.copy_from_host(data);
        course::DeviceBuffer<long long> total(1);

        // reduce_interleaved overwrites its input: each run starts from `pristine`, restored outside the timing.
        auto t = course::time_gpu_with_reset([&] { work.copy_from(pristine); },
                                             [&] { reduce_interleaved(work.data(), args.n, args.block, total.data()); },
                                             gpu_runs);
        long long got = total.to_host()[0];
        table.add("reduce_interleaved", std::to_string(got), got == expected, t.median_ms, bytes);

        for (const SharedVariant& v : shared_variants) {
            t = course::time_gpu([&] { v.reduce(pristine.data(), args.n, args.block, total.data()); }, gpu_runs);
            got = total.to_host()[0];
            table.add(v.name, std::to_string(got), got == expected, t.median_ms, bytes);
        }
        table.print(std::cout);
        std::cout << "GPU times include zeroing the total; reduce_interleaved's exclude restoring its input.\n";
        return table.all_correct() ? 0 : 1;
    });
}
