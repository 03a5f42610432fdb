// The checks every int reduction of chapters 02-04 gets, over one harness: a chapter lists its reductions as
// data (task, runner operation, whether the kernel works in place) and its test cases call the checks below.
//
// A reduction is a runner operation whose buffer 0 is the input (n ints) and buffer 1 the total (one long long,
// poisoned first): the chapter's runner passes them to the launcher with n, block and the stream. Every check
// below starts with REQUIRE_GPU(): a test case can be just the call.
#pragma once

#include "course/checker.hpp"

#include <cstddef>
#include <map>
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
class IntData {
public:
    explicit IntData(const std::vector<int>& values) : input_(values) {}
    const checker::Input& input() const { return input_; }
    const int* values() const { return input_.data<int>(); }
    std::size_t size() const { return input_.size(); }
    long long sum(std::size_t first, std::size_t n) const;

private:
    checker::Input input_;
    mutable std::map<std::pair<std::size_t, std::size_t>, long long> sums_;
};

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
// synccheck watch in check_race_free.
void check_small_sizes(const Reduction& r);
// check_small_sizes under compute-sanitizer racecheck, then synccheck (course::testing::check_tool_clean).
void check_race_free(const Reduction& r);
// n elements past 2^31 or 2^32: a random period of `period` ints (odd, so a wrapped index reads other values)
// repeated, made on the runner's side; the expected sum has a closed form. The input starts `first` elements
// into its buffer (first > 0: a misaligned pointer).
// extra_bytes: device memory the call needs besides its input (a workspace).
void check_large(const Reduction& r, std::size_t n, std::size_t period, const std::vector<int>& blocks,
                 const std::vector<std::size_t>& firsts = {0}, std::size_t extra_bytes = 0);
// One call at n = 2^20, block 256, checked: what the lesson suite profiles with Nsight Compute.
void check_lesson_subject(const Reduction& r);

}  // namespace course::testing
