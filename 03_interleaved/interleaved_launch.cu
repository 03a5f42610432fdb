// Chapter 03: the launchers, one copy for both variants. The kernels they launch come from
// interleaved_kernels.cuh in starter/ (the student's) or solution/ (the reference), as -Dvariant picks.
#include "interleaved.hpp"

#include "course/check.hpp"

#include <climits>
#include <stdexcept>
#include <string>

#include "interleaved_kernels.cuh"

namespace {

// Validates the arguments, sets *d_total to 0 (the kernels only add to it) and returns the number of blocks.
unsigned prepare(const char* name, const int* d_data, std::size_t n, int block, long long* d_total)
{
    if (block < 32 || block > 1024 || (block & (block - 1)) != 0)
        throw std::invalid_argument(std::string(name) + ": block must be a power of two in [32, 1024], got " +
                                    std::to_string(block));
    if (!d_total || (n > 0 && !d_data)) throw std::invalid_argument(std::string(name) + ": null device pointer");
    const std::size_t blocks = (n + static_cast<std::size_t>(block) - 1) / block;
    if (blocks > static_cast<std::size_t>(INT_MAX))
        throw std::invalid_argument(std::string(name) + ": n = " + std::to_string(n) +
                                    " needs more blocks than one grid can have");
    CUDA_CHECK(cudaMemsetAsync(d_total, 0, sizeof *d_total));
    return static_cast<unsigned>(blocks);
}

using SharedKernel = void (*)(const int*, std::size_t, long long*);

void launch_shared(const char* name, SharedKernel kernel, const int* d_in, std::size_t n, int block,
                   long long* d_total)
{
    const unsigned blocks = prepare(name, d_in, n, block, d_total);
    if (blocks == 0) return;  // n = 0: no launch with 0 blocks
    kernel<<<blocks, block, block * sizeof(int)>>>(d_in, n, d_total);
    CUDA_CHECK_LAUNCH();
}

}  // namespace

void reduce_interleaved(int* d_data, std::size_t n, int block, long long* d_total)
{
    const unsigned blocks = prepare("reduce_interleaved", d_data, n, block, d_total);
    if (blocks == 0) return;  // n = 0: no launch with 0 blocks
    reduce_interleaved_kernel<<<blocks, block>>>(d_data, n, d_total);
    CUDA_CHECK_LAUNCH();
}

void reduce_shared_modulo(const int* d_in, std::size_t n, int block, long long* d_total)
{
    launch_shared("reduce_shared_modulo", reduce_shared_modulo_kernel, d_in, n, block, d_total);
}

void reduce_shared_strided(const int* d_in, std::size_t n, int block, long long* d_total)
{
    launch_shared("reduce_shared_strided", reduce_shared_strided_kernel, d_in, n, block, d_total);
}

void reduce_shared_sequential(const int* d_in, std::size_t n, int block, long long* d_total)
{
    launch_shared("reduce_shared_sequential", reduce_shared_sequential_kernel, d_in, n, block, d_total);
}
