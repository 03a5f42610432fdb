// The checks every int reduction of chapters 02-04 gets, over one harness: a chapter declares each task's
// reductions once (ReductionTask, at the end) and the battery registers the task's standard test cases; the
// chapter's own test cases call the checks below.
//
// A reduction is a runner operation whose buffer 0 is the input (n ints) and buffer 1 the total (one long long,
// poisoned first): the chapter's runner passes them to the launcher with n, block and the stream. Every check
// below starts with REQUIRE_GPU(): a test case can be just the call.
#pragma once

#include "course/battery.hpp"
#include "course/checker.hpp"
#include "course/testing.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace course::testing {

struct Reduction {
    std::string task;               // "TODO(03.2)"
    std::string op;                 // the runner's operation, named after the launcher
    bool overwrites_input = false;  // an in-place kernel (02, 03.1); any other must leave its input unchanged
    std::vector<std::pair<std::string, long long>> params = {};  // sent with every call (e.g. a workspace size)
};

// Ints in sealed shared memory, with the CPU sums of their ranges (each computed once).
class IntData : public RangeData<int, std::int64_t> {
public:
    explicit IntData(const std::vector<int>& values);
    explicit IntData(checker::Input values);
    long long sum(std::size_t first, std::size_t n) const { return expected(first, n); }
};

// The poison of every total before a call (a total that is never written reads as garbage).
constexpr unsigned char total_poison = 0xA5;
// The largest of standard_sizes(block) over every block size.
std::size_t largest_standard_size();
// {"workspace", k} with a k no call of this program used before: a launcher state the runner keeps per value of
// "workspace" (chapter 04), new for every case that asks, shared by all the case's launches.
std::pair<std::string, long long> new_workspace();

// The call of `r` on data[first, first + n), in a buffer that also holds the `first` elements before them (so
// first = 1, 2, 3 gives a pointer that is not 16-byte aligned) and `tail` elements after them.
checker::Call reduction_call(const Reduction& r, const IntData& data, std::size_t first, std::size_t n, int block,
                             std::size_t tail = 0);

// Runs `call` and checks it: it returned, the total is data.sum(first, n) and, unless the kernel works in
// place, the input came back unchanged. `what` names the call in a failure. True when all of it holds.
bool check_reduction(const Reduction& r, const checker::Call& call, const IntData& data, std::size_t first,
                     std::size_t n, const std::string& what);
bool check_reduction(const Reduction& r, const IntData& data, std::size_t n, int block, const std::string& what = "");

// The README's 1..8, then random ints (-1000..1000) at standard_sizes(block) for every block size.
void check_standard_sizes(const Reduction& r);
// Ints over the whole int range (n = 2^20 + 3) at every block size: sums that need 64 bits inside each block.
void check_full_int_range(const Reduction& r);
// Every element +-value (n = 2^20 + 3, blocks 32 and 1024): each block's int partial sums just fit, the total
// needs 64 bits and the negative one the two's-complement 64-bit atomicAdd.
void check_extreme_values(const Reduction& r, int value);
// The input followed by a block of 2^20's: a read at or past n (a partner, a load) adds them.
void check_nothing_read_past_n(const Reduction& r);
// On a non-blocking stream of the runner's: a launcher that puts work elsewhere is read too early.
void check_own_stream(const Reduction& r);
// Bad block sizes, a null input, a null total: std::invalid_argument before anything runs.
void check_rejects_bad_arguments(const Reduction& r);
// Blocks 32, 256, 1024 x n = 1, 33, 1000, 5000 (sizes the ordinary checks use too): what racecheck and
// synccheck watch in a task's race case.
void check_small_sizes(const Reduction& r);
// n elements past 2^31 or 2^32: a random period of `period` ints (odd, so a wrapped index reads other values)
// repeated, made on the runner's side; the expected sum has a closed form. The input starts `first` elements
// into its buffer (first > 0: a misaligned pointer).
// extra_bytes: device memory the call needs besides its input (a workspace); margin: free memory left to spare.
void check_large(const Reduction& r, std::size_t n, std::size_t period, const std::vector<int>& blocks,
                 const std::vector<std::size_t>& firsts = {0}, std::size_t extra_bytes = 0,
                 std::size_t margin = std::size_t{512} << 20);
// The lesson subject: one call at n = lesson_n, block lesson_block, checked: what the lesson suite profiles with
// Nsight Compute.
constexpr std::size_t lesson_n = std::size_t{1} << 20;
constexpr int lesson_block = 256;
void check_lesson_subject(const Reduction& r);
// `metrics` of each reduction's kernel (named <op>_kernel), summed over the launches of its lesson subject, all
// in one Nsight Compute session, and printed: profile[op][metric]. Nothing when ncu cannot run (ncu_profile).
std::optional<Profile> lesson_profile(const std::vector<Reduction>& rs, const std::vector<std::string>& metrics);

// ---- no cascades: an earlier task's device function that a task's kernels call, checked alone first --------
struct Dependency {
    std::string task;      // the earlier task: "TODO(04.2)"
    std::string function;  // its device function that the later kernels call: "last_warp_sum"
    std::string probe;     // the runner's operation that runs it alone inside given code (a reduction too)
    bool loads = false;    // it indexes the input: the large case checks it past 2^31 elements first
    bool synchronizes = false;  // warp synchronization: a failed race case runs it under the tool too (whose race?)
};
// True when every probe of `depends` sums right on a few sizes and blocks (each probe runs once per program);
// otherwise fails the case with "<task>: depends on TODO(04.2) (last_warp_sum), which fails: ...".
bool dependencies_pass(const std::string& task, const std::vector<Dependency>& depends);

