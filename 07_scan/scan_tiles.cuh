// Chapter 07, given (nothing to do here): tiles in registers, used by 07.4 and 07.5 - rounds, Vec4, Access,
// load_items / store_items (16-byte, coalesced), warp_sum, BlockScanStorage. Included by the kernels headers
// (starter/ and solution/scan_kernels.cuh) before TODO(07.4); uses full_warp from there.
#pragma once

#include "scan.hpp"

#include <cstddef>

namespace scan_detail {

// ----------------------------------------------------------------------- shared by 07.4 and 07.5: tiles in registers
constexpr int rounds = scan_items_per_thread / 4;  // 16-byte groups per thread

template <class T> struct Vec4;
template <> struct Vec4<unsigned> { using type = uint4; };
template <> struct Vec4<float> { using type = float4; };

// How the 16-byte accesses treat the cache. The single pass reads and writes every item exactly once, so it marks
// them streaming (__ldcs / __stcs, "evict first"): a few percent faster at 2^28 on an H200. scan_warp_shuffle
// reads its input twice and keeps ordinary accesses.
enum class Access { cached, streaming };

template <Access access, class V>
__device__ __forceinline__ V load_vector(const V* p)
{
    if constexpr (access == Access::streaming) return __ldcs(p);
    else return *p;
}

template <Access access, class V>
__device__ __forceinline__ void store_vector(V* p, V v)
{
    if constexpr (access == Access::streaming) __stcs(p, v);
    else *p = v;
}

// Index of the first of the 4 consecutive items that this thread holds in round 0. Warp w owns the contiguous
// chunk [w * 32 * 24, (w + 1) * 32 * 24) of the tile; in round r its lanes cover 128 consecutive items, 4 each,
// so each round is one fully coalesced 512-byte access per warp.
__device__ __forceinline__ std::size_t first_item(std::size_t tile_start)
{
    return tile_start + (threadIdx.x >> 5) * (32 * scan_items_per_thread) + 4 * (threadIdx.x & 31);
}

template <Access access, class T>
__device__ void load_items(const T* in, std::size_t n, std::size_t tile_start, bool vector_io, T (&items)[rounds][4])
{
    const std::size_t first = first_item(tile_start);
    const std::size_t tile_items = static_cast<std::size_t>(blockDim.x) * scan_items_per_thread;
    if (vector_io && tile_start + tile_items <= n) {
#pragma unroll
        for (int r = 0; r < rounds; ++r) {
            const auto v = load_vector<access>(reinterpret_cast<const typename Vec4<T>::type*>(in + first + 128 * r));
            items[r][0] = v.x;
            items[r][1] = v.y;
            items[r][2] = v.z;
            items[r][3] = v.w;
        }
    } else {  // the last, partial tile, or pointers not 16-byte aligned
#pragma unroll
        for (int r = 0; r < rounds; ++r)
#pragma unroll
            for (int k = 0; k < 4; ++k) {
                const std::size_t i = first + 128 * r + k;
                items[r][k] = i < n ? in[i] : T(0);
            }
    }
}

// Writes the scan: item k of round r is offset + run_prefix[r] + (inclusive: items[r][k], the in-thread
// inclusive scan; exclusive: items[r][k - 1]). Only additions of adjacent ranges, never a subtraction, so a
// float result stays within the bound of float_scan_tolerance.
template <Access access, class T>
__device__ void store_items(T* out, std::size_t n, std::size_t tile_start, bool vector_io, const T (&items)[rounds][4],
                            const T (&run_prefix)[rounds], T offset, ScanKind kind)
{
    const std::size_t first = first_item(tile_start);
    const std::size_t tile_items = static_cast<std::size_t>(blockDim.x) * scan_items_per_thread;
    const bool full = vector_io && tile_start + tile_items <= n;
#pragma unroll
    for (int r = 0; r < rounds; ++r) {
        const T base = offset + run_prefix[r];
        T v[4];
        if (kind == ScanKind::inclusive) {
#pragma unroll
            for (int k = 0; k < 4; ++k) v[k] = base + items[r][k];
        } else {
            v[0] = base;
#pragma unroll
            for (int k = 1; k < 4; ++k) v[k] = base + items[r][k - 1];
        }
        if (full) {
            store_vector<access>(reinterpret_cast<typename Vec4<T>::type*>(out + first + 128 * r),
                                 typename Vec4<T>::type{v[0], v[1], v[2], v[3]});
        } else {
#pragma unroll
            for (int k = 0; k < 4; ++k)
                if (first + 128 * r + k < n) out[first + 128 * r + k] = v[k];
        }
    }
}

// Butterfly sum: every lane ends with the same total (a + b == b + a bit for bit, also in float). Masks grow
// 1, 2, ..., 16, so every partial sum covers aligned neighbouring lanes: a contiguous range of items or tiles.
template <class T>
__device__ __forceinline__ T warp_sum(T x)
{
#pragma unroll
    for (int mask = 1; mask < 32; mask *= 2) x += __shfl_xor_sync(full_warp, x, mask);
    return x;
}

template <class T>
struct BlockScanStorage {
    T warp_totals[32];  // per warp: its total, then (after the warp-0 scan) its exclusive prefix
    T tile_total;
    T tile_prefix;  // scan_single_pass: the sum of all earlier tiles
};

}  // namespace scan_detail
