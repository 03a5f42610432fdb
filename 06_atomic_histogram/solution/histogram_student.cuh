// Chapter 06 reference solution of the student's file: histogram_cpu and the kernels with their device helpers.
// ../histogram_launch.cu, the one file that includes it, launches them.
#include "histogram_given.cuh"

namespace {

// __launch_bounds__(1024): every kernel accepts 1024-thread blocks, so the compiler must fit 64 registers.

// 06.2, the tutorial's first GPU version: one global atomicAdd per byte. Correct, but 2^30 bytes land on only 256
// addresses, and the L2 applies the updates of one address one after another.
__global__ void __launch_bounds__(1024) global_atomics_kernel(const std::uint8_t* in, unsigned* bins, std::size_t n)
{
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
        atomicAdd(&bins[in[i]], 1u);
}

// 06.3, the tutorial's privatized version: each block counts into 256 bins in shared memory (fast atomics, contended
// only by its own threads) and adds them to the global bins once. Fixed: the tutorial zeroed and merged
// temp[threadIdx.x], which is right only for exactly 256 threads, and indexed with a 32-bit int.
__global__ void __launch_bounds__(1024) shared_atomics_kernel(const std::uint8_t* in, unsigned* bins, std::size_t n)
{
    __shared__ unsigned block_bins[kBins];
    for (int b = threadIdx.x; b < kBins; b += blockDim.x) block_bins[b] = 0;
    __syncthreads();
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
        atomicAdd(&block_bins[in[i]], 1u);
    __syncthreads();  // every thread's counts are in block_bins before any thread reads them
    for (int b = threadIdx.x; b < kBins; b += blockDim.x) atomicAdd(&bins[b], block_bins[b]);
}

// 32 sub-histograms per block, stored transposed: the counter of (bin, lane) is word bin * 32 + lane. Its bank
// is (bin * 32 + lane) % 32 = lane, so the 32 lanes of a warp update 32 different banks whatever their bytes -
// uniform, skewed or all equal. Lane L of every warp in the block shares column L, hence still atomics.
__device__ __forceinline__ void zero_sub_histograms(unsigned* sub)
{
    for (int i = threadIdx.x; i < kBins * kLanes; i += blockDim.x) sub[i] = 0;
}

__device__ __forceinline__ void count_byte(unsigned* column, unsigned byte) { atomicAdd(column + byte * kLanes, 1u); }

// Thread t sums row `bin` = t (t + blockDim, ...). Reading the row in the order lane = (bin + k) % 32 makes the 32
// threads of a warp (32 consecutive bins) read 32 different banks at every k; in the order k they would all
// read bank k at once. Bins that stayed 0 cost no global atomic.
__device__ __forceinline__ void merge_sub_histograms(const unsigned* sub, unsigned* bins)
{
    for (int bin = threadIdx.x; bin < kBins; bin += blockDim.x) {
        unsigned total = 0;
        for (int k = 0; k < kLanes; ++k) total += sub[bin * kLanes + ((bin + k) & (kLanes - 1))];
        if (total != 0) atomicAdd(&bins[bin], total);
    }
}

// 06.4: fixes the bank conflicts of 06.3 (random bytes put several lanes of a warp into one bank; all-equal bytes
// put all 32 onto one counter) with one sub-histogram per lane, and sizes the grid from the occupancy API instead
// of the tutorial's 2 x SMs, which left three quarters of an H100's thread slots empty.
__global__ void __launch_bounds__(1024) sub_histograms_kernel(const std::uint8_t* in, unsigned* bins, std::size_t n)
{
    __shared__ unsigned sub[kBins * kLanes];  // 32 KiB
    zero_sub_histograms(sub);
    __syncthreads();
    unsigned* column = sub + threadIdx.x % kLanes;
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
        count_byte(column, in[i]);
    __syncthreads();
    merge_sub_histograms(sub, bins);
}

// 16 bytes from one load. If all 16 are equal (long runs: all-identical data, flat image regions), one add of 16
// replaces 16 atomics; for other data the test costs a few integer instructions per 16 bytes.
__device__ __forceinline__ void count_vector(unsigned* column, uint4 v)
{
    const unsigned first_byte_x4 = __byte_perm(v.x, 0, 0x0000);
    if (v.x == first_byte_x4 && v.y == first_byte_x4 && v.z == first_byte_x4 && v.w == first_byte_x4) {
        atomicAdd(column + (v.x & 0xFFu) * kLanes, 16u);
        return;
    }
    const unsigned words[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
    for (int w = 0; w < 4; ++w)
#pragma unroll
        for (int k = 0; k < 4; ++k) count_byte(column, (words[w] >> (8 * k)) & 0xFFu);
}

// 06.5: fixes the memory side of 06.4. One byte per load gave each warp 32 bytes in flight - far too little to
// keep HBM busy. Now every thread has four independent 16-byte loads in flight. uint4 loads need 16-byte aligned
// addresses, and `in` may start anywhere, so the input is split (course::split_for_vectors):
//   in: [head: bytes up to the first 16-byte boundary][body: whole uint4s][tail: the last n - split.tail bytes]
// The head and the tail (at most 15 bytes each) are counted one byte at a time by the first threads of the grid.
__global__ void __launch_bounds__(1024) vectorized_kernel(const std::uint8_t* in, unsigned* bins, std::size_t n)
{
    __shared__ unsigned sub[kBins * kLanes];
    zero_sub_histograms(sub);
    __syncthreads();
    unsigned* column = sub + threadIdx.x % kLanes;
    const std::size_t thread = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    const std::size_t threads = static_cast<std::size_t>(gridDim.x) * blockDim.x;

    const course::VectorSplit split = course::split_for_vectors(in, n);
    const uint4* body = reinterpret_cast<const uint4*>(in + split.head);  // dereferenced only when vectors > 0
    if (thread < split.head) count_byte(column, in[thread]);
    if (thread < n - split.tail) count_byte(column, in[split.tail + thread]);

    std::size_t v = thread;
    for (; v + (kVectorsPerIteration - 1) * threads < split.vectors; v += kVectorsPerIteration * threads) {
        uint4 loaded[kVectorsPerIteration];
#pragma unroll
        for (int k = 0; k < kVectorsPerIteration; ++k) loaded[k] = __ldg(body + v + k * threads);
#pragma unroll
        for (int k = 0; k < kVectorsPerIteration; ++k) count_vector(column, loaded[k]);
    }
    for (; v < split.vectors; v += threads) count_vector(column, __ldg(body + v));
    __syncthreads();
    merge_sub_histograms(sub, bins);
}

}  // namespace

// ----------------------------------------------------------------------------------------------------- 06.1
void histogram_cpu(const std::uint8_t* data, unsigned* bins, std::size_t n)
{
    check_histogram_n("histogram_cpu", n);
    for (int b = 0; b < kBins; ++b) bins[b] = 0;
    for (std::size_t i = 0; i < n; ++i) ++bins[data[i]];
}
