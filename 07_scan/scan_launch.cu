// Chapter 07 launchers, shared by both variants: the argument checks, the grid sizes, the launches, and the
// given kernels that call the student's device functions (reduce_tiles_kernel, single_pass_kernel and the
// look-back probe of the checks). The student's kernels come from <variant>/scan_student.cuh (starter/ is
// yours, solution/ the reference); meson.build puts the -Dvariant folder on the include path. One banner per
// version: its given kernels and host helpers, then its launcher.
#include "scan.hpp"

#include "scan_student.cuh"

#include "course/check.hpp"
#include "course/launch.hpp"
#include "course/vector_access.cuh"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace scan_detail {

// 16-byte vector access needs both arrays to start on a 16-byte boundary (tiles are whole vectors from there).
bool vector_io(const void* in, const void* out)
{
    return reinterpret_cast<std::uintptr_t>(in) % course::vector_bytes == 0 &&
           reinterpret_cast<std::uintptr_t>(out) % course::vector_bytes == 0;
}

// What every launcher checks first: the block size, n against the kernel's limit, the pointers.
void check_arguments(const char* launcher, const void* in, const void* out, std::size_t n, int block,
                     std::size_t limit, const char* why)
{
    course::check_block(launcher, block);
    if (n > limit)
        throw std::invalid_argument(std::string(launcher) + ": n = " + std::to_string(n) + " is larger than " +
                                    std::to_string(limit) + " (" + why + ")");
    course::check_pointer(launcher, "d_in", in, n > 0);
    course::check_pointer(launcher, "d_out", out, n > 0);
}

const unsigned* as_unsigned(const int* p) { return reinterpret_cast<const unsigned*>(p); }
unsigned* as_unsigned(int* p) { return reinterpret_cast<unsigned*>(p); }

}  // namespace scan_detail

using namespace scan_detail;

// ======================================================================================================= ScanWorkspace
ScanWorkspace::ScanWorkspace(std::size_t max_n)
    : max_n_(max_n),
      block_sums_(block_sum_slots(max_n, smallest_tile)),
      status_{course::DeviceBuffer<unsigned long long>(2 + course::ceil_div(max_n, smallest_single_pass_tile)),
              course::DeviceBuffer<unsigned long long>(2 + course::ceil_div(max_n, smallest_single_pass_tile))},
      look_back_timeout_(1)
{
    status_[0].fill_bytes(0);
    status_[1].fill_bytes(0);
    CUDA_CHECK(cudaMemset(look_back_timeout_.data(), 0, sizeof(unsigned long long)));
}

void ScanWorkspace::check(const std::string& caller)
{
    unsigned long long record = 0;
    CUDA_CHECK(cudaMemcpy(&record, look_back_timeout_.data(), sizeof record, cudaMemcpyDeviceToHost));
    if (record == 0) return;
    CUDA_CHECK(cudaMemset(look_back_timeout_.data(), 0, sizeof record));
    throw std::runtime_error(caller + ": tile " + std::to_string(record >> 32) + " waited on tile " +
                             std::to_string(record & 0xffffffffull) + " for more than " +
                             std::to_string(look_back_timeout_ns / 1000000000ull) +
                             " s (did every tile publish? Task 07.5, decoupled_look_back: a tile publishes A at "
                             "once and P when its prefix is known, in its own status word)");
}

// ============================================================================================= 07.1 scan_hillis_steele
// One block, one item per thread; the kernel is yours (hillis_steele_kernel).
void scan_hillis_steele(const int* d_in, int* d_out, ScanKind kind, std::size_t n, int block, cudaStream_t stream)
{
    check_arguments("scan_hillis_steele", d_in, d_out, n, block, hillis_steele_max_n(block),
                    "one block, one item per thread");
    if (n == 0) return;
    const std::size_t shared = 2 * static_cast<std::size_t>(block) * sizeof(unsigned);
    hillis_steele_kernel<<<1, block, shared, stream>>>(as_unsigned(d_in), as_unsigned(d_out), static_cast<unsigned>(n),
                                                       kind);
    CUDA_CHECK_LAUNCH();
}

