#include "course/conditions.hpp"

#include "course/device.hpp"
#include "course/report.hpp"

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <vector>

namespace course {
namespace {

std::string run_nvidia_smi(const std::string& query)
{
    std::string out;
    FILE* pipe = popen(("nvidia-smi --id=0 --query-gpu=" + query + " --format=csv,noheader,nounits 2>/dev/null").c_str(), "r");
    if (pipe == nullptr) return out;
    char buffer[512];
    while (std::fgets(buffer, sizeof buffer, pipe) != nullptr) out += buffer;
    if (pclose(pipe) != 0) return "";
    while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
    return out;
}

std::vector<std::string> split(const std::string& s)
{
    std::vector<std::string> parts;
    std::stringstream in(s);
    for (std::string part; std::getline(in, part, ',');) {
        part.erase(0, part.find_first_not_of(' '));
        parts.push_back(part);
    }
    return parts;
}

}  // namespace

Conditions read_conditions()
{
    Conditions c;
    c.gpu = device_info().name;
    const auto f = split(run_nvidia_smi("clocks.sm,clocks.max.sm,clocks.mem,clocks_event_reasons.active"));
    if (f.size() != 4) {
        c.clocks = "clocks unknown (nvidia-smi gave no answer)";
        c.throttle = "unknown";
        return c;
    }
    c.clocks = "SM " + f[0] + " MHz (max " + f[1] + "), memory " + f[2] + " MHz";
    // Bit 0 is "GPU idle", which is not a slowdown; any other active reason is.
    const unsigned long long reasons = std::strtoull(f[3].c_str(), nullptr, 16);
    c.throttled = (reasons & ~1ull) != 0;
    c.throttle = c.throttled ? "reasons " + f[3] : "none";
    return c;
}

std::string describe_conditions(const Conditions& start, const Conditions& end)
{
    const DeviceInfo info = device_info();
    const auto version = [](int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); };
    std::string driver = run_nvidia_smi("driver_version");
    if (driver.empty()) driver = "CUDA " + version(info.driver_version);
    return std::string(start.throttled || end.throttled ? "THROTTLED: " : "") + start.gpu + "; start: " +
           start.clocks + ", throttling " + start.throttle + "; end: " + end.clocks + ", throttling " +
           end.throttle + "; driver " + driver + ", CUDA " + version(info.runtime_version) + ", CCCL " +
           cccl_version() + "; " + today_utc();
}

}  // namespace course
