// Chapter 03 checks: each task's battery is course/reduction_checks.hpp's (docs/03_interleaved.md lists it), run
// through the chapter's runner (interleaved_runner.cpp); here the battery's options and the lessons of 03.2-03.4.
#include "interleaved.hpp"

#include "course/reduction_checks.hpp"
#include "course/testing.hpp"

#include <algorithm>
#include <optional>
#include <set>
#include <string>

using course::testing::Reduction;
using course::testing::ReductionTask;

namespace {

// Past 2^32 elements: 2^32 + 2^20 + 3 ints (17.2 GB), a random tile of odd length (1000003) repeated on the
// runner's side. reduce_interleaved works in place; the shared-memory kernels must leave their input untouched.
ReductionTask interleaved_task(const char* task, const char* op)
{
    return ReductionTask(task, op, {op})
        .values_at(max_exact_abs_value)
        .race_free()
        .large((std::size_t{1} << 32) + (std::size_t{1} << 20) + 3, 1000003, {32, 1024});
}
const ReductionTask interleaved = interleaved_task("TODO(03.1)", "reduce_interleaved").in_place();
const ReductionTask modulo_task = interleaved_task("TODO(03.2)", "reduce_shared_modulo");
const ReductionTask strided_task = interleaved_task("TODO(03.3)", "reduce_shared_strided");
const ReductionTask sequential_task =
    interleaved_task("TODO(03.4)", "reduce_shared_sequential").performance("reduce_shared_sequential");
COURSE_REDUCTION_TASKS(interleaved, modulo_task, strided_task, sequential_task);
const Reduction modulo = modulo_task.reductions().front();
const Reduction strided = strided_task.reductions().front();
const Reduction sequential = sequential_task.reductions().front();

// ---- lessons: one launch on 2^20 elements, block 256, profiled by Nsight Compute ---------------------------
using course::testing::lesson_block;
using course::testing::lesson_n;

// The bank conflicts of the strided tree (Task 03.3) in the lesson subject, by the README's model: 32 banks of
// 4-byte words, and a warp's access takes as many passes as the most different words it asks one bank for.
// Counted for the two loads (word index and index + s) and the store of every level, in every warp with a busy
// lane, of every block (blocks of 256 threads: 70 for the loads and 35 for the stores each).
double strided_model_conflicts()
{
    const unsigned block = lesson_block;
    double conflicts = 0;
    for (unsigned s = 1; s < block; s *= 2)
        for (unsigned warp = 0; warp < block / 32; ++warp)
            for (unsigned offset : {0u, s, 0u}) {  // load partial[index], load partial[index + s], store
                std::set<unsigned> words[32];
                for (unsigned lane = 0; lane < 32; ++lane) {
                    const unsigned index = 2 * s * (warp * 32 + lane);
                    if (index < block) words[(index + offset) % 32].insert(index + offset);
                }
                std::size_t passes = 0;
                for (const auto& bank : words) passes = std::max(passes, bank.size());
                if (passes > 1) conflicts += static_cast<double>(passes - 1);
            }
    return conflicts * static_cast<double>(lesson_n / lesson_block);
}
const double strided_model = strided_model_conflicts();

}  // namespace

// ------------------------------------------------------------------------------------------ 03.2-03.4 lesson
// The lessons of 03.2-03.4, measured in one Nsight Compute session (its start is most of a lesson test's time):
// - 03.2: every warp steps through every level in all three shared-memory kernels (each level's `if` is
//   predicated); what reduce0 pays for is `tid % (2*s)`, an integer division with a divisor known only at run
//   time: about 1.8x the strided kernel's warp instructions (block 256, sm_90). That kernel is the student's own
//   03.3: this verdict fails while 03.3 does not work either.
// - 03.3: strided addressing has the bank conflicts the README's table counts. Nsight Compute matched that model
//   to within a few per cent (H200, 2^24 ints, blocks of 256); at least half of it must be there.
// - 03.4: sequential addressing has under 1/20 of the strided kernel's bank conflicts (measured 114x fewer
//   shared-load conflicts on an H200). The strided count is the README's model of 03.3's addressing, so that this
//   verdict does not depend on the student's own 03.3.
TEST_CASE("TODO(03.2-03.4) lesson: the modulo's extra instructions, then strided and sequential addressing's bank "
          "conflicts")
{
    REQUIRE_GPU();
    const std::string instructions = "smsp__inst_executed.sum";
    const std::string loads = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum";
    const std::string stores = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum";
    const auto profile = course::testing::lesson_profile({modulo, strided, sequential}, {instructions, loads, stores});
    if (!profile) return;
    const auto of = [&](const Reduction& r, const std::string& metric) { return profile->at(r.op).at(metric); };
    // Shared-memory bank conflicts, loads plus stores: the extra passes ("wavefronts") a warp's access needed
    // because it asked one bank for several words.
    const auto conflicts = [&](const Reduction& r) { return of(r, loads) + of(r, stores); };
    VERIFY(of(modulo, instructions) >= 1.25 * of(strided, instructions),
           "TODO(03.2): reduce_shared_modulo executed " << of(modulo, instructions) << " warp instructions, not 1.25x "
               "the " << of(strided, instructions) << " of reduce_shared_strided (TODO(03.3)): is it Harris's reduce0, "
               "busy threads picked with tid % (2*s) == 0?");
    VERIFY(conflicts(strided) >= 0.5 * strided_model,
           "TODO(03.3): reduce_shared_strided has " << conflicts(strided) << " bank conflicts, not even half of the "
               << strided_model << " that thread tid on word 2*s*tid makes (README, \"Shared-memory banks\"): is it "
                  "the strided addressing of Harris's reduce1?");
    VERIFY(conflicts(sequential) * 20 < strided_model,
           "TODO(03.4): reduce_shared_sequential has " << conflicts(sequential) << " bank conflicts, not under 1/20 of "
               "the " << strided_model << " of strided addressing: do the busy lanes of a warp read consecutive words "
                  "(thread tid < s adds word tid + s)?");
}
