#include "course/launch.hpp"

#include "course/check.hpp"

#include <climits>
#include <cstdint>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

namespace course {

void check_block(const char* launcher, int block, int min_block, int max_block)
{
    if (block < min_block || block > max_block || (block & (block - 1)) != 0)
        throw std::invalid_argument(std::string(launcher) + ": block must be a power of two in [" +
                                    std::to_string(min_block) + ", " + std::to_string(max_block) + "], got " +
                                    std::to_string(block));
}

void check_pointer(const char* launcher, const char* what, const void* p, bool required)
{
    if (required && p == nullptr) throw std::invalid_argument(std::string(launcher) + ": " + what + " is null");
}

void check_aligned(const char* launcher, const char* what, const void* p, std::size_t alignment)
{
    if (reinterpret_cast<std::uintptr_t>(p) % alignment != 0)
        throw std::invalid_argument(std::string(launcher) + ": " + what + " is not aligned to " +
                                    std::to_string(alignment) + " bytes");
}

unsigned grid_for(const char* launcher, std::size_t n, std::size_t items_per_block)
{
    const std::size_t blocks = n == 0 ? 1 : ceil_div(n, items_per_block);
    if (blocks > static_cast<std::size_t>(INT_MAX))
        throw std::invalid_argument(std::string(launcher) + ": n = " + std::to_string(n) +
                                    " needs more than 2^31 - 1 blocks");
    return static_cast<unsigned>(blocks);
}

unsigned resident_blocks(const void* kernel, int block, std::size_t dynamic_smem)
{
    struct Entry {
        int device;
        const void* kernel;
        int block;
        std::size_t smem;
        unsigned blocks;
    };
    static std::mutex mutex;
    static std::vector<Entry> cache;
    int device = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    {
        const std::lock_guard<std::mutex> lock(mutex);
        for (const Entry& e : cache)
            if (e.device == device && e.kernel == kernel && e.block == block && e.smem == dynamic_smem)
                return e.blocks;
    }
    int sms = 0, per_sm = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, block, dynamic_smem));
    const unsigned blocks = static_cast<unsigned>(sms * (per_sm > 0 ? per_sm : 1));
    const std::lock_guard<std::mutex> lock(mutex);
    cache.push_back(Entry{device, kernel, block, dynamic_smem, blocks});
    return blocks;
}

}  // namespace course
