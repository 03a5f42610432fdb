// Chapter 06: the launchers - argument checks, zeroing the bins, grid sizes, launches and launch checks. One copy
// for both variants: the kernels (and histogram_cpu, task 06.1) come from histogram_kernels.cuh in the directory
// that -Dvariant picks, starter/ (yours) or solution/ (the reference).
#include "histogram.hpp"

#include "course/check.hpp"

#include <atomic>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "histogram_kernels.cuh"

namespace {

// ------------------------------------------------------------------------------------------- launcher helpers
void validate(const char* name, const std::uint8_t* d_in, std::size_t n, const unsigned* d_bins, int block)
{
    const std::string fn = name;
    if (block < 32 || block > 1024 || (block & (block - 1)) != 0)
        throw std::invalid_argument(fn + ": block must be a power of two in [32, 1024], got " + std::to_string(block));
    if (n > histogram_max_n)
        throw std::invalid_argument(fn + ": n = " + std::to_string(n) +
                                    " bytes could overflow a 32-bit bin (at most 2^32 - 1 bytes)");
    if (d_bins == nullptr || (n > 0 && d_in == nullptr)) throw std::invalid_argument(fn + ": null device pointer");
}

void zero_bins(unsigned* d_bins) { CUDA_CHECK(cudaMemsetAsync(d_bins, 0, kBins * sizeof(unsigned))); }

int sm_count()
{
    int device = 0, sms = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    return sms;
}

// The seed's grid: twice as many blocks as SMs, whatever the kernel and the block size.
int seed_grid() { return 2 * sm_count(); }

// As many blocks as the whole GPU holds at once (SMs x resident blocks per SM, from the occupancy API), but no
// more than there is work for. Cached per kernel and block size: the answer only affects speed, never results.
template <auto kernel>
int full_gpu_grid(int block, std::size_t useful_blocks)
{
    static std::atomic<int> cached[11];  // index log2(block): 5..10
    std::atomic<int>& slot = cached[__builtin_ctz(static_cast<unsigned>(block))];
    int resident = slot.load(std::memory_order_relaxed);
    if (resident == 0) {
        int per_sm = 0;
        CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, block, 0));
        resident = sm_count() * (per_sm > 0 ? per_sm : 1);
        slot.store(resident, std::memory_order_relaxed);
    }
    return static_cast<int>(useful_blocks < static_cast<std::size_t>(resident) ? useful_blocks : resident);
}

std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

}  // namespace

// ------------------------------------------------------------------------------------------------ launchers
void histogram_global_atomics(const std::uint8_t* d_in, std::size_t n, unsigned* d_bins, int block)
{
    validate("histogram_global_atomics", d_in, n, d_bins, block);
    zero_bins(d_bins);
    if (n == 0) return;
    global_atomics_kernel<<<seed_grid(), block>>>(d_in, n, d_bins);
    CUDA_CHECK_LAUNCH();
}

void histogram_shared_atomics(const std::uint8_t* d_in, std::size_t n, unsigned* d_bins, int block)
{
    validate("histogram_shared_atomics", d_in, n, d_bins, block);
    zero_bins(d_bins);
    if (n == 0) return;
    shared_atomics_kernel<<<seed_grid(), block>>>(d_in, n, d_bins);
    CUDA_CHECK_LAUNCH();
}

void histogram_sub_histograms(const std::uint8_t* d_in, std::size_t n, unsigned* d_bins, int block)
{
    validate("histogram_sub_histograms", d_in, n, d_bins, block);
    zero_bins(d_bins);
    if (n == 0) return;
    const int grid = full_gpu_grid<sub_histograms_kernel>(block, ceil_div(n, block));
    sub_histograms_kernel<<<grid, block>>>(d_in, n, d_bins);
    CUDA_CHECK_LAUNCH();
}

void histogram_vectorized(const std::uint8_t* d_in, std::size_t n, unsigned* d_bins, int block)
{
    validate("histogram_vectorized", d_in, n, d_bins, block);
    zero_bins(d_bins);
    if (n == 0) return;
    const std::size_t bytes_per_block_iteration = static_cast<std::size_t>(block) * 16 * kVectorsPerIteration;
    const int grid = full_gpu_grid<vectorized_kernel>(block, ceil_div(n, bytes_per_block_iteration));
    vectorized_kernel<<<grid, block>>>(d_in, n, d_bins);
    CUDA_CHECK_LAUNCH();
}
