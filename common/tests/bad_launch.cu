// A launch that must fail, to show what CUDA_CHECK_LAUNCH reports.
#include "course/check.hpp"

static __global__ void empty_kernel() {}

void launch_with_too_many_threads()
{
    empty_kernel<<<1, 4096>>>();  // the limit is 1024 threads per block
    CUDA_CHECK_LAUNCH();
}
