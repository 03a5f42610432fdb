// Chapter 02 checks: both kernels against the CPU reference, for every block size the launchers accept and the
// standard sizes (0, 1, 2, 31, 32, 33, block-1, block, block+1, 1000, 5000, 999983, 2^24+7 and two odd sizes
// drawn from the run's seed), with negative values, a poisoned total and poisoned block sums. A failure reads
// e.g.
//   TODO(02.1): reduce_neighbored(n=33, block=32) returned ..., expected ...
// Per task also: values at the edge of what an int partial sum holds, no read past n, a stream of its own, bad
// arguments (block sizes, null pointers, n past the workspace's max_n), racecheck and synccheck on small sizes,
// and past 2^32 elements ("... large"). The lesson of 02.2 (fewer divergent branches) is measured with Nsight
// Compute ("TODO(02.2) lesson").
//
// The checks link none of your code: every call goes to the chapter's runner (neighbored_runner.cpp), a
// program of its own, and only what comes back is judged, here (course/reduction_checks.hpp).
#include "neighbored.hpp"

#include "course/checker.hpp"
#include "course/reduction_checks.hpp"
#include "course/testing.hpp"

#include <cstddef>
#include <string>
#include <vector>

using course::testing::Reduction;
using course::testing::call;

namespace {

// Bad block sizes and null pointers are the battery's; here an n past the workspace's max_n.
void check_rejects_past_workspace(const Reduction& r)
{
    const course::testing::IntData data(std::vector<int>(1000, 1));
    for (long long max_n : {0, 999}) {
        course::checker::Call c = course::testing::reduction_call(r, data, 0, 1000, 256);
        c.param("workspace", max_n);
        course::testing::check_rejected(r.task,
                                        call(r.op, 1000, 256) + " with a workspace of max_n = " + std::to_string(max_n),
                                        course::checker::run(c));
    }
}

// NeighboredWorkspace sizes its block sums with the launchers' block check: host code, checked without a GPU.
void check_block_sums_needed_rejects(const std::string& task)
{
    for (int block : {0, -32, 16, 33, 96, 2048})
        course::testing::check_rejected(task, call("NeighboredWorkspace::block_sums_needed", 1000) + " with block " +
                                                  std::to_string(block),
                                        course::checker::run(course::checker::Call(
                                            "NeighboredWorkspace::block_sums_needed", 1000, block)));
}

// ---- past 2^32 elements ----------------------------------------------------------------------------------
// 2^32 + 2^20 + 3 ints (17.2 GB): an int index goes negative past 2^31 elements, an unsigned one wraps past
// 2^32. The data repeats a random tile of odd length (1000003), written on the runner's side before every
// call. The workspace holds another 1.1 GB of block sums (block 32 needs the most), counted here as
// NeighboredWorkspace counts them.
constexpr std::size_t large_n = (std::size_t{1} << 32) + (std::size_t{1} << 20) + 3;

std::size_t workspace_bytes(std::size_t max_n)
{
    std::size_t needed = 0;
    for (std::size_t sums = (max_n + 31) / 32; sums > 1; sums = (sums + 31) / 32) needed += sums;
    return needed * sizeof(long long);
}

// Both kernels work in place, on a workspace of max_n = n that the runner keeps, its block sums poisoned
// before every call (a block sum that is never written reads as garbage). Each task gets the battery of
// course/reduction_checks.hpp (the standard sizes, +-(2^21 - 1), nothing read past n, its own stream, bad
// arguments, racecheck and synccheck, past 2^32 elements) and the check of block_sums_needed.
course::testing::ReductionTask neighbored_task(const char* task, const char* op)
{
    return course::testing::ReductionTask(task, op, {op})
        .in_place()
        .param("poison_block_sums", 0xA5)
        .values_at(max_exact_abs_value)
        .rejects_also("n past the workspace", check_rejects_past_workspace)
        .also("NeighboredWorkspace::block_sums_needed rejects bad block sizes", check_block_sums_needed_rejects)
        .race_free()
        .large(large_n, 1000003, {32, 1024}, {0}, workspace_bytes(large_n), std::size_t{256} << 20);
}
const course::testing::ReductionTask neighbored = neighbored_task("TODO(02.1)", "reduce_neighbored");
const course::testing::ReductionTask less =
    neighbored_task("TODO(02.2)", "reduce_neighbored_less").performance("reduce_neighbored_less");
COURSE_REDUCTION_TASKS(neighbored, less);

}  // namespace

// The lesson of 02.2, measured on one launcher call (n = 2^20, block 256: its passes over the ints and over
// the block sums): in reduce_neighbored every warp has busy and idle lanes at the first five levels (a
// divergent branch per warp and level); in reduce_neighbored_less the busy threads fill whole warps and only
// the last five levels, with fewer than 32 busy threads, diverge. README: 47 against 5 divergent warp-steps
// per block of 256 threads.
TEST_CASE("TODO(02.2) lesson: reduce_neighbored_less has far fewer divergent branches than reduce_neighbored")
{
    REQUIRE_GPU();
    const std::string metric = "smsp__sass_branch_targets_threads_divergent.sum";
    const auto profile = course::testing::lesson_profile(
        {neighbored.reductions().front(), less.reductions().front()}, {metric});
    if (!profile) return;
    const double by_neighbored = profile->at("reduce_neighbored").at(metric);
    const double by_less = profile->at("reduce_neighbored_less").at(metric);
    const double blocks = static_cast<double>(course::testing::lesson_n / course::testing::lesson_block);
    VERIFY(by_neighbored >= 8 * blocks,
           "TODO(02.2) lesson compares with reduce_neighbored (TODO(02.1)), which shows only "
               << by_neighbored << " divergent branch targets for " << blocks
               << " blocks: is TODO(02.1) the tid % (2*stride) tree, with a branch around the addition?");
    VERIFY(by_less * 4 <= by_neighbored,
           "TODO(02.2): reduce_neighbored_less has " << by_less << " divergent branch targets, not under a quarter of "
                                                     << "reduce_neighbored's " << by_neighbored
                                                     << ": do the busy threads fill whole warps (thread tid on "
                                                        "element 2*stride*tid)?");
}
