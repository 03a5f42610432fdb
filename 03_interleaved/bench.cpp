// Chapter 03 benchmark: the four kernels and CUB's DeviceReduce::Sum on n int32 (default 2^28 = 1 GiB),
// median of --runs timed runs after a warm-up; every kernel's result is verified first (a wrong kernel gets
// no time).
//   meson test -C build --benchmark --suite 03_interleaved
#include "interleaved.hpp"

#include "course/args.hpp"
#include "course/check.hpp"
#include "course/cub_reference.hpp"
#include "course/data.hpp"
#include "course/device.hpp"
#include "course/device_buffer.hpp"
#include "course/reference.hpp"
#include "course/report.hpp"
#include "course/timer.hpp"

#include <functional>
#include <iostream>
#include <string>

int main(int argc, char** argv)
{
    course::ArgSpec spec{"interleaved_bench", "the 03_interleaved progression against CUB DeviceReduce::Sum",
                         std::size_t{1} << 28, std::size_t{1} << 30};
    spec.benchmark = true;
    const course::Args args = course::parse_args(argc, argv, spec);

    return course::run_gpu_main(spec.program, [&] {
        std::cout << course::describe(course::device_info()) << '\n';
        const double copy_gbps = course::copy_bandwidth_gbps(std::size_t{1} << 30);
        const auto data = course::random_ints(args.n, args.seed);
        const long long expected = course::sum_reference(data.data(), args.n);
        const double bytes = static_cast<double>(args.n * sizeof(int));

        course::DeviceBuffer<int> pristine(args.n), work(args.n);
        pristine.copy_from_host(data);
        course::DeviceBuffer<long long> total(1);
        course::BenchTable table("03_interleaved, int32, block = " + std::to_string(args.block), args.n, copy_gbps);
        bool all_correct = true;

        // Runs `reduce` once on a fresh input and reports whether *total is right: a wrong kernel gets no time.
        const auto verified = [&](const char* name, const std::function<void()>& reduce) {
            work.copy_from(pristine);
            reduce();
            const long long got = total.to_host()[0];
            if (got != expected) {
                std::cerr << name << " returned " << got << ", expected " << expected << ": not timed\n";
                all_correct = false;
            }
            return got == expected;
        };

        // In place: every run on a fresh copy of the input, restored outside the timed region.
        const auto interleaved = [&] { reduce_interleaved(work.data(), args.n, args.block, total.data()); };
        if (verified("reduce_interleaved", interleaved))
            table.add("reduce_interleaved", course::time_gpu_with_reset([&] { work.copy_from(pristine); }, interleaved, args.runs), bytes);

        const std::pair<const char*, void (*)(const int*, std::size_t, int, long long*)> shared_variants[] = {
            {"reduce_shared_modulo", reduce_shared_modulo},
            {"reduce_shared_strided", reduce_shared_strided},
            {"reduce_shared_sequential", reduce_shared_sequential}};
        for (const auto& [name, reduce_shared] : shared_variants) {
            const auto reduce = [&, fn = reduce_shared] { fn(work.data(), args.n, args.block, total.data()); };
            if (verified(name, reduce)) table.add(name, course::time_gpu(reduce, args.runs), bytes);
        }

        course::cub_ref::Sum cub_sum(args.n);
        const auto cub = [&] { cub_sum(pristine.data(), total.data(), args.n); };
        cub();
        if (const long long got = total.to_host()[0]; got != expected) {
            std::cerr << "CUB returned " << got << ", expected " << expected << '\n';
            return 1;
        }
        table.set_reference("CUB DeviceReduce::Sum", course::time_gpu(cub, args.runs), bytes);

        table.print(std::cout);
        if (!args.csv.empty()) table.write_csv(args.csv);
        return all_correct ? 0 : 1;
    });
}
