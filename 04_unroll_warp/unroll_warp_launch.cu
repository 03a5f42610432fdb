// Chapter 04 launchers, one copy for both variants: argument checks, grid sizes, the memsets, the template
// dispatch and CUDA_CHECK_LAUNCH after every launch, and the given kernels that combine the device functions
// of unroll_warp_student.cuh: starter/ (yours) or solution/, whichever -Dvariant puts on the include path.
#include "unroll_warp.hpp"

#include "unroll_warp_student.cuh"

#include "course/check.hpp"
#include "course/launch.hpp"

namespace {

// ------------------------------------------------------------------------------------------ given kernels

// Task 04.1: thread_sum_unrolled, then the chapter-03 tree and one atomic per block.
template <int Unroll>
__global__ void reduce_unrolling_kernel(const int* in, long long* total, std::size_t n)
{
    extern __shared__ long long partial[];  // blockDim.x values, 64-bit so no partial sum can overflow
    partial[threadIdx.x] = thread_sum_unrolled<Unroll>(in, n);
    __syncthreads();
    tree_sum(partial);
    if (threadIdx.x == 0) course::atomic_add(total, partial[0]);
}

// Task 04.2: tree_sum with the last 6 steps done by warp 0 alone: the __syncthreads() loop stops at 64 values.
__device__ void tree_sum_syncwarp(long long* partial)
{
    for (unsigned stride = blockDim.x / 2; stride > 32; stride /= 2) {
        if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
        __syncthreads();
    }
    if (threadIdx.x < 32) last_warp_sum(partial, blockDim.x >= 64 ? 32 : 16);  // a 32-thread block has 32 values
}

__global__ void reduce_unroll_warp_syncwarp_kernel(const int* in, long long* total, std::size_t n)
{
    extern __shared__ long long partial[];
    partial[threadIdx.x] = thread_sum_unrolled<8>(in, n);
    __syncthreads();
    tree_sum_syncwarp(partial);
    if (threadIdx.x == 0) course::atomic_add(total, partial[0]);
}

// Task 04.3
template <int BlockSize>
__global__ void __launch_bounds__(BlockSize) reduce_complete_unroll_kernel(const int* in, long long* total,
                                                                            std::size_t n)
{
    __shared__ long long partial[BlockSize];
    partial[threadIdx.x] = thread_sum_unrolled<8>(in, n);
    __syncthreads();
    tree_sum_complete_unroll<BlockSize>(partial);
    if (threadIdx.x == 0) course::atomic_add(total, partial[0]);
}

// Task 04.4
template <int BlockSize>
__global__ void __launch_bounds__(BlockSize) reduce_grid_stride_kernel(const int* in, long long* total,
                                                                        std::size_t n)
{
    __shared__ long long partial[BlockSize];
    partial[threadIdx.x] = thread_sum_grid_stride(in, n);
    __syncthreads();
    tree_sum_complete_unroll<BlockSize>(partial);
    if (threadIdx.x == 0) course::atomic_add(total, partial[0]);
}

// Task 04.5
template <class WarpSum>
__global__ void reduce_warp_kernel(const int* in, long long* total, std::size_t n)
{
    const long long sum = block_sum<WarpSum>(thread_sum_grid_stride(in, n));
    if (threadIdx.x == 0) course::atomic_add(total, sum);
}

// The probes' loads: one element per thread, as in chapter 03, so that a probe uses no task's loads.
__device__ long long load_one(const int* in, std::size_t n)
{
    const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    return i < n ? in[i] : 0;
}

__global__ void probe_last_warp_sum_kernel(const int* in, long long* total, std::size_t n)
{
    extern __shared__ long long partial[];
    partial[threadIdx.x] = load_one(in, n);
    __syncthreads();
    tree_sum_syncwarp(partial);
    if (threadIdx.x == 0) course::atomic_add(total, partial[0]);
}

template <int BlockSize>
__global__ void __launch_bounds__(BlockSize) probe_tree_sum_complete_unroll_kernel(const int* in, long long* total,
                                                                                    std::size_t n)
{
    __shared__ long long partial[BlockSize];
    partial[threadIdx.x] = load_one(in, n);
    __syncthreads();
    tree_sum_complete_unroll<BlockSize>(partial);
    if (threadIdx.x == 0) course::atomic_add(total, partial[0]);
}

__global__ void probe_thread_sum_grid_stride_kernel(const int* in, long long* total, std::size_t n)
{
    extern __shared__ long long partial[];
    partial[threadIdx.x] = thread_sum_grid_stride(in, n);
    __syncthreads();
    tree_sum(partial);
    if (threadIdx.x == 0) course::atomic_add(total, partial[0]);
}

// (Launched like the shared-memory probes; block_sum needs none of their dynamic shared memory.)
__global__ void probe_shfl_warp_sum_kernel(const int* in, long long* total, std::size_t n)
{
    const long long sum = block_sum<ShflWarpSum>(load_one(in, n));
    if (threadIdx.x == 0) course::atomic_add(total, sum);
}

// ---------------------------------------------------------------------------------------------- launchers

using Kernel = void(const int*, long long*, std::size_t);

template <class T>
void check_arguments(const char* name, const T* d_in, const void* d_total, std::size_t n, int block)
{
    course::check_block(name, block);
    course::check_pointer(name, "d_total", d_total);
    course::check_pointer(name, "d_in", d_in, n > 0);
    course::check_aligned(name, "d_in", d_in, alignof(T));
}

// The kernels that add one total per block into *d_total: zero it on the stream, then launch (n = 0: only
// the zero). `grid` is computed by the caller before anything is enqueued (it may throw).
template <class Launch>
void zero_then_launch(long long* d_total, std::size_t n, cudaStream_t stream, Launch launch)
{
    CUDA_CHECK(cudaMemsetAsync(d_total, 0, sizeof(long long), stream));
    if (n == 0) return;
    launch();
    CUDA_CHECK_LAUNCH();
}

// One thread per `per_thread` elements, one 64-bit shared value per thread (dynamic shared memory).
void launch_shared_tree(const char* name, Kernel* kernel, std::size_t per_thread, const int* d_in,
                        long long* d_total, std::size_t n, int block, cudaStream_t stream)
{
    check_arguments(name, d_in, d_total, n, block);
    const unsigned grid = course::grid_for(name, n, static_cast<std::size_t>(block) * per_thread);
    zero_then_launch(d_total, n, stream, [&] {
        kernel<<<grid, block, block * sizeof(long long), stream>>>(d_in, d_total, n);
    });
}

// The same with the block size a template argument: make(integral_constant<int, B>) returns the kernel
// instance for B, launched with static shared memory.
template <class Make>
void launch_per_block_size(const char* name, Make make, std::size_t per_thread, bool grid_stride,
                           const int* d_in, long long* d_total, std::size_t n, int block, cudaStream_t stream)
{
    check_arguments(name, d_in, d_total, n, block);
    course::dispatch_block(block, [&](auto block_size) {
        constexpr int B = decltype(block_size)::value;
        Kernel* kernel = make(block_size);
        const unsigned grid = grid_stride ? course::grid_stride_grid(name, kernel, n, B, per_thread)
                                          : course::grid_for(name, n, static_cast<std::size_t>(B) * per_thread);
        zero_then_launch(d_total, n, stream, [&] { kernel<<<grid, B, 0, stream>>>(d_in, d_total, n); });
    });
}

// Grid-stride kernels with the block size a run-time value (04.5).
void launch_grid_stride(const char* name, Kernel* kernel, std::size_t dynamic_smem_per_thread, const int* d_in,
                        long long* d_total, std::size_t n, int block, cudaStream_t stream)
{
    check_arguments(name, d_in, d_total, n, block);
    const std::size_t smem = block * dynamic_smem_per_thread;
    const unsigned grid = course::grid_stride_grid(name, kernel, n, block, 4, smem);
    zero_then_launch(d_total, n, stream, [&] { kernel<<<grid, block, smem, stream>>>(d_in, d_total, n); });
}

// No memset: the last block writes *d_total. n = 0 still launches one block, which writes 0.
template <class T, class Acc>
void launch_vectorized(const char* name, const T* d_in, Acc* d_total, std::size_t n, int block,
                       UnrollWarpWorkspace& workspace, cudaStream_t stream)
{
    check_arguments(name, d_in, d_total, n, block);
    const auto kernel = reduce_vectorized_kernel<T, Acc>;
    const std::size_t per_thread = 4 * course::vector_bytes / sizeof(T);  // one iteration: four 16-byte vectors
    const unsigned grid = course::grid_stride_grid(name, kernel, n, block, per_thread);
    kernel<<<grid, block, 0, stream>>>(d_in, d_total, n, workspace.state());
    CUDA_CHECK_LAUNCH();
}

}  // namespace

