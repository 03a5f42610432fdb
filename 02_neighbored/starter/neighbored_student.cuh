// Chapter 02: your file. It holds only the two kernels; neighbored_launch.cu (given) checks the arguments and
// launches them, pass after pass, and neighbored_given.cuh says what they receive. Fill in TODO(02.1) and
// TODO(02.2); `meson test -C build --suite 02_neighbored --no-suite large --no-suite lesson --print-errorlogs`
// checks each task (README, "Your tasks", for the rest). Read 02_neighbored/README.md first.
#include "neighbored_given.cuh"

namespace {

// The tutorial's reduceNeighbored (README), to be made correct for any n >= 1.
template <class T>
__global__ void reduce_neighbored_kernel(T* data, std::size_t n, long long* block_sums)
{
    // TODO(02.1): block b reduces its segment data[b*blockDim.x ...] in place with the neighbored-pair tree;
    // thread 0 then writes the segment's sum to block_sums[blockIdx.x]. What must hold:
    //   - the levels: stride = 1, 2, 4, ... < blockDim.x; at each level thread tid adds element tid + stride
    //     onto element tid when tid % (2 * stride) == 0;
    //   - a level reads what the previous level wrote in other threads: a barrier separates the levels, and
    //     every thread of the block reaches each barrier (no early return: README, "A short last block");
    //   - the last segment may hold fewer than blockDim.x elements: nothing at or past data[n] is read (an
    //     addition whose partner lies at or past n contributes nothing);
    //   - indices past 2^31 elements work (the segment's start is a 64-bit number);
    //   - one body for any T (int in the first pass, long long in the passes over the block sums).
    // Unfilled, the kernel writes nothing: the check then reports the poisoned total.
    (void)data;
    (void)n;
    (void)block_sums;
}

// Over reduce_neighbored: the busy threads should be the first threads of the block.
template <class T>
__global__ void reduce_neighbored_less_kernel(T* data, std::size_t n, long long* block_sums)
{
    // TODO(02.2): the same tree and the same contract as TODO(02.1), but at each level thread tid works on
    // element index = 2 * stride * tid (when that element and its partner index + stride exist), so that
    // the busy threads are threads 0, 1, 2, ... and whole warps have nothing to do.
    (void)data;
    (void)n;
    (void)block_sums;
}

}  // namespace
