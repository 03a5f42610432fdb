// Chapter 05: your file. Read 05_nested_dynamic/README.md first, then fill in the TODOs in order;
// `meson test -C build --suite 05_nested_dynamic` checks each one.
//
// Rules of this file (CDP2, the only dynamic parallelism on sm_90):
//   - no grid ever waits for a child: there is no device-side cudaDeviceSynchronize() any more;
//   - the next step goes into a grid launched with <<<grid, threads, 0, cudaStreamTailLaunch>>>: it starts
//     after the launching grid and everything that grid launched have finished, and it sees their writes;
//   - write every <<<...>>> with child_threads(a, wanted) as its thread count, and call
//     check_device_launch(a.status) right after it;
//   - nested_device.cuh has NestedArgs, nested_segment (512), nested_top_threads (256) and sum_partials.
#include "nested_device.cuh"

// TODO(05.3): report the launch that was just made. A device-side launch tells its own failure (a bad
// configuration, a full pending-launch buffer) only through cudaGetLastError() in the thread that launched.
//   - on an error, store it in status->error unless an earlier error is already there (atomicCAS);
//   - otherwise count the launch: atomicAdd(&status->launches, 1ull).
__device__ void check_device_launch(NestedStatus* status)
{
    (void)status;
}

// TODO(05.1), lower levels: one level of one segment's chain, launched as a one-block grid of len / 2 threads.
//   - keep = (len + 1) / 2; thread t < len / 2 adds segment[t + keep] onto segment[t] (for odd len the middle
//     value segment[len / 2] has no partner and is carried to the next level);
//   - then thread 0 only: if keep == 1, write segment[0] to a.partials[segment_index] (thread 0 computed it
//     itself); otherwise launch seed_fold on the first keep values into cudaStreamTailLaunch, and check it.
//   Why is no __syncthreads() needed before that launch?
__global__ void seed_fold(NestedArgs a, long long* segment, unsigned len, unsigned segment_index)
{
    (void)a;
    (void)segment;
    (void)len;
    (void)segment_index;
}

// TODO(05.1), top level: the seed's kernel. Block b (nested_top_threads threads) owns segment b: the inputs
// a.in[b * 512 ...] (len = min(512, n - b * 512) of them) and the 256 values a.work[b * 256 ...].
//   - keep = (len + 1) / 2; thread t < keep writes a.in[first + t] + a.in[first + t + keep] (the second term
//     only for t < len / 2) to segment[t], in 64 bits;
//   - __syncthreads(), then thread 0 only: if keep == 1, write segment[0] to a.partials[b]; otherwise launch
//     seed_fold<<<1, keep / 2 threads>>> on the segment into cudaStreamFireAndForget, and check it;
//   - thread 0 of block 0 also launches sum_partials<<<1, sum_partials_threads>>> into cudaStreamTailLaunch.
//   Why fire-and-forget for the chains, and why must sum_partials be a tail launch?
__global__ void seed_top_level(NestedArgs a)
{
    (void)a;
}

// TODO(05.2), lower levels: the book's nestedReduce2, one grid of a.segments blocks per level. Block b folds
// segment b with stride threads: segment[t] += segment[t + stride]. When stride == 1, thread 0 of each block
// writes segment[0] to a.partials[b]. Thread 0 of block 0 (only it) then launches the next level,
// strided_fold with stride / 2, or sum_partials after the level with stride 1; into cudaStreamTailLaunch.
__global__ void strided_fold(NestedArgs a, unsigned stride)
{
    (void)a;
    (void)stride;
}

// TODO(05.2), top level: thread t of block b adds a.in[b * 512 + t + 256] onto a.in[b * 512 + t] and writes
// the 64-bit sum to a.work[b * 256 + t]; an index >= n counts as 0. Then thread 0 of block 0 launches the
// first strided_fold, with stride 128, into cudaStreamTailLaunch.
__global__ void strided_top_level(NestedArgs a)
{
    (void)a;
}
