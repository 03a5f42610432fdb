#include "course/testing.hpp"

#include "course/data.hpp"
#include "course/device.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <optional>

namespace course::testing {
namespace {

struct GpuState {
    bool probed = false;
    std::optional<std::string> unavailable;  // reason, when there is no usable device
};

int skipped_count = 0;
std::string last_skip_reason;

// Records a GPU case left out, in the console and in doctest's machine-readable reports (the grader reads
// this message: a case that ran no assertion passes only as "not graded", with this reason).
void record_skip(const std::string& reason)
{
    ++skipped_count;
    last_skip_reason = reason;
    const std::string message = kSkipMarker + reason;
    MESSAGE(message);
}

GpuState& gpu_state()
{
    static GpuState state;
    if (!state.probed) {  // first use is inside a test case, i.e. after main() started
        state.probed = true;
        state.unavailable = gpu_unavailable_reason();
    }
    return state;
}

}  // namespace

namespace detail {
int skipped_gpu_cases() { return skipped_count; }
const std::string& skip_reason() { return last_skip_reason; }
std::uint64_t run_seed()
{
    static const std::uint64_t seed = []() -> std::uint64_t {
        const char* env = std::getenv("COURSE_SEED");
        if (env == nullptr) return fresh_seed();
        char* end = nullptr;
        errno = 0;
        const unsigned long long value = std::strtoull(env, &end, 10);
        if (*env < '0' || *env > '9' || *end != '\0' || errno == ERANGE) {
            std::fprintf(stderr, "error: COURSE_SEED=%s is not a number (use the seed a failing run printed)\n", env);
            std::exit(2);
        }
        return value;
    }();
    return seed;
}
}  // namespace detail

bool gpu_available_or_skip()
{
    if (const auto& reason = gpu_state().unavailable) {
        record_skip(*reason);
        return false;
    }
    return true;
}

bool gpu_memory_or_skip(std::size_t bytes)
{
    if (!gpu_available_or_skip()) return false;
    const std::size_t free_bytes = free_device_memory();
    if (free_bytes < bytes) {
        record_skip("needs " + std::to_string(bytes >> 20) + " MiB of device memory, " +
                    std::to_string(free_bytes >> 20) + " MiB free");
        return false;
    }
    return true;
}

std::uint64_t seed(std::uint64_t salt) { return detail::run_seed() + salt * 0x9E3779B97F4A7C15ull; }

std::vector<std::size_t> standard_sizes(int block)
{
    const std::size_t b = static_cast<std::size_t>(block);
    std::vector<std::size_t> sizes{0, 1, 2, 31, 32, 33, b - 1, b, b + 1, 999983};
    if (!under_sanitizer()) sizes.push_back((std::size_t{1} << 24) + 7);
    std::sort(sizes.begin(), sizes.end());
    sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
    return sizes;
}

bool under_sanitizer() { return std::getenv("COURSE_SANITIZER") != nullptr; }

bool skip_under_sanitizer(const char* reason, std::initializer_list<const char*> tools)
{
    const char* tool = std::getenv("COURSE_SANITIZER");
    if (tool == nullptr) return false;
    for (const char* t : tools)
        if (std::string(t) == tool) {
            record_skip(std::string(tool) + ": " + reason);
            return true;
        }
    return false;
}

std::vector<int> power_of_two_blocks(int min_block, int max_block)
{
    std::vector<int> blocks;
    for (int b = min_block; b <= max_block; b *= 2) blocks.push_back(b);
    return blocks;
}

std::string call(const std::string& name, std::size_t n, int block)
{
    std::string s = name + "(n=" + std::to_string(n);
    if (block > 0) s += ", block=" + std::to_string(block);
    return s + ")";
}

}  // namespace course::testing
