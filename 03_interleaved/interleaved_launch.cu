// Chapter 03: the launchers, one copy for both variants: argument checks, zeroing the total, grid and
// shared-memory sizes. The kernels they launch come from interleaved_student.cuh in starter/ (the student's)
// or solution/ (the reference), as -Dvariant picks.
#include "interleaved.hpp"

#include "course/check.hpp"
#include "course/launch.hpp"

#include "interleaved_student.cuh"

namespace {

// Checks the arguments, then sets *d_total to 0 on the stream (the kernels only add to it). Returns the
// number of blocks, 0 when n = 0 (nothing to launch).
unsigned prepare(const char* launcher, const int* d_data, long long* d_total, std::size_t n, int block,
                 cudaStream_t stream)
{
    course::check_block(launcher, block);
    course::check_pointer(launcher, "input", d_data, n > 0);
    course::check_pointer(launcher, "d_total", d_total);
    const unsigned blocks = n == 0 ? 0 : course::grid_for(launcher, n, block);
    CUDA_CHECK(cudaMemsetAsync(d_total, 0, sizeof *d_total, stream));
    return blocks;
}

using SharedKernel = void (*)(const int*, std::size_t, long long*);

// The shared-memory kernels: blockDim.x ints of dynamic shared memory per block.
void launch_shared(const char* launcher, SharedKernel kernel, const int* d_in, long long* d_total, std::size_t n,
                   int block, cudaStream_t stream)
{
    const unsigned blocks = prepare(launcher, d_in, d_total, n, block, stream);
    if (blocks == 0) return;
    kernel<<<blocks, block, block * sizeof(int), stream>>>(d_in, n, d_total);
    CUDA_CHECK_LAUNCH();
}

}  // namespace

void reduce_interleaved(int* d_data, long long* d_total, std::size_t n, int block, cudaStream_t stream)
{
    const unsigned blocks = prepare("reduce_interleaved", d_data, d_total, n, block, stream);
    if (blocks == 0) return;
    reduce_interleaved_kernel<<<blocks, block, 0, stream>>>(d_data, n, d_total);
    CUDA_CHECK_LAUNCH();
}

void reduce_shared_modulo(const int* d_in, long long* d_total, std::size_t n, int block, cudaStream_t stream)
{
    launch_shared("reduce_shared_modulo", reduce_shared_modulo_kernel, d_in, d_total, n, block, stream);
}

void reduce_shared_strided(const int* d_in, long long* d_total, std::size_t n, int block, cudaStream_t stream)
{
    launch_shared("reduce_shared_strided", reduce_shared_strided_kernel, d_in, d_total, n, block, stream);
}

void reduce_shared_sequential(const int* d_in, long long* d_total, std::size_t n, int block, cudaStream_t stream)
{
    launch_shared("reduce_shared_sequential", reduce_shared_sequential_kernel, d_in, d_total, n, block, stream);
}
