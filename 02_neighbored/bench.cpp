// Chapter 02 benchmark: both kernels and CUB's DeviceReduce::Sum on n int32 (default 2^28 = 1 GiB), median of
// --runs timed runs after a warm-up; every kernel's result is verified first (a wrong kernel gets no time).
//   meson test -C build --benchmark --suite 02_neighbored
#include "neighbored.hpp"

#include "course/args.hpp"
#include "course/check.hpp"
#include "course/cub_reference.hpp"
#include "course/data.hpp"
#include "course/device.hpp"
#include "course/device_buffer.hpp"
#include "course/reference.hpp"
#include "course/report.hpp"
#include "course/timer.hpp"

#include <iostream>
#include <string>

namespace {

struct Variant {
    const char* name;
    void (*reduce)(int*, std::size_t, int, long long*, long long*);
};
const Variant variants[] = {{"reduce_neighbored", reduce_neighbored},
                            {"reduce_neighbored_less", reduce_neighbored_less}};

}  // namespace

int main(int argc, char** argv)
{
    course::ArgSpec spec{"neighbored_bench", "the 02_neighbored progression against CUB DeviceReduce::Sum",
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
        course::DeviceBuffer<long long> workspace(neighbored_workspace_count(args.n, args.block)), total(1);
        course::BenchTable table("02_neighbored, int32, block = " + std::to_string(args.block) +
                                     ", every run on a fresh copy of the input",
                                 args.n, copy_gbps);
        bool all_correct = true;
        for (const Variant& v : variants) {
            const auto reduce = [&] { v.reduce(work.data(), args.n, args.block, workspace.data(), total.data()); };
            work.copy_from(pristine);
            reduce();
            if (const long long got = total.to_host()[0]; got != expected) {
                std::cerr << v.name << " returned " << got << ", expected " << expected << ": not timed\n";
                all_correct = false;
                continue;
            }
            table.add(v.name, course::time_gpu_with_reset([&] { work.copy_from(pristine); }, reduce, args.runs), bytes);
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
