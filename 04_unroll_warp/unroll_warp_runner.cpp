// Chapter 04's runner: the one program that links your unroll_warp_student.cuh (through unroll_warp_launch.cu).
// The checks (checks.cpp) send it calls and judge what comes back (course/runner.hpp).
//
// Every operation is a launcher (the progression's steps, by name) or a probe (unroll_warp.hpp): buffer 0 the input,
// buffer 1 the total; and "occupancy answers" (a host operation) returns Task 04.7's answers as values. The 04.6
// launchers also take an UnrollWarpWorkspace, which the runner keeps from one call to the next, one per value of the
// parameter "workspace": the checks give every case its own, shared by all the case's launches (a kernel that
// does not reset it fails from the second launch on).
#include "unroll_warp_progression.hpp"

#include "course/runner.hpp"

#include <cstdint>
#include <string>

namespace {

using course::runner::Call;

void plain(Call& c, IntReduce* launch) { launch(c.buffer<int>(0), c.buffer<long long>(1), c.n, c.block, c.stream()); }

UnrollWarpWorkspace& workspace(Call& c, const std::string& which = "")
{
    return c.keep<UnrollWarpWorkspace>("workspace " + std::to_string(c.param("workspace")) + which);
}

void vectorized(Call& c, IntReduceWithWorkspace* launch)
{
    UnrollWarpWorkspace& w = workspace(c);
    launch(c.buffer<int>(0), c.buffer<long long>(1), c.n, c.block, w, c.stream());
}

// The float launcher in two overloads: the parameter "accumulator_bits" = 32 picks float accumulation (a float
// total), anything else double accumulation (a double total).
void vectorized_float(Call& c)
{
    UnrollWarpWorkspace& w = workspace(c);
    if (c.param("accumulator_bits", 64) == 32)
        reduce_vectorized_float(c.buffer<float>(0), c.buffer<float>(1), c.n, c.block, w, c.stream());
    else
        reduce_vectorized_float(c.buffer<float>(0), c.buffer<double>(1), c.n, c.block, w, c.stream());
}

void vectorized_bytes(Call& c)
{
    UnrollWarpWorkspace& w = workspace(c);
    reduce_vectorized_bytes(c.buffer<std::uint8_t>(0), c.buffer<long long>(1), c.n, c.block, w, c.stream());
}

// Two launches at once, on two non-blocking streams of the runner's, with a workspace each: n ints from buffer 0
// into buffer 1 on stream 0, and the parameter n_b ints from buffer 2 into buffer 3 on stream 1. The runner
// waits for both streams before it copies the totals back.
void vectorized_two_streams(Call& c)
{
    UnrollWarpWorkspace& a = workspace(c, " stream 0");
    UnrollWarpWorkspace& b = workspace(c, " stream 1");
    reduce_vectorized(c.buffer<int>(0), c.buffer<long long>(1), c.n, c.block, a, c.own_stream(0));
    reduce_vectorized(c.buffer<int>(2), c.buffer<long long>(3), static_cast<std::size_t>(c.param("n_b")), c.block, b,
                      c.own_stream(1));
}

// Task 04.7's answers, one value per kernel of the table and field: "a.blocks", "a.warps", "a.limit", ...
void occupancy(Call& c)
{
    const OccupancyAnswer* answers = occupancy_answers();
    for (int i = 0; i < occupancy_kernel_count; ++i) {
        const std::string kernel(1, occupancy_kernels[i].name);
        c.value(kernel + ".blocks", static_cast<long long>(answers[i].blocks_per_sm));
        c.value(kernel + ".warps", static_cast<long long>(answers[i].warps_per_sm));
        c.value(kernel + ".limit", static_cast<long long>(answers[i].limited_by));
    }
}

}  // namespace

int main()
{
    return course::runner::serve({
        course::runner::ops_of(unroll_warp_progression, plain),
        course::runner::ops_of(unroll_warp_vectorized_progression, vectorized),
        {
            {"reduce_vectorized_float", vectorized_float},
            {"reduce_vectorized_bytes", vectorized_bytes},
            {"reduce_vectorized on two streams", vectorized_two_streams},
            {"probe_last_warp_sum", [](Call& c) { plain(c, probe_last_warp_sum); }},
            {"probe_tree_sum_complete_unroll", [](Call& c) { plain(c, probe_tree_sum_complete_unroll); }},
            {"probe_thread_sum_grid_stride", [](Call& c) { plain(c, probe_thread_sum_grid_stride); }},
            {"probe_shfl_warp_sum", [](Call& c) { plain(c, probe_shfl_warp_sum); }},
            {"occupancy answers", occupancy, true},
        },
    });
}