UnrollWarpWorkspace::UnrollWarpWorkspace() : state_(1)
{
    state_.fill_bytes(0);
    CUDA_CHECK(cudaStreamSynchronize(0));  // zero before a launch on any stream can use it
}

void reduce_unrolling2(const int* d_in, long long* d_total, std::size_t n, int block, cudaStream_t stream)
{
    launch_shared_tree("reduce_unrolling2", reduce_unrolling_kernel<2>, 2, d_in, d_total, n, block, stream);
}
void reduce_unrolling4(const int* d_in, long long* d_total, std::size_t n, int block, cudaStream_t stream)
{
    launch_shared_tree("reduce_unrolling4", reduce_unrolling_kernel<4>, 4, d_in, d_total, n, block, stream);
}
void reduce_unrolling8(const int* d_in, long long* d_total, std::size_t n, int block, cudaStream_t stream)
{
    launch_shared_tree("reduce_unrolling8", reduce_unrolling_kernel<8>, 8, d_in, d_total, n, block, stream);
}

void reduce_unroll_warp_syncwarp(const int* d_in, long long* d_total, std::size_t n, int block, cudaStream_t stream)
{
    launch_shared_tree("reduce_unroll_warp_syncwarp", reduce_unroll_warp_syncwarp_kernel, 8, d_in, d_total, n,
                       block, stream);
}

