// Seeded input generators. The same (n, seed) always gives the same data, so a printed seed replays a
// failure exactly. Each element is a hash of (seed, index) - counter-based - so generation runs on all host
// cores (for_each_chunk, below; merge_chunks runs a CPU reference that way) and still does not depend on the
// thread count.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <vector>

namespace course {

// A seed that differs from run to run (checks and demos print it so a run can be replayed).
std::uint64_t fresh_seed();

// Uniform ints in [lo, hi]; the default range includes negatives, so a kernel that only works for
// non-negative data (or reads zeros where it should read data) cannot pass.
std::vector<int> random_ints(std::size_t n, std::uint64_t seed, int lo = -1000, int hi = 1000);
// The same values written to out[0, n): a gigabyte straight into a checker::Input's shared memory, its pages
// first touched by all cores (the performance tasks' inputs).
void random_ints(int* out, std::size_t n, std::uint64_t seed, int lo = -1000, int hi = 1000);

// Uniform floats in [lo, hi).
std::vector<float> random_floats(std::size_t n, std::uint64_t seed, float lo = -1.0f, float hi = 1.0f);

enum class ByteDistribution {
    uniform,    // every value 0..255 equally likely
    skewed,     // 15 of 16 bytes drawn from 4 "hot" values, the rest uniform
    identical,  // every byte the same value (the worst case for atomics: one counter)
};
const char* to_string(ByteDistribution d);

std::vector<std::uint8_t> random_bytes(std::size_t n, std::uint64_t seed, ByteDistribution d);
void random_bytes(std::uint8_t* out, std::size_t n, std::uint64_t seed, ByteDistribution d);

// work(first, last) on disjoint ranges that cover [0, n), one per host core, all at once; returns when all have.
void for_each_chunk(std::size_t n, const std::function<void(std::size_t first, std::size_t last)>& work);
// part(first, last) of each such range, merged into `total` by merge(total, part) one at a time: a CPU reference
// of a gigabyte on all cores.
template <class R, class Part, class Merge>
R merge_chunks(std::size_t n, Part part, Merge merge, R total = R{})
{
    std::mutex m;
    for_each_chunk(n, [&](std::size_t first, std::size_t last) {
        const R p = part(first, last);
        const std::lock_guard<std::mutex> lock(m);
        merge(total, p);
    });
    return total;
}

}  // namespace course
