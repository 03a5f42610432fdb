#include "course/check.hpp"

#include "course/device.hpp"

#include <cstdio>
#include <exception>
#include <sstream>

namespace course {

std::string format_cuda_error(cudaError_t code, const char* what, const char* file, int line)
{
    std::ostringstream s;
    s << file << ':' << line << ": " << what << ": " << cudaGetErrorName(code) << " (" << cudaGetErrorString(code)
      << ')';
    return s.str();
}

void throw_cuda_error(cudaError_t code, const char* what, const char* file, int line)
{
    throw CudaError(code, format_cuda_error(code, what, file, line));
}

void check_launch(const char* file, int line)
{
    const cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess) throw_cuda_error(err, "kernel launch failed", file, line);
}

int run_gpu_main(const char* program, const std::function<int()>& body)
{
    if (const auto reason = gpu_unavailable_reason()) {
        std::fprintf(stderr, "%s: SKIP: %s\n", program, reason->c_str());
        return 77;
    }
    return run_main(program, body);
}

int run_main(const char* program, const std::function<int()>& body)
{
    try {
        return body();
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s: error: %s\n", program, e.what());
        return 1;
    }
}

}  // namespace course
