// Chapter 07: prefix sums (scans) on the GPU, from one block to a single-pass scan at copy speed.
// Implemented by scan_launch.cu, which launches the kernels of starter/scan_student.cuh (yours) or
// solution/scan_student.cuh (the reference; -Dvariant picks).
//
// The launchers follow the course's contract (CONTRIBUTING.md): the input, the output, then what to compute,
// n, block, the ScanWorkspace where the scan needs one, and the stream. Every launch and memset goes on `stream`;
// a launcher returns without synchronizing. n = 0 is valid and launches nothing. Blocks must be a power of two
// in [32, 1024]; anything else, a null pointer with n > 0, or an n beyond what a kernel supports throws
// std::invalid_argument naming the launcher.
//
// What to compute, ScanKind, is the one argument the contract does not name. It comes right after the output,
// where CUB's DeviceScan::InclusiveScan(d_in, d_out, scan_op, num_items) puts its operator: it says what the
// data becomes, and n, block, the scratch and the stream stay in the contract's order after it.
//
// int32 semantics: results wrap modulo 2^32 exactly like course::inclusive_scan_reference. The kernels add in
// `unsigned` arithmetic (int and unsigned have the same bits, and unsigned overflow is defined in C++ while
// signed overflow is undefined), so the wrap is guaranteed, not an accident of the hardware.
#pragma once

#include "course/device_buffer.hpp"
#include "course/launch.hpp"

#include <cuda_runtime.h>

#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

enum class ScanKind {
    inclusive,  // out[i] = in[0] + ... + in[i]
    exclusive,  // out[i] = in[0] + ... + in[i-1], out[0] = 0
};

inline const char* to_string(ScanKind kind) { return kind == ScanKind::inclusive ? "inclusive" : "exclusive"; }

// Items each thread of scan_warp_shuffle and scan_single_pass handles: 8 groups of 4 consecutive ints, so
// every load and store is one 16-byte vector access. A tile (one block's share) is block * 32 items: the most that
// fits the 64 registers of __launch_bounds__(1024) without spilling, and the more bytes each SM holds in flight,
// the better the single pass hides its look-back (docs/07_scan.md, "Where the last 5% went").
constexpr int scan_items_per_thread = 32;

// A tile's status word in scan_single_pass (Task 07.5): the flag in the high 32 bits, the value's bits in the
// low 32. One aligned 64-bit access moves both at once, so a reader never sees a flag with a stale value.
struct TileStatus {
    static constexpr unsigned long long invalid = 0;             // X: nothing published yet (the memset value)
    static constexpr unsigned long long aggregate = 1ull << 32;  // A: the tile's own total
    static constexpr unsigned long long prefix = 2ull << 32;     // P: the total of this tile and all before it
    COURSE_HOST_DEVICE static constexpr unsigned long long flag(unsigned long long word)
    {
        return word & ~0xffffffffull;
    }
};

// Device scratch of the multi-tile scans, allocated once for every call up to max_n elements (the tutorial
// called cudaMalloc/cudaFree inside its recursion, which synchronizes the device on every level):
//   - block sums of every recursion level, sized for the smallest tile any launcher uses (64 items:
//     scan_multiblock at block 32), which needs the most;
//   - for scan_single_pass: two sets of tile statuses (word 0 the tile-ticket counter, words 1.. one status word
//     per tile), and the record of a look-back that waited too long (see check()).
// A single-pass launch needs all of its statuses at X (zero) when it starts. A memset before it would be a second
// operation on the stream (at small n it costs as much as the scan), so the launches use the two sets in turn:
// each launch takes the set that is all zero and zeroes the words that the launch before it wrote in the other
// set, inside the kernel. The scratch remembers how many words that was.
// One call at a time: two scans in flight (two streams, two threads) need two ScanWorkspace objects.
class ScanWorkspace {
public:
    static constexpr std::size_t smallest_tile = 64;
    static constexpr std::size_t smallest_single_pass_tile = 32 * scan_items_per_thread;

    explicit ScanWorkspace(std::size_t max_n);

    std::size_t max_n() const { return max_n_; }
    unsigned* block_sums() { return block_sums_.data(); }

    // The statuses of the next scan_single_pass launch: `current` is all zero; the launch zeroes
    // next[0, next_dirty), after which both sets are ready for the launch after it.
    struct SinglePassStatus {
        unsigned long long* current;
        unsigned long long* next;
        std::size_t next_dirty;
    };
    SinglePassStatus single_pass_status()
    {
        return {status_[parity_].data(), status_[1 - parity_].data(), dirty_[1 - parity_]};
    }
    // Call once the launch of `tiles` tiles with single_pass_status() is enqueued: it wrote `current`'s first
    // tiles + 2 words (the ticket, the statuses, the gave-up flag) and zeroed all of `next` that was dirty.
    void single_pass_launched(std::size_t tiles)
    {
        dirty_[1 - parity_] = 0;
        dirty_[parity_] = tiles + 2;
        parity_ = 1 - parity_;
    }

    // 0, or (waiting tile << 32) | awaited tile of the first look-back wait that gave up (scan_single_pass).
    unsigned long long* look_back_timeout() { return look_back_timeout_.data(); }

