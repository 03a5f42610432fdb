#include "course/performance.hpp"

#include "course/testing.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

extern char** environ;

namespace course::testing {
namespace {

const std::string time_metric = "gpu__time_duration.sum";  // ns
const std::string read_metric = "dram__bytes_read.sum";    // bytes
const std::string name_metric = "device__attribute_display_name";
const std::string marker = "course_timed_call_marker";
// Caches flushed and clocks locked at base before every kernel: each one timed the same way, run after run.
const std::vector<std::string> timing_options{"--cache-control", "all", "--clock-control", "base"};

struct CallTime {
    double ns = 0;
    double reads = 0;
};

// The launches cut into calls at the markers (what ran before the first one counts in the first call); empty
// when the markers are not one per call.
std::vector<CallTime> calls_of(const std::vector<NcuLaunch>& launches, std::size_t calls)
{
    std::vector<CallTime> out;
    for (const NcuLaunch& l : launches) {
        if (l.kernel.find(marker) != std::string::npos) {
            out.emplace_back();
            continue;
        }
        if (out.empty()) out.emplace_back();
        const auto value = [&](const std::string& m) { return l.metrics.count(m) ? l.metrics.at(m) : 0.0; };
        out.back().ns += value(time_metric);
        out.back().reads += value(read_metric);
    }
    const std::size_t markers = static_cast<std::size_t>(
        std::count_if(launches.begin(), launches.end(),
                      [](const NcuLaunch& l) { return l.kernel.find(marker) != std::string::npos; }));
    if (markers != calls || out.size() != calls) return {};
    return out;
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

// The median time of each input kind's runs (calls in kind order, `runs` each), and their sum over the kinds.
double kinds_ns(const std::vector<CallTime>& calls, std::size_t first, std::size_t kinds, int runs,
                std::vector<double>* per_kind = nullptr)
{
    double total = 0;
    for (std::size_t k = 0; k < kinds; ++k) {
        std::vector<double> ns;
        for (int r = 0; r < runs; ++r) ns.push_back(calls[first + k * runs + r].ns);
        total += median(ns);
        if (per_kind) per_kind->push_back(median(ns));
    }
    return total;
}

std::string read_file(const std::string& path)
{
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

// course_baselines under ncu: its launches, or nullopt (the case failed or was skipped). With
// COURSE_BASELINES_CACHE set (tools/grade.py: a folder per GPU that no runner can reach), its ncu log is kept
// there and read again by the later tests of the batch: measured once per GPU and grading run.
std::optional<std::vector<NcuLaunch>> baseline_launches(const Performance& p)
{
    const std::vector<std::string> metrics{time_metric, name_metric};
    const char* cache = std::getenv("COURSE_BASELINES_CACHE");
    const std::string cached = cache == nullptr ? "" : std::string(cache) + "/" + p.baseline + "-" + std::to_string(p.n) +
                                                           "-" + std::to_string(p.runs) + ".csv";
    if (!cached.empty() && std::filesystem::exists(cached)) return detail::ncu_rows(read_file(cached), metrics);
    const char* program = std::getenv("COURSE_BASELINES");
    REQUIRE_MESSAGE(program != nullptr, "COURSE_BASELINES is not set (meson test sets it to the course's "
                                        "course_baselines program)");
    const auto ncu = detail::find_cuda_tool("ncu");
    if (!ncu) {
        detail::record_skip("Nsight Compute (ncu) was not found (it comes with the CUDA Toolkit: put its bin "
                            "directory on PATH); the performance task did not run");
        return std::nullopt;
    }
    const std::string log = checker::temporary_path("baselines.ncu.log");
    const std::string output = checker::temporary_path("baselines.out");
    std::vector<std::string> args{*ncu, "--metrics", time_metric + "," + name_metric, "--csv", "--page", "raw",
                                  "--print-units", "base", "--log-file", log};
    args.insert(args.end(), timing_options.begin(), timing_options.end());
    for (std::string a : {std::string(program), p.baseline, std::to_string(p.n), std::to_string(p.runs)})
        args.push_back(std::move(a));
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t files;
    posix_spawn_file_actions_init(&files);
    posix_spawn_file_actions_addopen(&files, 1, output.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_adddup2(&files, 1, 2);
    pid_t pid = 0;
    const int spawned = posix_spawn(&pid, argv[0], &files, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&files);
    REQUIRE_MESSAGE(spawned == 0, "could not start " << *ncu);
    int status = 0;
    waitpid(pid, &status, 0);
    const std::string text = read_file(log), out_text = read_file(output);
    if (text.find("ERR_NVGPUCTRPERM") != std::string::npos || out_text.find("ERR_NVGPUCTRPERM") != std::string::npos) {
        detail::record_skip("Nsight Compute may not read the GPU's performance counters here (ERR_NVGPUCTRPERM)");
        return std::nullopt;
    }
    REQUIRE_MESSAGE((WIFEXITED(status) && WEXITSTATUS(status) == 0),
                    "course_baselines under ncu failed:\n" << out_text.substr(0, 3000) << text.substr(0, 3000));
    if (!cached.empty()) {  // whole or not at all: written aside, then renamed
        std::filesystem::create_directories(cache);
        std::ofstream(cached + ".part") << text;
        std::filesystem::rename(cached + ".part", cached);
    }
    return detail::ncu_rows(text, metrics);
}

std::string percent(double fraction)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.1f%%", 100 * fraction);
    return text;
}

std::string json_string(const std::string& s)
{
    std::string out = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') out += '\\';
        if (static_cast<unsigned char>(c) >= 0x20) out += c;
    }
    return out + "\"";
}

}  // namespace

void check_performance(const Performance& p)
{
    REQUIRE_GPU_MEMORY(p.gpu_memory);
    if (under_sanitizer()) {
        detail::record_skip("performance is timed outside the sanitizer setups");
        return;
    }
    const std::string task_id = p.task.substr(5, p.task.size() - 6);  // "TODO(04.6)" -> "04.6"
    const std::size_t kinds = p.inputs.size();
    const std::size_t calls = kinds * static_cast<std::size_t>(p.runs);

    const auto baseline = baseline_launches(p);
    if (!baseline) return;
    const std::vector<CallTime> base = calls_of(*baseline, static_cast<std::size_t>(p.runs) + calls);
    REQUIRE_MESSAGE(!base.empty(), "course_baselines: its ncu log does not hold one marker per call");
    const double copy_ns = kinds_ns(base, 0, 1, p.runs);
    const double copy_bps = 2.0 * (1u << 30) / (copy_ns * 1e-9);  // course_baselines copies 1 GiB
    const double cub_ns = kinds_ns(base, static_cast<std::size_t>(p.runs), kinds, p.runs) / kinds;
    std::string gpu = "?";
    if (!baseline->empty() && baseline->front().text.count(name_metric)) gpu = baseline->front().text.at(name_metric);

    std::string wrong;
    const auto launches = ncu_launches({time_metric, read_metric}, timing_options, [&] {
        wrong.clear();  // ncu_launches may run the calls a second time
        std::size_t call_index = 0;
        for (const std::string& input : p.inputs)
            for (int run = 0; run < p.runs && wrong.empty(); ++run, ++call_index) {
                TimedCall t = p.timed(input, seed(0x7e5f00 + call_index));
                t.call.param("course_mark", 1).timeout(std::chrono::seconds(120));
                checker::Session& runner = checker::session();
                const checker::Result r = runner.run(t.call);
                const std::string problem = r.ok() ? t.problem(runner, r) : r.what();
                if (!problem.empty())
                    wrong = "timed run " + std::to_string(run + 1) + (input.empty() ? "" : " on " + input) + ": " +
                            call(p.kernel, p.n) + " " + problem;
            }
    });
    if (!launches) return;
    VERIFY(wrong.empty(), p.task << " performance: " << wrong << " (every timed call is checked)");
    if (!wrong.empty()) return;
    const std::vector<CallTime> timed = calls_of(*launches, calls);
    VERIFY(!timed.empty(), p.task << " performance: Nsight Compute saw " << launches->size() << " launches with a "
                                  << "number of " << marker << " kernels other than the " << calls << " timed calls "
                                  << "(the course's marker between calls; no kernel of yours may take its name)");
    if (timed.empty()) return;
    for (std::size_t k = 0; k < calls; ++k)
        VERIFY(timed[k].reads >= 0.98 * p.reads,
               p.task << " performance: the kernels of timed call " << k + 1 << " read " << timed[k].reads / 1048576
                      << " MiB from DRAM, less than its " << p.reads / 1048576 << " MiB input: a call's result must "
                      << "come from kernels that read its input");
    std::vector<double> per_kind;
    const double kernel_ns = kinds_ns(timed, 0, kinds, p.runs, &per_kind) / kinds;
    const double kernel_bps = p.bytes / (kernel_ns * 1e-9), cub_bps = p.bytes / (cub_ns * 1e-9);
    const double fraction = kernel_bps / copy_bps, cub_fraction = cub_bps / copy_bps;

    std::ostringstream line;
    line.precision(4);
    line << p.task << " performance: " << p.kernel << " on " << p.size << " moves " << kernel_bps / 1e9
         << " GB/s = " << percent(fraction) << " of this GPU's copy bandwidth (" << copy_bps / 1e9 << " GB/s; CUB: "
         << percent(cub_fraction) << "), median of " << p.runs << " runs";
    if (kinds > 1) {
        line << " (";
        for (std::size_t k = 0; k < kinds; ++k)
            line << (k ? ", " : "") << p.inputs[k] << ": " << per_kind[k] / 1e6 << " ms";
        line << ")";
    }
    line << "; timed by Nsight Compute at base clocks, caches flushed; GPU: " << gpu;
    std::printf("%s\n", line.str().c_str());
    std::fflush(stdout);
    MESSAGE(line.str());
    VERIFY(fraction > 0, p.task << " performance: no time measured");

    if (const char* path = std::getenv("COURSE_PERFORMANCE_REPORT")) {
        std::ofstream report(path);
        report << "{\"task\": " << json_string(task_id) << ", \"kernel\": " << json_string(p.kernel)
               << ", \"n\": " << p.n << ", \"runs\": " << p.runs << ", \"fraction\": " << fraction
               << ", \"cub_fraction\": " << cub_fraction << ", \"kernel_gbps\": " << kernel_bps / 1e9
               << ", \"copy_gbps\": " << copy_bps / 1e9 << ", \"gpu\": " << json_string(gpu) << ", \"calls_ms\": [";
        for (std::size_t k = 0; k < calls; ++k) report << (k ? ", " : "") << timed[k].ns / 1e6;
        report << "]}\n";
    }
}

int register_performance(const char* file, int line, const Performance& p)
{
    return register_case(file, line, p.task + " performance: " + p.kernel + " on " + p.size +
                                         ", as a fraction of copy bandwidth",
                         [p] { check_performance(p); });
}

}  // namespace course::testing
