// Chapter 04: your file. Fill in the TODOs in order - each task builds on the one before - and check each one
// with `meson test -C build --suite 04_unroll_warp --no-suite large --no-suite lesson --print-errorlogs`
// (README, "Check your work", for the rest). Read 04_unroll_warp/README.md first.
//
// It holds only your device code and one table: TODO(04.1) thread_sum_unrolled, TODO(04.2) last_warp_sum,
// TODO(04.3) tree_sum_complete_unroll, TODO(04.4) thread_sum_grid_stride, TODO(04.5) ShflWarpSum, CgWarpSum
// and ReduxWarpSum, TODO(04.6) publish_block_total and reduce_vectorized_kernel, TODO(04.7)
// occupancy_answers_by_hand (worked out by hand). What they build on
// (tree_sum, block_sum, vector_sum, running_total, course::split_for_vectors) is in ../unroll_warp_given.cuh;
// the kernels that call your functions and the launchers are in ../unroll_warp_launch.cu. Unfilled, every
// function returns 0 or leaves the total untouched, so each check fails naming its task.
#include "unroll_warp_given.cuh"

namespace {

// ---------------------------------------------------------------------------------------------- 04.1
// Returns this thread's share of its block's Unroll data blocks.
template <int Unroll>
__device__ long long thread_sum_unrolled(const int* in, std::size_t n)
{
    // TODO(04.1): block b covers the Unroll neighbouring data blocks starting at element b * blockDim.x * Unroll;
    // thread t adds element t of each of them (those below n), so that its Unroll loads can all be in flight
    // at once. Every index must be right for n past 2^31 (64-bit arithmetic from the first multiplication on),
    // and the sum of 8 ints can overflow an int.
    static_cast<void>(in);
    static_cast<void>(n);
    return 0;
}

// ---------------------------------------------------------------------------------------------- 04.2
// Called by the 32 threads of warp 0 when 2 * first_offset values are left in partial[0 .. 2*first_offset)
// (first_offset is 32, or 16 for a block of one warp); partial[0] must end with their sum.
__device__ __forceinline__ void last_warp_sum(long long* partial, unsigned first_offset)
{
    // TODO(04.2): the tutorial's unrolled last warp, made correct on Volta and newer. For offset = first_offset,
    // first_offset/2, ..., 1: lanes below `offset` add partial[lane + offset] to their value. No lane may write
    // a value that another lane of the same step still has to read, and every write of a step must be visible
    // before the next step reads: order them with __syncwarp(), which all 32 lanes must reach. `volatile`
    // orders nothing between threads. Checked with racecheck and synccheck.
    static_cast<void>(partial);
    static_cast<void>(first_offset);
}

// ---------------------------------------------------------------------------------------------- 04.3
// Called by every thread of a block of BlockSize threads when partial[0 .. BlockSize) holds their values (the
// caller wrote them and passed a __syncthreads() before the call); partial[0] must end with the sum.
template <int BlockSize>
__device__ void tree_sum_complete_unroll(long long* partial)
{
    // TODO(04.3): the tree of tree_sum_syncwarp (unroll_warp_launch.cu) without the loop: one step per halving
    // down to 64 values, each guarded by a test on the compile-time constant BlockSize (so that the compiler
    // keeps only the steps this block size has), then last_warp_sum. Every thread of the block must reach
    // each __syncthreads() (none inside an `if` on tid). Checked for every block size 32 ... 1024, with racecheck
    // and synccheck.
    static_cast<void>(partial);
}

// ---------------------------------------------------------------------------------------------- 04.4
// Returns the sum of elements thread, thread + stride, thread + 2 stride, ... below n (thread: this thread's
// index in the grid; stride: all threads of the grid).
__device__ long long thread_sum_grid_stride(const int* in, std::size_t n)
{
    // TODO(04.4): a grid-stride loop with a 64-bit index and a 64-bit sum. The grid is small (it just fills the
    // GPU), so each thread loops many times: make each iteration issue four independent loads while all four
    // are below n, then finish the last few elements one at a time.
    static_cast<void>(in);
    static_cast<void>(n);
    return 0;
}

// ---------------------------------------------------------------------------------------------- 04.5
// Each functor returns the sum of v over the 32 lanes of `warp` (all 32 lanes call it), at least in lane 0.
struct ShflWarpSum {
    template <class T>
    __device__ T operator()(const Warp& warp, T v) const
    {
        // TODO(04.5): the warp's sum of v, correct at least in lane 0, for every T that block_sum passes in
        // (long long here; double and float in 04.6). Registers only: no shared memory. Every exchange names
        // all 32 lanes and is made by all of them, so the result holds under independent thread scheduling.
        // Checked by reduce_shfl (README, Task 04.5; hints there).
        static_cast<void>(warp);
        static_cast<void>(v);
        return T(0);
    }
};

struct CgWarpSum {
    __device__ long long operator()(const Warp& warp, long long v) const
    {
        // TODO(04.5): the same result as ShflWarpSum, but said through cooperative groups: a collective
        // reduction over `warp`, no offsets of your own. Checked by reduce_cg.
        static_cast<void>(warp);
        static_cast<void>(v);
        return 0;
    }
};

struct ReduxWarpSum {
    __device__ long long operator()(const Warp& warp, long long v) const
    {
#if __CUDA_ARCH__ >= 800
        // TODO(04.5): the warp's sum of v modulo 2^64 (what a long long sum gives), at least in lane 0, built
        // from __reduce_add_sync: one instruction, but 32-bit unsigned operands and a sum that wraps modulo
        // 2^32. Every v, negative or spanning all 64 bits, must come out exact, so no carry that belongs in
        // the low 64 bits of the result may be lost. Which split of v into pieces guarantees that, and why do
        // two 32-bit halves not? (README, Task 04.5.) Checked by reduce_redux, also on ints spread over the
        // whole int range.
        static_cast<void>(v);
        return 0;
#else
        return ShflWarpSum{}(warp, v);  // no redux.sync before sm_80
#endif
    }
};

// ---------------------------------------------------------------------------------------------- 04.6
// Thread 0 of every block calls this once with its block's total; *total must end with the grand total.
// *running and *blocks_done are this launch's running total and counter in the caller's workspace.
template <class Acc>
__device__ void publish_block_total(Acc block_total, Acc* total, Acc* running, unsigned* blocks_done)
{
    // TODO(04.6): one pass, no memset before the kernel. What must hold:
    //   - every block's total ends up in *running, and exactly one block - the last of the grid to count itself
    //     done in *blocks_done - writes the grand total to *total (which starts as garbage: the checks poison it);
    //   - ordering: a block may count itself done only after its addition, and the last block's read of
    //     *running must see every block's addition (think of release and acquire; README, Task 04.6);
    //   - reset: when the launch ends, *running and *blocks_done are 0 again, as the next launch that uses this
    //     workspace must find them (the checks launch many times in a row with one workspace, and two
    //     launches at once on two streams with two workspaces).
    //   - speed at small n: a grid of one block has nothing to combine and may write *total directly.
    // Checked by reduce_vectorized, reduce_vectorized_float (both) and reduce_vectorized_bytes (hints in the README).
    static_cast<void>(block_total);
    static_cast<void>(total);
    static_cast<void>(running);
    static_cast<void>(blocks_done);
}

// T and the accumulator Acc come in these pairs: int and long long (reduce_vectorized), float and double or float
// and float (reduce_vectorized_float), std::uint8_t and long long (reduce_vectorized_bytes).
template <class T, class Acc>
__global__ void reduce_vectorized_kernel(const T* in, Acc* total, std::size_t n, OnePassState* state)
{
    // TODO(04.6): the best kernel: the sum of in[0 .. n) into *total, in one pass.
    //   - Alignment: in may start anywhere (a multiple of sizeof(T)); course::split_for_vectors(in, n) cuts
    //     the array into a scalar head before the first 16-byte boundary, whole 16-byte vectors (read them as
    //     const int4*), and a scalar tail (README, Task 04.6).
    //   - Body: a 64-bit grid-stride loop over the vectors with four independent loads per iteration (as in
    //     04.4), each vector added with vector_sum<T, Acc>, into an Acc sum.
    //   - Head and tail (fewer than 16 bytes each): added by the first threads of the grid.
    //   - Then block_sum<ShflWarpSum>, and thread 0 calls publish_block_total with running_total<Acc>(state)
    //     and state->blocks_done.
    // Test with pointers 1, 2, 3 elements past a boundary and n = 0, 1, 3, 4, 5, ...: the checks do.
    static_cast<void>(in);
    static_cast<void>(n);
    static_cast<void>(total);
    static_cast<void>(state);
}

// ---------------------------------------------------------------------------------------------- 04.7
// TODO(04.7): for each kernel of the table in ../unroll_warp.hpp (Task 04.7), in its order: the blocks one H100
// SM holds at once, the warps that makes, and the resource that stops it there (Limit::threads, blocks,
// registers or shared_memory). Work them out by hand from the limits given there: what each resource alone
// allows, then the smallest of those.
inline constexpr OccupancyAnswer occupancy_answers_by_hand[occupancy_kernel_count] = {
    {0, 0, Limit::unanswered},  // a
    {0, 0, Limit::unanswered},  // b
    {0, 0, Limit::unanswered},  // c
    {0, 0, Limit::unanswered},  // d
    {0, 0, Limit::unanswered},  // e
};

}  // namespace
