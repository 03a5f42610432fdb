// Chapter 07 race demo (not a graded check): Hillis-Steele in ONE shared array instead of two. In step
// `offset`, thread i reads x[i - offset] while thread i - offset overwrites that very element with its own new
// value: a read/write race between threads. Inside one warp the loads usually happen before the stores, so
// the output is often right anyway; across warps nothing orders them. Let the tool find it:
//   ninja -C build && compute-sanitizer --tool racecheck build/subprojects/07_scan/bin/scan_race_demo [--n 1024]
#include "course/args.hpp"
#include "course/check.hpp"
#include "course/device_buffer.hpp"
#include "course/race_demo.hpp"
#include "course/reference.hpp"

#include <cstdio>
#include <vector>

namespace {

constexpr int max_n = 1024;  // one block

__global__ void hillis_steele_single_buffer(const int* in, int* out)
{
    __shared__ int x[max_n];
    const unsigned i = threadIdx.x;
    x[i] = in[i];
    __syncthreads();
    for (unsigned offset = 1; offset < blockDim.x; offset *= 2) {
        if (i >= offset) x[i] += x[i - offset];  // RACE: x[i - offset] may already hold this step's value
        __syncthreads();
    }
    out[i] = x[i];
}

}  // namespace

int main(int argc, char** argv)
{
    course::ArgSpec spec{"scan_race_demo", "Hillis-Steele in one shared array (a race), n ones in one block",
                         max_n, max_n};
    spec.uses_block = false;
    return course::race_demo::run(argc, argv, spec, [](const course::Args& args) {
        const int n = static_cast<int>(args.n);
        const std::vector<int> ones(args.n, 1);
        std::vector<int> expected(n);
        course::inclusive_scan_reference(ones.data(), expected.data(), n);
        const course::DeviceBuffer<int> d_in(ones);
        course::DeviceBuffer<int> d_out(n);
        const int wrong = n == 0 ? 0 : course::race_demo::tally(expected, [&] {
            d_out.fill_bytes(0);
            hillis_steele_single_buffer<<<1, n>>>(d_in.data(), d_out.data());
            CUDA_CHECK_LAUNCH();
            return d_out.to_host();
        }).wrong;
        std::printf("Hillis-Steele in one shared array, n = %d ones: %d of %d runs gave a wrong scan.\n", n, wrong,
                    course::race_demo::trials);
        std::printf("A right answer does not prove there is no race: run this program under\n"
                    "  compute-sanitizer --tool racecheck\n"
                    "and compare with scan_hillis_steele, which reads one buffer and writes the other.\n");
        return 0;
    });
}
