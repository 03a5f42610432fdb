// Chapter 03: your file. It holds only the four kernels; interleaved_launch.cu (given) checks the arguments,
// zeroes the total and launches them, and interleaved_given.cuh gives add_block_sum and says what the kernels
// receive. Fill in TODO(03.1) to TODO(03.4); `meson test -C build --suite 03_interleaved --no-suite large
// --no-suite lesson` checks each task (README, "Your tasks", for the rest). Read 03_interleaved/README.md first.
#include "interleaved_given.cuh"

namespace {

// Interleaved pairs in global memory, in place (after chapter 02's kernels).
__global__ void reduce_interleaved_kernel(int* data, std::size_t n, long long* total)
{
    // TODO(03.1): block b reduces its segment data[b*blockDim.x ...] in place, then thread 0 adds the
    // segment's sum to *total with add_block_sum. What must hold:
    //   - the levels: stride = blockDim.x / 2, halving down to 1; thread tid adds element tid + stride onto
    //     element tid when tid < stride;
    //   - a level reads what the previous one wrote in other threads: a barrier separates the levels, and
    //     every thread of the block reaches each barrier (no return before one);
    //   - the last segment may be shorter than the block: nothing at or past data[n] is read (an addition
    //     whose partner lies at or past n contributes nothing);
    //   - indices past 2^31 elements work.
    // Unfilled, the kernel adds nothing: the total stays 0.
    (void)data;
    (void)n;
    (void)total;
}

// reduce0: the tree moves into shared memory.
__global__ void reduce_shared_modulo_kernel(const int* in, std::size_t n, long long* total)
{
    // TODO(03.2): each block copies its elements into the blockDim.x ints of dynamic shared memory the
    // launcher provides (extern __shared__ int partial[]), zeros past n, and reduces them there with the
    // neighbored-pair tree of chapter 02: at level s = 1, 2, 4, ... the threads with tid % (2 * s) == 0 add
    // word tid + s onto word tid. Thread 0 adds partial[0] to *total (add_block_sum). What must hold:
    //   - global memory is read once per element and never written; nothing at or past in[n] is read;
    //   - no thread reads a word of partial[] before the thread that writes it (the load, or the previous
    //     level) has written it, and no thread writes a word another thread may still read;
    //   - indices past 2^31 elements work.
    (void)in;
    (void)n;
    (void)total;
}

// reduce1: no modulo, busy threads packed into the first warps.
__global__ void reduce_shared_strided_kernel(const int* in, std::size_t n, long long* total)
{
    // TODO(03.3): the same contract as TODO(03.2) and the same pairs, but at level s thread tid works on word
    // index = 2 * s * tid (when index < blockDim.x): word index + s is added onto word index. The busy
    // threads are now threads 0, 1, 2, ...
    (void)in;
    (void)n;
    (void)total;
}

// reduce2: sequential addressing.
__global__ void reduce_shared_sequential_kernel(const int* in, std::size_t n, long long* total)
{
    // TODO(03.4): the same contract as TODO(03.2), with interleaved pairs: at level s = blockDim.x / 2,
    // halving down to 1, thread tid < s adds word tid + s onto word tid. Work out with the README's bank
    // table why the 32 lanes of a warp never ask one bank for two different words here.
    (void)in;
    (void)n;
    (void)total;
}

}  // namespace
