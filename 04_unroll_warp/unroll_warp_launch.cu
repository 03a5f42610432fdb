// Chapter 04 launchers, one copy for both variants: argument checks, grid sizes, the memsets, the template
// dispatch and CUDA_CHECK_LAUNCH after every launch. The kernels they launch come from
// unroll_warp_kernels.cuh: starter/ (yours) or solution/, whichever -Dvariant puts on the include path.
#include "unroll_warp.hpp"

#include "reduce_support.cuh"
#include "unroll_warp_kernels.cuh"

#include <type_traits>

using namespace unroll_warp;

namespace {

// ---------------------------------------------------------------------------------------------- launchers

using Kernel = void(const int*, std::size_t, long long*);

// The shared-memory kernels of 04.1 and 04.2: one thread per `unroll` elements, one 64-bit shared value per
// thread, one atomicAdd per block into *d_total, which is zeroed first.
void launch_shared_tree(const char* name, Kernel* kernel, int unroll, const int* d_in, std::size_t n,
                        long long* d_total, int block)
{
    check_arguments(name, d_in, n, d_total, block);
    CUDA_CHECK(cudaMemsetAsync(d_total, 0, sizeof(long long)));
    if (n == 0) return;
    const unsigned grid = blocks_needed(name, n, static_cast<std::size_t>(block) * unroll);
    kernel<<<grid, block, block * sizeof(long long)>>>(d_in, n, d_total);
    CUDA_CHECK_LAUNCH();
}

// Grid-stride kernels: enough blocks to give every thread `per_thread` elements, at most one full GPU.
template <class K>
unsigned grid_stride_blocks(K* kernel, const char* name, std::size_t n, int block, std::size_t per_thread)
{
    const unsigned wanted = blocks_needed(name, n, static_cast<std::size_t>(block) * per_thread);
    const unsigned resident = resident_blocks(kernel, block);
    return wanted < resident ? wanted : resident;
}

// Calls launch(std::integral_constant<int, B>) for the run-time block size B (already checked to be a
// power of two in [32, 1024]), so `launch` can instantiate a kernel template with it.
template <class Launch>
void dispatch_block(int block, Launch launch)
{
    switch (block) {
    case 32: launch(std::integral_constant<int, 32>{}); break;
    case 64: launch(std::integral_constant<int, 64>{}); break;
    case 128: launch(std::integral_constant<int, 128>{}); break;
    case 256: launch(std::integral_constant<int, 256>{}); break;
    case 512: launch(std::integral_constant<int, 512>{}); break;
    default: launch(std::integral_constant<int, 1024>{}); break;
    }
    CUDA_CHECK_LAUNCH();
}

// The warp-level kernels of 04.5 add one total per block into *d_total, zeroed first.
template <class WarpSum>
void launch_warp(const char* name, const int* d_in, std::size_t n, long long* d_total, int block)
{
    check_arguments(name, d_in, n, d_total, block);
    CUDA_CHECK(cudaMemsetAsync(d_total, 0, sizeof(long long)));
    if (n == 0) return;
    const auto kernel = reduce_warp_kernel<WarpSum>;
    kernel<<<grid_stride_blocks(kernel, name, n, block, 4), block>>>(d_in, n, d_total);
    CUDA_CHECK_LAUNCH();
}

// No memset: the last block writes *d_total. n = 0 still launches one block, which publishes 0.
template <class T, class Acc>
void launch_vectorized(const char* name, const T* d_in, std::size_t n, Acc* d_total, int block)
{
    check_arguments(name, d_in, n, d_total, block);
    const auto kernel = reduce_vectorized_kernel<T, Acc>;
    const std::size_t per_thread = 4 * 16 / sizeof(T);  // one loop iteration: four 16-byte vectors
    const unsigned grid = n == 0 ? 1 : grid_stride_blocks(kernel, name, n, block, per_thread);
    kernel<<<grid, block>>>(d_in, n, d_total);
    CUDA_CHECK_LAUNCH();
}

}  // namespace

void reduce_unrolling2(const int* d_in, std::size_t n, long long* d_total, int block)
{
    launch_shared_tree("reduce_unrolling2", reduce_unrolling_kernel<2>, 2, d_in, n, d_total, block);
}
void reduce_unrolling4(const int* d_in, std::size_t n, long long* d_total, int block)
{
    launch_shared_tree("reduce_unrolling4", reduce_unrolling_kernel<4>, 4, d_in, n, d_total, block);
}
void reduce_unrolling8(const int* d_in, std::size_t n, long long* d_total, int block)
{
    launch_shared_tree("reduce_unrolling8", reduce_unrolling_kernel<8>, 8, d_in, n, d_total, block);
}

void reduce_unroll_warp_syncwarp(const int* d_in, std::size_t n, long long* d_total, int block)
{
    launch_shared_tree("reduce_unroll_warp_syncwarp", reduce_unroll_warp_syncwarp_kernel, 8, d_in, n, d_total, block);
}

void reduce_complete_unroll(const int* d_in, std::size_t n, long long* d_total, int block)
{
    const char* name = "reduce_complete_unroll";
    check_arguments(name, d_in, n, d_total, block);
    CUDA_CHECK(cudaMemsetAsync(d_total, 0, sizeof(long long)));
    if (n == 0) return;
    const unsigned grid = blocks_needed(name, n, static_cast<std::size_t>(block) * 8);
    dispatch_block(block, [&](auto block_size) {
        constexpr int B = decltype(block_size)::value;
        reduce_complete_unroll_kernel<B><<<grid, B>>>(d_in, n, d_total);
    });
}

void reduce_grid_stride(const int* d_in, std::size_t n, long long* d_total, int block)
{
    const char* name = "reduce_grid_stride";
    check_arguments(name, d_in, n, d_total, block);
    CUDA_CHECK(cudaMemsetAsync(d_total, 0, sizeof(long long)));
    if (n == 0) return;
    dispatch_block(block, [&](auto block_size) {
        constexpr int B = decltype(block_size)::value;
        const auto kernel = reduce_grid_stride_kernel<B>;
        kernel<<<grid_stride_blocks(kernel, name, n, B, 4), B>>>(d_in, n, d_total);
    });
}

void reduce_shfl(const int* d_in, std::size_t n, long long* d_total, int block)
{
    launch_warp<ShflWarpSum>("reduce_shfl", d_in, n, d_total, block);
}
void reduce_cg(const int* d_in, std::size_t n, long long* d_total, int block)
{
    launch_warp<CgWarpSum>("reduce_cg", d_in, n, d_total, block);
}
void reduce_redux(const int* d_in, std::size_t n, long long* d_total, int block)
{
    launch_warp<ReduxWarpSum>("reduce_redux", d_in, n, d_total, block);
}

void reduce_vectorized(const int* d_in, std::size_t n, long long* d_total, int block)
{
    launch_vectorized("reduce_vectorized", d_in, n, d_total, block);
}
void reduce_vectorized_float(const float* d_in, std::size_t n, double* d_total, int block)
{
    launch_vectorized("reduce_vectorized_float", d_in, n, d_total, block);
}
void reduce_vectorized_float(const float* d_in, std::size_t n, float* d_total, int block)
{
    launch_vectorized("reduce_vectorized_float", d_in, n, d_total, block);
}
void reduce_vectorized_bytes(const std::uint8_t* d_in, std::size_t n, long long* d_total, int block)
{
    launch_vectorized("reduce_vectorized_bytes", d_in, n, d_total, block);
}
