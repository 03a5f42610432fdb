// Chapter 06: the launchers - argument checks, zeroing the bins, grid sizes, launches and launch checks. One copy
// for both variants: the kernels (and histogram_cpu, Task 06.1) come from histogram_student.cuh in the
// directory that -Dvariant picks, starter/ (yours) or solution/ (the reference).
#include "histogram.hpp"

#include "course/check.hpp"
#include "course/launch.hpp"

#include "histogram_student.cuh"

namespace {

// What every launcher checks first; it throws std::invalid_argument naming the launcher.
void check_arguments(const char* launcher, const std::uint8_t* d_in, const unsigned* d_bins, std::size_t n, int block)
{
    course::check_block(launcher, block);
    course::check_pointer(launcher, "d_in", d_in, n > 0);
    course::check_pointer(launcher, "d_bins", d_bins);
    check_histogram_n(launcher, n);
}

void zero_bins(unsigned* d_bins, cudaStream_t stream)
{
    CUDA_CHECK(cudaMemsetAsync(d_bins, 0, histogram_bins * sizeof(unsigned), stream));
}

// The tutorial's grid: twice as many blocks as SMs, whatever the kernel, the block size and n.
unsigned seed_grid()
{
    int device = 0, sms = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    return 2u * static_cast<unsigned>(sms);
}

}  // namespace

void histogram_global_atomics(const std::uint8_t* d_in, unsigned* d_bins, std::size_t n, int block,
                              cudaStream_t stream)
{
    check_arguments("histogram_global_atomics", d_in, d_bins, n, block);
    zero_bins(d_bins, stream);
    if (n == 0) return;
    global_atomics_kernel<<<seed_grid(), block, 0, stream>>>(d_in, d_bins, n);
    CUDA_CHECK_LAUNCH();
}

void histogram_shared_atomics(const std::uint8_t* d_in, unsigned* d_bins, std::size_t n, int block,
                              cudaStream_t stream)
{
    check_arguments("histogram_shared_atomics", d_in, d_bins, n, block);
    zero_bins(d_bins, stream);
    if (n == 0) return;
    shared_atomics_kernel<<<seed_grid(), block, 0, stream>>>(d_in, d_bins, n);
    CUDA_CHECK_LAUNCH();
}

// Tasks 06.4 and 06.5: one byte (06.4) or kVectorsPerIteration x 16 bytes (06.5) per thread and iteration,
// but no more blocks than fit on the GPU at once: every block then lives for the whole kernel, and its 32 KiB
// of sub-histograms are zeroed and merged once.
void histogram_sub_histograms(const std::uint8_t* d_in, unsigned* d_bins, std::size_t n, int block,
                              cudaStream_t stream)
{
    const char* name = "histogram_sub_histograms";
    check_arguments(name, d_in, d_bins, n, block);
    zero_bins(d_bins, stream);
    if (n == 0) return;
    const unsigned grid = course::grid_stride_grid(name, sub_histograms_kernel, n, block, 1);
    sub_histograms_kernel<<<grid, block, 0, stream>>>(d_in, d_bins, n);
    CUDA_CHECK_LAUNCH();
}

void histogram_vectorized(const std::uint8_t* d_in, unsigned* d_bins, std::size_t n, int block, cudaStream_t stream)
{
    const char* name = "histogram_vectorized";
    check_arguments(name, d_in, d_bins, n, block);
    zero_bins(d_bins, stream);
    if (n == 0) return;
    // One 16-byte vector per thread is enough to start a block (not kVectorsPerIteration of them): at small n the
    // bytes then spread over 4x as many SMs, each with a quarter of the shared-memory atomics (at 64 KiB and
    // block 1024 a single block took all 64 KiB: 0.996x CUB, H100, 2026-11-22). Large n: resident blocks.
    const unsigned grid = course::grid_stride_grid(name, vectorized_kernel, n, block, course::vector_bytes);
    vectorized_kernel<<<grid, block, 0, stream>>>(d_in, d_bins, n);
    CUDA_CHECK_LAUNCH();
}
