// A chapter's performance task ('TODO(NN.k) performance', Meson suite 'performance'): its final kernel at a size
// that fills the GPU, as a fraction of the copy bandwidth of the same GPU, measured in the same run.
//
// Timed from outside: the runner runs under Nsight Compute, which times every kernel the runner launches
// (gpu__time_duration, with the caches flushed and the clocks at base before each one: repeatable numbers), so
// work moved to another kernel counts too. Before each timed call the runner launches course_timed_call_marker
// (course/runner.hpp), which cuts ncu's list into calls; a call's time is the sum of its kernels. Every timed
// call gets fresh input drawn here and its output is verified here: a wrong one fails the task. Its kernels
// must read the whole input from DRAM (dram__bytes_read), so that no call answers from elsewhere. The median of
// the runs counts. The copy bandwidth and CUB's time come from course_baselines (COURSE_BASELINES: a program of
// the course's own code), under the same ncu options.
//
// The task passes when it measured; tools/grade.py turns the fraction into points with the thresholds of
// grading.toml's [performance] (piecewise linear), from the report the checks write to COURSE_PERFORMANCE_REPORT.
#pragma once

#include "course/checker.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace course::testing {

// One timed call: what to send, and what is wrong with its result ("" when nothing). `problem` may fetch a
// held output from the session (outputs of gigabytes).
struct TimedCall {
    checker::Call call;
    std::function<std::string(checker::Session&, const checker::Result&)> problem;
};

struct Performance {
    std::string task;        // "TODO(04.6)"
    std::string kernel;      // the launcher timed: "reduce_vectorized"
    std::string baseline;    // course_baselines' problem (CUB's call of the same size): reduce, histogram, scan
    std::size_t n;           // elements per call
    std::string size;        // n as the case's name says it: "2^28 ints"
    double bytes;            // bytes a call must move (its reads and writes): what its bandwidth counts
    double reads;            // bytes its kernels must read from DRAM at least: the input
    std::size_t gpu_memory;  // free device memory the call needs
    // Input kinds, each timed `runs` times (06: uniform bytes, one byte throughout); course_baselines times
    // CUB on the same kinds in the same order.
    std::vector<std::string> inputs;
    std::function<TimedCall(const std::string& input, std::uint64_t seed)> timed;
    int runs = 5;
};

// Times p.kernel as above and reports it: a line on stdout ("TODO(04.6) performance: reduce_vectorized ... 97.1%
// of copy bandwidth ... this GPU: NVIDIA H100 ..."), and the report for the grader. Fails when a timed call is
// wrong, when its kernels did not read its input, or when the kernel markers do not match the calls.
void check_performance(const Performance& p);

// Registers "<task> performance: <kernel> on <size>, as a fraction of copy bandwidth" running check_performance.
int register_performance(const char* file, int line, const Performance& p);
#define COURSE_PERFORMANCE(...)                                                                                \
    static const int DOCTEST_ANONYMOUS(course_performance_) =                                                  \
        ::course::testing::register_performance(__FILE__, __LINE__, __VA_ARGS__)

}  // namespace course::testing
