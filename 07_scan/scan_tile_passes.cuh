// Chapter 07, given (nothing to do here): 07.4's reduce_tiles_kernel and scan_tiles_kernel, which call your
// block_scan_items, then 07.5's tile status word (TileStatus, to_bits / from_bits, load_status / store_status)
// and the look-back waits. Included by the kernels headers right after block_scan_items.
#pragma once

#include "scan.hpp"

#include <cuda/atomic>

#include <cstddef>

namespace scan_detail {

// Pass 1 of reduce-then-scan: the total of each tile (same item layout as the scan, so the same fast loads).
__global__ void __launch_bounds__(1024) reduce_tiles_kernel(const unsigned* in, std::size_t n, unsigned* tile_sums,
                                                            bool vector_io)
{
    __shared__ unsigned warp_sums[32];
    unsigned items[rounds][4];
    load_items<Access::cached>(in, n, static_cast<std::size_t>(blockIdx.x) * blockDim.x * scan_items_per_thread,
                               vector_io, items);
    unsigned sum = 0;
#pragma unroll
    for (int r = 0; r < rounds; ++r) sum += items[r][0] + items[r][1] + items[r][2] + items[r][3];
    sum = warp_sum(sum);
    if ((threadIdx.x & 31) == 0) warp_sums[threadIdx.x >> 5] = sum;
    __syncthreads();
    if (threadIdx.x < 32) {
        const unsigned total = warp_sum(threadIdx.x < (blockDim.x >> 5) ? warp_sums[threadIdx.x] : 0u);
        if (threadIdx.x == 0) tile_sums[blockIdx.x] = total;
    }
}

// Over 07.3: two barriers per tile instead of 2 log2(2 * block), 24 items per thread in 16-byte accesses, and
// reduce-then-scan (3n element moves instead of 4n). Pass 2 scans each tile starting from its offset (the
// exclusive scan of the tile sums; none for one tile). `in` may equal `out`: each item is read and written by
// the same thread.
__global__ void __launch_bounds__(1024) scan_tiles_kernel(const unsigned* in, unsigned* out, std::size_t n,
                                                          const unsigned* tile_offsets, ScanKind kind, bool vector_io)
{
    __shared__ BlockScanStorage<unsigned> storage;
    unsigned items[rounds][4];
    unsigned run_prefix[rounds];
    const std::size_t tile_start = static_cast<std::size_t>(blockIdx.x) * blockDim.x * scan_items_per_thread;
    load_items<Access::cached>(in, n, tile_start, vector_io, items);
    block_scan_items(items, run_prefix, storage);
    const unsigned offset = tile_offsets != nullptr ? tile_offsets[blockIdx.x] : 0u;
    store_items<Access::cached>(out, n, tile_start, vector_io, items, run_prefix, offset, kind);
}

// ------------------------------------------------------------------------------------------- 07.5 single pass
// A tile's status word: flag in the high 32 bits, the value's bits in the low 32. One aligned 64-bit access
// moves both at once, so a reader can never see a flag together with a stale value.
struct TileStatus {
    static constexpr unsigned long long invalid = 0;            // X: nothing published yet (the memset value)
    static constexpr unsigned long long aggregate = 1ull << 32;  // A: the tile's own total
    static constexpr unsigned long long prefix = 2ull << 32;     // P: the total of this tile and all before it
    __device__ static unsigned long long flag(unsigned long long word) { return word & ~0xffffffffull; }
};

__device__ __forceinline__ unsigned to_bits(unsigned v) { return v; }
__device__ __forceinline__ unsigned to_bits(float v) { return __float_as_uint(v); }
template <class T> __device__ __forceinline__ T from_bits(unsigned bits);
template <> __device__ __forceinline__ unsigned from_bits<unsigned>(unsigned bits) { return bits; }
template <> __device__ __forceinline__ float from_bits<float>(unsigned bits) { return __uint_as_float(bits); }

// Relaxed device-scope atomics: never torn, never served from a stale L1 line, eventually visible to a
// spinning reader. No acquire/release is needed because no other memory is published through the flag.
__device__ __forceinline__ unsigned long long load_status(unsigned long long* word)
{
    return cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(*word).load(cuda::memory_order_relaxed);
}
__device__ __forceinline__ void store_status(unsigned long long* word, unsigned long long value)
{
    cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(*word).store(value, cuda::memory_order_relaxed);
}

// Pauses of the look-back, in nanoseconds (CUB's sm_90 tuning for 4-byte sums; README "Waiting: when to look").
// First wait: once A is out, give the predecessors about one L2 round trip to publish their P's, so that
// one window usually ends the look-back. Poll wait: between re-reads of a window that still shows X.
inline constexpr unsigned look_back_first_wait_ns = 1245;
inline constexpr unsigned look_back_poll_wait_ns = 648;

}  // namespace scan_detail
