// Chapter 07: your file. It holds the kernels and device functions of the chapter's scans, and
// multiblock_levels (07.3's recursion on the host); scan_given.cuh (given, do not edit) has the helpers they
// build on, and scan_launch.cu (given) checks the arguments, sizes the grids and launches your kernels. Fill in
// the TODOs in order: TODO(07.1) hillis_steele_kernel; TODO(07.2) conflict_free, blelloch_exclusive_scan,
// blelloch_tiles_kernel; TODO(07.3) add_tile_offsets_kernel, multiblock_levels; TODO(07.4) warp_inclusive_scan,
// block_scan_items, scan_tiles_kernel; TODO(07.5) decoupled_look_back. `meson test -C build --suite 07_scan`
// checks each one (TODO(07.3) builds on your 07.2 kernel, TODO(07.5) on your 07.4 block scan). Read
// 07_scan/README.md first.
#include "scan_given.cuh"

namespace scan_detail {

// ----------------------------------------------------------------------------------------- 07.1 Hillis-Steele
// Step `offset` adds element i - offset to element i. Every thread reads a neighbour's value while that
// neighbour writes its own, so one array read and written in the same step would race; two buffers (read one,
// write the other, swap) need just one barrier per step.
__global__ void hillis_steele_kernel(const unsigned* in, unsigned* out, unsigned n, ScanKind kind)
{
    extern __shared__ unsigned buffers[];  // 2 * blockDim.x
    // TODO(07.1): one item per thread (n <= blockDim.x; threads past n scan a 0).
    //   - load in[i] into buffers[0 .. blockDim.x); for an exclusive scan load in[i - 1] instead (0 for i = 0):
    //     the exclusive scan is the inclusive scan of the input shifted right by one;
    //   - for offset = 1, 2, 4, ... < blockDim.x: write[i] = read[i] + read[i - offset] (or read[i] when
    //     i < offset), one __syncthreads() per step, then swap the roles of the two halves of `buffers`;
    //   - store the result for i < n. Never put a __syncthreads() inside `if (i < n)`.
    (void)buffers;
    (void)in;
    (void)out;
    (void)n;
    (void)kind;
}

// ---------------------------------------------------------------------------------------------- 07.2 Blelloch
// Shared-memory index of tile element i: one unused word after every 32, so that the tree's strided accesses
// (2, 4, 8, ... words apart) spread over all 32 banks instead of piling onto a few (README: "Bank conflicts").
__device__ __forceinline__ unsigned conflict_free(unsigned i)
{
    return i;  // TODO(07.2): add the padding. Correct either way; the README counts the conflicts it saves.
}

// Over Hillis-Steele: n - 1 adds up and n - 1 down instead of n log n, and two items per thread (n <= 2 * block).
// Scans the 2 * blockDim.x values in `tile` (stored at conflict_free indices) in place into their exclusive
// scan and returns the tile's total to every thread. All threads must call it.
__device__ unsigned blelloch_exclusive_scan(unsigned* tile)
{
    // TODO(07.2): the README's drawing, every index i written as tile[conflict_free(i)]; count = 2 * blockDim.x.
    //   - up-sweep: offset = 1, 2, 4, ...; at each level the threads t < active (count/2, count/4, ..., 1) do
    //     tile[offset*(2t+2)-1] += tile[offset*(2t+1)-1], with a __syncthreads() before each level;
    //   - read the total at the root (count - 1), then thread 0 sets the root to 0 (barriers around it: every
    //     thread must have read the total before it is cleared);
    //   - down-sweep: the same pairs from the top level down: left <- right, right <- right + old left.
    //   Every thread runs every loop iteration (the barriers); only the `if (t < active)` work is divergent.
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
    // TODO(07.2): the tile starts at item blockIdx.x * 2 * blockDim.x (compute it as a size_t).
    //   - thread t loads items t and t + blockDim.x of the tile (0 past n) into tile[conflict_free(...)];
    //   - total = blelloch_exclusive_scan(tile);
    //   - store both items where the index is < n: exclusive as scanned, inclusive plus the item's input;
    //   - if tile_totals != nullptr, thread 0 writes the total to tile_totals[blockIdx.x].
    (void)tile;
    (void)in;
    (void)out;
    (void)n;
    (void)tile_totals;
    (void)kind;
}

// --------------------------------------------------------------------------------------------- 07.3 multi-block
// Adds tile b's offset (the exclusive scan of the tile totals) to every item of tile b. Each thread reads the
// offset itself: the seed staged it in shared memory behind a __syncthreads() inside `if (tid < len)`, a
// barrier that the threads past the end never reach.
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
    //   Every launch on `stream`, each followed by CUDA_CHECK_LAUNCH(). No cudaMalloc: ScanScratch already holds
    //   every level (the seed allocated and freed on each level).
    (void)sums;
}

