// Helpers for the doctest checks of every chapter. Link the test program with course_test_main_dep, which
// provides main().
//
//  - GPU cases start with REQUIRE_GPU(): with no usable device the case returns at once, and main() ends the
//    program with exit code 77, which Meson shows as SKIP, after printing CUDA's reason. Host cases in the
//    same program still run. (doctest has no run-time skip, and CUDA must not be called before main.)
//  - REQUIRE_GPU_MEMORY(bytes) does the same when the device has too little free memory (the `large` suite).
//    Both ask the program's runner first ("@device"), so that the checks open no CUDA context of their own; a
//    "no" is never believed: the checks then look for themselves (for memory, with the runner ended first).
//  - course::testing::seed() is fresh each run unless COURSE_SEED is set; a failing run prints it so it can
//    be replayed: COURSE_SEED=<seed> meson test ...
//  - CHECK_RESULT / CHECK_ARRAY / VERIFY fail with a message that names the task (`task` may be a const char*;
//    elsewhere in doctest messages wrap a const char* in std::string, or doctest >= 2.4.10 prints the pointer):
//      TODO(03.2): reduce_interleaved(n=33, block=32) returned 0, expected 561
#pragma once

#include "course/checker.hpp"
#include "course/verify.hpp"

#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace course::testing {

// Starts the doctest message that every left-out case logs (e.g. "course-skip: no CUDA-capable GPU or driver
// found (...)"); tools/grade.py reads it from doctest's XML report.
inline constexpr const char* kSkipMarker = "course-skip: ";

bool gpu_available_or_skip();
bool gpu_memory_or_skip(std::size_t bytes);

// The run's seed; `salt` gives each case (or input) its own stream of data from the same run seed.
std::uint64_t seed(std::uint64_t salt = 0);

// n = 0, 1, 2, 31, 32, 33, block-1, block, block+1, 1000, 5000, a prime near 10^6 (999983) and 2^24+7, plus
// two odd sizes drawn from the run's seed (one below 4096, one below 2^20), sorted and deduplicated. Under
// compute-sanitizer (COURSE_SANITIZER set, as the sanitizer setups do) the 2^24+7 size is left out: the tools
// run kernels 10-100x slower, and every code path is still covered by the other sizes.
std::vector<std::size_t> standard_sizes(int block);

// True when the environment variable COURSE_SANITIZER is set: the compute-sanitizer test setups set it to
// the tool's name (memcheck, racecheck, synccheck, initcheck).
bool under_sanitizer();

// For checks a tool cannot run (it says so, e.g. racecheck on dynamic parallelism): true, and the case is
// reported as skipped with `reason`, when COURSE_SANITIZER names one of `tools`. (The checker knows; the runner
// never does.)
bool skip_under_sanitizer(const char* reason, std::initializer_list<const char*> tools);

// A graded race check (lessons about barriers and warp synchronization): runs `calls` (usually the task's
// small-size checks, whose results are verified as usual) in a runner of their own under
// `compute-sanitizer --tool <tool>` (racecheck or synccheck), then reads the tool's report from the log file
// it wrote (outside the runner's reach): no error and no warning, every call returned, the runner ended
// normally. The runner is started exactly like every other: nothing tells it a tool is watching. Without
// compute-sanitizer the case is skipped with that reason; inside a sanitizer setup (COURSE_SANITIZER set) it
// does nothing, since every runner of the program is already under a tool. False when the check failed.
bool check_tool_clean(const std::string& task, const char* tool, const std::function<void()>& calls);
// check_tool_clean for each of `tools` over the same calls, in turn, their sessions overlapping (run_under_tools).
// Whether each was clean, in the order of `tools`.
std::vector<bool> check_tools_clean(const std::string& task, const std::vector<const char*>& tools,
                                    const std::function<void()>& calls);
// The tools of a graded race check, in the order it runs them.
inline const std::vector<const char*> race_tools = {"racecheck", "synccheck"};

// Runs `calls` in a runner of its own under Nsight Compute (ncu --metrics `metrics` plus `options`, e.g. a
// --kernel-name filter), once (twice when ncu crashed after every call was answered: `calls` must be able to run
// again), and returns every launch ncu profiled, in order: the kernel's name and each metric's value (as a number
// where it is one), read from the log file ncu wrote (outside the runner's reach).
// Without ncu, or when ncu cannot read the counters here (ERR_NVGPUCTRPERM, a sanitizer setup), the case is
// skipped with the reason and the answer is nullopt.
struct NcuLaunch {
    std::string kernel;
    std::map<std::string, double> metrics;
    std::map<std::string, std::string> text;
};
std::optional<std::vector<NcuLaunch>> ncu_launches(const std::vector<std::string>& metrics,
                                                   const std::vector<std::string>& options,
                                                   const std::function<void()>& calls);

