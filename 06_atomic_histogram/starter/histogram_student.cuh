// Chapter 06: your file. It holds only what you write: histogram_cpu (TODO(06.1), plain host code) and the
// kernels with their device helpers (TODO(06.2) .. TODO(06.5)). ../histogram_given.cuh gives kBins, kLanes,
// kVectorsPerIteration and course::split_for_vectors; ../histogram_launch.cu (argument checks, zeroing the bins,
// grid sizes, launches, launch checks) is done and calls your kernels. Fill in the TODOs in order;
// `meson test -C build --suite 06_atomic_histogram --no-suite large --no-suite lesson --print-errorlogs` checks
// each one. Read 06_atomic_histogram/README.md first (its "Hints" sections say how, if you are stuck).
#include "histogram_given.cuh"

namespace {

// __launch_bounds__(1024): every kernel accepts 1024-thread blocks, so the compiler must fit 64 registers.

// 06.2, the tutorial's first GPU version: one global atomicAdd per byte.
__global__ void __launch_bounds__(1024) global_atomics_kernel(const std::uint8_t* in, unsigned* bins, std::size_t n)
{
    // TODO(06.2): add 1 to bins[in[i]] for every i in [0, n), whatever the grid (the launcher starts 2 x SMs
    // blocks: far fewer threads than bytes). Many threads update one bin at the same time and no count may be
    // lost. n goes past 2^31: every index must be 64-bit.
    (void)in;
    (void)bins;
    (void)n;
}

// 06.3, the tutorial's privatized version: 256 bins per block in shared memory, added to the global bins once.
__global__ void __launch_bounds__(1024) shared_atomics_kernel(const std::uint8_t* in, unsigned* bins, std::size_t n)
{
    // TODO(06.3): the result of 06.2, but each block counts its bytes into its own kBins counters in shared
    // memory, and only then adds each counter to its global bin (one global atomicAdd per bin per block). It must
    // be right for every block size from 32 to 1024 (the tutorial's kernel was right for 256 threads only), and free
    // of races: racecheck and synccheck run on it, and any hazard they report fails the task.
    (void)in;
    (void)bins;
    (void)n;
}

// 32 sub-histograms per block, one per lane, stored transposed: counter (bin, lane) is sub[bin * kLanes + lane],
// so its shared-memory bank is `lane` and a warp's 32 updates never share a bank. `column` = sub + lane.
__device__ __forceinline__ void zero_sub_histograms(unsigned* sub)
{
    // TODO(06.4): all kBins * kLanes counters are 0, the block's threads sharing the work (any block size).
    (void)sub;
}

[[maybe_unused]] __device__ __forceinline__ void count_byte(unsigned* column, unsigned byte)
{
    // TODO(06.4): this lane's counter of `byte` grows by 1. Lane L of every warp of the block shares column L.
    (void)column;
    (void)byte;
}

__device__ __forceinline__ void merge_sub_histograms(const unsigned* sub, unsigned* bins)
{
    // TODO(06.4): for every bin, the sum of its kLanes counters is added to bins[bin]: one global atomicAdd per
    // bin per block, none for a sum of 0, any block size. For speed (not checked): at every step the 32 threads
    // of a warp read 32 different banks, so no two lanes read different words of one bank (the README shows
    // the order that does it).
    (void)sub;
    (void)bins;
}

// 06.4: one sub-histogram per lane (no bank conflicts), grid from the occupancy API (see the launcher).
__global__ void __launch_bounds__(1024) sub_histograms_kernel(const std::uint8_t* in, unsigned* bins, std::size_t n)
{
    __shared__ unsigned sub[kBins * kLanes];  // 32 KiB
    zero_sub_histograms(sub);
    __syncthreads();
    // TODO(06.4): every byte of in[0, n) is counted once with count_byte, into the column of this thread's
    // lane, with 64-bit indices, whatever the grid.
    (void)in;
    (void)n;
    __syncthreads();
    merge_sub_histograms(sub, bins);
}

// 16 bytes from one load: v.x holds bytes 0..3 (byte 0 in the lowest 8 bits), v.y bytes 4..7, and so on.
[[maybe_unused]] __device__ __forceinline__ void count_vector(unsigned* column, uint4 v)
{
    // TODO(06.5): the 16 bytes of v are counted into `column`. When all 16 bytes are equal, one atomicAdd of 16
    // does it. All 16 means every byte: four equal words whose bytes differ (0x03020100 four times) are not a run.
    (void)column;
    (void)v;
}

// 06.5: 06.4 with each thread keeping kVectorsPerIteration independent 16-byte loads in flight.
__global__ void __launch_bounds__(1024) vectorized_kernel(const std::uint8_t* in, unsigned* bins, std::size_t n)
{
    __shared__ unsigned sub[kBins * kLanes];
    zero_sub_histograms(sub);
    __syncthreads();
    // TODO(06.5): the result of 06.4 for any start address of `in` and any n. The bytes from the first 16-byte
    // boundary on are read as uint4 vectors (a uint4 load needs a 16-byte aligned address) and counted with
    // count_vector; every thread first issues kVectorsPerIteration of its vector loads, then counts them. The
    // bytes before that boundary and after the last whole vector (course::split_for_vectors tells which) are
    // counted one by one with count_byte. Indices are 64-bit; nothing past in[n - 1] is read.
    (void)in;
    (void)n;
    __syncthreads();
    merge_sub_histograms(sub, bins);
}

}  // namespace

// ----------------------------------------------------------------------------------------------------- 06.1
void histogram_cpu(const std::uint8_t* data, unsigned* bins, std::size_t n)
{
    check_histogram_n("histogram_cpu", n);
    // TODO(06.1): bins[v] = how many of data[0, n) equal v, for every v in [0, kBins); whatever bins held before.
    (void)data;
    (void)bins;
}
