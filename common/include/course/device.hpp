// What GPU we run on, and whether there is one at all.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

namespace course {

struct DeviceInfo {
    std::string name;
    int cc_major = 0, cc_minor = 0;
    int sm_count = 0;
    std::size_t l2_bytes = 0;
    std::size_t global_mem_bytes = 0;
    int runtime_version = 0;  // e.g. 13000 for CUDA 13.0
    int driver_version = 0;
};

DeviceInfo device_info(int device = 0);

// "NVIDIA H100 80GB HBM3 (sm_90, 132 SMs, 50 MiB L2, 79 GiB), CUDA runtime 13.0, driver 13.0"
std::string describe(const DeviceInfo& info);

// nullopt when a CUDA device can be used; otherwise why not, with CUDA's words in parentheses (e.g. "no
// CUDA-capable GPU or driver found (cudaGetDeviceCount: CUDA driver version is insufficient for CUDA runtime
// version)").
std::optional<std::string> gpu_unavailable_reason();
// Whether the driver lists a CUDA device (no context is made): a GPU that is there may still refuse a context,
// when other programs hold its memory.
bool gpu_present();

// Bytes of device memory free right now.
std::size_t free_device_memory();

}  // namespace course
