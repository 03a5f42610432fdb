// Chapter 04, the reference solution of starter/unroll_warp_student.cuh: the device functions and the kernel
// of Tasks 04.1 - 04.6, and the occupancy answers of Task 04.7. ../unroll_warp_launch.cu includes this file
// (-Dvariant=solution) and launches them.
#include "unroll_warp_given.cuh"

namespace {

// ---------------------------------------------------------------------------------------------- 04.1
// Unrolling fixes chapter 03's idle loads: one thread adds Unroll elements, one from each of Unroll
// neighbouring data blocks, so Unroll independent loads are in flight at once and the grid is Unroll times
// smaller. Every load is guarded: the last data blocks may be partial.
template <int Unroll>
__device__ long long thread_sum_unrolled(const int* in, std::size_t n)
{
    const std::size_t first = static_cast<std::size_t>(blockIdx.x) * blockDim.x * Unroll + threadIdx.x;
    long long sum = 0;
#pragma unroll
    for (int k = 0; k < Unroll; ++k) {
        const std::size_t i = first + static_cast<std::size_t>(k) * blockDim.x;
        if (i < n) sum += in[i];
    }
    return sum;
}

// ---------------------------------------------------------------------------------------------- 04.2
// The last warp: once 64 values are left, warp 0 finishes alone and a block-wide __syncthreads() per step
// is wasted. The tutorial relied on the 32 threads running in lockstep (plus `volatile`); since Volta they
// need not, so each step reads, waits for the whole warp (__syncwarp), writes, and waits again.
// Called by the 32 threads of warp 0; partial[0] ends with the total.
__device__ __forceinline__ void last_warp_sum(long long* partial, unsigned first_offset)
{
    const unsigned lane = threadIdx.x;
    long long v = partial[lane];
    for (unsigned offset = first_offset; offset > 0; offset /= 2) {
        if (lane < offset) v += partial[lane + offset];
        __syncwarp();  // every read of this step happens before any write
        partial[lane] = v;
        __syncwarp();  // every write happens before the next step's reads
    }
}

// ---------------------------------------------------------------------------------------------- 04.3
// Complete unrolling removes the loop: with the block size known at compile time every step is a constant
// test the compiler folds away, leaving straight-line code (no loop counter, no shifts, no branches on it).
template <int BlockSize>
__device__ void tree_sum_complete_unroll(long long* partial)
{
    const unsigned tid = threadIdx.x;
    if (BlockSize >= 1024) { if (tid < 512) partial[tid] += partial[tid + 512]; __syncthreads(); }
    if (BlockSize >= 512) { if (tid < 256) partial[tid] += partial[tid + 256]; __syncthreads(); }
    if (BlockSize >= 256) { if (tid < 128) partial[tid] += partial[tid + 128]; __syncthreads(); }
    if (BlockSize >= 128) { if (tid < 64) partial[tid] += partial[tid + 64]; __syncthreads(); }
    if (tid < 32) last_warp_sum(partial, BlockSize >= 64 ? 32 : 16);
}

// ---------------------------------------------------------------------------------------------- 04.4
// Many elements per thread fixes the cost of a huge grid (n / 2048 blocks, each paying its start-up, tree
// and atomic): a grid that just fills the GPU walks the array with a 64-bit grid-stride loop. Four
// independent loads per iteration keep memory busy; one load instruction of a warp still reads 128
// consecutive bytes.
__device__ long long thread_sum_grid_stride(const int* in, std::size_t n)
{
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    long long sum = 0;
    for (; i + 3 * stride < n; i += 4 * stride)
        sum += static_cast<long long>(in[i]) + in[i + stride] + in[i + 2 * stride] + in[i + 3 * stride];
    for (; i < n; i += stride) sum += in[i];
    return sum;
}

// ---------------------------------------------------------------------------------------------- 04.5
// Shuffles fix the shared-memory round trips of the tree: a warp adds its 32 values in registers, each
// lane reading another lane's register directly. The _sync mask says which lanes take part (all 32) and
// makes the exchange a synchronization point, so it is correct under independent thread scheduling.
// Lane 0 ends with the warp's total.
struct ShflWarpSum {
    template <class T>
    __device__ T operator()(const Warp&, T v) const
    {
        for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
        return v;
    }
};

// cooperative_groups::reduce says the same thing without the offsets; the library picks the instructions.
struct CgWarpSum {
    __device__ long long operator()(const Warp& warp, long long v) const
    {
        return cg::reduce(warp, v, cg::plus<long long>());
    }
};

// __reduce_add_sync (sm_80+) sums a warp's 32-bit values in ONE instruction. Our values are 64-bit, so they
// go in three pieces that cannot lose a carry: the low and the middle 16 bits (32 x 65535 < 2^21) and the
// high 32 bits, whose sum may wrap: wrapping modulo 2^32 before the shift by 32 is harmless modulo 2^64.
struct ReduxWarpSum {
    __device__ long long operator()(const Warp& warp, long long v) const
    {
#if __CUDA_ARCH__ >= 800
        const auto bits = static_cast<unsigned long long>(v);
        const unsigned low = __reduce_add_sync(0xffffffffu, static_cast<unsigned>(bits & 0xffffu));
        const unsigned middle = __reduce_add_sync(0xffffffffu, static_cast<unsigned>((bits >> 16) & 0xffffu));
        const unsigned high = __reduce_add_sync(0xffffffffu, static_cast<unsigned>(bits >> 32));
        return static_cast<long long>((static_cast<unsigned long long>(high) << 32) +
                                      (static_cast<unsigned long long>(middle) << 16) + low);
#else
        return ShflWarpSum{}(warp, v);  // no redux.sync before sm_80
#endif
    }
};

// ---------------------------------------------------------------------------------------------- 04.6
// One pass fixes the memset before the kernel: each block adds its total to the running total and counts
// itself done; the block that finishes last writes the running total to *total and resets the workspace for
// the next launch. Thread 0 of each block only. A grid of one block (small n) has nothing to combine: it writes
// *total at once and skips the two atomics' round trips, a third of its time at n = 2^10.
template <class Acc>
__device__ void publish_block_total(Acc block_total, Acc* total, Acc* running, unsigned* blocks_done)
{
    if (gridDim.x == 1) {
        *total = block_total;
        return;
    }
    cuda::atomic_ref<Acc, cuda::thread_scope_device> running_total(*running);
    cuda::atomic_ref<unsigned, cuda::thread_scope_device> finished(*blocks_done);
    running_total.fetch_add(block_total, cuda::memory_order_relaxed);
    // acq_rel: release orders our addition before our count; acquire, in the block that counts last, makes
    // every addition that an earlier count released visible to it.
    if (finished.fetch_add(1u, cuda::memory_order_acq_rel) == gridDim.x - 1) {
        *total = running_total.load(cuda::memory_order_relaxed);
        running_total.store(Acc(0), cuda::memory_order_relaxed);
        finished.store(0u, cuda::memory_order_relaxed);
    }
}

// Vector loads fix the instruction count of 04.5: one 16-byte load brings 4 ints (or 4 floats, 16 bytes),
// and four of them in flight per thread keep 64 bytes per thread on the way from memory. Elements before the
// first 16-byte boundary (the head) and after the last whole vector (the tail), fewer than 16 bytes each, are
// added one by one by the first threads of the grid.
template <class T, class Acc>
__global__ void reduce_vectorized_kernel(const T* in, Acc* total, std::size_t n, OnePassState* state)
{
    const course::VectorSplit split = course::split_for_vectors(in, n);
    const int4* body = reinterpret_cast<const int4*>(in + split.head);

    const std::size_t thread = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    Acc sum = 0;
    std::size_t i = thread;
    for (; i + 3 * stride < split.vectors; i += 4 * stride) {
        const int4 a = body[i], b = body[i + stride], c = body[i + 2 * stride], d = body[i + 3 * stride];
        sum += (vector_sum<T, Acc>(a) + vector_sum<T, Acc>(b)) + (vector_sum<T, Acc>(c) + vector_sum<T, Acc>(d));
    }
    for (; i < split.vectors; i += stride) sum += vector_sum<T, Acc>(body[i]);
    if (thread < split.head) sum += static_cast<Acc>(in[thread]);
    if (thread < n - split.tail) sum += static_cast<Acc>(in[split.tail + thread]);

    sum = block_sum<ShflWarpSum>(sum);
    if (threadIdx.x == 0) publish_block_total(sum, total, running_total<Acc>(state), &state->blocks_done);
}

// ---------------------------------------------------------------------------------------------- 04.7
// Each resource alone, then the smallest: blocks by threads 2048 / threads, by registers 65536 / (threads x
// registers), by shared memory 228 / (KiB + 1), and at most 32 blocks; warps = blocks x threads / 32.
inline constexpr OccupancyAnswer occupancy_answers_by_hand[occupancy_kernel_count] = {
    {5, 40, Limit::registers},      // a: threads 8, registers 65536 / 12288 = 5
    {4, 16, Limit::shared_memory},  // b: threads 16, registers 32, shared memory 228 / (45 + 1) = 4
    {32, 32, Limit::blocks},        // c: threads 64, registers 128, blocks 32
    {4, 64, Limit::threads},        // d: threads 4, registers 8, shared memory 228 / (8 + 1) = 25
    {4, 32, Limit::registers},      // e: threads 8, registers 65536 / 14336 = 4, shared memory 228 / (36 + 1) = 6
};

}  // namespace
