#include "course/data.hpp"

#include <algorithm>
#include <functional>
#include <random>
#include <stdexcept>
#include <thread>

namespace course {
namespace {

// SplitMix64: a well-mixed 64-bit hash of the element index, so element i does not depend on element i-1.
std::uint64_t mix(std::uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

std::uint64_t element_bits(std::uint64_t seed, std::size_t i) { return mix(mix(seed) ^ i); }

// Fills out[i] = make(i) on all host cores (each core first touches its own pages).
template <class T, class F>
void generate(T* out, std::size_t n, F make)
{
    for_each_chunk(n, [&](std::size_t first, std::size_t last) {
        for (std::size_t i = first; i < last; ++i) out[i] = make(i);
    });
}

}  // namespace

void for_each_chunk(std::size_t n, const std::function<void(std::size_t first, std::size_t last)>& work)
{
    const std::size_t workers = std::max(1u, std::thread::hardware_concurrency());
    const std::size_t chunk = (n + workers - 1) / workers;
    std::vector<std::thread> pool;
    for (std::size_t w = 0; w < workers && w * chunk < n; ++w)
        pool.emplace_back([&, w] { work(w * chunk, std::min(n, (w + 1) * chunk)); });
    for (auto& t : pool) t.join();
}

std::uint64_t fresh_seed()
{
    std::random_device rd;
    return (std::uint64_t{rd()} << 32) ^ rd();
}

void random_ints(int* out, std::size_t n, std::uint64_t seed, int lo, int hi)
{
    if (lo > hi) throw std::invalid_argument("random_ints: lo > hi");
    const std::uint64_t span = static_cast<std::uint64_t>(static_cast<std::int64_t>(hi) - lo) + 1;
    generate(out, n, [=](std::size_t i) {
        return static_cast<int>(lo + static_cast<std::int64_t>(element_bits(seed, i) % span));
    });
}

std::vector<int> random_ints(std::size_t n, std::uint64_t seed, int lo, int hi)
{
    std::vector<int> out(n);
    random_ints(out.data(), n, seed, lo, hi);
    return out;
}

std::vector<float> random_floats(std::size_t n, std::uint64_t seed, float lo, float hi)
{
    std::vector<float> out(n);
    generate(out.data(), n, [=](std::size_t i) {
        const double unit = static_cast<double>(element_bits(seed, i) >> 11) * 0x1.0p-53;  // [0, 1)
        return static_cast<float>(lo + (hi - lo) * unit);
    });
    return out;
}

const char* to_string(ByteDistribution d)
{
    switch (d) {
    case ByteDistribution::uniform: return "uniform";
    case ByteDistribution::skewed: return "skewed";
    case ByteDistribution::identical: return "identical";
    }
    return "?";
}

void random_bytes(std::uint8_t* out, std::size_t n, std::uint64_t seed, ByteDistribution d)
{
    const std::uint64_t hot = mix(seed ^ 0xB17E5ull);  // the hot values depend on the seed too
    generate(out, n, [=](std::size_t i) {
        const std::uint64_t bits = element_bits(seed, i);
        switch (d) {
        case ByteDistribution::uniform: return static_cast<std::uint8_t>(bits);
        case ByteDistribution::skewed:
            if ((bits >> 60) != 0) return static_cast<std::uint8_t>(hot >> (8 * ((bits >> 8) & 3)));
            return static_cast<std::uint8_t>(bits);
        case ByteDistribution::identical: return static_cast<std::uint8_t>(hot);
        }
        return std::uint8_t{0};
    });
}

std::vector<std::uint8_t> random_bytes(std::size_t n, std::uint64_t seed, ByteDistribution d)
{
    std::vector<std::uint8_t> out(n);
    random_bytes(out.data(), n, seed, d);
    return out;
}

}  // namespace course
