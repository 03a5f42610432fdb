// Chapter 04 launchers, one copy for both variants: argument checks, grid sizes, the memsets, the template
// dispatch and CUDA_CHECK_LAUNCH after every launch, and the given kernels that combine the device functions
// of unroll_warp_student.cuh: starter/ (yours) or solution/, whichever -Dvariant puts on the include path.
#include "unroll_warp.hpp"

#include "unroll_warp_student.cuh"

#include "course/check.hpp"
#include "course/launch.hpp"

// Every launcher below is straight-line: its arguments checked, its grid computed (either may throw, before
// anything is enqueued), *d_total zeroed on the stream where the kernel adds one total per block into it,
// the launch, CUDA_CHECK_LAUNCH. n = 0 enqueues only the zero. One banner per version: its given kernel (which
// calls your device functions), its launcher, and the probe that checks your function of that task alone.
namespace {

template <class T>
void check_arguments(const char* name, const T* d_in, const void* d_total, std::size_t n, int block)
{
    course::check_block(name, block);
    course::check_pointer(name, "d_total", d_total);
    course::check_pointer(name, "d_in", d_in, n > 0);
    course::check_aligned(name, "d_in", d_in, alignof(T));
}

void zero_total(long long* d_total, cudaStream_t stream)
{
    CUDA_CHECK(cudaMemsetAsync(d_total, 0, sizeof(long long), stream));
}

// A probe's loads: one element per thread, as in chapter 03, so that a probe uses no task's loads.
__device__ long long load_one(const int* in, std::size_t n)
{
    const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    return i < n ? in[i] : 0;
}

// ================================================================================= 04.1 reduce_unrolling2/4/8
// Over chapter 03's shared-memory tree: thread_sum_unrolled adds Unroll elements per thread while loading.
template <int Unroll>
__global__ void reduce_unrolling_kernel(const int* in, long long* total, std::size_t n)
{
    extern __shared__ long long partial[];  // blockDim.x values, 64-bit so no partial sum can overflow
    partial[threadIdx.x] = thread_sum_unrolled<Unroll>(in, n);
    __syncthreads();
    tree_sum(partial);
    if (threadIdx.x == 0) course::atomic_add(total, partial[0]);
}

template <int Unroll>
void launch_unrolling(const char* name, const int* d_in, long long* d_total, std::size_t n, int block,
                      cudaStream_t stream)
{
    check_arguments(name, d_in, d_total, n, block);
    const unsigned grid = course::grid_for(name, n, static_cast<std::size_t>(block) * Unroll);
    zero_total(d_total, stream);
    if (n == 0) return;
    reduce_unrolling_kernel<Unroll><<<grid, block, block * sizeof(long long), stream>>>(d_in, d_total, n);
    CUDA_CHECK_LAUNCH();
}

}  // namespace

void reduce_unrolling2(const int* d_in, long long* d_total, std::size_t n, int block, cudaStream_t stream)
{
    launch_unrolling<2>("reduce_unrolling2", d_in, d_total, n, block, stream);
}
void reduce_unrolling4(const int* d_in, long long* d_total, std::size_t n, int block, cudaStream_t stream)
{
    launch_unrolling<4>("reduce_unrolling4", d_in, d_total, n, block, stream);
}
void reduce_unrolling8(const int* d_in, long long* d_total, std::size_t n, int block, cudaStream_t stream)
{
    launch_unrolling<8>("reduce_unrolling8", d_in, d_total, n, block, stream);
}

