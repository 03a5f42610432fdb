// Chapter 06: your file. It holds only what you write: histogram_cpu (TODO(06.1), plain host code) and the
// kernels with their device helpers (TODO(06.2) .. TODO(06.5)). ../histogram_launch.cu (argument checks, zeroing
// the bins, grid sizes, launches, launch checks) is done and calls them. Fill in the TODOs in order;
// `meson test -C build --suite 06_atomic_histogram` checks each one. Read 06_atomic_histogram/README.md first.
// (histogram_launch.cu is the one file that includes this header, so histogram_cpu is defined here.)
#pragma once

#include "histogram.hpp"

#include <cstdint>
#include <stdexcept>
#include <string>

namespace {

constexpr int kBins = 256;
constexpr int kLanes = 32;               // sub-histograms per block in 06.4 and 06.5: one per lane of a warp
constexpr int kVectorsPerIteration = 4;  // 16-byte loads each thread keeps in flight in 06.5

// ------------------------------------------------------------------------------------------------- kernels
// __launch_bounds__(1024): every kernel accepts 1024-thread blocks, so the compiler must fit 64 registers.

// 06.2, the seed's first GPU version: one global atomicAdd per byte.
__global__ void __launch_bounds__(1024) global_atomics_kernel(const std::uint8_t* in, std::size_t n, unsigned* bins)
{
    // TODO(06.2): a grid-stride loop over in[0, n): atomicAdd(&bins[in[i]], 1u). Index with std::size_t and
    // compute the first index as static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x: the seed's
    // int index overflows past 2^31 bytes.
    (void)in;
    (void)n;
    (void)bins;
}

// 06.3, the seed's privatized version: 256 bins per block in shared memory, added to the global bins once.
__global__ void __launch_bounds__(1024) shared_atomics_kernel(const std::uint8_t* in, std::size_t n, unsigned* bins)
{
    // TODO(06.3): __shared__ unsigned block_bins[kBins];
    //   1. zero all 256 shared bins. The seed wrote temp[threadIdx.x] = 0, right only for exactly 256 threads:
    //      with 128 threads half the bins keep garbage, with 512 it writes past the array. Loop instead.
    //   2. __syncthreads(), then the grid-stride loop of 06.2 with atomicAdd on block_bins instead of bins;
    //   3. __syncthreads(), then add each shared bin to its global bin with one atomicAdd (again a loop).
    // Every thread must reach both __syncthreads(): no early return.
    (void)in;
    (void)n;
    (void)bins;
}

// 32 sub-histograms per block, one per lane, stored transposed: counter (bin, lane) is sub[bin * kLanes + lane],
// so its shared-memory bank is `lane` and a warp's 32 updates never share a bank. `column` = sub + lane.
__device__ __forceinline__ void zero_sub_histograms(unsigned* sub)
{
    // TODO(06.4): set all kBins * kLanes counters to 0, the block's threads sharing the work.
    (void)sub;
}

[[maybe_unused]] __device__ __forceinline__ void count_byte(unsigned* column, unsigned byte)
{
    // TODO(06.4): add 1 to this lane's counter of `byte`. Atomically: lane L of every warp shares column L.
    (void)column;
    (void)byte;
}

__device__ __forceinline__ void merge_sub_histograms(const unsigned* sub, unsigned* bins)
{
    // TODO(06.4): thread t sums the 32 counters of bin t (and t + blockDim.x, ... while < kBins) and adds the sum
    // to bins[bin] with one global atomicAdd, skipped when it is 0. Read the 32 counters in the order
    // lane = (bin + k) % kLanes, k = 0..31: in the order lane = k, the 32 threads of a warp would all read bank k
    // at the same time (a 32-way bank conflict).
    (void)sub;
    (void)bins;
}

// 06.4: one sub-histogram per lane (no bank conflicts), grid from the occupancy API (see the launcher).
__global__ void __launch_bounds__(1024) sub_histograms_kernel(const std::uint8_t* in, std::size_t n, unsigned* bins)
{
    __shared__ unsigned sub[kBins * kLanes];  // 32 KiB
    zero_sub_histograms(sub);
    __syncthreads();
    // TODO(06.4): unsigned* column = sub + threadIdx.x % kLanes (this lane's sub-histogram), then the 64-bit
    // grid-stride loop over in[0, n), counting each byte with count_byte(column, in[i]).
    (void)in;
    (void)n;
    __syncthreads();
    merge_sub_histograms(sub, bins);
}

// 16 bytes from one load: v.x holds bytes 0..3 (byte 0 in the lowest 8 bits), v.y bytes 4..7, and so on.
[[maybe_unused]] __device__ __forceinline__ void count_vector(unsigned* column, uint4 v)
{
    // TODO(06.5): count the 16 bytes with count_byte. If all 16 are equal (v.x == v.y == v.z == v.w and the four
    // bytes of v.x are equal: compare v.x with __byte_perm(v.x, 0, 0x0000)), one atomicAdd of 16 does it.
    (void)column;
    (void)v;
}

// 06.5: 06.4 with each thread keeping kVectorsPerIteration independent 16-byte loads in flight.
__global__ void __launch_bounds__(1024) vectorized_kernel(const std::uint8_t* in, std::size_t n, unsigned* bins)
{
    __shared__ unsigned sub[kBins * kLanes];
    zero_sub_histograms(sub);
    __syncthreads();
    // TODO(06.5): column = this lane's sub-histogram, as in 06.4. `in` may start at any address, but a uint4
    // load needs a 16-byte aligned one. Split the input:
    //     [head: min(n, bytes up to the first 16-byte boundary)][body: whole uint4s][tail: fewer than 16 bytes]
    //   - head and tail: the first threads of the grid count one byte each with count_byte;
    //   - body: a grid-stride loop over uint4 indices v; per iteration a thread first loads
    //     kVectorsPerIteration vectors (v, v + threads, v + 2 * threads, ... with __ldg) and only then counts
    //     them with count_vector, so the loads are in flight together; a second loop takes the last vectors.
    //   All indices in std::size_t. Check n = 15, 17, 4097 and start pointers + 1 .. + 15 on paper.
    (void)in;
    (void)n;
    __syncthreads();
    merge_sub_histograms(sub, bins);
}

}  // namespace

// ----------------------------------------------------------------------------------------------------- 06.1
void histogram_cpu(const std::uint8_t* data, std::size_t n, unsigned* bins)
{
    if (n > histogram_max_n)
        throw std::invalid_argument("histogram_cpu: n = " + std::to_string(n) + " could overflow a 32-bit bin");
    // TODO(06.1): set the 256 bins to 0, then count every byte: ++bins[data[i]].
    (void)data;
    (void)bins;
}
