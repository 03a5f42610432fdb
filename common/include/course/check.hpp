// CUDA error checking for the whole course.
//
//   CUDA_CHECK(cudaMalloc(&p, bytes));   // any runtime call that returns cudaError_t
//   my_kernel<<<grid, block>>>(...);
//   CUDA_CHECK_LAUNCH();                 // right after every kernel launch
//
// A failure throws course::CudaError whose message names the file, the line, the call as written, and the
// error's name and description, e.g.
//   reduce.cu:42: cudaMalloc(&p, bytes) failed: cudaErrorMemoryAllocation (out of memory)
// Throwing (instead of exit()) lets RAII buffers free their memory and lets a doctest case fail on its own;
// course::run_main() turns an escaped error into the message plus exit code 1.
#pragma once

#include <cuda_runtime.h>

#include <functional>
#include <stdexcept>
#include <string>

namespace course {

class CudaError : public std::runtime_error {
public:
    CudaError(cudaError_t code, const std::string& message) : std::runtime_error(message), code_(code) {}
    cudaError_t code() const noexcept { return code_; }

private:
    cudaError_t code_;
};

// "file:line: what failed: cudaErrorName (description)"
std::string format_cuda_error(cudaError_t code, const char* what, const char* file, int line);

[[noreturn]] void throw_cuda_error(cudaError_t code, const char* what, const char* file, int line);

// A launch reports bad configurations (too many threads, too much shared memory, no kernel image for this
// GPU) through cudaGetLastError(); faults inside the kernel surface at the next synchronizing call.
void check_launch(const char* file, int line);

// main() of every demo and benchmark: runs `body`; an exception that escapes it (a CUDA error, an
// allocation failure) is printed as "<program>: error: <message>" and becomes exit code 1.
int run_main(const char* program, const std::function<int()>& body);

// main() of every program that needs a GPU: without a usable one it prints "<program>: SKIP: <why>" and
// returns 77 (Meson's SKIP, as the checks do); otherwise run_main(program, body).
int run_gpu_main(const char* program, const std::function<int()>& body);

}  // namespace course

#define CUDA_CHECK(call)                                                                                      \
    do {                                                                                                      \
        const cudaError_t course_check_err_ = (call);                                                         \
        if (course_check_err_ != cudaSuccess)                                                                 \
            ::course::throw_cuda_error(course_check_err_, #call " failed", __FILE__, __LINE__);               \
    } while (0)

#define CUDA_CHECK_LAUNCH() ::course::check_launch(__FILE__, __LINE__)
