// What every launcher does before its <<<>>>: check the block size and the pointers, and size the grid.
// Included by the chapters' <topic>_launch.cu files (ceil_div also from device code).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <type_traits>

namespace course {

#if defined(__CUDACC__)
#define COURSE_HOST_DEVICE __host__ __device__
#else
#define COURSE_HOST_DEVICE
#endif

// ceil(a / b) without the overflow of (a + b - 1) / b.
COURSE_HOST_DEVICE constexpr std::size_t ceil_div(std::size_t a, std::size_t b) { return a / b + (a % b != 0); }

// Throws std::invalid_argument("<launcher>: block must be a power of two in [min, max], got <block>").
void check_block(const char* launcher, int block, int min_block = 32, int max_block = 1024);

// Throws std::invalid_argument("<launcher>: <what> is null") when p is null and `required`; launchers pass
// required = n > 0 for inputs, so that n = 0 accepts a null input.
void check_pointer(const char* launcher, const char* what, const void* p, bool required = true);

// Throws std::invalid_argument("<launcher>: <what> is not aligned to <alignment> bytes").
void check_aligned(const char* launcher, const char* what, const void* p, std::size_t alignment);

// ceil(n / items_per_block) blocks, at least 1; throws std::invalid_argument naming the launcher and n when a
// grid's x dimension (at most 2^31 - 1 blocks) cannot hold them.
unsigned grid_for(const char* launcher, std::size_t n, std::size_t items_per_block);

// How many blocks of `kernel` (with `block` threads and `dynamic_smem` bytes of dynamic shared memory) fit on
// the current GPU at once: SMs x resident blocks per SM, from the occupancy calculator. Cached per device,
// kernel and shape (thread-safe), so that a launcher inside a timing does no slow host work.
unsigned resident_blocks(const void* kernel, int block, std::size_t dynamic_smem = 0);
template <class Kernel>
unsigned resident_blocks(Kernel* kernel, int block, std::size_t dynamic_smem = 0)
{
    return resident_blocks(reinterpret_cast<const void*>(kernel), block, dynamic_smem);
}

// The grid of a grid-stride kernel: enough blocks for `items_per_thread` items per thread, but no more than
// fit on the GPU at once (more would only queue behind the first wave).
template <class Kernel>
unsigned grid_stride_grid(const char* launcher, Kernel* kernel, std::size_t n, int block,
                          std::size_t items_per_thread, std::size_t dynamic_smem = 0)
{
    const unsigned wanted = grid_for(launcher, n, static_cast<std::size_t>(block) * items_per_thread);
    const unsigned resident = resident_blocks(kernel, block, dynamic_smem);
    return wanted < resident ? wanted : resident;
}

// Calls launch(std::integral_constant<int, B>{}) for the run-time block size B, a power of two in [32, 1024]
// already checked by check_block, so that `launch` can instantiate a kernel template with it.
template <class Launch>
void dispatch_block(int block, Launch&& launch)
{
    switch (block) {
    case 32: launch(std::integral_constant<int, 32>{}); break;
    case 64: launch(std::integral_constant<int, 64>{}); break;
    case 128: launch(std::integral_constant<int, 128>{}); break;
    case 256: launch(std::integral_constant<int, 256>{}); break;
    case 512: launch(std::integral_constant<int, 512>{}); break;
    default: launch(std::integral_constant<int, 1024>{}); break;
    }
}

}  // namespace course
