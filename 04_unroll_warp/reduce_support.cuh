// Chapter 04 plumbing shared by unroll_warp_launch.cu and both unroll_warp_kernels.cuh (nothing to do here):
// argument checks and grid sizes for the launchers, 64-bit/float atomics, the running totals of the one-pass
// kernels, and the 16-byte vector arithmetic of the vectorized kernels.
#pragma once

#include "course/check.hpp"

#include <cuda_runtime.h>

#include <climits>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace unroll_warp {

// ------------------------------------------------------------------------------------------------ host side

// Every launcher accepts a power-of-two block in [32, 1024]: the shared-memory trees halve the block, the
// warp-level kernels need whole warps.
template <class T, class Total>
void check_arguments(const char* name, const T* d_in, std::size_t n, const Total* d_total, int block)
{
    const std::string who = name;
    if (block < 32 || block > 1024 || (block & (block - 1)) != 0)
        throw std::invalid_argument(who + ": block must be a power of two in [32, 1024], got " +
                                    std::to_string(block));
    if (d_total == nullptr) throw std::invalid_argument(who + ": d_total is null");
    if (n > 0 && d_in == nullptr) throw std::invalid_argument(who + ": d_in is null but n > 0");
    if (reinterpret_cast<std::uintptr_t>(d_in) % alignof(T) != 0)
        throw std::invalid_argument(who + ": d_in is not aligned to its element size");
}

// ceil(n / per_block) blocks; a grid's x dimension holds at most 2^31 - 1.
inline unsigned blocks_needed(const char* name, std::size_t n, std::size_t per_block)
{
    const std::size_t blocks = n / per_block + (n % per_block != 0);
    if (blocks > static_cast<std::size_t>(INT_MAX))
        throw std::invalid_argument(std::string(name) + ": n = " + std::to_string(n) +
                                    " needs more than 2^31 - 1 blocks");
    return static_cast<unsigned>(blocks);
}

// How many blocks of `kernel` fit on the whole GPU at once: SM count x resident blocks per SM (from the
// occupancy calculator, so it follows the kernel's registers and shared memory). A grid-stride kernel
// launched with this many blocks fills every SM exactly once. Cached: launchers are called inside timings.
template <class Kernel>
unsigned resident_blocks(Kernel* kernel, int block)
{
    struct Entry {
        int device;
        const void* kernel;
        int block;
        unsigned blocks;
    };
    static std::vector<Entry> cache;
    int device = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    const void* key = reinterpret_cast<const void*>(kernel);
    for (const Entry& e : cache)
        if (e.device == device && e.kernel == key && e.block == block) return e.blocks;
    int sms = 0, per_sm = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, block, 0));
    const unsigned blocks = static_cast<unsigned>(sms * (per_sm > 0 ? per_sm : 1));
    cache.push_back(Entry{device, key, block, blocks});
    return blocks;
}

// ---------------------------------------------------------------------------------------------- device side

// atomicAdd has no signed 64-bit overload; two's-complement addition is the same on the unsigned bits.
__device__ __forceinline__ long long atomic_add(long long* address, long long value)
{
    return static_cast<long long>(
        atomicAdd(reinterpret_cast<unsigned long long*>(address), static_cast<unsigned long long>(value)));
}
__device__ __forceinline__ double atomic_add(double* address, double value) { return atomicAdd(address, value); }
__device__ __forceinline__ float atomic_add(float* address, float value) { return atomicAdd(address, value); }

// The one-pass kernels (TODO 04.6) add every block's total into a running total in device memory and count
// finished blocks; the last block publishes the running total and resets both to zero for the next launch.
// Module-scope device variables start at zero. Consequence: two of these launches must not run at the same
// time (e.g. on two streams); the launchers here all use the default stream, one after the other.
__device__ unsigned blocks_done;
__device__ long long running_total_int;
__device__ double running_total_double;
__device__ float running_total_float;

template <class Acc>
__device__ __forceinline__ Acc* running_total()
{
    if constexpr (std::is_same_v<Acc, long long>) return &running_total_int;
    else if constexpr (std::is_same_v<Acc, double>) return &running_total_double;
    else return &running_total_float;
}

// The sum of one 16-byte vector (4 ints, 4 floats or 16 bytes) in the accumulator type Acc.
template <class T, class Acc>
__device__ __forceinline__ Acc vector_sum(int4 v)
{
    if constexpr (std::is_same_v<T, std::uint8_t>) {
        // __dp4a(a, b, c) = c + the dot product of the four bytes of a and b: with b = 1,1,1,1 it adds the
        // four bytes of a word in one instruction. 16 bytes sum to at most 16 * 255, so 32 bits are plenty.
        constexpr unsigned ones = 0x01010101u;
        unsigned s = __dp4a(static_cast<unsigned>(v.x), ones, 0u);
        s = __dp4a(static_cast<unsigned>(v.y), ones, s);
        s = __dp4a(static_cast<unsigned>(v.z), ones, s);
        s = __dp4a(static_cast<unsigned>(v.w), ones, s);
        return static_cast<Acc>(s);
    } else if constexpr (std::is_same_v<T, float>) {
        return static_cast<Acc>(__int_as_float(v.x)) + static_cast<Acc>(__int_as_float(v.y)) +
               static_cast<Acc>(__int_as_float(v.z)) + static_cast<Acc>(__int_as_float(v.w));
    } else {
        static_assert(std::is_same_v<T, int>, "vector_sum: int, float or std::uint8_t");
        return static_cast<Acc>(v.x) + static_cast<Acc>(v.y) + static_cast<Acc>(v.z) + static_cast<Acc>(v.w);
    }
}

}  // namespace unroll_warp
