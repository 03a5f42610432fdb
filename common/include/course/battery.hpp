// A task's standard checks, declared once (issue 29): the chapter says what its task is - the task, its sizes at
// each block size, one checked call, the checks only it has, the bad arguments it must reject, the task it builds
// on - and check_battery() runs them in the same order for every task:
//
//   course::testing::Battery b;
//   b.task = "TODO(07.3)";
//   b.gate = [&] { return earlier_task_works(s); };                  // dependency gate (optional)
//   b.sizes = [&](int block) { return course::testing::sizes_with(block, {t - 1, t, t + 1}); };
//   b.check = [&](std::size_t n, int block) { return check_one(n, block); };   // false at the first failure
//   b.reject = [&](int bad_block) { check_rejects(1, bad_block); };  // each of bad_blocks
//   course::testing::check_battery(b);
//
// The graded race check of a task (check_race_free) and the loop over blocks x sizes (check_each) are the same
// for every task too, and so are its test cases: COURSE_TASK_CASES registers them from one declaration
// (course::testing::register_case; the grader reads the names from the program's --list-test-cases).
#pragma once

#include "course/checker.hpp"
#include "course/testing.hpp"

#include <algorithm>
#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace course::testing {

// Block sizes every launcher must reject: not a power of two in [32, 1024].
inline const std::vector<int> bad_blocks{0, 16, 31, 33, 48, 96, 2048, -32};
// The smallest block, a middle one and the largest: the blocks of a graded race check (its small cases under
// compute-sanitizer, slow whatever their size) and of the checks whose other dimension (a start offset, the kind
// of data a thread loads) no block size changes, after every block has been checked from the standard inputs.
inline const std::vector<int> sample_blocks{32, 256, 1024};
inline bool is_sample_block(int block)
{
    return std::find(sample_blocks.begin(), sample_blocks.end(), block) != sample_blocks.end();
}

// standard_sizes(block) and `extra`, sorted, each once.
std::vector<std::size_t> sizes_with(int block, const std::vector<std::size_t>& extra);

using Sizes = std::function<std::vector<std::size_t>(int block)>;
using SizeCheck = std::function<bool(std::size_t n, int block)>;

// The largest of sizes(block) over `blocks`.
std::size_t largest_of(const Sizes& sizes, const std::vector<int>& blocks = power_of_two_blocks());

// check(n, block) for every block and each of its sizes, in that order, until one fails: false then.
bool check_each(const std::vector<int>& blocks, const Sizes& sizes, const SizeCheck& check);

// The element of buffer `buffer` of `r` that the call wrote outside its `count` elements (its lead and its tail
// must still hold `poison` in every byte), counted from the first of the count (negative: in the lead), the first
// one found from the buffer's start; nullopt when there is none.
std::optional<long long> written_outside(const checker::Result& r, std::size_t buffer, std::size_t count,
                                         unsigned char poison);

// Values in sealed shared memory, with `reference` of each range [first, first + n) that a check asks for,
// computed once (02-05: ints and their sums, IntData; 04.6: bytes and floats and their sums; 06: bytes and their
// histograms).
template <class T, class R>
class RangeData {
public:
    RangeData(checker::Input values, R (*reference)(const T*, std::size_t))
        : input_(std::move(values)), reference_(reference)
    {
    }
    RangeData(const std::vector<T>& values, R (*reference)(const T*, std::size_t))
        : RangeData(checker::Input(values), reference)
    {
    }
    const checker::Input& input() const { return input_; }
    const T* values() const { return input_.data<T>(); }
    std::size_t size() const { return input_.size(); }
    const R& expected(std::size_t first, std::size_t n) const
    {
        const auto key = std::make_pair(first, n);
        auto found = expected_.find(key);
        if (found == expected_.end()) found = expected_.emplace(key, reference_(values() + first, n)).first;
        return found->second;
    }

private:
    checker::Input input_;
    R (*reference_)(const T*, std::size_t);
    mutable std::map<std::pair<std::size_t, std::size_t>, R> expected_;
};