// ---- any reduction launcher, for the rejection checks that read the exception's message --------------------
struct Launcher {
    std::string op;    // the runner's operation
    std::string name;  // its name in messages
    std::size_t in_elem = sizeof(int);
    std::size_t total_elem = sizeof(long long);
    std::vector<std::pair<std::string, long long>> params = {};
    checker::Call call(std::size_t n, int block) const;
};
// Bad block sizes (n = 0 and a null d_in, which n = 0 allows), a null d_total, a null d_in with n = 1 and (wider
// than bytes) a d_in at an address not aligned to its element: std::invalid_argument whose message names what
// is wrong ("block", "d_total", "d_in", "aligned"). The total is a real, poisoned buffer.
void check_rejects_naming(const std::string& task, const Launcher& l);

// ---- the declared battery: one declaration per task, its standard test cases generated ---------------------
// Each task's cases, in this order, named "<task> <label>..." (label: the task's launchers, e.g.
// "reduce_unrolling2/4/8"): 1..8 and the standard sizes x every block (with full_int_range(), also ints over
// the whole int range); values at +-values_at(); nothing read at or past n; a stream of its own; bad arguments
// (with naming_rejects(), their messages too; then rejects_also); the also() cases; with race_free(),
// "<task> racecheck and synccheck"; with large(), "<task> large: ..."; with performance(op), "<task> performance: ...". A task with depends_on() checks its
// dependencies first in every case that runs its kernels.
class ReductionTask {
public:
    using Params = std::vector<std::pair<std::string, long long>>;
    ReductionTask(std::string task, std::string label, std::vector<std::string> ops)
        : task_(std::move(task)), label_(std::move(label)), ops_(std::move(ops)) {}

    // The kernels overwrite their input (02, 03.1); any other must leave it unchanged.
    ReductionTask& in_place() { in_place_ = true; return *this; }
    // Sent with every call.
    ReductionTask& param(const std::string& key, long long value) { params_.emplace_back(key, value); return *this; }
    // new_workspace() in every case, shared by all its calls (a kernel that does not reset it fails).
    ReductionTask& workspace_per_case() { workspace_per_case_ = true; return *this; }
    ReductionTask& depends_on(std::vector<Dependency> depends) { depends_ = std::move(depends); return *this; }
    ReductionTask& full_int_range() { full_int_range_ = true; return *this; }
    ReductionTask& values_at(int value) { value_ = value; return *this; }  // check_extreme_values
    ReductionTask& naming_rejects() { naming_ = true; return *this; }      // check_rejects_naming too
    // After the bad arguments of each reduction: `check`, named `what` in the case's name.
    ReductionTask& rejects_also(std::string what, std::function<void(const Reduction&)> check)
    {
        rejects_what_ = std::move(what);
        rejects_also_ = std::move(check);
        return *this;
    }
    // A case "<task> <name>" of its own after the bad arguments: check(task).
    ReductionTask& also(std::string name, std::function<void(const std::string& task)> check)
    {
        also_.emplace_back(std::move(name), std::move(check));
        return *this;
    }
    ReductionTask& race_free() { race_ = true; return *this; }
    // check_large at n with this period, these blocks and starts; extra_bytes and margin: what it needs besides
    // its input.
    ReductionTask& large(std::size_t n, std::size_t period, std::vector<int> blocks,
                         std::vector<std::size_t> firsts = {0}, std::size_t extra_bytes = 0,
                         std::size_t margin = std::size_t{512} << 20)
    {
        large_n_ = n, period_ = period, large_blocks_ = std::move(blocks), firsts_ = std::move(firsts);
        extra_bytes_ = extra_bytes, margin_ = margin;
        return *this;
    }

    // "<task> performance: <op> on 2^28 ints, ...": the chapter's performance task (course/performance.hpp).
    ReductionTask& performance(std::string op)
    {
        performance_op_ = std::move(op);
        return *this;
    }

    const std::string& task() const { return task_; }
    const std::vector<Dependency>& depends() const { return depends_; }
    // The task's reductions (with workspace_per_case(), on a new workspace).
    std::vector<Reduction> reductions() const;
    // Registers the cases with doctest, at file:line (COURSE_REDUCTION_TASKS does): a TaskCases, through
    // register_task as 06 and 07 do (course/battery.hpp), then the performance case.
    int registered(const char* file, int line) const;

private:
    std::string task_, label_;
    std::vector<std::string> ops_;
    bool in_place_ = false, workspace_per_case_ = false, full_int_range_ = false, naming_ = false, race_ = false;
    Params params_;
    std::vector<Dependency> depends_;
    int value_ = (1 << 21) - 1;
    std::string rejects_what_;
    std::function<void(const Reduction&)> rejects_also_;
    std::vector<std::pair<std::string, std::function<void(const std::string&)>>> also_;
    std::size_t large_n_ = 0, period_ = 0, extra_bytes_ = 0, margin_ = 0;
    std::vector<int> large_blocks_;
    std::vector<std::size_t> firsts_;
    std::string performance_op_;
};

// Registers each task's cases (in the order given), e.g. COURSE_REDUCTION_TASKS(neighbored, less);
int register_tasks(const char* file, int line, std::initializer_list<ReductionTask> tasks);
#define COURSE_REDUCTION_TASKS(...)                                                                           \
    static const int DOCTEST_ANONYMOUS(course_reduction_tasks_) =                                              \
        ::course::testing::register_tasks(__FILE__, __LINE__, {__VA_ARGS__})

}  // namespace course::testing