void reduce_complete_unroll(const int* d_in, long long* d_total, std::size_t n, int block, cudaStream_t stream)
{
    launch_per_block_size(
        "reduce_complete_unroll",
        [](auto block_size) -> Kernel* { return reduce_complete_unroll_kernel<decltype(block_size)::value>; }, 8,
        false, d_in, d_total, n, block, stream);
}

void reduce_grid_stride(const int* d_in, long long* d_total, std::size_t n, int block, cudaStream_t stream)
{
    launch_per_block_size(
        "reduce_grid_stride",
        [](auto block_size) -> Kernel* { return reduce_grid_stride_kernel<decltype(block_size)::value>; }, 4, true,
        d_in, d_total, n, block, stream);
}

void reduce_shfl(const int* d_in, long long* d_total, std::size_t n, int block, cudaStream_t stream)
{
    launch_grid_stride("reduce_shfl", reduce_warp_kernel<ShflWarpSum>, 0, d_in, d_total, n, block, stream);
}
void reduce_cg(const int* d_in, long long* d_total, std::size_t n, int block, cudaStream_t stream)
{
    launch_grid_stride("reduce_cg", reduce_warp_kernel<CgWarpSum>, 0, d_in, d_total, n, block, stream);
}
void reduce_redux(const int* d_in, long long* d_total, std::size_t n, int block, cudaStream_t stream)
{
    launch_grid_stride("reduce_redux", reduce_warp_kernel<ReduxWarpSum>, 0, d_in, d_total, n, block, stream);
}

void reduce_vectorized(const int* d_in, long long* d_total, std::size_t n, int block, UnrollWarpWorkspace& workspace,
                       cudaStream_t stream)
{
    launch_vectorized("reduce_vectorized", d_in, d_total, n, block, workspace, stream);
}
void reduce_vectorized_float(const float* d_in, double* d_total, std::size_t n, int block,
                             UnrollWarpWorkspace& workspace, cudaStream_t stream)
{
    launch_vectorized("reduce_vectorized_float", d_in, d_total, n, block, workspace, stream);
}
void reduce_vectorized_float(const float* d_in, float* d_total, std::size_t n, int block,
                             UnrollWarpWorkspace& workspace, cudaStream_t stream)
{
    launch_vectorized("reduce_vectorized_float", d_in, d_total, n, block, workspace, stream);
}
void reduce_vectorized_bytes(const std::uint8_t* d_in, long long* d_total, std::size_t n, int block,
                             UnrollWarpWorkspace& workspace, cudaStream_t stream)
{
    launch_vectorized("reduce_vectorized_bytes", d_in, d_total, n, block, workspace, stream);
}

void probe_last_warp_sum(const int* d_in, long long* d_total, std::size_t n, int block, cudaStream_t stream)
{
    launch_shared_tree("probe_last_warp_sum", probe_last_warp_sum_kernel, 1, d_in, d_total, n, block, stream);
}
void probe_tree_sum_complete_unroll(const int* d_in, long long* d_total, std::size_t n, int block,
                                    cudaStream_t stream)
{
    launch_per_block_size(
        "probe_tree_sum_complete_unroll",
        [](auto block_size) -> Kernel* {
            return probe_tree_sum_complete_unroll_kernel<decltype(block_size)::value>;
        },
        1, false, d_in, d_total, n, block, stream);
}
void probe_thread_sum_grid_stride(const int* d_in, long long* d_total, std::size_t n, int block,
                                  cudaStream_t stream)
{
    launch_grid_stride("probe_thread_sum_grid_stride", probe_thread_sum_grid_stride_kernel, sizeof(long long), d_in,
                       d_total, n, block, stream);
}
void probe_shfl_warp_sum(const int* d_in, long long* d_total, std::size_t n, int block, cudaStream_t stream)
{
    launch_shared_tree("probe_shfl_warp_sum", probe_shfl_warp_sum_kernel, 1, d_in, d_total, n, block, stream);
}

const OccupancyAnswer* occupancy_answers() { return occupancy_answers_by_hand; }
