// 16-byte vector access to an array of any alignment (chapter 04.6 teaches it; 06 and 07 use it): a scalar
// head up to the first 16-byte boundary, a body of whole 16-byte vectors, a scalar tail.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace course {

constexpr std::size_t vector_bytes = 16;

// in[0, head) scalar, then `vectors` 16-byte vectors starting at in + head, then in[head + vectors * per, n)
// scalar, where per = 16 / sizeof(T) items per vector. `in` must be aligned to sizeof(T).
struct VectorSplit {
    std::size_t head;     // scalar items before the first 16-byte boundary (at most per - 1, at most n)
    std::size_t vectors;  // whole 16-byte vectors after the head
    std::size_t tail;     // first scalar item after the body: head + vectors * per
};

template <class T>
__host__ __device__ inline VectorSplit split_for_vectors(const T* in, std::size_t n)
{
    constexpr std::size_t per = vector_bytes / sizeof(T);
    const std::size_t misalign = reinterpret_cast<std::uintptr_t>(in) % vector_bytes;
    std::size_t head = misalign == 0 ? 0 : (vector_bytes - misalign) / sizeof(T);
    if (head > n) head = n;
    const std::size_t vectors = (n - head) / per;
    return VectorSplit{head, vectors, head + vectors * per};
}

}  // namespace course