// ================================================================================================== 07.2 scan_blelloch
// Over 07.1: one block, two items per thread, up-sweep and down-sweep (blelloch_tiles_kernel, yours).
void scan_blelloch(const int* d_in, int* d_out, ScanKind kind, std::size_t n, int block, cudaStream_t stream)
{
    check_arguments("scan_blelloch", d_in, d_out, n, block, blelloch_max_n(block), "one block, two items per thread");
    if (n == 0) return;
    blelloch_tiles_kernel<<<1, block, blelloch_shared_bytes(block), stream>>>(as_unsigned(d_in), as_unsigned(d_out), n,
                                                                              nullptr, kind);
    CUDA_CHECK_LAUNCH();
}

// ================================================================================================ 07.3 scan_multiblock
// Over 07.2: any n - Blelloch tiles, their totals scanned recursively and added back; the recursion over
// tile levels is yours (multiblock_levels, in scan_student.cuh).
void scan_multiblock(const int* d_in, int* d_out, ScanKind kind, std::size_t n, int block, ScanWorkspace& scratch,
                     cudaStream_t stream)
{
    check_arguments("scan_multiblock", d_in, d_out, n, block, scratch.max_n(), "the ScanWorkspace was sized for less");
    if (n == 0) return;
    course::grid_for("scan_multiblock", n, 2 * static_cast<std::size_t>(block));  // throws past 2^31 - 1 tiles
    multiblock_levels(as_unsigned(d_in), as_unsigned(d_out), kind, n, block, scratch.block_sums(), stream);
}

// ============================================================================================== 07.4 scan_warp_shuffle
// Over 07.3: reduce-then-scan - each level sums its tiles, scans the sums, then scans each tile from its offset
// with warp-shuffle block scans (scan_tiles_kernel, yours), 32 items per thread in 16-byte accesses (3n moves).
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

// Task 07.4's recursion: sum the tiles, scan the sums (exclusive, in place, one level down in `sums`), then
// scan each tile from its offset.
void warp_shuffle_levels(const unsigned* in, unsigned* out, ScanKind kind, std::size_t n, int block, unsigned* sums,
                         cudaStream_t stream)
{
    const std::size_t tile_items = static_cast<std::size_t>(block) * scan_items_per_thread;
    const unsigned tiles = course::grid_for("scan_warp_shuffle", n, tile_items);
    const bool vectors = vector_io(in, out);
    if (tiles == 1) {
        scan_tiles_kernel<<<1, block, 0, stream>>>(in, out, n, nullptr, kind, vectors);
        CUDA_CHECK_LAUNCH();
        return;
    }
    reduce_tiles_kernel<<<tiles, block, 0, stream>>>(in, n, sums, vector_io(in, in));
    CUDA_CHECK_LAUNCH();
    warp_shuffle_levels(sums, sums, ScanKind::exclusive, tiles, block, sums + tiles, stream);
    scan_tiles_kernel<<<tiles, block, 0, stream>>>(in, out, n, sums, kind, vectors);
    CUDA_CHECK_LAUNCH();
}

}  // namespace scan_detail

void scan_warp_shuffle(const int* d_in, int* d_out, ScanKind kind, std::size_t n, int block, ScanWorkspace& scratch,
                       cudaStream_t stream)
{
    check_arguments("scan_warp_shuffle", d_in, d_out, n, block, scratch.max_n(),
                    "the ScanWorkspace was sized for less");
    if (n == 0) return;
    warp_shuffle_levels(as_unsigned(d_in), as_unsigned(d_out), kind, n, block, scratch.block_sums(), stream);
}

