// The conditions of a measurement, printed beside every benchmark table and size sweep.
#pragma once

#include <string>

namespace course {

// What the GPU ran at: nvidia-smi's clocks and throttle reasons (when nvidia-smi is there), the driver, the
// CUDA runtime and the CCCL version the benchmarks' CUB came from.
struct Conditions {
    std::string gpu;
    std::string clocks;    // "SM 1980 MHz (max 1980), memory 2619 MHz", or why unknown
    std::string throttle;  // "none", or nvidia-smi's active reasons
    bool throttled = false;
};
Conditions read_conditions();
// "NVIDIA H100 80GB HBM3; start: SM 1980 MHz (max 1980), memory 2619 MHz, throttling none; end: ...; driver
// 580.159.04, CUDA 13.0, CCCL 3.0.0; 2026-11-22" - and "THROTTLED" first when either end was throttled.
std::string describe_conditions(const Conditions& start, const Conditions& end);
std::string cccl_version();  // from cub_reference.cu (course_cub_dep)

}  // namespace course