    // scan_single_pass fails fast instead of hanging: a look-back that waits more than a second for a tile
    // that never publishes gives up, and the kernel ends with a wrong result and this record. Call check()
    // after synchronizing the scan's stream: it throws std::runtime_error("<caller>: tile k waited on tile j
    // for more than 1 s ...") if a launch since the last check() gave up, and clears the record. It reads 8
    // bytes with cudaMemcpy (the legacy default stream).
    void check(const std::string& caller);

    // Block sums that all levels of a recursive scan of n items in tiles of `tile` items need: level 1 has
    // ceil(n / tile) sums, level 2 the sums of those, ... until one tile holds a whole level.
    static std::size_t block_sum_slots(std::size_t n, std::size_t tile)
    {
        std::size_t slots = 0;
        while (n > tile) {
            n = course::ceil_div(n, tile);
            slots += n;
        }
        return slots;
    }

private:
    std::size_t max_n_;
    course::DeviceBuffer<unsigned> block_sums_;
    course::DeviceBuffer<unsigned long long> status_[2];
    std::size_t dirty_[2] = {0, 0};  // words of each status set that a launch wrote since it was last zeroed
    int parity_ = 0;                 // the set the next single-pass launch uses
    course::DeviceBuffer<unsigned long long> look_back_timeout_;
};

// Largest n the single-block kernels accept (one block, no recursion).
inline std::size_t hillis_steele_max_n(int block) { return block > 0 ? static_cast<std::size_t>(block) : 0; }
inline std::size_t blelloch_max_n(int block) { return block > 0 ? 2 * static_cast<std::size_t>(block) : 0; }

// Task 07.1: one block, one item per thread, n <= block. Hillis-Steele: log2(block) steps, O(n log n) adds,
// double-buffered shared memory.
void scan_hillis_steele(const int* d_in, int* d_out, ScanKind kind, std::size_t n, int block,
                        cudaStream_t stream = 0);

// Task 07.2: one block, two items per thread, n <= 2 * block. Blelloch: up-sweep, clear, down-sweep, O(n)
// adds, shared-memory indices padded against bank conflicts.
void scan_blelloch(const int* d_in, int* d_out, ScanKind kind, std::size_t n, int block, cudaStream_t stream = 0);

// Task 07.3: any n. The tutorial's recursive block-sums scheme with Blelloch tiles of 2 * block items (its
// tiles were Hillis-Steele): scan the tiles and record each tile's total, scan the totals recursively, add them
// back. Reads and writes the data twice (4n element moves).
void scan_multiblock(const int* d_in, int* d_out, ScanKind kind, std::size_t n, int block, ScanWorkspace& scratch,
                     cudaStream_t stream = 0);

// Task 07.4: any n. Block scans built from __shfl_up_sync warp scans, 32 items per thread, inside a
// reduce-then-scan recursion: sum each tile, scan the sums recursively, then scan each tile starting from its
// offset. Reads the data twice and writes it once (3n element moves).
void scan_warp_shuffle(const int* d_in, int* d_out, ScanKind kind, std::size_t n, int block, ScanWorkspace& scratch,
                       cudaStream_t stream = 0);

// Task 07.5: any n, one kernel: decoupled look-back (Merrill & Garland 2016). Reads and writes once (2n).
// After synchronizing, scratch.check() reports a look-back that gave up waiting.
void scan_single_pass(const int* d_in, int* d_out, ScanKind kind, std::size_t n, int block, ScanWorkspace& scratch,
                      cudaStream_t stream = 0);
// The same kernel for float (float additions: the result depends on the order, see float_scan_tolerance).
void scan_single_pass(const float* d_in, float* d_out, ScanKind kind, std::size_t n, int block,
                      ScanWorkspace& scratch, cudaStream_t stream = 0);

// Error bound for element i of a float scan, derived in docs/07_scan.md: with n_i = number of inputs summed into it
// (i + 1 inclusive, i exclusive) and abs_prefix = |in[0]| + ... of those inputs, any order of float additions
// gives |got - exact| <= ((1 + u)^(n_i - 1) - 1) * abs_prefix <= expm1(n_i * u) * abs_prefix, u = 2^-24.
// The factor 2 is headroom for the double reference's own rounding; for small n_i this is n_i * FLT_EPSILON *
// abs_prefix.
inline double float_scan_tolerance(std::size_t n_i, double abs_prefix)
{
    const double u = 1.0 / 16777216.0;
    return 2.0 * std::expm1(static_cast<double>(n_i) * u) * abs_prefix;
}

// For the checks of Task 07.5: decoupled_look_back<unsigned> on statuses the check writes itself. One warp runs
// it once as tile `tile` (0 < tile < statuses.size()) with `aggregate`, on a device copy of `statuses` (one
// TileStatus word per tile). With late_tile < tile, a second block waits until the look-back has published
// something for `tile`, then about 20 us more, and then writes late_word into the late tile's status: an X
// that turns into A while the look-back polls it. Synchronous.
struct LookBackProbe {
    unsigned prefix[32];                  // what each lane returned (all must be the same)
    unsigned long long published;         // tile's status word afterwards
    bool late_writer_saw_aggregate;       // with a late tile: the tile published A before it waited
    unsigned long long timeout_record;    // as ScanWorkspace::look_back_timeout(): 0 unless a wait gave up
};
LookBackProbe probe_decoupled_look_back(const std::vector<unsigned long long>& statuses, std::size_t tile,
                                        unsigned aggregate, std::size_t late_tile = static_cast<std::size_t>(-1),
                                        unsigned long long late_word = 0);