struct Battery {
    std::string task;                 // "TODO(07.3)"
    Sizes sizes;                      // sizes x blocks: the sizes checked at each block
    SizeCheck check;                  // the checked calls of one n and block (inputs, kinds, start offsets)
    std::vector<int> blocks = power_of_two_blocks();
    std::function<bool()> gate;                 // optional: the task it builds on works (else a check failed)
    std::function<void()> unique;               // optional: the task's own checks, after sizes x blocks
    std::function<void(int bad_block)> reject;  // optional: a call with this block must be rejected
    std::function<void()> bad_arguments;        // optional: the task's other bad arguments
};

// The gate (nothing more when it fails), then sizes x blocks (up to the first failure), the task's own checks, a
// call with each of bad_blocks and the other bad arguments.
void check_battery(const Battery& b);

// The graded race check of `task` (lessons about barriers and warp synchronization): `small_cases` (their results
// verified as usual) under compute-sanitizer racecheck, then synccheck. A chapter's race cases run as one test
// program (Meson's 'TODO(NN.a-NN.b) racecheck and synccheck'), whose first case, 'TODO(NN) racecheck and
// synccheck: ...', runs the small cases of all of them in one session of each tool (a tool's start is most of a
// small race check's time); each task's case then passes when that session was clean and its own calls were
// right, fails when its calls were wrong, and otherwise (a tool reported something, a runner died, no chapter
// session ran) runs its small cases in sessions of its own, whose reports decide and say whose race it is. When
// a case of the task already failed in this run (doctest runs a file's cases in order) the task fails anyway,
// and the slow sanitizer runs are left out. Whether each of race_tools was clean, in their order.
std::vector<bool> check_race_free(const std::string& task, const std::function<void()>& small_cases);

// A task's standard test cases, registered at one file and line in this order (doctest runs them so):
//   "<task> <title>"                 checks: the battery (check_battery)
//   "<task> <name>" for each of own  the task's own cases (07.5's float scans and look-back probes)
//   "<task> racecheck and synccheck" race (optional: lessons about barriers and warp synchronization; it calls
//                                    check_race_free; the chapter's first also registers the chapter's session)
//   "<task> large: <large_title>"    large (optional: past 2^31 elements; meson runs it as 'TODO(NN.k) large')
struct TaskCases {
    std::string task;   // "TODO(07.3)"
    std::string title;  // "scan_multiblock: any n, every block, 1 to 4 recursion levels, inclusive and exclusive"
    std::function<void()> checks;
    std::vector<std::pair<std::string, std::function<void()>>> own = {};
    std::function<void()> race = nullptr;
    std::string large_title = "";
    std::function<void()> large = nullptr;
};
int register_task(const char* file, int line, const TaskCases& cases);
// COURSE_TASK_CASES({"TODO(07.3)", "scan_multiblock: ...", [] { check_scan(multiblock); }, {}, ...});
#define COURSE_TASK_CASES(...)                                                                                \
    static const int DOCTEST_ANONYMOUS(course_task_cases_) =                                                  \
        ::course::testing::register_task(__FILE__, __LINE__, ::course::testing::TaskCases(__VA_ARGS__))

// True when a test case of `task` ("TODO(07.5)") failed earlier in this run.
bool task_failed(const std::string& task);
namespace detail {
void case_ended(const std::string& name, bool passed);  // the doctest main's listener tells every case's end
void assertion_failed(const std::string& text);         // ... and every failed assertion (its message)
}

// A dependency gate: `problem` is what is wrong with `earlier_call` of the task this one builds on ("" when
// nothing). Fails the check naming both tasks ("TODO(07.5): depends on TODO(07.4) (scan_warp_shuffle(n=8192,
// block=256)), which fails: ...; fix TODO(07.4) first") and returns false unless the problem is empty.
bool depends_on(const std::string& task, const std::string& earlier_task, const std::string& earlier_call,
                const std::string& problem);

}  // namespace course::testing
