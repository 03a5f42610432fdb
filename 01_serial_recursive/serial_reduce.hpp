// Chapter 01: summing an array on the CPU, with a loop and with the recursive pairwise tree that the GPU
// chapters parallelize. Implemented by starter/serial_reduce_student.cpp (yours) and solution/serial_reduce_student.cpp.
#pragma once

#include <cstddef>
#include <cstdint>

// Task 01.1: the plain loop. Exact for any n >= 0: the total is 64-bit even though the data is 32-bit.
std::int64_t serial_sum(const int* data, std::size_t n);

// Task 01.2: the recursive reduction of the tutorial the chapter follows (README), made correct for every
// n >= 0. Each level adds the upper part of the array onto the lower part, in place, and recurses on the lower
// part. OVERWRITES `data` (its contents afterwards are unspecified); the caller widens the ints to 64 bits
// first so partial sums cannot overflow.
std::int64_t recursive_sum_in_place(std::int64_t* data, std::size_t n);

// Task 01.3: the same pairwise tree without touching the input: sum of the left half plus sum of the right
// half. Recursion depth must stay O(log n), so that n = 2^27 needs only ~27 stack frames.
std::int64_t recursive_sum(const int* data, std::size_t n);