// ============================================================================= 04.2 reduce_unroll_warp_syncwarp
// Over 04.1 (Unroll 8): tree_sum's __syncthreads() loop stops at 64 values; warp 0 alone does the last 6 steps
// in last_warp_sum.
namespace {

__device__ void tree_sum_syncwarp(long long* partial)
{
    for (unsigned stride = blockDim.x / 2; stride > 32; stride /= 2) {
        if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
        __syncthreads();
    }
    if (threadIdx.x < 32) last_warp_sum(partial, blockDim.x >= 64 ? 32 : 16);  // a 32-thread block has 32 values
}

// Probe: one element per thread instead of thread_sum_unrolled<8>, so that last_warp_sum alone is checked.
template <bool Probe>
__global__ void reduce_unroll_warp_syncwarp_kernel(const int* in, long long* total, std::size_t n)
{
    extern __shared__ long long partial[];
    partial[threadIdx.x] = Probe ? load_one(in, n) : thread_sum_unrolled<8>(in, n);
    __syncthreads();
    tree_sum_syncwarp(partial);
    if (threadIdx.x == 0) course::atomic_add(total, partial[0]);
}

template <bool Probe>
void launch_unroll_warp_syncwarp(const char* name, const int* d_in, long long* d_total, std::size_t n, int block,
                                 cudaStream_t stream)
{
    check_arguments(name, d_in, d_total, n, block);
    const unsigned grid = course::grid_for(name, n, static_cast<std::size_t>(block) * (Probe ? 1 : 8));
    zero_total(d_total, stream);
    if (n == 0) return;
    reduce_unroll_warp_syncwarp_kernel<Probe><<<grid, block, block * sizeof(long long), stream>>>(d_in, d_total, n);
    CUDA_CHECK_LAUNCH();
}

}  // namespace

void reduce_unroll_warp_syncwarp(const int* d_in, long long* d_total, std::size_t n, int block, cudaStream_t stream)
{
    launch_unroll_warp_syncwarp<false>("reduce_unroll_warp_syncwarp", d_in, d_total, n, block, stream);
}
void probe_last_warp_sum(const int* d_in, long long* d_total, std::size_t n, int block, cudaStream_t stream)
{
    launch_unroll_warp_syncwarp<true>("probe_last_warp_sum", d_in, d_total, n, block, stream);
}

// =================================================================================== 04.3 reduce_complete_unroll
// Over 04.2: the block size a template parameter (course::dispatch_block picks the instance), so the tree in
// tree_sum_complete_unroll is straight-line code, and the shared array is static.
namespace {

// Probe: one element per thread, so that tree_sum_complete_unroll alone is checked.
template <int BlockSize, bool Probe>
__global__ void __launch_bounds__(BlockSize) reduce_complete_unroll_kernel(const int* in, long long* total,
                                                                            std::size_t n)
{
    __shared__ long long partial[BlockSize];
    partial[threadIdx.x] = Probe ? load_one(in, n) : thread_sum_unrolled<8>(in, n);
    __syncthreads();
    tree_sum_complete_unroll<BlockSize>(partial);
    if (threadIdx.x == 0) course::atomic_add(total, partial[0]);
}

template <bool Probe>
void launch_complete_unroll(const char* name, const int* d_in, long long* d_total, std::size_t n, int block,
                            cudaStream_t stream)
{
    check_arguments(name, d_in, d_total, n, block);
    const unsigned grid = course::grid_for(name, n, static_cast<std::size_t>(block) * (Probe ? 1 : 8));
    zero_total(d_total, stream);
    if (n == 0) return;
    course::dispatch_block(block, [&](auto block_size) {
        constexpr int B = decltype(block_size)::value;
        reduce_complete_unroll_kernel<B, Probe><<<grid, B, 0, stream>>>(d_in, d_total, n);
    });
    CUDA_CHECK_LAUNCH();
}

}  // namespace

void reduce_complete_unroll(const int* d_in, long long* d_total, std::size_t n, int block, cudaStream_t stream)
{
    launch_complete_unroll<false>("reduce_complete_unroll", d_in, d_total, n, block, stream);
}
void probe_tree_sum_complete_unroll(const int* d_in, long long* d_total, std::size_t n, int block,
                                    cudaStream_t stream)
{
    launch_complete_unroll<true>("probe_tree_sum_complete_unroll", d_in, d_total, n, block, stream);
}

// ======================================================================================= 04.4 reduce_grid_stride
// Over 04.3: a grid that just fills the GPU (course::grid_stride_grid, from the occupancy API), each thread
// walking the array in thread_sum_grid_stride.
namespace {

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

// The probe: thread_sum_grid_stride with the given loop tree (tree_sum), block size a run-time value.
__global__ void probe_thread_sum_grid_stride_kernel(const int* in, long long* total, std::size_t n)
{
    extern __shared__ long long partial[];
    partial[threadIdx.x] = thread_sum_grid_stride(in, n);
    __syncthreads();
    tree_sum(partial);
    if (threadIdx.x == 0) course::atomic_add(total, partial[0]);
}

}  // namespace

