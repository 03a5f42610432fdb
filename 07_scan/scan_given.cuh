// Chapter 07, given (nothing to do here): the device helpers that your scan_student.cuh builds on. Nothing in
// this file calls your code.
//   - full_warp, blelloch_shared_bytes (Tasks 07.2, 07.3);
//   - tiles in registers (Tasks 07.4, 07.5): rounds, Vec4, Access, load_items / store_items (16-byte,
//     coalesced), warp_sum, exclusive_from_inclusive, BlockScanStorage;
//   - the tile statuses of the single pass (Task 07.5): to_bits / from_bits, load_status / store_status, the
//     look-back's pauses, TileStatusArray and read_window (the bounded wait).
#pragma once

#include "scan.hpp"

#include "course/check.hpp"
#include "course/launch.hpp"

#include <cuda/atomic>

#include <cstddef>

namespace scan_detail {

constexpr unsigned full_warp = 0xffffffffu;  // every lane of a warp takes part in a *_sync call

// ------------------------------------------------------------------------------ Tasks 07.2, 07.3: Blelloch tiles
// Dynamic shared memory of blelloch_tiles_kernel: 2 * block words stored at conflict_free(i) <= i + i / 32.
inline std::size_t blelloch_shared_bytes(int block)
{
    const unsigned last = 2u * static_cast<unsigned>(block) - 1;
    return (last + (last >> 5) + 1) * sizeof(unsigned);
}

// --------------------------------------------------------------------- Tasks 07.4, 07.5: tiles in registers
constexpr int rounds = scan_items_per_thread / 4;  // 16-byte groups per thread

template <class T> struct Vec4;
template <> struct Vec4<unsigned> { using type = uint4; };
template <> struct Vec4<float> { using type = float4; };

// How the 16-byte accesses treat the cache. The single pass reads and writes every item exactly once, so it marks
// them streaming: loads cached in L2 only (__ldcg: no L1 line that nothing would read again), stores evict-first
// (__stcs). scan_warp_shuffle reads its input twice and keeps ordinary accesses.
enum class Access { cached, streaming };

template <Access access, class V>
__device__ __forceinline__ V load_vector(const V* p)
{
    if constexpr (access == Access::streaming) return __ldcg(p);
    else return *p;
}

template <Access access, class V>
__device__ __forceinline__ void store_vector(V* p, V v)
{
    if constexpr (access == Access::streaming) __stcs(p, v);
    else *p = v;
}

// Index of the first of the 4 consecutive items that this thread holds in round 0. Warp w owns the contiguous
// chunk [w * 32 * 32, (w + 1) * 32 * 32) of the tile; in round r its lanes cover 128 consecutive items, 4 each,
// so each round is one fully coalesced 512-byte access per warp.
__device__ __forceinline__ std::size_t first_item(std::size_t tile_start)
{
    return tile_start + (threadIdx.x >> 5) * (32 * scan_items_per_thread) + 4 * (threadIdx.x & 31);
}

// Loads the tile that starts at item tile_start (blockDim.x * 32 items; zeros past n). vector_io: `in` starts on
// a 16-byte boundary, so that whole tiles can be read as 16-byte vectors.
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

// Exclusive value from an inclusive warp scan by moving it one lane up (no subtraction: exact for floats).
template <class T>
__device__ __forceinline__ T exclusive_from_inclusive(T inclusive)
{
    const T below = __shfl_up_sync(full_warp, inclusive, 1);
    return (threadIdx.x & 31) == 0 ? T(0) : below;
}

template <class T>
struct BlockScanStorage {
    T warp_totals[32];  // per warp: its total, then (after the warp-0 scan) its exclusive prefix
    T tile_total;
    T tile_prefix;  // scan_single_pass: the sum of all earlier tiles
};

// ------------------------------------------------------------------------- Task 07.5: the tile statuses
// A status word is TileStatus::aggregate or TileStatus::prefix (scan.hpp) OR-ed with to_bits(value);
// TileStatus::flag(word) gives the flag back and from_bits<T>(unsigned(word)) the value.
__device__ __forceinline__ unsigned to_bits(unsigned v) { return v; }
__device__ __forceinline__ unsigned to_bits(float v) { return __float_as_uint(v); }
template <class T> __device__ __forceinline__ T from_bits(unsigned bits);
template <> __device__ __forceinline__ unsigned from_bits<unsigned>(unsigned bits) { return bits; }
template <> __device__ __forceinline__ float from_bits<float>(unsigned bits) { return __uint_as_float(bits); }

// Relaxed device-scope atomics: never torn, never served from a stale L1 line, eventually visible to a
// spinning reader. No acquire/release is needed because no other memory is published through the flag.
__device__ __forceinline__ unsigned long long load_status(const unsigned long long* word)
{
    return cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(*const_cast<unsigned long long*>(word))
        .load(cuda::memory_order_relaxed);
}
__device__ __forceinline__ void store_status(unsigned long long* word, unsigned long long value)
{
    cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(*word).store(value, cuda::memory_order_relaxed);
}

// Pauses of the look-back, in nanoseconds (docs/07_scan.md, "Waiting: when to look").
// First wait: once A is out, give the predecessors about one L2 round trip to publish their P's, so that
// one window usually ends the look-back: 1245 ns, CUB's sm_90 value for 4-byte integer sums. The launcher
// passes it in TileStatusArray::first_wait_ns, or 0 when every tile of the launch fits on the GPU at once
// (then all tiles start together and a wait only adds latency). Poll wait (CUB's too): between re-reads of a
// window that still shows X.
inline constexpr unsigned look_back_first_wait_ns = 1245;
inline constexpr unsigned look_back_poll_wait_ns = 648;
// The bound of one wait in read_window: a tile that shows X for this long will never publish.
inline constexpr unsigned long long look_back_timeout_ns = 1000000000ull;  // 1 s

// The statuses of one scan_single_pass launch, as decoupled_look_back sees them.
struct TileStatusArray {
    unsigned long long* words;    // words[t]: tile t's status word; every word is X when the launch starts
    unsigned long long* timeout;  // ScanWorkspace::look_back_timeout(): where a wait that gave up is recorded
    unsigned long long* gave_up;  // this launch's own flag (0 when it starts): one of its waits gave up
    unsigned first_wait_ns;       // how long a tile sleeps after publishing its A, before it looks back
};

// Nanoseconds of the GPU's global timer (wall-clock time, the same on every SM).
__device__ __forceinline__ unsigned long long global_time_ns()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

// One window of the look-back. All 32 lanes of the warp call it together, each with its own predecessor:
// the tile whose status the lane reads (< 0: before tile 0, which reads as a P of value 0, an empty prefix).
// Returns that tile's status word, once no lane of the warp sees X: while one does, the warp sleeps
// look_back_poll_wait_ns and the lanes that saw X read again. A tile that shows X has taken its ticket, so its
// block is running and will publish soon.
//
// The wait is bounded, so that a look-back that waits for a tile that never publishes fails instead of hanging:
// after look_back_timeout_ns (or at once, when another tile of the same launch has already given up) it records
// (tile, the nearest tile still at X) in status.timeout, raises the launch's status.gave_up and returns P of
// value 0 for the lanes that still see X. The scan is then wrong, but it ends, and ScanWorkspace::check() reports
// the record. Only this launch's flag makes a wait give up at once: a record an earlier launch left (check()
// not called since) changes nothing in a later scan.
__device__ inline unsigned long long read_window(const TileStatusArray& status, std::size_t tile, long long predecessor)
{
    const auto read = [&] { return predecessor >= 0 ? load_status(&status.words[predecessor]) : TileStatus::prefix; };
    unsigned long long word = read();
    unsigned long long started = 0;
    while (true) {
        const bool invalid = TileStatus::flag(word) == TileStatus::invalid;
        const unsigned waiting = __ballot_sync(full_warp, invalid);
        if (waiting == 0) return word;
        const unsigned long long now = global_time_ns();
        if (started == 0) started = now;
        const bool give_up = now - started > look_back_timeout_ns || load_status(status.gave_up) != 0;
        if (__any_sync(full_warp, give_up)) {
            if ((threadIdx.x & 31) == static_cast<unsigned>(__ffs(static_cast<int>(waiting)) - 1)) {
                atomicCAS(status.timeout, 0ull,
                          (static_cast<unsigned long long>(tile) << 32) | static_cast<unsigned>(predecessor));
                atomicExch(status.gave_up, 1ull);
            }
            return invalid ? TileStatus::prefix : word;
        }
        __nanosleep(look_back_poll_wait_ns);
        if (invalid) word = read();
    }
}

}  // namespace scan_detail
