// Chapter 07, the reference solution of the student's file (starter/scan_student.cuh): the same functions,
// filled in. scan_launch.cu checks the arguments, sizes the grids and launches them.
#include "scan_given.cuh"

namespace scan_detail {

// ----------------------------------------------------------------------------------------- 07.1 Hillis-Steele
// Step `offset` adds element i - offset to element i. Every thread reads a neighbour's value while that
// neighbour writes its own, so one array read and written in the same step would race; two buffers (read one,
// write the other, swap) need just one barrier per step.
__global__ void hillis_steele_kernel(const unsigned* in, unsigned* out, unsigned n, ScanKind kind)
{
    extern __shared__ unsigned buffers[];  // 2 * blockDim.x
    unsigned* read = buffers;
    unsigned* write = buffers + blockDim.x;
    const unsigned i = threadIdx.x;

    // Exclusive = inclusive scan of the input shifted right by one place, with 0 entering on the left.
    unsigned value = 0;
    if (kind == ScanKind::inclusive) {
        if (i < n) value = in[i];
    } else if (i > 0 && i <= n) {
        value = in[i - 1];
    }
    read[i] = value;
    __syncthreads();

    for (unsigned offset = 1; offset < blockDim.x; offset *= 2) {
        write[i] = i >= offset ? read[i] + read[i - offset] : read[i];
        __syncthreads();  // every thread, every step: no thread may read `write` before all have written it
        unsigned* swap = read;
        read = write;
        write = swap;
    }
    if (i < n) out[i] = read[i];
}

// ---------------------------------------------------------------------------------------------- 07.2 Blelloch
// Shared-memory index of tile element i: one unused word after every 32, so that the tree's strided accesses
// (2, 4, 8, ... words apart) spread over all 32 banks instead of piling onto a few (README, Task 07.2).
__device__ __forceinline__ unsigned conflict_free(unsigned i) { return i + (i >> 5); }

// Over Hillis-Steele: n - 1 adds up and n - 1 down instead of n log n, and two items per thread (n <= 2 * block).
// Scans the 2 * blockDim.x values in `tile` (stored at conflict_free indices) in place into their exclusive
// scan and returns the tile's total to every thread. All threads must call it.
__device__ unsigned blelloch_exclusive_scan(unsigned* tile)
{
    const unsigned count = 2 * blockDim.x;
    const unsigned t = threadIdx.x;

    // Up-sweep (reduce): after the level with `offset`, element offset*(2t+2)-1 holds the sum of its 2*offset
    // predecessors-including-itself.
    unsigned offset = 1;
    for (unsigned active = blockDim.x; active > 0; active /= 2) {
        __syncthreads();
        if (t < active) {
            const unsigned left = conflict_free(offset * (2 * t + 1) - 1);
            const unsigned right = conflict_free(offset * (2 * t + 2) - 1);
            tile[right] += tile[left];
        }
        offset *= 2;
    }

    // Clear: the root holds the total; an exclusive scan starts from 0.
    const unsigned root = conflict_free(count - 1);
    __syncthreads();
    const unsigned total = tile[root];
    __syncthreads();  // everyone has read the total before it is overwritten
    if (t == 0) tile[root] = 0;

    // Down-sweep: each node passes its value to its left child and value + left child's old sum to its right.
    for (unsigned active = 1; active < count; active *= 2) {
        offset /= 2;
        __syncthreads();
        if (t < active) {
            const unsigned left = conflict_free(offset * (2 * t + 1) - 1);
            const unsigned right = conflict_free(offset * (2 * t + 2) - 1);
            const unsigned left_sum = tile[left];
            tile[left] = tile[right];
            tile[right] += left_sum;
        }
    }
    __syncthreads();
    return total;
}

// Scans tile blockIdx.x (2 * blockDim.x items, zeros past n). With tile_totals, also records the tile's total
// for scan_multiblock. `in` may equal `out` (scan_multiblock scans its sums in place): every thread reads its
// items before the first barrier and writes them after the last.
__global__ void blelloch_tiles_kernel(const unsigned* in, unsigned* out, std::size_t n, unsigned* tile_totals,
                                      ScanKind kind)
{
    extern __shared__ unsigned tile[];  // blelloch_shared_bytes(blockDim.x)
    const std::size_t tile_start = static_cast<std::size_t>(blockIdx.x) * 2 * blockDim.x;
    // Thread t owns items t and t + blockDim.x: consecutive threads touch consecutive words (no conflicts).
    const unsigned a = threadIdx.x;
    const unsigned b = threadIdx.x + blockDim.x;
    const unsigned in_a = tile_start + a < n ? in[tile_start + a] : 0;
    const unsigned in_b = tile_start + b < n ? in[tile_start + b] : 0;
    tile[conflict_free(a)] = in_a;
    tile[conflict_free(b)] = in_b;

    const unsigned total = blelloch_exclusive_scan(tile);

    const bool inclusive = kind == ScanKind::inclusive;
    if (tile_start + a < n) out[tile_start + a] = tile[conflict_free(a)] + (inclusive ? in_a : 0);
    if (tile_start + b < n) out[tile_start + b] = tile[conflict_free(b)] + (inclusive ? in_b : 0);
    if (tile_totals != nullptr && threadIdx.x == 0) tile_totals[blockIdx.x] = total;
}

// --------------------------------------------------------------------------------------------- 07.3 multi-block
// Adds tile b's offset (the exclusive scan of the tile totals) to every item of tile b. Each thread reads the
// offset itself: the tutorial staged it in shared memory behind a __syncthreads() inside
// `if (bid > 0 && tid < len)`, a barrier that the threads past the end never reach.
__global__ void add_tile_offsets_kernel(unsigned* out, std::size_t n, const unsigned* tile_offsets)
{
    const std::size_t tile_start = static_cast<std::size_t>(blockIdx.x) * 2 * blockDim.x;
    const unsigned offset = tile_offsets[blockIdx.x];
    for (unsigned k = threadIdx.x; k < 2 * blockDim.x; k += blockDim.x)
        if (tile_start + k < n) out[tile_start + k] += offset;
}

// Over one block: any n. One recursion level: scan the tiles, scan their totals (in place, one level down in
// `sums`), add back. The last tile may be partial (zeros fill it), so n need not be a multiple of anything.
void multiblock_levels(const unsigned* in, unsigned* out, ScanKind kind, std::size_t n, int block, unsigned* sums,
                       cudaStream_t stream)
{
    const std::size_t tiles = course::ceil_div(n, 2 * static_cast<std::size_t>(block));
    const std::size_t shared = blelloch_shared_bytes(block);
    if (tiles == 1) {
        blelloch_tiles_kernel<<<1, block, shared, stream>>>(in, out, n, nullptr, kind);
        CUDA_CHECK_LAUNCH();
        return;
    }
    const auto grid = static_cast<unsigned>(tiles);
    blelloch_tiles_kernel<<<grid, block, shared, stream>>>(in, out, n, sums, kind);
    CUDA_CHECK_LAUNCH();
    multiblock_levels(sums, sums, ScanKind::exclusive, tiles, block, sums + tiles, stream);
    add_tile_offsets_kernel<<<grid, block, 0, stream>>>(out, n, sums);
    CUDA_CHECK_LAUNCH();
}

// -------------------------------------------------------------------------------------------- 07.4 warp shuffle
// Hillis-Steele inside a warp: registers instead of shared memory and no barrier (the shuffle itself exchanges
// the values of the 32 lanes named by the mask). Lanes below d keep their value.
template <class T>
__device__ __forceinline__ T warp_inclusive_scan(T x)
{
    const unsigned lane = threadIdx.x & 31;
#pragma unroll
    for (unsigned d = 1; d < 32; d *= 2) {
        const T y = __shfl_up_sync(full_warp, x, d);
        if (lane >= d) x += y;
    }
    return x;
}

// Block-wide scan of a tile held in registers as load_items() left it. Afterwards items[r][k] is the
// inclusive scan within the thread's run of 4 items, and run_prefix[r] the sum of every tile item before that
// run. Returns the tile total to all threads. Two barriers: every thread of the block must call it.
template <class T>
__device__ T block_scan_items(T (&items)[rounds][4], T (&run_prefix)[rounds], BlockScanStorage<T>& storage)
{
    const unsigned lane = threadIdx.x & 31;
    const unsigned warp = threadIdx.x >> 5;
    T warp_running = T(0);  // the warp's items in earlier rounds
#pragma unroll
    for (int r = 0; r < rounds; ++r) {
        items[r][1] += items[r][0];
        items[r][2] += items[r][1];
        items[r][3] += items[r][2];
        const T run_inclusive = warp_inclusive_scan(items[r][3]);
        run_prefix[r] = warp_running + exclusive_from_inclusive(run_inclusive);
        warp_running += __shfl_sync(full_warp, run_inclusive, 31);
    }
    if (lane == 0) storage.warp_totals[warp] = warp_running;
    __syncthreads();
    if (warp == 0) {  // one warp scans the (at most 32) warp totals
        const T total = lane < (blockDim.x >> 5) ? storage.warp_totals[lane] : T(0);
        const T inclusive = warp_inclusive_scan(total);
        storage.warp_totals[lane] = exclusive_from_inclusive(inclusive);
        if (lane == 31) storage.tile_total = inclusive;
    }
    __syncthreads();
    const T warp_prefix = storage.warp_totals[warp];
#pragma unroll
    for (int r = 0; r < rounds; ++r) run_prefix[r] = warp_prefix + run_prefix[r];
    return storage.tile_total;
}

// Over 07.3: two barriers per tile instead of 2 log2(2 * block), 32 items per thread in 16-byte accesses, and
// reduce-then-scan (3n element moves instead of 4n). Pass 2 scans tile blockIdx.x starting from its offset (the
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
// Called by all 32 lanes of warp 0 with the tile's total; returns the sum of all earlier tiles to every lane.
// Publishes at once (A, or P for tile 0: neither depends on anything), waits, then looks back 32 predecessors
// at a time: lane l reads tile (newest - l) through read_window, which returns once no lane sees X. The
// nearest P ends the look-back (add the A's before it and that P); otherwise add all 32 A's and slide back.
template <class T>
__device__ T decoupled_look_back(TileStatusArray status, std::size_t tile, T aggregate)
{
    const unsigned lane = threadIdx.x & 31;
    const unsigned long long flag = tile == 0 ? TileStatus::prefix : TileStatus::aggregate;
    if (lane == 0) store_status(&status.words[tile], flag | to_bits(aggregate));
    if (tile == 0) return T(0);
    __nanosleep(status.first_wait_ns);

    T exclusive = T(0);
    long long newest = static_cast<long long>(tile) - 1;  // signed: newest - lane goes below tile 0
    while (true) {
        const unsigned long long word = read_window(status, tile, newest - static_cast<long long>(lane));
        const unsigned prefix_lanes = __ballot_sync(full_warp, TileStatus::flag(word) == TileStatus::prefix);
        const unsigned last_lane = prefix_lanes != 0 ? __ffs(static_cast<int>(prefix_lanes)) - 1 : 31;  // nearest P
        const T value = lane <= last_lane ? from_bits<T>(static_cast<unsigned>(word)) : T(0);
        exclusive += warp_sum(value);  // this window lies just before the part already summed
        if (prefix_lanes != 0) break;
        newest -= 32;
    }
    if (lane == 0) store_status(&status.words[tile], TileStatus::prefix | to_bits(exclusive + aggregate));
    return exclusive;
}

}  // namespace scan_detail
