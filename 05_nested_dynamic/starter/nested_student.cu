// Chapter 05: your file. Read 05_nested_dynamic/README.md first, then fill in the TODOs in order;
// `meson test -C build --suite 05_nested_dynamic --no-suite large --no-suite lesson --print-errorlogs` checks each one.
// The prefix seed_ marks the tutorial's scheme (05.1), strided_ the book's (05.2); it is unrelated to the
// random seed.
//
// Each function below is the body of one grid: nested_given.cuh has the kernel that runs it in every thread
// (its name ends in _kernel) and is what you launch, with the function's own arguments. The rules of CDP2, the
// only dynamic parallelism on sm_90:
//   - no grid ever waits for a child: there is no device-side cudaDeviceSynchronize() any more;
//   - a grid launched with <<<grid, threads, 0, cudaStreamTailLaunch>>> starts after the launching grid and
//     everything that grid launched have finished, and it sees their writes;
//   - write every <<<...>>> with child_threads(a, wanted) as its thread count, and call
//     check_device_launch(a.status) right after it;
//   - nested_given.cuh has NestedArgs, nested_segment (512), nested_top_threads (256) and sum_partials.
#include "nested_given.cuh"

__device__ void check_device_launch(NestedStatus* status);  // TODO(05.3), at the end of this file

// TODO(05.1), lower levels: one level of one segment's chain, run as a one-block grid of len / 2 threads
// (len >= 2). It folds segment[0 .. len) into its first keep = ceil(len / 2) values, their sum unchanged (for
// odd len the middle value has no partner and is carried), with no thread reading a value another thread of
// the level writes. Then the chain ends - one value left: it becomes a.partials[segment_index] - or goes on
// with a next level on the keep values, launched by one thread, that must start only after every thread of
// this level has folded and must see all of their writes. Nothing ever waits for it.
//   Why is no __syncthreads() needed before that launch? (README: "CDP2 in four rules".)
__device__ void seed_fold(const NestedArgs& a, long long* segment, unsigned len, unsigned segment_index)
{
    (void)a;
    (void)segment;
    (void)len;
    (void)segment_index;
}

// TODO(05.1), top level: the tutorial's kernel. Block b (nested_top_threads threads) owns segment b: the inputs
// a.in[b * 512 ...] (len = min(512, n - b * 512) of them; 64-bit index arithmetic) and the 256 values
// a.work[b * 256 ...]. What must hold:
//   - the segment's len ints are folded into keep = ceil(len / 2) 64-bit values (the sum unchanged, the middle
//     value of an odd len carried); a.in is only read;
//   - if one value is left it is a.partials[b]; otherwise the segment's chain (seed_fold) starts from the keep
//     values, and must see all of them, although only one thread launches it;
//   - the chains of all segments can run side by side, not one after another;
//   - sum_partials is launched once per launch tree and starts only after every chain has written its
//     partial sum, and sees all of them.
//   Which stream does each launch need, and why? (README: the streams table in "CDP2 in four rules", and
//   Task 05.1.) 05.3's launch count expects one device-side launch per chain level after the first, and one
//   sum_partials.
__device__ void seed_top_level(const NestedArgs& a)
{
    (void)a;
}

// TODO(05.2), top level: a.work[b * 256 + t] = a.in[b * 512 + t] + a.in[b * 512 + t + 256] for every thread t
// of every block b, in 64 bits, an index >= n counting as 0 (so every level below folds exactly 2 * stride
// values); a.in is only read; indices in 64 bits (the checks go past 2^32 elements). Then the first
// strided_fold level (stride 128) is launched by one thread of the whole grid, and must see every block's
// writes.
__device__ void strided_top_level(const NestedArgs& a)
{
    (void)a;
}

// TODO(05.2), lower levels: the book's gpuRecursiveReduce2, one grid of a.segments blocks of `stride` threads per
// level. Block b folds segment b from 2 * stride values to stride: segment[t] += segment[t + stride]. After the
// level with stride 1, a.partials[b] holds segment b's sum. One thread of the whole grid (not one per block)
// continues: the next level with half the stride, or sum_partials after stride 1. That grid must start only
// after every block of this level has written, and see all of their writes: the book's CDP1 version did not
// guarantee it (README: Task 05.2). 05.3's launch count expects 9 device-side launches per launch
// tree, whatever n.
__device__ void strided_fold(const NestedArgs& a, unsigned stride)
{
    (void)a;
    (void)stride;
}

// TODO(05.3): report the launch that was just made. A device-side launch tells of its own failure (a bad
// configuration, a full pending-launch buffer) only through cudaGetLastError() in the thread that launched it.
// What must hold: status->error holds the first error any launch of the tree met (0 while none did), and
// status->launches counts the launches that succeeded; many threads of many grids call this at the same time.
__device__ void check_device_launch(NestedStatus* status)
{
    (void)status;
}