// -------------------------------------------------------------------------------------------- 07.4 warp shuffle
// Kogge-Stone inside a warp: registers instead of shared memory and no barrier (the shuffle itself exchanges
// the values of the 32 lanes named by the mask). Lanes below d keep their value.
template <class T>
__device__ __forceinline__ T warp_inclusive_scan(T x)
{
    // TODO(07.4): 5 steps, d = 1, 2, 4, 8, 16: y = __shfl_up_sync(full_warp, x, d); lanes >= d add y.
    //   All 32 lanes must execute every shuffle (the mask promises it); only the add may be conditional.
    return x;
}

// Block-wide scan of a tile held in registers as load_items() left it. Afterwards items[r][k] is the
// inclusive scan within the thread's run of 4 items, and run_prefix[r] the sum of every tile item before that
// run. Returns the tile total to all threads. Two barriers: every thread of the block must call it.
template <class T>
__device__ T block_scan_items(T (&items)[rounds][4], T (&run_prefix)[rounds], BlockScanStorage<T>& storage)
{
    // TODO(07.4): three levels, innermost first (README: "A block scan from warp scans").
    //   1. per round r: scan the thread's 4 items in place (items[r][k] += items[r][k-1]); warp-scan the run
    //      totals items[r][3]; run_prefix[r] = (the warp's items of earlier rounds) + the exclusive value from
    //      exclusive_from_inclusive(); add the round's warp total (lane 31's inclusive value, __shfl_sync) to
    //      the warp's running total;
    //   2. lane 0 writes the warp total to storage.warp_totals[warp]; __syncthreads(); warp 0 scans the
    //      blockDim.x / 32 warp totals (0 in the lanes past them), writes each warp's exclusive prefix back and
    //      the tile total to storage.tile_total; __syncthreads();
    //   3. add the warp's prefix to every run_prefix[r]; return storage.tile_total.
    //   Add, never subtract: the float variant (07.5) relies on it.
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
    // TODO(07.4): tile blockIdx.x holds the blockDim.x * scan_items_per_thread items from
    //   tile_start = blockIdx.x * blockDim.x * scan_items_per_thread, a size_t: past 2^31 items a 32-bit product
    //   wraps. Load them with load_items<Access::cached>, scan them with block_scan_items (its storage: one
    //   __shared__ BlockScanStorage<unsigned>), and store them with store_items<Access::cached>, starting from
    //   the tile's offset: tile_offsets[blockIdx.x], or 0 when tile_offsets is null (one tile).
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
    // TODO(07.5): the decoupled look-back (README: "Single pass: decoupled look-back"; hints there). It must hold:
    //   - publishing: this tile's A (its aggregate) goes out at once - it depends on nothing, and later tiles
    //     may be waiting for it - and its P (earlier tiles + aggregate) as soon as the prefix is known; tile 0
    //     publishes P at once and returns 0. Each status is one whole 64-bit word in status.words[tile], written
    //     by one lane with store_status (README: "Memory ordering").
    //   - the prefix: the nearest P before this tile plus the A's of every tile between it and this one, each
    //     tile counted once; a tile before tile 0 counts as P with value 0.
    //   - reading: 32 predecessors at a time, only through read_window (given: every lane passes the tile it
    //     reads; it waits while a lane sees X, with a bound), after one __nanosleep(status.first_wait_ns)
    //     once A is out (README: "Waiting: when to look").
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
