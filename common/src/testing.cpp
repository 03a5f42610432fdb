#include "course/testing.hpp"

#include "course/data.hpp"
#include "course/device.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <regex>
#include <sstream>
#include <utility>
#include <sys/wait.h>
#include <unistd.h>

namespace course::testing {
namespace {

struct GpuState {
    bool probed = false;
    std::optional<std::string> unavailable;  // reason, when there is no usable device
};

int skipped_count = 0;
std::string last_skip_reason;

// Records a GPU case left out, in the console and in doctest's machine-readable reports (the grader reads
// this message: a case that ran no assertion passes only as "not graded", with this reason).
void record_skip(const std::string& reason)
{
    ++skipped_count;
    last_skip_reason = reason;
    const std::string message = kSkipMarker + reason;
    MESSAGE(message);
}

GpuState& gpu_state()
{
    static GpuState state;
    if (!state.probed) {  // first use is inside a test case, i.e. after main() started
        state.probed = true;
        state.unavailable = gpu_unavailable_reason();
    }
    return state;
}

}  // namespace

namespace detail {
int skipped_gpu_cases() { return skipped_count; }
const std::string& skip_reason() { return last_skip_reason; }
std::uint64_t run_seed()
{
    static const std::uint64_t seed = []() -> std::uint64_t {
        const char* env = std::getenv("COURSE_SEED");
        if (env == nullptr) return fresh_seed();
        char* end = nullptr;
        errno = 0;
        const unsigned long long value = std::strtoull(env, &end, 10);
        if (*env < '0' || *env > '9' || *end != '\0' || errno == ERANGE) {
            std::fprintf(stderr, "error: COURSE_SEED=%s is not a number (use the seed a failing run printed)\n", env);
            std::exit(2);
        }
        return value;
    }();
    return seed;
}
}  // namespace detail

bool gpu_available_or_skip()
{
    if (const auto& reason = gpu_state().unavailable) {
        record_skip(*reason);
        return false;
    }
    return true;
}

bool gpu_memory_or_skip(std::size_t bytes)
{
    if (!gpu_available_or_skip()) return false;
    const std::size_t free_bytes = free_device_memory();
    if (free_bytes < bytes) {
        record_skip("needs " + std::to_string(bytes >> 20) + " MiB of device memory, " +
                    std::to_string(free_bytes >> 20) + " MiB free");
        return false;
    }
    return true;
}

std::uint64_t seed(std::uint64_t salt) { return detail::run_seed() + salt * 0x9E3779B97F4A7C15ull; }

std::vector<std::size_t> standard_sizes(int block)
{
    const std::size_t b = static_cast<std::size_t>(block);
    std::vector<std::size_t> sizes{0, 1, 2, 31, 32, 33, b - 1, b, b + 1, 999983};
    if (!under_sanitizer()) sizes.push_back((std::size_t{1} << 24) + 7);
    std::sort(sizes.begin(), sizes.end());
    sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
    return sizes;
}

bool under_sanitizer() { return std::getenv("COURSE_SANITIZER") != nullptr; }

bool skip_under_sanitizer(const char* reason, std::initializer_list<const char*> tools)
{
    const char* tool = std::getenv("COURSE_SANITIZER");
    if (tool == nullptr) return false;
    for (const char* t : tools)
        if (std::string(t) == tool) {
            record_skip(std::string(tool) + ": " + reason);
            return true;
        }
    return false;
}

namespace {

std::optional<std::string> find_cuda_tool(const char* tool)
{
    std::vector<std::string> dirs;
    if (const char* path = std::getenv("PATH")) {
        std::stringstream list(path);
        for (std::string dir; std::getline(list, dir, ':');) dirs.push_back(dir);
    }
    for (const char* var : {"CUDA_HOME", "CUDA_PATH"})
        if (const char* home = std::getenv(var)) dirs.push_back(std::string(home) + "/bin");
    dirs.push_back("/usr/local/cuda/bin");
    for (const std::string& dir : dirs) {
        const std::string candidate = (dir.empty() ? "." : dir) + "/" + tool;
        if (access(candidate.c_str(), X_OK) == 0) return candidate;
    }
    return std::nullopt;
}

std::string self_path()
{
    char self[4096];
    const ssize_t length = readlink("/proc/self/exe", self, sizeof self - 1);
    REQUIRE_MESSAGE(length > 0, "cannot find this test program (/proc/self/exe)");
    return std::string(self, static_cast<std::size_t>(length));
}

// Runs a shell command; its exit code (-1 when it did not exit normally) and its output, stderr included.
std::pair<int, std::string> run_command(const std::string& command)
{
    std::string output;
    FILE* pipe = popen((command + " 2>&1").c_str(), "r");
    REQUIRE_MESSAGE(pipe != nullptr, "could not run: " << command);
    char buffer[4096];
    for (std::size_t got; (got = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) output.append(buffer, got);
    const int status = pclose(pipe);
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, output};
}

// One CSV line, quotes removed ("a","b,c" -> a | b,c).
std::vector<std::string> csv_fields(const std::string& line)
{
    std::vector<std::string> fields(1);
    bool quoted = false;
    for (char c : line) {
        if (c == '"') quoted = !quoted;
        else if (c == ',' && !quoted) fields.emplace_back();
        else if (c != '\r') fields.back() += c;
    }
    return fields;
}

std::string shell_quote(const std::string& s)
{
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

// The tool found something when one of its summary lines ("ERROR SUMMARY: 2 errors", "RACECHECK SUMMARY:
// 51 hazards displayed (0 errors, 51 warnings)") counts more than zero.
bool summaries_clean(const std::string& report)
{
    bool seen = false;
    std::istringstream lines(report);
    for (std::string line; std::getline(lines, line);) {
        const auto at = line.find("SUMMARY: ");
        if (at == std::string::npos) continue;
        seen = true;
        if (line.compare(at + 9, 2, "0 ") != 0) return false;
    }
    return seen;
}

}  // namespace

void check_sanitizer_clean(const char* task, const char* tool, const std::string& filter)
{
    if (under_sanitizer()) {
        MESSAGE((std::string(tool) + " check left to the outer compute-sanitizer run"));
        VERIFY(true, "");
        return;
    }
    if (!gpu_available_or_skip()) return;
    const auto sanitizer = find_cuda_tool("compute-sanitizer");
    if (!sanitizer) {
        record_skip("compute-sanitizer was not found (it comes with the CUDA Toolkit: put its bin directory "
                    "on PATH); the " + std::string(tool) + " check of " + task + " did not run");
        return;
    }
    const std::string command = "COURSE_SANITIZER=" + std::string(tool) + " COURSE_SEED=" +
                                std::to_string(detail::run_seed()) + " " + shell_quote(*sanitizer) +
                                " --tool " + tool + " --error-exitcode 99 --print-limit 10 " +
                                shell_quote(self_path()) + " " + shell_quote("--test-case=" + filter) +
                                " --no-colors=true";
    const auto [code, report] = run_command(command);
    std::smatch counts;  // doctest's "[doctest] test cases: 3 | 3 passed | 0 failed | ..."
    const bool cases_passed =
        code == 0 && std::regex_search(report, counts, std::regex(R"(test cases:\s*\d+ \|\s*(\d+) passed)")) &&
        std::stoi(counts[1].str()) > 0;
    const bool clean = summaries_clean(report);
    VERIFY(cases_passed && clean,
           std::string(task) << ": compute-sanitizer --tool " << std::string(tool) << " on '" << filter << "' "
                             << std::string(clean ? "(no hazard reported) but the cases failed or did not run"
                                                  : "reports a problem (a race, a missing barrier or a barrier "
                                                    "not every thread reaches)")
                             << "; exit code " << code << "; its report:\n" << report.substr(0, 6000));
}

std::optional<double> ncu_metric(const std::string& filter, const std::string& kernel, const std::string& metric)
{
    if (under_sanitizer()) {
        record_skip("Nsight Compute cannot run inside compute-sanitizer");
        return std::nullopt;
    }
    if (!gpu_available_or_skip()) return std::nullopt;
    const auto ncu = find_cuda_tool("ncu");
    if (!ncu) {
        record_skip("Nsight Compute (ncu) was not found (it comes with the CUDA Toolkit: put its bin directory "
                    "on PATH); the lesson check did not run");
        return std::nullopt;
    }
    const std::string command = "COURSE_PROFILING=1 COURSE_SEED=" + std::to_string(detail::run_seed()) + " " +
                                shell_quote(*ncu) + " --metrics " + metric + " --kernel-name regex:" +
                                shell_quote(kernel) + " --csv --page raw --print-units base " +
                                shell_quote(self_path()) + " " + shell_quote("--test-case=" + filter);
    const auto [code, output] = run_command(command);
    if (output.find("ERR_NVGPUCTRPERM") != std::string::npos) {
        record_skip("Nsight Compute may not read the GPU's performance counters here (ERR_NVGPUCTRPERM)");
        return std::nullopt;
    }
    std::istringstream lines(output);
    std::vector<std::string> head;
    std::size_t column = 0;
    double sum = 0;
    int launches = 0;
    for (std::string line; std::getline(lines, line);) {
        if (line.empty() || line[0] != '"') continue;
        const auto fields = csv_fields(line);
        if (head.empty()) {
            const auto at = std::find(fields.begin(), fields.end(), metric);
            if (at == fields.end()) continue;
            head = fields;
            column = static_cast<std::size_t>(at - fields.begin());
            continue;
        }
        if (fields.size() != head.size()) continue;
        std::string value;
        for (char c : fields[column])
            if (c != ',') value += c;
        char* end = nullptr;
        const double v = std::strtod(value.c_str(), &end);
        if (end == value.c_str()) continue;  // the units row
        sum += v;
        ++launches;
    }
    REQUIRE_MESSAGE(code == 0, "ncu failed (exit code " << code << "):\n" << output.substr(0, 4000));
    REQUIRE_MESSAGE(launches > 0, "ncu profiled no launch of a kernel named like '" << kernel << "' in '"
                                                                                     << filter << "':\n"
                                                                                     << output.substr(0, 4000));
    return sum;
}

std::vector<int> power_of_two_blocks(int min_block, int max_block)
{
    std::vector<int> blocks;
    for (int b = min_block; b <= max_block; b *= 2) blocks.push_back(b);
    return blocks;
}

namespace {
std::string last_call_noted;
}

const std::string& detail::last_call() { return last_call_noted; }

std::string detail::note_call(const std::string& task, const std::string& what)
{
    last_call_noted = task + ": " + what;
    return last_call_noted;
}

std::string call(const std::string& name, std::size_t n, int block)
{
    std::string s = name + "(n=" + std::to_string(n);
    if (block > 0) s += ", block=" + std::to_string(block);
    return s + ")";
}

}  // namespace course::testing