void reduce_grid_stride(const int* d_in, long long* d_total, std::size_t n, int block, cudaStream_t stream)
{
    const char* name = "reduce_grid_stride";
    check_arguments(name, d_in, d_total, n, block);
    course::dispatch_block(block, [&](auto block_size) {
        constexpr int B = decltype(block_size)::value;
        const unsigned grid = course::grid_stride_grid(name, reduce_grid_stride_kernel<B>, n, B, 4);
        zero_total(d_total, stream);
        if (n == 0) return;
        reduce_grid_stride_kernel<B><<<grid, B, 0, stream>>>(d_in, d_total, n);
        CUDA_CHECK_LAUNCH();
    });
}
void probe_thread_sum_grid_stride(const int* d_in, long long* d_total, std::size_t n, int block,
                                  cudaStream_t stream)
{
    const char* name = "probe_thread_sum_grid_stride";
    check_arguments(name, d_in, d_total, n, block);
    const std::size_t smem = block * sizeof(long long);
    const unsigned grid = course::grid_stride_grid(name, probe_thread_sum_grid_stride_kernel, n, block, 4, smem);
    zero_total(d_total, stream);
    if (n == 0) return;
    probe_thread_sum_grid_stride_kernel<<<grid, block, smem, stream>>>(d_in, d_total, n);
    CUDA_CHECK_LAUNCH();
}

// ==================================================================================== 04.5 reduce_shfl/cg/redux
// Over 04.4: no shared-memory tree; block_sum adds the warps' sums, each made in registers by WarpSum (yours).
namespace {

// Probe: one element per thread, so that ShflWarpSum alone is checked.
template <class WarpSum, bool Probe>
__global__ void reduce_warp_kernel(const int* in, long long* total, std::size_t n)
{
    const long long sum = block_sum<WarpSum>(Probe ? load_one(in, n) : thread_sum_grid_stride(in, n));
    if (threadIdx.x == 0) course::atomic_add(total, sum);
}

template <class WarpSum>
void launch_warp_sum(const char* name, const int* d_in, long long* d_total, std::size_t n, int block,
                     cudaStream_t stream)
{
    check_arguments(name, d_in, d_total, n, block);
    const unsigned grid = course::grid_stride_grid(name, reduce_warp_kernel<WarpSum, false>, n, block, 4);
    zero_total(d_total, stream);
    if (n == 0) return;
    reduce_warp_kernel<WarpSum, false><<<grid, block, 0, stream>>>(d_in, d_total, n);
    CUDA_CHECK_LAUNCH();
}

}  // namespace

void reduce_shfl(const int* d_in, long long* d_total, std::size_t n, int block, cudaStream_t stream)
{
    launch_warp_sum<ShflWarpSum>("reduce_shfl", d_in, d_total, n, block, stream);
}
void reduce_cg(const int* d_in, long long* d_total, std::size_t n, int block, cudaStream_t stream)
{
    launch_warp_sum<CgWarpSum>("reduce_cg", d_in, d_total, n, block, stream);
}
void reduce_redux(const int* d_in, long long* d_total, std::size_t n, int block, cudaStream_t stream)
{
    launch_warp_sum<ReduxWarpSum>("reduce_redux", d_in, d_total, n, block, stream);
}
// One element per thread: as many blocks as 04.1 with Unroll 1.
void probe_shfl_warp_sum(const int* d_in, long long* d_total, std::size_t n, int block, cudaStream_t stream)
{
    const char* name = "probe_shfl_warp_sum";
    check_arguments(name, d_in, d_total, n, block);
    const unsigned grid = course::grid_for(name, n, static_cast<std::size_t>(block));
    zero_total(d_total, stream);
    if (n == 0) return;
    reduce_warp_kernel<ShflWarpSum, true><<<grid, block, 0, stream>>>(d_in, d_total, n);
    CUDA_CHECK_LAUNCH();
}

// ========================================================================== 04.6 reduce_vectorized (+ _float, _bytes)
// Over 04.5: 16-byte loads at any alignment and one pass - the last block to finish writes the total, found
// through the workspace's counter (reduce_vectorized_kernel and publish_block_total are yours). No memset:
// n = 0 still launches one block, which writes 0.
namespace {

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

// ========================================================================================== 04.7 occupancy
const OccupancyAnswer* occupancy_answers() { return occupancy_answers_by_hand; }
