// Chapter 07: your file. It holds the kernels and device functions of the chapter's scans, and
// multiblock_levels (07.3's recursion on the host); scan_given.cuh (given, do not edit) has the helpers they
// build on, and scan_launch.cu (given) checks the arguments, sizes the grids and launches your kernels. Fill in
// the TODOs in order: TODO(07.1) hillis_steele_kernel; TODO(07.2) conflict_free, blelloch_exclusive_scan,
// blelloch_tiles_kernel; TODO(07.3) add_tile_offsets_kernel, multiblock_levels; TODO(07.4) warp_inclusive_scan,
// block_scan_items, scan_tiles_kernel; TODO(07.5) decoupled_look_back.
// `meson test -C build --suite 07_scan --no-suite large --no-suite lesson --print-errorlogs` checks each one
// (TODO(07.3) builds on your 07.2 kernel, TODO(07.5) on your 07.4 block scan). Read 07_scan/README.md first.
#include "scan_given.cuh"

namespace scan_detail {

// ----------------------------------------------------------------------------------------- 07.1 Hillis-Steele
// Step `offset` adds element i - offset to element i. Every thread reads a neighbour's value while that
// neighbour writes its own, so one array read and written in the same step would race; two buffers (read one,
// write the other, swap) need just one barrier per step.
__global__ void hillis_steele_kernel(const unsigned* in, unsigned* out, unsigned n, ScanKind kind)
{
    extern __shared__ unsigned buffers[];  // 2 * blockDim.x
    // TODO(07.1): the Hillis-Steele scan of one block (README, Task 07.1, with a hint). It must hold:
    //   - launch: one block of blockDim.x threads (a power of two in [32, 1024]), n <= blockDim.x, `buffers`
    //     holding 2 * blockDim.x words; thread i owns element i; threads i >= n take part in every step too;
    //   - result: out[i], for every i < n, is element i of the `kind` scan of in[0 .. n), modulo 2^32; nothing
    //     at or past n is read from `in` or written to `out`;
    //   - log2(blockDim.x) steps, each reading one half of `buffers` and writing the other, with one
    //     __syncthreads() per step that every thread reaches (none inside `if (i < n)`): racecheck and
    //     synccheck must find nothing.
    (void)buffers;
    (void)in;
    (void)out;
    (void)n;
    (void)kind;
}

// ---------------------------------------------------------------------------------------------- 07.2 Blelloch
// Shared-memory index of tile element i: one unused word after every 32, so that the tree's strided accesses
// (2, 4, 8, ... words apart) spread over all 32 banks instead of piling onto a few (README, Task 07.2).
__device__ __forceinline__ unsigned conflict_free(unsigned i)
{
    return i;  // TODO(07.2): return i + i / 32. The scan is right either way; docs/07_scan.md counts the conflicts.
}

// Over Hillis-Steele: n - 1 adds up and n - 1 down instead of n log n, and two items per thread (n <= 2 * block).
// Scans the 2 * blockDim.x values in `tile` (stored at conflict_free indices) in place into their exclusive
// scan and returns the tile's total to every thread. All threads must call it.
__device__ unsigned blelloch_exclusive_scan(unsigned* tile)
{
    // TODO(07.2): Blelloch's scan (README, Task 07.2; a step-by-step hint is there). It must hold:
    //   - all blockDim.x threads call it on count = 2 * blockDim.x values, element i at tile[conflict_free(i)];
    //   - afterwards element i holds the sum of elements 0 .. i-1 (element 0 holds 0), and every thread returns
    //     the sum of all count values;
    //   - the work-efficient tree: count - 1 additions up (the reduction) and count - 1 down, level by level,
    //     with a __syncthreads() between levels that every thread reaches (only the work inside a level may
    //     depend on the thread); no thread clears the root before every thread has read the total.
    (void)tile;
    return 0;
}

// Scans tile blockIdx.x (2 * blockDim.x items, zeros past n). With tile_totals, also records the tile's total
// for scan_multiblock. `in` may equal `out` (scan_multiblock scans its sums in place): every thread reads its
// items before the first barrier and writes them after the last.
__global__ void blelloch_tiles_kernel(const unsigned* in, unsigned* out, std::size_t n, unsigned* tile_totals,
                                      ScanKind kind)
{
    extern __shared__ unsigned tile[];  // blelloch_shared_bytes(blockDim.x)
    // TODO(07.2): the scan of one tile (README, Task 07.2). It must hold:
    //   - tile b is items [b * 2 * blockDim.x, (b + 1) * 2 * blockDim.x) of `in`, its start a size_t; thread t
    //     owns items t and t + blockDim.x of the tile; items at or past n count as 0 and are neither read nor
    //     written;
    //   - out gets the tile's `kind` scan, computed by blelloch_exclusive_scan (inclusive: the exclusive value
    //     plus the item's own input; add, never subtract);
    //   - tile_totals != nullptr: tile_totals[blockIdx.x] = the tile's total, also for a short last tile.
    (void)tile;
    (void)in;
    (void)out;
    (void)n;
    (void)tile_totals;
    (void)kind;
}

// --------------------------------------------------------------------------------------------- 07.3 multi-block
// Adds tile b's offset (the exclusive scan of the tile totals) to every item of tile b. Each thread reads the
// offset itself: the tutorial staged it in shared memory behind a __syncthreads() inside
// `if (bid > 0 && tid < len)`, a barrier that the threads past the end never reach.
__global__ void add_tile_offsets_kernel(unsigned* out, std::size_t n, const unsigned* tile_offsets)
{
    // TODO(07.3): add tile_offsets[blockIdx.x] to those of the 2 * blockDim.x items of tile blockIdx.x that
    // are < n (a loop: each thread handles two items). Indices are size_t: the large check scans 2^31 + 2^16 + 7
    // items.
    (void)out;
    (void)n;
    (void)tile_offsets;
}

// Over one block: any n. One recursion level: scan the tiles, scan their totals (in place, one level down in
// `sums`), add back. The last tile may be partial (zeros fill it), so n need not be a multiple of anything.
void multiblock_levels(const unsigned* in, unsigned* out, ScanKind kind, std::size_t n, int block, unsigned* sums,
                       cudaStream_t stream)
{
    const std::size_t tiles = course::ceil_div(n, 2 * static_cast<std::size_t>(block));
    const std::size_t shared = blelloch_shared_bytes(block);
    if (tiles == 1) {  // the recursion ends: one block scans everything
        blelloch_tiles_kernel<<<1, block, shared, stream>>>(in, out, n, nullptr, kind);
        CUDA_CHECK_LAUNCH();
        return;
    }
    // TODO(07.3): more than one tile. Afterwards out[0 .. n) must hold the scan of `kind` of in[0 .. n):
    //   - every tile scanned by blelloch_tiles_kernel (grid: one block per tile), its total in sums[tile];
    //   - the totals turned into their EXCLUSIVE scan, in place, by this same function one level down, with the
    //     scratch after them (sums + tiles) for its own totals;
    //   - tile b's offset sums[b] added to its items by add_tile_offsets_kernel.
    //   Every launch on `stream`, each followed by CUDA_CHECK_LAUNCH(). No cudaMalloc: ScanWorkspace already holds
    //   every level (the tutorial allocated and freed on each level).
    (void)sums;
}

// -------------------------------------------------------------------------------------------- 07.4 warp shuffle
// Hillis-Steele inside a warp: registers instead of shared memory and no barrier (the shuffle itself exchanges
// the values of the 32 lanes named by the mask).
template <class T>
__device__ __forceinline__ T warp_inclusive_scan(T x)
{
    // TODO(07.4): the inclusive scan of x over the 32 lanes (README, Task 07.4). It must hold:
    //   - all 32 lanes of the warp call it together; lane l returns x(lane 0) + ... + x(lane l);
    //   - Hillis-Steele over the lanes with __shfl_up_sync and the mask full_warp: every lane executes every
    //     shuffle (the mask promises it), only the addition may depend on the lane; add, never subtract.
    return x;
}

// Block-wide scan of a tile held in registers as load_items() left it. Afterwards items[r][k] is the
// inclusive scan within the thread's run of 4 items, and run_prefix[r] the sum of every tile item before that
// run. Returns the tile total to all threads. Two barriers: every thread of the block must call it.
template <class T>
__device__ T block_scan_items(T (&items)[rounds][4], T (&run_prefix)[rounds], BlockScanStorage<T>& storage)
{
    // TODO(07.4): the block-wide scan (README, Task 07.4; a step-by-step hint is there). It must hold:
    //   - every thread of the block (blockDim.x a power of two in [32, 1024]) calls it with the `rounds` runs of
    //     4 consecutive tile items that load_items gave it (the layout: first_item in scan_given.cuh);
    //   - afterwards items[r][k] = items[r][0] + ... + items[r][k], run_prefix[r] = the sum of every tile item
    //     before run r (in tile order), and every thread returns the tile's total;
    //   - built from warp scans (warp_inclusive_scan), the per-warp totals in `storage`, with at most two
    //     __syncthreads(), both reached by every thread;
    //   - add, never subtract, and let every partial sum cover a contiguous range of items: the float variant
    //     (07.5) relies on both.
    (void)items;
    (void)storage;
#pragma unroll
    for (int r = 0; r < rounds; ++r) run_prefix[r] = T(0);
    return T(0);
}

// Over 07.3: two barriers per tile instead of 2 log2(2 * block), 32 items per thread in 16-byte accesses, and
// reduce-then-scan (3n element moves instead of 4n). Pass 2 scans tile blockIdx.x starting from its offset (the
// exclusive scan of the tile sums; none for one tile). `in` may equal `out`: each item is read and written by
// the same thread.
__global__ void __launch_bounds__(1024) scan_tiles_kernel(const unsigned* in, unsigned* out, std::size_t n,
                                                          const unsigned* tile_offsets, ScanKind kind, bool vector_io)
{
    // TODO(07.4): pass 2 of reduce-then-scan (README, Task 07.4). It must hold:
    //   - tile b is the blockDim.x * scan_items_per_thread items from b * blockDim.x * scan_items_per_thread,
    //     computed as a size_t (past 2^31 items a 32-bit product wraps);
    //   - out gets the tile's `kind` scan plus the tile's offset: tile_offsets[blockIdx.x], or 0 when
    //     tile_offsets is null (one tile);
    //   - the tile goes through the given load_items<Access::cached> and store_items<Access::cached> (they fix
    //     the layout block_scan_items expects, fill past n with 0, write nothing at or past n, and use 16-byte
    //     accesses only where vector_io allows) and block_scan_items (one __shared__ BlockScanStorage<unsigned>).
    (void)in;
    (void)out;
    (void)n;
    (void)tile_offsets;
    (void)kind;
    (void)vector_io;
}

// ------------------------------------------------------------------------------------------- 07.5 single pass
// Called by all 32 lanes of warp 0 of the block that scans tile `tile`, with the tile's total (aggregate); returns
// the sum of all earlier tiles to every lane. status.words[t] is tile t's status word (TileStatus, scan.hpp: X, A
// or P with the value), X for every tile when the kernel starts.
template <class T>
__device__ T decoupled_look_back(TileStatusArray status, std::size_t tile, T aggregate)
{
    // TODO(07.5): the decoupled look-back (README, Task 07.5; a step-by-step hint is there). It must hold:
    //   - publishing: this tile's A (its aggregate) goes out at once - it depends on nothing, and later tiles
    //     may be waiting for it - and its P (earlier tiles + aggregate) as soon as the prefix is known; tile 0
    //     publishes P at once and returns 0. Each status is one whole 64-bit word in status.words[tile], written
    //     by one lane with store_status (README, Task 07.5: "Memory ordering").
    //   - the prefix: the nearest P before this tile plus the A's of every tile between it and this one, each
    //     tile counted once; a tile before tile 0 counts as P with value 0.
    //   - reading: 32 predecessors at a time, only through read_window (given: every lane passes the tile it
    //     reads; it waits while a lane sees X, with a bound), after one __nanosleep(status.first_wait_ns)
    //     once A is out (why: docs/07_scan.md, "Waiting: when to look").
    //   - the warp works together: every lane executes every *_sync call (full mask) the same number of times.
    //   - add, never subtract, and let every partial sum cover a contiguous range of tiles (the float checks
    //     rely on both); unsigned sums wrap modulo 2^32.
    //   Checked by TODO(07.5) scan_single_pass (int and float, every block, any n, misaligned pointers) and by the
    //   look-back's own checks on prepared statuses. Until this is filled in every tile starts from 0, so only
    //   n <= one tile comes out right.
    (void)status;
    (void)tile;
    (void)aggregate;
    return T(0);
}

}  // namespace scan_detail
