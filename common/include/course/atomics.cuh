// Device-side atomics the chapters after 03 use (03 is the chapter that teaches them).
#pragma once

#include <cuda_runtime.h>

namespace course {

// atomicAdd has no signed 64-bit overload; two's-complement addition is the same operation on the unsigned
// bits, so the unsigned one adds signed values exactly. Returns the old value.
__device__ __forceinline__ long long atomic_add(long long* address, long long value)
{
    return static_cast<long long>(
        atomicAdd(reinterpret_cast<unsigned long long*>(address), static_cast<unsigned long long>(value)));
}
__device__ __forceinline__ unsigned atomic_add(unsigned* address, unsigned value) { return atomicAdd(address, value); }
__device__ __forceinline__ double atomic_add(double* address, double value) { return atomicAdd(address, value); }
__device__ __forceinline__ float atomic_add(float* address, float value) { return atomicAdd(address, value); }

}  // namespace course
