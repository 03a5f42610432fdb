// Chapter 01: your file. Fill in the TODOs in order;
// `meson test -C build --suite 01_serial_recursive --print-errorlogs` checks each one. Read
// 01_serial_recursive/README.md first.
#include "serial_reduce.hpp"

std::int64_t serial_sum(const int* data, std::size_t n)
{
    // TODO(01.1): add up data[0..n) in a loop. Which type must the running total have, and why?
    (void)data;
    (void)n;
    return 0;
}

std::int64_t recursive_sum_in_place(std::int64_t* data, std::size_t n)
{
    // TODO(01.2): the tutorial's recursive reduction, correct for every n.
    //   - base cases: n == 0 and n == 1;
    //   - fold the upper part onto the lower part (data[i] += data[i + stride]), then recurse on the lower part.
    //   The tutorial used stride = n / 2 and lost the last element when n is odd: choose the stride so that
    //   every element is added exactly once (try n = 3 and n = 5 on paper).
    //   The depth is checked: at most 64 KiB of stack at n = 2^18, and n = 2^27 must run on an 8 MiB stack.
    (void)data;
    (void)n;
    return 0;
}

std::int64_t recursive_sum(const int* data, std::size_t n)
{
    // TODO(01.3): the same tree without modifying data: the sum of the left half plus the sum of the right
    // half. Recursing on n - 1 elements instead would need n stack frames and crash for n = 2^27 (the same
    // depth checks as TODO(01.2): at most 64 KiB of stack at n = 2^18, n = 2^27 on an 8 MiB stack).
    (void)data;
    (void)n;
    return 0;
}
