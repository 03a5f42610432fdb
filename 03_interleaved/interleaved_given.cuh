// Chapter 03, given: the device helper the four kernels of <variant>/interleaved_student.cuh share, and what
// the launchers (interleaved_launch.cu) pass them. The student's file includes this header first; nothing
// here refers to the student's code.
//
// Every kernel has the shape  __global__ void kernel(int* or const int* data, std::size_t n, long long* total)
// and is launched with ceil(n / block) blocks of `block` threads (a power of two in [32, 1024]), n >= 1, on a
// *total that the launcher has set to 0. The shared-memory kernels (Tasks 03.2-03.4) get blockDim.x ints of
// dynamic shared memory (extern __shared__ int partial[]). Block b owns elements [b * blockDim.x, ...), cut
// short at n; nothing at or past n may be read. There may be up to 2^31 - 1 blocks: an element's index needs
// 64 bits, (std::size_t)blockIdx.x * blockDim.x + threadIdx.x (an int goes negative past 2^31 elements, an
// unsigned wraps past 2^32).
#pragma once

#include <cstddef>

// Adds one block's sum to the 64-bit total, atomically: thread 0 of every block calls it once.
//
// atomicAdd has overloads for int, unsigned, unsigned long long, float, double, ... but none for a signed
// long long. Adding the block sum's two's-complement bit pattern as an unsigned long long is the same thing:
// unsigned addition wraps modulo 2^64, and a signed 64-bit addition in two's complement produces exactly the
// bit pattern of that wrapped unsigned sum. So a negative block sum, sign-extended to 64 bits first, comes out
// right, and so does a negative total. (Later chapters use course/atomics.cuh, which wraps this once.)
__device__ inline void add_block_sum(long long* total, int block_sum)
{
    atomicAdd(reinterpret_cast<unsigned long long*>(total),
              static_cast<unsigned long long>(static_cast<long long>(block_sum)));
}
