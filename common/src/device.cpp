#include "course/device.hpp"

#include "course/check.hpp"

#include <sstream>

namespace course {

DeviceInfo device_info(int device)
{
    cudaDeviceProp prop{};
    CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
    DeviceInfo info;
    info.name = prop.name;
    info.cc_major = prop.major;
    info.cc_minor = prop.minor;
    info.sm_count = prop.multiProcessorCount;
    info.l2_bytes = static_cast<std::size_t>(prop.l2CacheSize);
    info.global_mem_bytes = prop.totalGlobalMem;
    CUDA_CHECK(cudaRuntimeGetVersion(&info.runtime_version));
    CUDA_CHECK(cudaDriverGetVersion(&info.driver_version));
    return info;
}

static std::string cuda_version(int v)
{
    return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
}

std::string describe(const DeviceInfo& info)
{
    std::ostringstream s;
    s << info.name << " (sm_" << info.cc_major << info.cc_minor << ", " << info.sm_count << " SMs, "
      << (info.l2_bytes >> 20) << " MiB L2, " << (info.global_mem_bytes >> 30) << " GiB), CUDA runtime "
      << cuda_version(info.runtime_version) << ", driver " << cuda_version(info.driver_version);
    return s.str();
}

std::optional<std::string> gpu_unavailable_reason()
{
    const auto no_gpu = [](const std::string& why) { return "no CUDA-capable GPU or driver found (" + why + ")"; };
    int count = 0;
    if (const cudaError_t err = cudaGetDeviceCount(&count); err != cudaSuccess)
        return no_gpu(std::string("cudaGetDeviceCount: ") + cudaGetErrorString(err));
    if (count == 0) return no_gpu("cudaGetDeviceCount: no CUDA device found");
    if (const cudaError_t err = cudaFree(nullptr); err != cudaSuccess)  // creates the context
        return no_gpu(std::string("creating a CUDA context: ") + cudaGetErrorString(err));
    return std::nullopt;
}

bool gpu_present()
{
    int count = 0;
    return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
}

std::size_t free_device_memory()
{
    std::size_t free_bytes = 0, total_bytes = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    return free_bytes;
}

}  // namespace course