// The lesson suite (what a kernel's structure is for, measured): ncu_launches of `calls`, each of `metrics` (e.g.
// "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum") summed over the launches of each of `kernels`
// (regular expressions searched in the kernel's name): profile[kernel][metric]. Every kernel must have been
// launched.
using Profile = std::map<std::string, std::map<std::string, double>>;
std::optional<Profile> ncu_profile(const std::vector<std::string>& kernels, const std::vector<std::string>& metrics,
                                   const std::function<void()>& calls);

// Whether a rate Nsight Compute measured (04.6's DRAM throughput) is above its lesson's threshold. Other programs
// on the GPU can lower a rate, so a shortfall is a doubtful failure (detail::doubtful_failures).
bool rate_passes(double rate, double threshold);

// A call that must return normally: true if it did, else the case fails naming the task, the call and what
// happened instead (an exception's text, a crash with the runner's output, a TIMEOUT).
bool returned(const std::string& task, const std::string& what, const course::checker::Result& result);
// A call that must reject its arguments with std::invalid_argument before it runs anything; with
// `must_contain`, the exception's message must say it (e.g. which argument: "block", "d_in").
void check_rejected(const std::string& task, const std::string& what, const course::checker::Result& result,
                    const std::string& must_contain = "");

// A doctest case made from data (a declared battery: one declaration, many cases), registered before main by a
// namespace-scope initializer (it calls no CUDA): named `name`, reported at `file`:`line`, running `body`. The
// cases registered at one file and line run in the order they were registered, as the instances of a
// TEST_CASE_TEMPLATE do. Returns 0, for the initializer.
int register_case(const char* file, int line, const std::string& name, std::function<void()> body);

// Inputs of up to this many elements come back after a call and must be unchanged; larger ones are not copied
// back (a kernel that writes its input does so at every size, and copying 64 MiB back per call would cost more
// than the check is worth).
constexpr std::size_t checked_input_limit = std::size_t{1} << 20;

// Every power-of-two block size in [32, 1024].
std::vector<int> power_of_two_blocks(int min_block = 32, int max_block = 1024);

// "name(n=33, block=32)"; without a block (or with no_block) "name(n=33)".
constexpr int no_block = -2147483647 - 1;
std::string call(const std::string& name, std::size_t n, int block = no_block);

