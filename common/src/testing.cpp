#include "course/testing.hpp"

#include "course/data.hpp"
#include "course/device.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <memory>
#include <optional>
#include <regex>
#include <sstream>
#include <thread>
#include <utility>
#include <unistd.h>

namespace course::testing {
using detail::find_cuda_tool;
using detail::record_skip;
using detail::run_under_tool;
using detail::run_under_tools;
using detail::ToolCommand;
using detail::ToolRun;

namespace {
int skipped_count = 0;
std::string last_skip_reason;
}  // namespace

// Records a GPU case left out, in the console and in doctest's machine-readable reports (the grader reads
// this message: a case that ran no assertion passes only as "not graded", with this reason).
void detail::record_skip(const std::string& reason)
{
    ++skipped_count;
    last_skip_reason = reason;
    const std::string message = kSkipMarker + reason;
    MESSAGE(message);
}

std::optional<std::string> detail::find_cuda_tool(const char* tool)
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

namespace {

int doubtful = 0;  // detail::doubtful_failures

struct GpuState {
    bool probed = false;
    std::optional<std::string> unavailable;  // reason, when there is no usable device
    std::optional<std::string> runner_blind;  // the runner sees no GPU (or crashed when asked) where there is one
};


// What the program's own runner says of its GPU ("@device"). The checks open no CUDA context of their own
// unless the runner says there is no GPU, or too little memory: they then look for themselves, so that nothing
// is left out on the runner's word. A program with no runner (the course's own GPU helper tests) always looks.
bool has_runner() { return std::getenv("COURSE_RUNNER") != nullptr; }
checker::Result ask_runner()
{
    return has_runner() ? checker::program_session().run(checker::Call("@device", 0)) : checker::Result{};
}

GpuState& gpu_state()
{
    static GpuState state;
    if (!state.probed) {  // first use is inside a test case, i.e. after main() started
        state.probed = true;
        const checker::Result r = ask_runner();
        if (r.ok() && !r.value("unavailable")) return state;
        state.unavailable = gpu_unavailable_reason();
        if (!state.unavailable && has_runner())
            state.runner_blind = r.ok() ? "the runner finds no GPU on a machine that has one (it says: " +
                                              *r.value("unavailable") + ")"
                                        : "the runner did not answer whether it has a GPU: " + r.what();
        // A GPU that is there but gave the runner or the checks no context: its memory may be another
        // program's (the grader runs the test again alone).
        if (state.runner_blind || (state.unavailable && gpu_present())) ++doubtful;
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
    const GpuState& state = gpu_state();
    if (state.runner_blind) {
        FAIL_CHECK(*state.runner_blind);
        return false;
    }
    if (state.unavailable) {
        record_skip(*state.unavailable);
        return false;
    }
    return true;
}

bool gpu_memory_or_skip(std::size_t bytes)
{
    if (!gpu_available_or_skip()) return false;
    const checker::Result r = ask_runner();
    if (r.ok() && static_cast<std::size_t>(std::max(0LL, r.number("free", 0))) >= bytes) return true;
    // Too little on the runner's word: the checks look for themselves, with no runner of theirs alive, so that
    // memory a runner holds makes the large case fail, not disappear. (The driver frees a process's memory as
    // it ends: a few looks, a moment apart.)
    checker::program_session().restart();
    std::size_t free_bytes = free_device_memory();
    for (int look = 0; look < 10 && free_bytes < bytes; ++look) {
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        free_bytes = free_device_memory();
    }
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
    const std::uint64_t r = seed(0x51235) * 0xD1342543DE82EF95ull;  // the run's two odd sizes
    std::vector<std::size_t> sizes{0, 1, 2, 31, 32, 33, b - 1, b, b + 1, 1000, 5000, 999983,
                                   static_cast<std::size_t>(((r >> 8) % 2048) * 2 + 3),
                                   static_cast<std::size_t>(((r >> 32) % (1u << 19)) * 2 + 4097)};
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

}  // namespace

// The tool found something when one of its summary lines ("ERROR SUMMARY: 2 errors", "RACECHECK SUMMARY:
// 51 hazards displayed (0 errors, 51 warnings)") counts more than zero; a report without one is not clean.
bool detail::summaries_clean(const std::string& report)
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

bool detail::tool_could_not_watch(const std::string& report)
{
    return report.find("Error: Device not supported") != std::string::npos;
}

std::optional<std::vector<ToolRun>> detail::run_sanitizer_tools(const std::string& task,
                                                                const std::vector<const char*>& tools,
                                                                const std::function<void()>& calls)
{
    if (under_sanitizer()) {
        for (const char* tool : tools) MESSAGE((std::string(tool) + " check left to the sanitizer setup's own tool"));
        VERIFY(true, "");
        return std::nullopt;
    }
    if (!gpu_available_or_skip()) return std::nullopt;
    const auto sanitizer = find_cuda_tool("compute-sanitizer");
    if (!sanitizer) {
        record_skip("compute-sanitizer was not found (it comes with the CUDA Toolkit: put its bin directory "
                    "on PATH); the " + std::string(tools.front()) + " check of " + task + " did not run");
        return std::nullopt;
    }
    std::vector<ToolCommand> commands;
    for (const char* tool : tools) {
        const std::string log = checker::temporary_path(std::string(tool) + ".log");
        commands.push_back({checker::sanitizer_command(tool, log), log});
        commands.back().command.front() = *sanitizer;
    }
    // compute-sanitizer itself now and then ends without writing its summary after its runner has answered
    // every call (H100, CUDA 13.0: exit code 139, or no end at all): such a run is made once more.
    return run_under_tools(commands, calls, [](const checker::Session::End& end) {
        return end.log.find("SUMMARY: ") == std::string::npos;
    });
}

std::string detail::tool_problem(const std::string& task, const char* tool, const ToolRun& run)
{
    const std::string prefix = task + ": compute-sanitizer --tool " + tool;
    const checker::Session::End& end = run.end;
    if (!run.again.empty()) MESSAGE(prefix << run.again);
    if (end.stalled_starts > 0)
        MESSAGE(prefix << ": the chain stalled before the runner started " << end.stalled_starts
                       << " time(s) and was started again");
    const bool summarized = end.log.find("SUMMARY: ") != std::string::npos;
    const bool ran = run.answered > 0 && run.answered == run.asked && end.restarts == 0 && end.exit_code == 0 &&
                     end.signal == 0;
    const bool blind = detail::tool_could_not_watch(end.log);
    if (blind) ++doubtful;
    const bool reported_nothing = detail::summaries_clean(end.log);
    if (reported_nothing && ran) return "";
    std::ostringstream problem;
    problem << prefix << " "
            << (reported_nothing ? "(no hazard reported) but its runner did not answer every call and end normally"
                : blind ? "could not watch the kernels (its own error: no GPU memory left for it beside other "
                          "programs?)"
                : summarized ? "reports a problem (a race, a missing barrier or a barrier not every thread reaches)"
                             : "ended without its summary")
            << "; calls answered " << run.answered << " of " << run.asked << ", runners restarted " << end.restarts
            << ", exit code " << end.exit_code << run.again << "; its report:\n"
            << end.log.substr(0, 6000);
    return problem.str();
}

std::vector<bool> check_tools_clean(const std::string& task, const std::vector<const char*>& tools,
                                    const std::function<void()>& calls)
{
    std::vector<bool> clean(tools.size(), true);
    const auto runs = detail::run_sanitizer_tools(task, tools, calls);
    if (!runs) return clean;
    for (std::size_t i = 0; i < tools.size(); ++i) {
        const std::string problem = detail::tool_problem(task, tools[i], (*runs)[i]);
        clean[i] = problem.empty();
        VERIFY(clean[i], problem);
    }
    return clean;
}

bool check_tool_clean(const std::string& task, const char* tool, const std::function<void()>& calls)
{
    return check_tools_clean(task, {tool}, calls).front();
}

std::optional<std::vector<NcuLaunch>> ncu_launches(const std::vector<std::string>& metrics,
                                                   const std::vector<std::string>& options,
                                                   const std::function<void()>& calls)
{
    if (under_sanitizer()) {
        record_skip("Nsight Compute cannot run inside compute-sanitizer");
        return std::nullopt;
    }
    if (!gpu_available_or_skip()) return std::nullopt;
    const auto ncu = find_cuda_tool("ncu");
    if (!ncu) {
        record_skip("Nsight Compute (ncu) was not found (it comes with the CUDA Toolkit: put its bin directory "
                    "on PATH); the check did not run");
        return std::nullopt;
    }
    std::string metric_list;
    for (const std::string& m : metrics) metric_list += (metric_list.empty() ? "" : ",") + m;
    const std::string log = checker::temporary_path("ncu.log");
    std::vector<std::string> command{*ncu, "--target-processes", "all", "--metrics", metric_list, "--csv", "--page",
                                     "raw", "--print-units", "base", "--log-file", log};
    command.insert(command.end(), options.begin(), options.end());
    // Nsight Compute itself now and then crashes after its runner has answered every call (H100, CUDA 13.0: exit
    // code 139 after "Disconnected from process"): such a session is made once more.
    const auto no_counters = [](const checker::Session::End& end) {
        return end.log.find("ERR_NVGPUCTRPERM") != std::string::npos ||
               end.output.find("ERR_NVGPUCTRPERM") != std::string::npos;
    };
    const ToolRun run = run_under_tool(command, log, calls, [&](const checker::Session::End& end) {
        return (end.exit_code != 0 || end.signal != 0) && !no_counters(end);
    });
    const checker::Session::End& end = run.end;
    if (no_counters(end)) {
        record_skip("Nsight Compute may not read the GPU's performance counters here (ERR_NVGPUCTRPERM)");
        return std::nullopt;
    }
    REQUIRE_MESSAGE((end.exit_code == 0 && end.signal == 0),
                    "ncu failed (exit code " << end.exit_code << ", signal " << end.signal << "; calls answered "
                                             << run.answered << " of " << run.asked << ", runners restarted "
                                             << end.restarts << run.again << "):\n" << end.log.substr(0, 4000)
                                             << end.output.substr(0, 2000));
    if (!run.again.empty()) MESSAGE("Nsight Compute" << run.again);
    return detail::ncu_rows(end.log, metrics);
}

std::vector<ToolRun> detail::run_under_tools(const std::vector<ToolCommand>& tools, const std::function<void()>& calls,
                                             const std::function<bool(const checker::Session::End&)>& tool_failed)
{
    // Each tool's chain starts once the one before has said hello (both at once stalled more often: 25 stalled
    // starts in an H200 fixture class, 13 so with more tests at once), so that a start (about a second under a
    // tool beside other programs) overlaps the calls before it, and each runner is told to end once its calls are
    // done, so that its tool ends and writes its report while the next one's calls run.
    std::vector<std::unique_ptr<checker::Session>> sessions;
    for (const ToolCommand& t : tools) sessions.push_back(std::make_unique<checker::Session>(t.command, t.log));
    const auto call_in = [&](checker::Session& session) {
        {
            const checker::UseSession use(session);
            calls();
        }
        session.hang_up();
    };
    for (std::size_t i = 0; i < sessions.size(); ++i) {
        sessions[i]->ready();
        if (i + 1 < sessions.size()) sessions[i + 1]->begin();
        call_in(*sessions[i]);
    }
    std::vector<ToolRun> runs(tools.size());
    for (std::size_t i = 0; i < tools.size(); ++i) {
        ToolRun& run = runs[i];
        for (checker::Session* session = sessions[i].get();;) {
            run.answered = session->calls();
            run.asked = session->requests();
            run.end = session->finish();
            if (!run.again.empty() || !tool_failed(run.end) || run.answered != run.asked || run.end.restarts != 0)
                break;
            run.again = "; a first run, every call answered, ended as the tool's own failure (exit code " +
                        std::to_string(run.end.exit_code) + ", signal " + std::to_string(run.end.signal) +
                        ") and was made again";
            sessions[i] = std::make_unique<checker::Session>(tools[i].command, tools[i].log);
            session = sessions[i].get();
            call_in(*session);
        }
    }
    return runs;
}

ToolRun detail::run_under_tool(const std::vector<std::string>& command, const std::string& log,
                               const std::function<void()>& calls,
                               const std::function<bool(const checker::Session::End&)>& tool_failed)
{
    return run_under_tools({{command, log}}, calls, tool_failed).front();
}

std::vector<NcuLaunch> detail::ncu_rows(const std::string& log, const std::vector<std::string>& metrics)
{
    // One row per profiled launch: its kernel's name, then the metrics (after a row of units).
    std::vector<NcuLaunch> launches;
    std::istringstream lines(log);
    std::vector<std::string> head;
    for (std::string line; std::getline(lines, line);) {
        if (line.empty() || line[0] != '"') continue;
        const auto fields = csv_fields(line);
        if (head.empty()) {
            if (std::find(fields.begin(), fields.end(), "Kernel Name") != fields.end()) head = fields;
            continue;
        }
        if (fields.size() != head.size()) continue;
        const auto field = [&](const std::string& column) {
            return fields[static_cast<std::size_t>(std::find(head.begin(), head.end(), column) - head.begin())];
        };
        NcuLaunch launch{field("Kernel Name"), {}, {}};
        for (const std::string& metric : metrics) {
            REQUIRE_MESSAGE(std::find(head.begin(), head.end(), metric) != head.end(),
                            "ncu reported no column " << metric << ":\n" << log.substr(0, 4000));
            std::string value;
            for (char c : field(metric))
                if (c != ',') value += c;
            launch.text[metric] = field(metric);
            char* end_of_number = nullptr;
            const double v = std::strtod(value.c_str(), &end_of_number);
            if (end_of_number != value.c_str()) launch.metrics[metric] = v;
        }
        if (!launch.kernel.empty()) launches.push_back(std::move(launch));  // not the units row
    }
    return launches;
}

std::optional<Profile> ncu_profile(const std::vector<std::string>& kernels, const std::vector<std::string>& metrics,
                                   const std::function<void()>& calls)
{
    std::string any_kernel;
    for (const std::string& k : kernels) any_kernel += (any_kernel.empty() ? "" : "|") + k;
    const auto launches = ncu_launches(metrics, {"--kernel-name", "regex:" + any_kernel}, calls);
    if (!launches) return std::nullopt;
    Profile profile;
    std::map<std::string, int> counted;
    for (const NcuLaunch& launch : *launches) {
        const auto kernel = std::find_if(kernels.begin(), kernels.end(), [&](const std::string& k) {
            return std::regex_search(launch.kernel, std::regex(k));
        });
        if (kernel == kernels.end() || launch.metrics.empty()) continue;
        for (const auto& [metric, value] : launch.metrics) profile[*kernel][metric] += value;
        ++counted[*kernel];
    }
    for (const std::string& k : kernels)
        REQUIRE_MESSAGE(counted[k] > 0, "ncu profiled no launch of a kernel named like '" << k << "'");
    return profile;
}

bool returned(const std::string& task, const std::string& what, const checker::Result& result)
{
    VERIFY(result.ok(), task << ": " << what << " " << result.what());
    return result.ok();
}

void check_rejected(const std::string& task, const std::string& what, const checker::Result& result,
                    const std::string& must_contain)
{
    VERIFY(result.rejected(), task << ": " << what << " must throw std::invalid_argument before it runs anything; "
                                   << "instead: " << result.what());
    if (result.rejected() && !must_contain.empty())
        VERIFY(result.message.find(must_contain) != std::string::npos,
               task << ": " << what << " threw std::invalid_argument(\"" << result.message << "\"), which does not say \""
                    << must_contain << "\"");
}

namespace {
// The registered cases; doctest wants a plain function per case, so case i runs through run_registered<i>.
struct RegisteredCase {
    std::string name;
    std::function<void()> body;
};
constexpr std::size_t max_registered_cases = 256;
std::deque<RegisteredCase>& registered_cases()
{
    static std::deque<RegisteredCase> cases;  // a deque: a case's name stays where doctest points to it
    return cases;
}
template <std::size_t I>
void run_registered() { registered_cases()[I].body(); }
template <std::size_t... I>
constexpr std::array<void (*)(), sizeof...(I)> registered_functions(std::index_sequence<I...>)
{
    return {&run_registered<I>...};
}
}  // namespace

int register_case(const char* file, int line, const std::string& name, std::function<void()> body)
{
    static constexpr auto functions = registered_functions(std::make_index_sequence<max_registered_cases>());
    auto& cases = registered_cases();
    if (cases.size() == functions.size()) {
        std::fprintf(stderr, "error: more than %zu registered test cases (course::testing::register_case)\n",
                     functions.size());
        std::abort();
    }
    const int index = static_cast<int>(cases.size());
    cases.push_back({name, std::move(body)});
    const char* stable = cases.back().name.c_str();
    // An id, as a TEST_CASE_TEMPLATE's instances have, orders the cases of one file and line; the full name is
    // the name itself (a template's would end in its type), in every doctest release that reads it.
    doctest::detail::TestCase test(functions[static_cast<std::size_t>(index)], file, static_cast<unsigned>(line),
                                   doctest_detail_test_suite_ns::getCurrentTestSuite(), "", index);
    test * stable;
    test.m_full_name = stable;
    test.m_name = stable;
    doctest::detail::regTest(test);
    return 0;
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

bool rate_passes(double rate, double threshold)
{
    if (rate > threshold) return true;
    ++doubtful;
    return false;
}

int detail::doubtful_failures() { return doubtful; }

std::string detail::note_call(const std::string& task, const std::string& what)
{
    last_call_noted = task + ": " + what;
    return last_call_noted;
}

std::string call(const std::string& name, std::size_t n, int block)
{
    std::string s = name + "(n=" + std::to_string(n);
    if (block != no_block) s += ", block=" + std::to_string(block);
    return s + ")";
}

}  // namespace course::testing