// =============================================================================================== 07.5 scan_single_pass
namespace scan_detail {

// Over 07.4: one kernel, each item read once and written once (2n, streaming accesses). Tile ids come from an
// atomic counter in the order blocks start (not blockIdx.x, which the hardware may schedule in any order): a block
// only ever waits for tiles whose blocks have already started, so every tile it waits for will publish.
// status.current[0] is the ticket counter, status.current[1 + t] tile t's status word and status.current[1 + tiles]
// the launch's gave-up flag, all zero at the start; the blocks also zero the words of status.next that the
// previous launch wrote (ScanWorkspace: no memset launch).
template <class T>
__global__ void __launch_bounds__(1024) single_pass_kernel(const T* in, T* out, std::size_t n,
                                                           ScanWorkspace::SinglePassStatus status,
                                                           unsigned long long* look_back_timeout,
                                                           unsigned first_wait_ns, unsigned prefetch_ahead,
                                                           ScanKind kind, bool vector_io)
{
    __shared__ BlockScanStorage<T> storage;
    __shared__ unsigned long long ticket;
    if (threadIdx.x == 0) ticket = atomicAdd(&status.current[0], 1ull);
    const std::size_t threads = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < status.next_dirty;
         i += threads)
        status.next[i] = 0;
    __syncthreads();
    const std::size_t tile = ticket;
    const std::size_t tile_start = tile * blockDim.x * scan_items_per_thread;
    // Two prefetches into L2, both ahead in ticket order (docs/07_scan.md, "Prefetching"). The status
    // words were zeroed long ago (an L2 miss each); tiles publish in about ticket order, so fetching the line 32
    // tiles ahead puts every look-back's words in L2 before it reads them. And while this block waits in its
    // look-back, its registers are full and it loads nothing: so each thread asks for one 128-byte line of the
    // tile `prefetch_ahead` tickets ahead (0: none), and that tile's loads find L2 instead of waiting on DRAM.
    constexpr std::size_t status_ahead = 32;
    if (threadIdx.x == 0 && tile + status_ahead < gridDim.x)
        asm volatile("prefetch.global.L2 [%0];" ::"l"(status.current + 1 + tile + status_ahead));
    static_assert(scan_items_per_thread * sizeof(T) == 128, "a tile is blockDim.x lines of 128 bytes");
    const std::size_t line = (tile + prefetch_ahead) * blockDim.x * scan_items_per_thread +
                             threadIdx.x * scan_items_per_thread;
    if (prefetch_ahead != 0 && line < n) asm volatile("prefetch.global.L2 [%0];" ::"l"(in + line));

    T items[rounds][4];
    T run_prefix[rounds];
    load_items<Access::streaming>(in, n, tile_start, vector_io, items);
    const T aggregate = block_scan_items(items, run_prefix, storage);
    if (threadIdx.x < 32) {
        const T prefix =
            decoupled_look_back(TileStatusArray{status.current + 1, look_back_timeout, status.current + 1 + gridDim.x,
                                                first_wait_ns},
                                tile, aggregate);
        if (threadIdx.x == 0) storage.tile_prefix = prefix;
    }
    __syncthreads();
    store_items<Access::streaming>(out, n, tile_start, vector_io, items, run_prefix, storage.tile_prefix, kind);
}

// How far ahead of its own tile a block prefetches input into L2: about a DRAM latency's worth of tiles at copy
// speed. At 2^28, block 256, on the H100: 1, 2 and 4 MiB ahead gave 100.0-100.5% of the copy bandwidth against
// 95.0% with none; 8 MiB gave 92.2% (docs/07_scan.md, "Prefetching: keep the memory busy").
constexpr std::size_t input_prefetch_bytes = std::size_t(2) << 20;

template <class T>
void single_pass(const char* launcher, const T* in, T* out, ScanKind kind, std::size_t n, int block,
                 ScanWorkspace& scratch, cudaStream_t stream)
{
    check_arguments(launcher, in, out, n, block, scratch.max_n(), "the ScanWorkspace was sized for less");
    if (n == 0) return;
    const std::size_t tile_items = static_cast<std::size_t>(block) * scan_items_per_thread;
    const unsigned tiles = course::grid_for(launcher, n, tile_items);
    // When the whole grid fits on the GPU at once, every tile starts together: a first wait only adds latency
    // (from 2^14 to 2^20 items a variant of this kernel ran 1.02-1.15x faster without it), and there is no
    // later tile to prefetch for. Otherwise the blocks prefetch input_prefetch_bytes ahead.
    const bool one_wave = tiles <= course::resident_blocks(single_pass_kernel<T>, block);
    const unsigned first_wait_ns = one_wave ? 0u : look_back_first_wait_ns;
    const std::size_t tiles_ahead = std::max<std::size_t>(1, input_prefetch_bytes / (tile_items * sizeof(T)));
    const unsigned prefetch_ahead = one_wave ? 0u : static_cast<unsigned>(tiles_ahead);
    // The scratch's bookkeeping must follow the GPU: an error left pending by earlier work is reported before the
    // launch (nothing runs, nothing changes), and after it an error is this launch's (it never ran); only a
    // launch that happened advances the bookkeeping.
    CUDA_CHECK_LAUNCH();
    single_pass_kernel<T><<<tiles, block, 0, stream>>>(in, out, n, scratch.single_pass_status(),
                                                       scratch.look_back_timeout(), first_wait_ns, prefetch_ahead,
                                                       kind, vector_io(in, out));
    CUDA_CHECK_LAUNCH();
    scratch.single_pass_launched(tiles);
}