namespace detail {  // read by the doctest main
int skipped_gpu_cases();
const std::string& skip_reason();
std::uint64_t run_seed();
const std::string& last_call();
// Failures that other programs on the GPU may have caused, counted with the runner calls that got no answer
// (COURSE_CALL_FAULTS: the grader runs such a test again alone, and that run decides): a rate short of its
// threshold (rate_passes), a GPU that is there but gave no CUDA context (its memory held by others), a
// compute-sanitizer that could not watch the kernels (tool_could_not_watch).
int doubtful_failures();
// CHECK_RESULT and CHECK_ARRAY note what they are about to check ("TODO(03.2): reduce_interleaved(n=33,
// block=32)"), so that a crash inside it prints the task and n with the seed.
std::string note_call(const std::string& task, const std::string& what);
// A compute-sanitizer report with at least one summary line, each of them counting 0.
bool summaries_clean(const std::string& report);
// A compute-sanitizer report of the tool's own failure to watch the kernels, which it counts as an error: beside
// a program that held the GPU's free memory, racecheck said "Error: Device not supported" (H100, CUDA 13.0).
bool tool_could_not_watch(const std::string& report);
// `calls` in a runner of its own under `command` (a tool that writes `log`), made once more when the tool failed
// (tool_failed of how the session ended) although its runner answered every call and never restarted: the tool's
// own trouble says nothing of the kernels (compute-sanitizer without its summary, Nsight Compute crashing: exit
// code 139, H100, CUDA 13.0). A crashed runner or an unanswered call is final. `calls` must be able to run again.
struct ToolRun {
    checker::Session::End end;
    int answered = 0, asked = 0;  // the last run's calls
    std::string again;            // "; a first run ... was made again" when it was, else ""
};
ToolRun run_under_tool(const std::vector<std::string>& command, const std::string& log,
                       const std::function<void()>& calls,
                       const std::function<bool(const checker::Session::End&)>& tool_failed);
// run_under_tool for each of `tools` (a command and the log it writes) over the same calls, in turn. Their
// sessions overlap: each chain starts once the one before said hello, and each ends while the next one's calls run.
struct ToolCommand {
    std::vector<std::string> command;
    std::string log;
};
std::vector<ToolRun> run_under_tools(const std::vector<ToolCommand>& tools, const std::function<void()>& calls,
                                     const std::function<bool(const checker::Session::End&)>& tool_failed);
// run_under_tools of `calls` under compute-sanitizer with each of `tools`; nullopt where they need not or cannot
// run (a sanitizer setup, whose tool watches every runner, passes the case; no GPU or no compute-sanitizer skips
// it, naming `task`).
std::optional<std::vector<ToolRun>> run_sanitizer_tools(const std::string& task, const std::vector<const char*>& tools,
                                                        const std::function<void()>& calls);
// What is wrong with a run of compute-sanitizer --tool `tool` (its report, or its runner's end), "" when nothing;
// a rerun or a stalled start becomes a MESSAGE naming `task`.
std::string tool_problem(const std::string& task, const char* tool, const ToolRun& run);
// The launches of an ncu --csv --page raw log (ncu_launches).
std::vector<NcuLaunch> ncu_rows(const std::string& log, const std::vector<std::string>& metrics);
// Records a case left out with its reason (kSkipMarker); the grader reads it as "not graded".
void record_skip(const std::string& reason);
// A CUDA tool (ncu, compute-sanitizer) on PATH, in $CUDA_HOME/bin or /usr/local/cuda/bin.
std::optional<std::string> find_cuda_tool(const char* tool);
}  // namespace detail

}  // namespace course::testing

#define REQUIRE_GPU()                                                                                         \
    do {                                                                                                      \
        if (!::course::testing::gpu_available_or_skip()) return;                                              \
    } while (0)

#define REQUIRE_GPU_MEMORY(bytes)                                                                             \
    do {                                                                                                      \
        if (!::course::testing::gpu_memory_or_skip(bytes)) return;                                            \
    } while (0)

#define SKIP_UNDER_SANITIZER(reason, ...)                                                                     \
    do {                                                                                                      \
        if (::course::testing::skip_under_sanitizer((reason), {__VA_ARGS__})) return;                         \
    } while (0)

// Every verification is a doctest assertion, so that doctest's report counts it (a graded test case must
// report at least one) and a failure logs the message that names the task:
//   CHECK( result_matches_reference ) is NOT correct!  logged: TODO(03.2): reduce_interleaved(n=33) ...
// VERIFY(ok, message) is the general form; the message is built only when ok is false.
#define VERIFY(ok, message)                                                                                   \
    do {                                                                                                      \
        const bool result_matches_reference = (ok);                                                           \
        CHECK_MESSAGE(result_matches_reference, message);                                                     \
    } while (0)

// Scalar result: exact comparison (use a tolerance check by hand for floats).
#define CHECK_RESULT(task, what, got, expected)                                                               \
    do {                                                                                                      \
        ::std::ostringstream course_what_;                                                                    \
        course_what_ << what;                                                                                 \
        const ::std::string course_call_ = ::course::testing::detail::note_call(task, course_what_.str());   \
        /* copies, not references: `got` is often an element of a temporary, e.g. d_total.to_host()[0] */    \
        const auto course_got_ = (got);                                                                       \
        const auto course_expected_ = (expected);                                                             \
        VERIFY(course_got_ == course_expected_,                                                               \
               course_call_ << " returned " << +course_got_ << ", expected " << +course_expected_);           \
    } while (0)

// Arrays of n elements: exact, reporting the first mismatch.
#define CHECK_ARRAY(task, what, got_ptr, expected_ptr, n)                                                     \
    do {                                                                                                      \
        ::std::ostringstream course_what_;                                                                    \
        course_what_ << what;                                                                                 \
        const ::std::string course_call_ = ::course::testing::detail::note_call(task, course_what_.str());   \
        const auto course_mm_ = ::course::first_mismatch((expected_ptr), (got_ptr), (n));                     \
        VERIFY(!course_mm_, course_call_ << ": " << ::course::describe(*course_mm_, (n)));                    \
    } while (0)
