// Chapter 07, given (nothing to do here): single_pass_kernel, which calls your block_scan_items and
// decoupled_look_back. Included by the kernels headers right after decoupled_look_back.
#pragma once

#include "scan.hpp"

#include <cuda/atomic>

#include <cstddef>

namespace scan_detail {

// Over 07.4: one kernel, each item read once and written once (2n, streaming accesses). Tile ids come from an
// atomic counter in the order blocks start (not blockIdx.x, which the hardware may schedule in any order): a block
// only ever waits for tiles whose blocks have already started, so every tile it waits for will publish.
template <class T>
__global__ void __launch_bounds__(1024) single_pass_kernel(const T* in, T* out, std::size_t n,
                                                           unsigned long long* tile_status, ScanKind kind,
                                                           bool vector_io)
{
    __shared__ BlockScanStorage<T> storage;
    __shared__ unsigned long long ticket;
    if (threadIdx.x == 0) ticket = atomicAdd(&tile_status[0], 1ull);
    __syncthreads();
    const std::size_t tile = ticket;
    const std::size_t tile_start = tile * blockDim.x * scan_items_per_thread;

    T items[rounds][4];
    T run_prefix[rounds];
    load_items<Access::streaming>(in, n, tile_start, vector_io, items);
    const T aggregate = block_scan_items(items, run_prefix, storage);
    if (threadIdx.x < 32) {
        const T prefix = decoupled_look_back(tile_status + 1, tile, aggregate);
        if (threadIdx.x == 0) storage.tile_prefix = prefix;
    }
    __syncthreads();
    store_items<Access::streaming>(out, n, tile_start, vector_io, items, run_prefix, storage.tile_prefix, kind);
}

}  // namespace scan_detail