// The look-back on statuses written by the checks (probe_decoupled_look_back). Block 0 (one warp) is tile
// `tile`; block 1, when late_tile >= 0, waits (at most 0.2 s) until tile `tile` has published something,
// records whether that was its A, waits 20 us more and turns the late tile's X into late_word.
__global__ void look_back_probe_kernel(TileStatusArray status, std::size_t tile, unsigned aggregate,
                                       long long late_tile, unsigned long long late_word, unsigned* prefixes,
                                       int* saw_aggregate)
{
    if (blockIdx.x == 0) {
        prefixes[threadIdx.x] = decoupled_look_back(status, tile, aggregate);
        return;
    }
    if (late_tile < 0 || threadIdx.x != 0) return;
    const unsigned long long start = global_time_ns();
    unsigned long long word = load_status(&status.words[tile]);
    while (TileStatus::flag(word) == TileStatus::invalid && global_time_ns() - start < 200000000ull) {
        __nanosleep(1000);
        word = load_status(&status.words[tile]);
    }
    *saw_aggregate = TileStatus::flag(word) == TileStatus::aggregate;
    const unsigned long long seen = global_time_ns();
    while (global_time_ns() - seen < 20000) __nanosleep(1000);
    store_status(&status.words[late_tile], late_word);
}

}  // namespace scan_detail

void scan_single_pass(const int* d_in, int* d_out, ScanKind kind, std::size_t n, int block, ScanWorkspace& scratch,
                      cudaStream_t stream)
{
    single_pass("scan_single_pass", as_unsigned(d_in), as_unsigned(d_out), kind, n, block, scratch, stream);
}

void scan_single_pass(const float* d_in, float* d_out, ScanKind kind, std::size_t n, int block, ScanWorkspace& scratch,
                      cudaStream_t stream)
{
    single_pass("scan_single_pass<float>", d_in, d_out, kind, n, block, scratch, stream);
}

// The checks of Task 07.5: decoupled_look_back (yours) alone, on tile statuses the checks write.
LookBackProbe probe_decoupled_look_back(const std::vector<unsigned long long>& statuses, std::size_t tile,
                                        unsigned aggregate, std::size_t late_tile, unsigned long long late_word)
{
    if (tile == 0 || tile >= statuses.size())
        throw std::invalid_argument("probe_decoupled_look_back: tile must be in [1, statuses.size())");
    // 32 spare words after the statuses: a look-back that publishes past its own word writes there.
    course::DeviceBuffer<unsigned long long> words(statuses.size() + 32), timeout(1), gave_up(1);
    course::DeviceBuffer<unsigned> prefixes(32);
    course::DeviceBuffer<int> saw_aggregate(1);
    words.fill_bytes(0);
    words.copy_from_host(statuses);
    timeout.fill_bytes(0);
    gave_up.fill_bytes(0);
    prefixes.fill_bytes(0xAB);
    saw_aggregate.fill_bytes(0);
    const long long late = late_tile < tile ? static_cast<long long>(late_tile) : -1;
    const TileStatusArray status{words.data(), timeout.data(), gave_up.data(), look_back_first_wait_ns};
    look_back_probe_kernel<<<2, 32>>>(status, tile, aggregate, late, late_word, prefixes.data(),
                                      saw_aggregate.data());
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaDeviceSynchronize());
    LookBackProbe probe{};
    prefixes.copy_to_host(probe.prefix, 32);
    CUDA_CHECK(cudaMemcpy(&probe.published, words.data() + tile, sizeof probe.published, cudaMemcpyDeviceToHost));
    probe.late_writer_saw_aggregate = saw_aggregate.to_host()[0] != 0;
    timeout.copy_to_host(&probe.timeout_record, 1);
    return probe;
}
