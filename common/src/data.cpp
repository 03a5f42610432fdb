#include "course/data.hpp"

#include <algorithm>
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

// Fills out[i] = make(i) on all host cores.
template <class T, class F>
std::vector<T> generate(std::size_t n, F make)
{
    std::vector<T> out(n);
    const std::size_t workers = std::max(1u, std::thread::hardware_concurrency());
    const std::size_t chunk = (n + workers - 1) / workers;
    std::vector<std::thread> pool;
    for (std::size_t w = 0; w < workers && w * chunk < n; ++w)
        pool.emplace_back([&, w] {
            const std::size_t end = std::min(n, (w + 1) * chunk);
            for (std::size_t i = w * chunk; i < end; ++i) out[i] = make(i);
        });
    for (auto& t : pool) t.join();
    return out;
}

}  // namespace

std::uint64_t fresh_seed()
{
    std::random_device rd;
    return (std::uint64_t{rd()} << 32) ^ rd();
}

std::vector<int> random_ints(std::size_t n, std::uint64_t seed, int lo, int hi)
{
    if (lo > hi) throw std::invalid_argument("random_ints: lo > hi");
    const std::uint64_t span = static_cast<std::uint64_t>(static_cast<std::int64_t>(hi) - lo) + 1;
    return generate<int>(n, [=](std::size_t i) {
        return static_cast<int>(lo + static_cast<std::int64_t>(element_bits(seed, i) % span));
    });
}

std::vector<float> random_floats(std::size_t n, std::uint64_t seed, float lo, float hi)
{
    return generate<float>(n, [=](std::size_t i) {
        const double unit = static_cast<double>(element_bits(seed, i) >> 11) * 0x1.0p-53;  // [0, 1)
        return static_cast<float>(lo + (hi - lo) * unit);
    });
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

std::vector<std::uint8_t> random_bytes(std::size_t n, std::uint64_t seed, ByteDistribution d)
{
    const std::uint64_t hot = mix(seed ^ 0xB17E5ull);  // the hot values depend on the seed too
    return generate<std::uint8_t>(n, [=](std::size_t i) {
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

}  // namespace course
