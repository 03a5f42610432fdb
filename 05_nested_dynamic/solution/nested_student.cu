// Chapter 05 reference solution: the tutorial's nested reduction and the book's gpuRecursiveReduce2 on CDP2, and the check
// after every device-side launch. No grid ever waits for a child: what comes next is a tail launch.
#include "nested_given.cuh"

__device__ void check_device_launch(NestedStatus* status);  // TODO(05.3), at the end of this file

// TODO(05.1), lower levels: one level of one segment's chain, in a one-block grid of len / 2 threads. Folds len
// values to keep = ceil(len / 2): for odd len the middle value has no partner and is carried to the next level
// (the tutorial halved with len / 2 and lost it). Thread 0 continues in the tail stream, whose grid starts only
// after this one has finished and sees every thread's fold, so no barrier and no waiting is needed.
__device__ void seed_fold(const NestedArgs& a, long long* segment, unsigned len, unsigned segment_index)
{
    const unsigned keep = (len + 1) / 2;  // the middle value of an odd len has no partner: carried
    const unsigned t = threadIdx.x;
    if (t < len / 2) segment[t] += segment[t + keep];  // reads [keep, len), writes [0, len / 2): disjoint
    if (t != 0) return;
    if (keep == 1) {
        a.partials[segment_index] = segment[0];  // len was 2: thread 0 made segment[0] itself
        return;
    }
    seed_fold_kernel<<<1, child_threads(a, keep / 2), 0, cudaStreamTailLaunch>>>(a, segment, keep, segment_index);
    check_device_launch(a.status);
}

// TODO(05.1), top level: the tutorial's kernel, one block per segment. Folds the segment's len ints into
// keep = ceil(len / 2) 64-bit values of the level buffer, then thread 0 hands the rest to the segment's chain.
__device__ void seed_top_level(const NestedArgs& a)
{
    const std::size_t first = static_cast<std::size_t>(blockIdx.x) * nested_segment;
    const std::size_t remaining = a.n - first;
    const unsigned len = remaining < nested_segment ? static_cast<unsigned>(remaining) : nested_segment;
    const unsigned keep = (len + 1) / 2;
    long long* segment = a.work + static_cast<std::size_t>(blockIdx.x) * (nested_segment / 2);
    const unsigned t = threadIdx.x;
    if (t < keep) {
        long long value = a.in[first + t];
        if (t < len / 2) value += a.in[first + t + keep];
        segment[t] = value;
    }
    // A child is guaranteed to see what its launching thread saw at the launch: the barrier makes the whole
    // block's writes part of what thread 0 has seen.
    __syncthreads();
    if (t != 0) return;
    if (keep == 1) {
        a.partials[blockIdx.x] = segment[0];  // len was 1 or 2
    } else {
        // Fire-and-forget: the chains of all segments run side by side. Tail launches of this grid would run
        // them one after another, each waiting for the previous chain to finish.
        seed_fold_kernel<<<1, child_threads(a, keep / 2), 0, cudaStreamFireAndForget>>>(a, segment, keep, blockIdx.x);
        check_device_launch(a.status);
    }
    if (blockIdx.x == 0) {
        // Starts after this grid and everything launched from it - every chain, to its last level - has finished.
        sum_partials<<<1, child_threads(a, sum_partials_threads), 0, cudaStreamTailLaunch>>>(a);
        check_device_launch(a.status);
    }
}

// TODO(05.2), top level: every thread adds its element of the segment's upper half onto its element of the
// lower half, widening to 64 bits. Elements past n count as 0, so every level below folds exactly 2 * stride.
__device__ void strided_top_level(const NestedArgs& a)
{
    const std::size_t lower = static_cast<std::size_t>(blockIdx.x) * nested_segment + threadIdx.x;
    const std::size_t upper = lower + nested_segment / 2;
    long long value = 0;
    if (lower < a.n) value = a.in[lower];
    if (upper < a.n) value += a.in[upper];
    a.work[static_cast<std::size_t>(blockIdx.x) * (nested_segment / 2) + threadIdx.x] = value;
    if (blockIdx.x != 0 || threadIdx.x != 0) return;
    // The tail launch fixes the book's race: its CDP1 child could start before the other blocks had written.
    strided_fold_kernel<<<gridDim.x, child_threads(a, nested_segment / 4), 0, cudaStreamTailLaunch>>>(
        a, nested_segment / 4);
    check_device_launch(a.status);
}

// TODO(05.2), lower levels: the book's gpuRecursiveReduce2. One grid per level for all segments (block b folds segment b
// with blockDim.x == stride threads); the stride is passed down and only thread 0 of block 0 launches, into the
// tail stream: the next level starts after every block of this one has finished and sees all their writes.
__device__ void strided_fold(const NestedArgs& a, unsigned stride)
{
    long long* segment = a.work + static_cast<std::size_t>(blockIdx.x) * (nested_segment / 2);
    const unsigned t = threadIdx.x;
    if (t < stride) segment[t] += segment[t + stride];
    if (stride == 1 && t == 0) a.partials[blockIdx.x] = segment[0];
    if (blockIdx.x != 0 || t != 0) return;
    if (stride > 1)
        strided_fold_kernel<<<gridDim.x, child_threads(a, stride / 2), 0, cudaStreamTailLaunch>>>(a, stride / 2);
    else
        sum_partials<<<1, child_threads(a, sum_partials_threads), 0, cudaStreamTailLaunch>>>(a);
    check_device_launch(a.status);
}

// TODO(05.3): a device-side launch reports its own failures (bad configuration, full pending-launch buffer) only
// through cudaGetLastError() in the launching thread. Keep the first error; count the launches that worked.
__device__ void check_device_launch(NestedStatus* status)
{
    const cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess)
        atomicCAS(&status->error, 0, static_cast<int>(err));
    else
        atomicAdd(&status->launches, 1ull);
}
