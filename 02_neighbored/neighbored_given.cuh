// Chapter 02, given: what the launchers (neighbored_launch.cu) expect of the two kernels in
// <variant>/neighbored_student.cuh, which includes this header first. Nothing here refers to the student's code.
//
// Both kernels have the shape
//
//     template <class T>
//     __global__ void kernel(T* data, std::size_t n, long long* block_sums);
//
// and are launched with ceil(n / block) blocks of `block` threads (a power of two in [32, 1024]), n >= 1:
//   - block b owns the segment data[b * blockDim.x, b * blockDim.x + blockDim.x), cut short at n: the last
//     segment may hold fewer than blockDim.x elements, and nothing at or past data[n] may be read;
//   - the block reduces its segment in place and thread 0 writes the segment's sum to block_sums[blockIdx.x];
//   - T is int in the first pass (the caller's data) and long long in the passes over the block sums, so
//     one template serves every pass;
//   - there may be up to 2^31 - 1 blocks: a segment's first index needs 64 bits, (std::size_t)blockIdx.x *
//     blockDim.x (an int goes negative past 2^31 elements, an unsigned wraps past 2^32).
#pragma once

#include <cstddef>
