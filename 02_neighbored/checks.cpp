// Chapter 02 checks: each task's battery is course/reduction_checks.hpp's (docs/02_neighbored.md lists it), run
// through the chapter's runner (neighbored_runner.cpp); here only what is 02's own.
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

// An n past the workspace's max_n (bad block sizes and null pointers are the battery's).
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
    const std::string needed = "NeighboredWorkspace::block_sums_needed";
    for (int block : {0, -32, 16, 33, 96, 2048})
        course::testing::check_rejected(task, call(needed, 1000) + " with block " + std::to_string(block),
                                        course::checker::run(course::checker::Call(needed, 1000, block)));
}

// ---- past 2^32 elements: 2^32 + 2^20 + 3 ints (17.2 GB), a random tile of odd length (1000003) repeated on the
// runner's side, and 1.1 GB of block sums (block 32 needs the most), counted as NeighboredWorkspace counts them.
constexpr std::size_t large_n = (std::size_t{1} << 32) + (std::size_t{1} << 20) + 3;

std::size_t workspace_bytes(std::size_t max_n)
{
    std::size_t needed = 0;
    for (std::size_t sums = (max_n + 31) / 32; sums > 1; sums = (sums + 31) / 32) needed += sums;
    return needed * sizeof(long long);
}

// Both kernels work in place, on a workspace of max_n = n that the runner keeps, its block sums poisoned before
// every call (a block sum that is never written reads as garbage).
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

// The lesson of 02.2, measured on one call (n = 2^20, block 256): in reduce_neighbored every warp diverges at the
// first five levels, in reduce_neighbored_less only at the last five (README: 47 against 5 per block of 256).
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
