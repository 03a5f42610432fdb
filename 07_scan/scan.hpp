// Chapter 07: prefix sums (scans) on the GPU, from one block to a single-pass scan near CUB's speed.
// Implemented by scan_launch.cu, which launches the kernels of starter/scan_kernels.cuh (yours) or
// solution/scan_kernels.cuh (the reference; -Dvariant picks).
//
// Every launcher takes device pointers and returns without synchronizing (the work is queued on the default
// stream). n = 0 is valid and launches nothing. Blocks must be a power of two in [32, 1024]; anything else,
// or an n beyond what a kernel supports, throws std::invalid_argument.
//
// int32 semantics: results wrap modulo 2^32 exactly like course::inclusive_scan_reference. The kernels add in
// `unsigned` arithmetic (int and unsigned have the same bits, and unsigned overflow is defined in C++ while
// signed overflow is undefined), so the wrap is guaranteed, not an accident of the hardware.
#pragma once

#include "course/device_buffer.hpp"

#include <cmath>
#include <cstddef>

enum class ScanKind {
    inclusive,  // out[i] = in[0] + ... + in[i]
    exclusive,  // out[i] = in[0] + ... + in[i-1], out[0] = 0
};

inline const char* to_string(ScanKind kind) { return kind == ScanKind::inclusive ? "inclusive" : "exclusive"; }

// Items each thread of scan_warp_shuffle and scan_single_pass handles: 6 groups of 4 consecutive ints, so
// every load and store is one 16-byte vector access. A tile (one block's share) is block * 24 items.
constexpr int scan_items_per_thread = 24;

// Device scratch of the multi-block scans, allocated once for every call up to max_n elements (the seed
// called cudaMalloc/cudaFree inside its recursion, which synchronizes the device on every level):
//   - block sums of every recursion level, sized for the smallest tile any launcher uses (64 items:
//     scan_multiblock at block 32), which needs the most;
//   - for scan_single_pass: word 0 is the tile-ticket counter, words 1.. one status word per tile.
// One call at a time: two scans in flight must not share a ScanScratch.
class ScanScratch {
public:
    static constexpr std::size_t smallest_tile = 64;
    static constexpr std::size_t smallest_single_pass_tile = 32 * scan_items_per_thread;

    explicit ScanScratch(std::size_t max_n)
        : max_n_(max_n),
          block_sums_(block_sum_slots(max_n, smallest_tile)),
          tile_status_(1 + (max_n + smallest_single_pass_tile - 1) / smallest_single_pass_tile)
    {
    }

    std::size_t max_n() const { return max_n_; }
    unsigned* block_sums() { return block_sums_.data(); }
    unsigned long long* tile_status() { return tile_status_.data(); }

    // Block sums that all levels of a recursive scan of n items in tiles of `tile` items need: level 1 has
    // ceil(n / tile) sums, level 2 the sums of those, ... until one tile holds a whole level.
    static std::size_t block_sum_slots(std::size_t n, std::size_t tile)
    {
        std::size_t slots = 0;
        while (n > tile) {
            n = (n + tile - 1) / tile;
            slots += n;
        }
        return slots;
    }

private:
    std::size_t max_n_;
    course::DeviceBuffer<unsigned> block_sums_;
    course::DeviceBuffer<unsigned long long> tile_status_;
};

// Largest n the single-block kernels accept (one block, no recursion).
inline std::size_t hillis_steele_max_n(int block) { return block > 0 ? static_cast<std::size_t>(block) : 0; }
inline std::size_t blelloch_max_n(int block) { return block > 0 ? 2 * static_cast<std::size_t>(block) : 0; }

// TODO(07.1): one block, one item per thread, n <= block. Hillis-Steele: log2(block) steps, O(n log n) adds,
// double-buffered shared memory.
void scan_hillis_steele(const int* d_in, int* d_out, std::size_t n, int block, ScanKind kind);

// TODO(07.2): one block, two items per thread, n <= 2 * block. Blelloch: up-sweep, clear, down-sweep, O(n)
// adds, shared-memory indices padded against bank conflicts.
void scan_blelloch(const int* d_in, int* d_out, std::size_t n, int block, ScanKind kind);

// TODO(07.3): any n. The seed's scheme, fixed: Blelloch-scan tiles of 2 * block items and record each tile's
// total, scan the totals recursively, add them back. Reads and writes the data twice (4n element moves).
void scan_multiblock(const int* d_in, int* d_out, std::size_t n, int block, ScanKind kind, ScanScratch& scratch);

// TODO(07.4): any n. Block scans built from __shfl_up_sync warp scans, 24 items per thread, inside a
// reduce-then-scan recursion: sum each tile, scan the sums recursively, then scan each tile starting from its
// offset. Reads the data twice and writes it once (3n element moves).
void scan_warp_shuffle(const int* d_in, int* d_out, std::size_t n, int block, ScanKind kind, ScanScratch& scratch);

// TODO(07.5): any n, one kernel: decoupled look-back (Merrill & Garland 2016). Reads and writes once (2n).
void scan_single_pass(const int* d_in, int* d_out, std::size_t n, int block, ScanKind kind, ScanScratch& scratch);
// The same kernel for float (float additions: the result depends on the order, see float_scan_tolerance).
void scan_single_pass(const float* d_in, float* d_out, std::size_t n, int block, ScanKind kind,
                      ScanScratch& scratch);

// Error bound for element i of a float scan, derived in README.md: with n_i = number of inputs summed into it
// (i + 1 inclusive, i exclusive) and abs_prefix = |in[0]| + ... of those inputs, any order of float additions
// gives |got - exact| <= ((1 + u)^(n_i - 1) - 1) * abs_prefix <= expm1(n_i * u) * abs_prefix, u = 2^-24.
// The factor 2 is headroom for the double reference's own rounding; for small n_i this is n_i * FLT_EPSILON *
// abs_prefix.
inline double float_scan_tolerance(std::size_t n_i, double abs_prefix)
{
    const double u = 1.0 / 16777216.0;
    return 2.0 * std::expm1(static_cast<double>(n_i) * u) * abs_prefix;
}
