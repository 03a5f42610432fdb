#include "course/checker.hpp"

#include "course/data.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>

extern char** environ;

namespace course::checker {

// ------------------------------------------------------------------------------------------------ arenas
namespace {
std::mutex arenas_mutex;
std::vector<int> dead_arenas;  // arenas destroyed since a session last told its runner to drop them
int next_arena_id = 1;
}  // namespace

class Arena {
public:
    // Every page allocated up front (so that too little memory is an error here, not a SIGBUS at a write).
    // populate: mapped at once too, for one thread to write (about 4x faster than faulting in a page at a time);
    // without, the pages are allocated on all cores and mapped as the writers (all cores) first touch them.
    Arena(std::size_t bytes, const char* name, bool populate = true)
        : bytes_(std::max<std::size_t>(bytes, 1)), populate_(populate)
    {
        {
            std::lock_guard<std::mutex> lock(arenas_mutex);
            id_ = next_arena_id++;
        }
        fd_ = static_cast<int>(syscall(SYS_memfd_create, name, MFD_CLOEXEC | MFD_ALLOW_SEALING));
        if (fd_ < 0 || ftruncate(fd_, static_cast<off_t>(bytes_)) != 0) fail("memfd_create/ftruncate");
        std::atomic<int> error{0};
        const auto allocate = [&](std::size_t first, std::size_t last) {
            if (fallocate(fd_, 0, static_cast<off_t>(first), static_cast<off_t>(last - first)) != 0) error = errno;
        };
        if (populate_) allocate(0, bytes_);
        else for_each_chunk(bytes_, allocate);
        if (error != 0) {
            errno = error;
            fail("fallocate");
        }
        void* p = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_SHARED | (populate_ ? MAP_POPULATE : 0), fd_, 0);
        if (p == MAP_FAILED) fail("mmap");
        map_ = static_cast<unsigned char*>(p);
    }
    ~Arena()
    {
        if (map_ != nullptr) munmap(map_, bytes_);
        if (fd_ >= 0) close(fd_);
        std::lock_guard<std::mutex> lock(arenas_mutex);
        dead_arenas.push_back(id_);
    }
    Arena(const Arena&) = delete;
    Arena& operator=(const Arena&) = delete;

    // No more writes by anyone: the checker's own mapping becomes read-only, and the memfd's seals refuse a
    // writable mapping or a write() to any process that gets the descriptor.
    void seal()
    {
        munmap(map_, bytes_);
        map_ = nullptr;
        if (fcntl(fd_, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0) fail("F_ADD_SEALS");
        void* p = mmap(nullptr, bytes_, PROT_READ, MAP_SHARED | (populate_ ? MAP_POPULATE : 0), fd_, 0);
        if (p == MAP_FAILED) fail("mmap");
        map_ = static_cast<unsigned char*>(p);
        sealed_ = true;
    }
    // A read-only descriptor of the same memory, to hand to a runner.
    int reopen_read_only() const
    {
        const std::string path = "/proc/self/fd/" + std::to_string(fd_);
        const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd < 0) fail("open " + path);
        return fd;
    }

    int id() const { return id_; }
    int fd() const { return fd_; }
    std::size_t bytes() const { return bytes_; }
    unsigned char* data() { return map_; }
    const unsigned char* data() const { return map_; }
    bool sealed() const { return sealed_; }

private:
    [[noreturn]] static void fail(const std::string& what)
    {
        throw std::runtime_error("checker: shared memory: " + what + " failed: " + std::strerror(errno));
    }
    std::size_t bytes_;
    bool populate_;
    int id_ = 0;
    int fd_ = -1;
    unsigned char* map_ = nullptr;
    bool sealed_ = false;
};

Input::Input(const void* data, std::size_t count, std::size_t elem)
    : arena_(std::make_shared<Arena>(count * elem, "course-input")), count_(count), elem_(elem)
{
    if (count * elem > 0) std::memcpy(arena_->data(), data, count * elem);
    arena_->seal();
}

Input::Input(std::size_t count, std::size_t elem, const std::function<void(void*)>& fill)
    : arena_(std::make_shared<Arena>(count * elem, "course-input", false)), count_(count), elem_(elem)
{
    if (count * elem > 0) fill(arena_->data());
    arena_->seal();
}

const void* Input::bytes() const { return arena_ ? arena_->data() : nullptr; }

// ------------------------------------------------------------------------------------------------ calls
Call& Call::param(const std::string& key, long long value)
{
    params_.emplace_back(key, value);
    return *this;
}

Call& Call::add(boundary::BufferSpec spec, const std::shared_ptr<Arena>& source)
{
    buffers_.push_back(spec);
    sources_.push_back(source);
    return *this;
}

namespace {
// Where a buffer stands in the runner's memory (lead, count and tail elements of elem bytes) and how it starts.
boundary::BufferSpec laid_out(boundary::Role role, std::size_t elem, std::size_t lead, std::size_t count,
                              std::size_t tail, boundary::Init init)
{
    boundary::BufferSpec b;
    b.role = role;
    b.elem = elem;
    b.lead = lead;
    b.count = count;
    b.tail = tail;
    b.init = init;
    return b;
}

boundary::BufferSpec from_input(const Input& data, std::size_t first, std::size_t count, std::size_t lead,
                                std::size_t tail, boundary::Role role)
{
    if (lead > first || first + count + tail > data.size())
        throw std::logic_error("Call: elements outside the input (first " + std::to_string(first) + ", count " +
                               std::to_string(count) + ", lead " + std::to_string(lead) + ", input " +
                               std::to_string(data.size()) + ")");
    boundary::BufferSpec b = laid_out(role, data.elem(), lead, count, tail, boundary::Init::data);
    b.offset = (first - lead) * data.elem();
    return b;
}
}  // namespace

Call& Call::input(const Input& data, std::size_t first, std::size_t count, std::size_t lead, std::size_t tail)
{
    return add(from_input(data, first, count, lead, tail, boundary::Role::in), data.arena());
}

Call& Call::inout(const Input& data, std::size_t first, std::size_t count, std::size_t lead, std::size_t tail)
{
    return add(from_input(data, first, count, lead, tail, boundary::Role::inout), data.arena());
}

Call& Call::periodic(const Input& period, std::size_t count, boundary::Role role, std::size_t lead)
{
    boundary::BufferSpec b = laid_out(role, period.elem(), lead, count, 0, boundary::Init::periodic);
    b.period = period.size();
    return add(b, period.arena());
}

Call& Call::filled(std::size_t elem, std::size_t count, unsigned char byte, boundary::Role role, std::size_t lead)
{
    boundary::BufferSpec b = laid_out(role, elem, lead, count, 0, boundary::Init::fill);
    b.fill = byte;
    return add(b, nullptr);
}

Call& Call::output(std::size_t elem, std::size_t count, unsigned char poison, std::size_t tail, std::size_t lead)
{
    boundary::BufferSpec b = laid_out(boundary::Role::out, elem, lead, count, tail, boundary::Init::fill);
    b.fill = poison;
    b.back = 0;  // placed by the session
    return add(b, nullptr);
}

Call& Call::null(std::size_t elem)
{
    boundary::BufferSpec b;
    b.elem = elem;
    b.null = true;
    return add(b, nullptr);
}

Call& Call::fake(std::size_t elem, unsigned long long address)
{
    boundary::BufferSpec b;
    b.elem = elem;
    b.address = address;
    return add(b, nullptr);
}

Call& Call::returned()
{
    if (buffers_.empty()) throw std::logic_error("Call::returned() before any buffer");
    buffers_.back().back = 0;
    return *this;
}

// ------------------------------------------------------------------------------------------------ results
std::string Result::what() const
{
    switch (outcome) {
    case Outcome::ok: return "returned";
    case Outcome::rejected: return "threw std::invalid_argument: " + message;
    case Outcome::error: return "failed: " + message;
    case Outcome::crashed: return "the runner crashed: " + message;
    case Outcome::timed_out: return message;
    }
    return message;
}

const Result::Bytes& Result::bytes_of(std::size_t i, std::size_t elem) const
{
    if (i >= buffers.size() || (buffers[i].data == nullptr && buffers[i].size > 0))
        throw std::logic_error("Result: buffer " + std::to_string(i) + " did not come back");
    if (buffers[i].elem != elem) throw std::logic_error("Result: buffer " + std::to_string(i) + " read as another type");
    return buffers[i];
}

std::optional<std::string> Result::value(const std::string& key) const
{
    for (const auto& [k, v] : values)
        if (k == key) return v;
    return std::nullopt;
}

long long Result::number(const std::string& key, long long fallback) const
{
    const auto v = value(key);
    if (!v) return fallback;
    try {
        std::size_t used = 0;
        const long long x = std::stoll(*v, &used);
        return used == v->size() ? x : fallback;
    } catch (const std::exception&) {
        return fallback;
    }
}

// ------------------------------------------------------------------------------------------------ processes
namespace {

constexpr std::size_t kept_output = 64u << 10;  // bytes of the runner's output kept for messages
constexpr std::size_t max_returned = std::size_t{256} << 20;  // bytes one call asks back

std::string signal_name(int sig)
{
    switch (sig) {
    case SIGSEGV: return "SIGSEGV";
    case SIGABRT: return "SIGABRT";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGKILL: return "SIGKILL";
    case SIGTERM: return "SIGTERM";
    case SIGXCPU: return "SIGXCPU";
    case SIGXFSZ: return "SIGXFSZ (a file past its size limit)";
    default: return "signal " + std::to_string(sig);
    }
}

std::string find_program(const std::string& name)
{
    if (name.find('/') != std::string::npos) return name;
    const char* path = std::getenv("PATH");
    std::stringstream dirs(path != nullptr ? path : "/usr/bin:/bin");
    for (std::string dir; std::getline(dirs, dir, ':');) {
        const std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
        if (access(candidate.c_str(), X_OK) == 0) return candidate;
    }
    for (const char* dir : {"/usr/local/cuda/bin"}) {
        const std::string candidate = std::string(dir) + "/" + name;
        if (access(candidate.c_str(), X_OK) == 0) return candidate;
    }
    return name;
}

// The runner's whole environment: what finding the GPU and the tools needs, nothing of the checker's own.
std::vector<std::string> runner_environment()
{
    std::vector<std::string> env{"HOME=/tmp", "LANG=C"};
    for (const char* name : {"PATH", "LD_LIBRARY_PATH", "CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER"})
        if (const char* value = std::getenv(name)) env.push_back(std::string(name) + "=" + value);
    // One hardware work queue per runner instead of CUDA's 8: making and tearing down a context costs about
    // half as much, and beside other programs on the GPU that is where a runner's start spends its time (three
    // copies of the gpu suite at once: 68 s against 132 s, H100). Two streams' kernels still run side by side.
    const char* connections = std::getenv("CUDA_DEVICE_MAX_CONNECTIONS");
    env.push_back(std::string("CUDA_DEVICE_MAX_CONNECTIONS=") + (connections != nullptr ? connections : "1"));
    return env;
}

std::vector<std::string> read_lines(const std::string& path)
{
    std::ifstream in(path);
    if (!in) throw std::runtime_error("checker: cannot read COURSE_SANDBOX=" + path);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);)
        if (!line.empty()) lines.push_back(line);
    return lines;
}

// The runner's limits, set at the fork for the whole chain (sandbox, tool, runner) as hard limits: a process may
// lower its limits, never raise them back. (Not with prlimit right in front of the runner: inside the sandbox,
// compute-sanitizer and ncu then lose the runner and instrument nothing - H200, CUDA 13.0.)
struct Limit {
    int resource;
    rlim_t value;
};
constexpr Limit runner_limits[] = {
    {RLIMIT_CORE, 0},
    {RLIMIT_FSIZE, rlim_t{256} << 20},  // no file past 256 MiB
    {RLIMIT_NPROC, 8192},               // a fork bomb stops there (the sandbox runs runners as nobody)
    {RLIMIT_DATA, rlim_t{4} << 30},     // private host memory; shared arenas and GPU memory are not counted
};

// [sandbox (outer part)] [tool] [sandbox (inner part)] runner: the sandbox file holds one argument per line,
// with @TOOL@ and @RUNNER@ where the tool's command and the runner go.
std::string runner_program()
{
    const char* runner = std::getenv("COURSE_RUNNER");
    if (runner == nullptr || *runner == '\0')
        throw std::runtime_error("COURSE_RUNNER is not set: run the checks with meson test, which names the runner");
    return runner;
}

std::vector<std::string> command_line(const std::vector<std::string>& tool)
{
    const std::string runner = runner_program();
    const char* sandbox = std::getenv("COURSE_SANDBOX");
    if (sandbox == nullptr || *sandbox == '\0') {
        std::vector<std::string> argv = tool;
        argv.push_back(runner);
        return argv;
    }
    std::vector<std::string> argv;
    bool tool_placed = false, runner_placed = false;
    for (const std::string& line : read_lines(sandbox)) {
        if (line == "@TOOL@") {
            argv.insert(argv.end(), tool.begin(), tool.end());
            tool_placed = true;
        } else if (line == "@RUNNER@") {
            argv.push_back(runner);
            runner_placed = true;
        } else {
            argv.push_back(line);
        }
    }
    if (!runner_placed) throw std::runtime_error("checker: COURSE_SANDBOX=" + std::string(sandbox) + " has no @RUNNER@ line");
    if (!tool_placed) argv.insert(argv.begin(), tool.begin(), tool.end());
    return argv;
}

// A healthy chain runs the runner well within this (its start under the tool: about 2 s, ten chains at once).
constexpr std::chrono::seconds exec_window{3};

// Whether a process below `top` (by the parent links in /proc) runs `program`, compared by its name as the kernel
// keeps it (the file name, cut to 15 characters). The sandbox and the tool run in PID namespaces of their own, but
// the checker sees all of their processes. True when /proc does not show `top` itself (hidepid): it cannot tell.
bool runs_below(pid_t top, const std::string& program)
{
    const std::string name = program.substr(program.rfind('/') + 1).substr(0, 15);
    std::map<pid_t, std::vector<pid_t>> children;
    std::map<pid_t, std::string> names;
    DIR* proc = opendir("/proc");
    if (proc == nullptr) return true;
    while (const dirent* entry = readdir(proc)) {
        char* end = nullptr;
        const long pid = std::strtol(entry->d_name, &end, 10);
        if (pid <= 0 || *end != '\0') continue;
        std::string stat;  // "pid (name) state ppid ...": the name may hold spaces and parentheses
        std::getline(std::ifstream("/proc/" + std::string(entry->d_name) + "/stat"), stat);
        const std::size_t open = stat.find('('), close = stat.rfind(')');
        if (open == std::string::npos || close == std::string::npos || close < open) continue;
        std::istringstream rest(stat.substr(close + 1));
        char state = 0;
        pid_t parent = 0;
        if (!(rest >> state >> parent)) continue;
        children[parent].push_back(static_cast<pid_t>(pid));
        names[static_cast<pid_t>(pid)] = stat.substr(open + 1, close - open - 1);
    }
    closedir(proc);
    if (names.count(top) == 0) return true;
    std::vector<pid_t> below = children[top];
    while (!below.empty()) {
        const pid_t pid = below.back();
        below.pop_back();
        if (names[pid] == name) return true;
        below.insert(below.end(), children[pid].begin(), children[pid].end());
    }
    return false;
}

// Chains under a tool start one at a time on this machine, each until its runner runs (or exec_window passed):
// side by side they stall more often (H200, the fixture class with 4 submissions and 10 tests at once: 64 stalled
// starts and two that never came; 15 with these turns). tool_start_lock, waited for 10 s at most (another user's
// program may hold it); no turn when it cannot be opened.
class ToolStartTurn {
public:
    ToolStartTurn() : fd_(open(tool_start_lock, O_RDONLY | O_CREAT | O_CLOEXEC, 0644))
    {
        const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while (fd_ >= 0 && flock(fd_, LOCK_EX | LOCK_NB) != 0 && std::chrono::steady_clock::now() < give_up)
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ~ToolStartTurn()
    {
        if (fd_ >= 0) close(fd_);
    }
    ToolStartTurn(const ToolStartTurn&) = delete;
    ToolStartTurn& operator=(const ToolStartTurn&) = delete;

private:
    int fd_;
};

void set_hard_limit(int resource, rlim_t value)
{
    rlimit limit{};
    if (getrlimit(resource, &limit) != 0) return;
    limit.rlim_cur = limit.rlim_max = std::min(limit.rlim_max, value);
    setrlimit(resource, &limit);
}

}  // namespace

// What the runner prints (stdout and stderr), drained by a thread of its own: the first 64 KiB are kept for
// messages, the rest is counted and dropped, so a runner that prints without end costs nothing but time.
struct Output {
    std::mutex mutex;
    std::string kept;
    std::size_t total = 0;
    bool done = false;
};

struct Session::Process {
    pid_t pid = -1;
    int socket = -1;
    std::shared_ptr<Output> output = std::make_shared<Output>();
    std::thread drain;

    ~Process()
    {
        if (socket >= 0) close(socket);
        finish_drain();
    }
    // Waits a little for the drain to see the end of the output; a process that escaped the group and still
    // holds the pipe open does not hold the checker up (its thread is left to end with it).
    void finish_drain()
    {
        if (!drain.joinable()) return;
        for (int i = 0; i < 200; ++i) {
            {
                std::lock_guard<std::mutex> lock(output->mutex);
                if (output->done) break;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
        std::lock_guard<std::mutex> lock(output->mutex);
        if (output->done) drain.join();
        else drain.detach();
    }
    std::string printed()
    {
        std::lock_guard<std::mutex> lock(output->mutex);
        std::string text = output->kept;
        if (output->total > text.size())
            text += "\n[... " + std::to_string(output->total - text.size()) + " more bytes not kept]";
        return text;
    }
};

namespace {
Spent spent_here;  // every session of this program (one thread calls: doctest runs the cases in turn)

double seconds_since(std::chrono::steady_clock::time_point start)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}
}  // namespace

Session::Session(std::vector<std::string> tool, std::string log_path, std::chrono::seconds stalled_start)
    : tool_(std::move(tool)), log_path_(std::move(log_path)), stalled_start_(stalled_start)
{
}

Session::~Session() { stop(std::chrono::seconds(0)); }

void Session::start()
{
    const std::vector<std::string> args = command_line(tool_);
    const std::string program = find_program(args.front());
    std::vector<char*> argv;
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    const std::vector<std::string> env_strings = runner_environment();
    std::vector<char*> envp;
    for (const std::string& e : env_strings) envp.push_back(const_cast<char*>(e.c_str()));
    envp.push_back(nullptr);
    if (starts_ > 0) earlier_logs_ += read_log();  // a runner that crashed: its tool's report is kept
    if (!log_path_.empty()) {  // the tool (possibly another user, in the sandbox) may write it, nobody may read it
        const int fd = open(log_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0622);
        if (fd >= 0) {
            fchmod(fd, 0622);
            close(fd);
        }
    }

    int sockets[2];
    int pipe_fds[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sockets) != 0 || pipe2(pipe_fds, O_CLOEXEC) != 0)
        throw std::runtime_error(std::string("checker: socketpair/pipe: ") + std::strerror(errno));
    const int null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    signal(SIGPIPE, SIG_IGN);

    std::optional<ToolStartTurn> turn;
    if (!tool_.empty()) turn.emplace();
    const pid_t pid = fork();
    if (pid < 0) throw std::runtime_error(std::string("checker: fork: ") + std::strerror(errno));
    if (pid == 0) {  // only async-signal-safe calls from here on
        setsid();
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        dup2(null_fd, 0);
        dup2(pipe_fds[1], 1);
        dup2(pipe_fds[1], 2);
        if (sockets[1] == boundary::runner_fd) fcntl(sockets[1], F_SETFD, 0);
        else dup2(sockets[1], boundary::runner_fd);
        syscall(SYS_close_range, boundary::runner_fd + 1, ~0U, 0);
        for (const Limit& l : runner_limits) set_hard_limit(l.resource, l.value);
        execve(program.c_str(), argv.data(), envp.data());
        const char msg[] = "checker: could not start the runner (execve failed)\n";
        (void)!write(2, msg, sizeof msg - 1);
        _exit(127);
    }
    close(sockets[1]);
    close(pipe_fds[1]);
    close(null_fd);
    process_ = std::make_unique<Process>();
    process_->pid = pid;
    process_->socket = sockets[0];
    process_->drain = std::thread([out = process_->output, fd = pipe_fds[0]] {
        char buffer[1 << 16];
        for (;;) {
            const ssize_t got = read(fd, buffer, sizeof buffer);
            if (got < 0 && errno == EINTR) continue;
            if (got <= 0) break;
            std::lock_guard<std::mutex> lock(out->mutex);
            const std::size_t room = kept_output - std::min(kept_output, out->kept.size());
            out->kept.append(buffer, std::min<std::size_t>(room, static_cast<std::size_t>(got)));
            out->total += static_cast<std::size_t>(got);
        }
        close(fd);
        std::lock_guard<std::mutex> lock(out->mutex);
        out->done = true;
    });
    ++starts_;
    started_at_ = std::chrono::steady_clock::now();
    if (turn) {  // the turn ends once the runner runs, has said hello or ended, or exec_window passed
        const std::string runner = runner_program();
        pollfd p{process_->socket, POLLIN, 0};
        const auto turn_limit = std::min<std::chrono::steady_clock::duration>(exec_window, stalled_start_);
        while (std::chrono::steady_clock::now() - started_at_ < turn_limit && poll(&p, 1, 25) == 0 &&
               !runs_below(pid, runner)) {
        }
    }
    greeted_ = false;
    known_.clear();
    out_.reset();
}

void Session::begin()
{
    if (!process_ && dead_.empty()) start();
}

void Session::hang_up()
{
    if (process_) shutdown(process_->socket, SHUT_WR);
}

// Waits for the runner's hello until `limit` after its start. True when it came, or when the runner ended first
// (the call then finds it gone and reports how it ended); false when nothing came in time, or (with `watch_exec`)
// when exec_window after the start no process of the chain runs the runner yet: a stalled chain (see await_runner()).
bool Session::started(std::chrono::seconds limit, bool watch_exec)
{
    const auto deadline = started_at_ + limit;
    pollfd p{process_->socket, POLLIN, 0};
    for (bool runner_seen = !watch_exec;;) {  // a hello that came already is read before any deadline counts
        const auto wake = runner_seen ? deadline : std::min(deadline, started_at_ + exec_window);
        const auto wait =
            std::chrono::duration_cast<std::chrono::milliseconds>(wake - std::chrono::steady_clock::now());
        const int ready = poll(&p, 1, static_cast<int>(std::max<long long>(0, wait.count())));
        if (ready > 0 || (ready < 0 && errno != EINTR)) break;
        const auto now = std::chrono::steady_clock::now();
        if (now >= deadline) return false;
        if (!runner_seen && now - started_at_ >= exec_window) {
            runner_seen = runs_below(process_->pid, runner_program());
            if (!runner_seen) return false;
        }
    }
    std::string text;
    if (boundary::receive_message(process_->socket, text, nullptr) == 1 && text != boundary::hello)
        shutdown(process_->socket, SHUT_RDWR);  // not a runner's first words: the call reports a broken runner
    return true;
}

// Ends the runner: closes its socket, gives it `grace` to exit on its own (a tool writes its report then), and
// kills what is left of its process group. Records how it ended in last_.
void Session::stop(std::chrono::seconds grace)
{
    if (!process_) return;
    shutdown(process_->socket, SHUT_RDWR);
    int status = 0;
    const auto deadline = std::chrono::steady_clock::now() + grace;
    pid_t done = 0;
    while ((done = waitpid(process_->pid, &status, WNOHANG)) == 0 && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    if (done == 0) {
        ::kill(-process_->pid, SIGKILL);
        ::kill(process_->pid, SIGKILL);
        waitpid(process_->pid, &status, 0);
    } else {
        ::kill(-process_->pid, SIGKILL);  // anything it left behind in its group
    }
    last_.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    last_.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    close(process_->socket);
    process_->socket = -1;
    process_->finish_drain();
    last_.output = process_->printed();
    process_.reset();
    out_.reset();
    known_.clear();
}

// Starts the runner unless one runs, and waits for its hello. Under a tool in the sandbox the chain now and then
// never starts the runner (H100, CUDA 13.0: in the sandbox's inner bwrap compute-sanitizer's injected process
// tracking spins in a thread of its own while bwrap's child never runs the runner; ten chains at once: 18-42% of
// starts, none without the inner bwrap). Such a start is abandoned when no process of the chain runs the runner
// after exec_window, or no hello came after stalled_start_, and made again, four times at most (three stalls in a
// row were seen, the third never starting in 240 s); the last may take a minute at most under a tool (a start runs
// none of the kernels a tool slows), else `limit` seconds. False when it never started: dead_ says so.
bool Session::await_runner(long long limit, const std::string& before)
{
    const auto starting = std::chrono::steady_clock::now();
    int tries = tool_.empty() ? 1 : 5;
    const long long last_start = tool_.empty() ? limit : std::min(limit, 60LL);
    if (!process_) start();
    for (; !(tries > 1 ? started(stalled_start_, true) : started(std::chrono::seconds(last_start), false)); start()) {
        stop(std::chrono::seconds(0));
        if (--tries == 0) {
            dead_ = "TIMEOUT: the runner did not start within " + std::to_string(last_start) + " s (" + before +
                    "; a static initializer that never returns?)";
            return false;
        }
        ++stalled_starts_;
    }
    greeted_ = true;
    spent_here.starts += 1;
    spent_here.start_seconds += seconds_since(starting);
    return true;
}

void Session::ready()
{
    if (dead_.empty() && (!process_ || !greeted_)) await_runner(60, "before its first call");
}

// Sends one request and waits for its reply: the Result without its buffers (exchange() leaves them in the
// output arena `out`, at the offsets placed in `request`). `poison`: the returned places are overwritten with
// 0xEE first, so that a runner that copies nothing back never leaves a right result there.
Result Session::exchange(const Call& call, boundary::Request& request, std::shared_ptr<Arena>& out, bool poison)
{
    Result result;
    ++requests_;
    if (!dead_.empty()) {
        result.outcome = Result::Outcome::timed_out;
        result.message = dead_;
        return result;
    }
    const std::string where = call.op() + "(n=" + std::to_string(call.n()) +
                              (call.block() != 0 ? ", block=" + std::to_string(call.block()) : std::string()) + ")";
    const long long limit = call.limit().count() * (tool_.empty() ? 1 : 4);  // tools slow kernels 10-100x
    if ((!process_ || !greeted_) && !await_runner(limit, "before " + where)) {
        result.outcome = Result::Outcome::timed_out;
        result.message = dead_;
        return result;
    }

    request.op = call.op();
    request.n = call.n();
    request.block = call.block();
    request.params = call.params();
    request.buffers = call.buffers();
    request.hold = call.held();
    if (request.hold)  // nothing comes back with the reply: fetch() reads the held buffers
        for (auto& b : request.buffers) b.back = -1;
    std::vector<int> fds;
    std::vector<int> owned_fds;  // reopened descriptors, closed after sending
    {
        std::lock_guard<std::mutex> lock(arenas_mutex);
        for (auto it = dead_arenas.begin(); it != dead_arenas.end();) {
            const auto known = std::find(known_.begin(), known_.end(), *it);
            if (known != known_.end()) {
                request.dropped_arenas.push_back(*it);
                known_.erase(known);
                it = dead_arenas.erase(it);
            } else {
                ++it;
            }
        }
    }
    for (std::size_t i = 0; i < request.buffers.size(); ++i) {
        const auto& source = call.sources()[i];
        if (!source) continue;
        request.buffers[i].arena = source->id();
        if (std::find(known_.begin(), known_.end(), source->id()) == known_.end()) {
            request.new_arenas.push_back({source->id(), source->bytes(), false});
            owned_fds.push_back(source->reopen_read_only());
            fds.push_back(owned_fds.back());
            known_.push_back(source->id());
        }
    }
    // Returned buffers: one after the other in the output arena (64-byte aligned), which grows to the largest
    // call's and is used again once no Result reads it. Gigabytes come back window by window (Call::hold, fetch()).
    std::size_t returned = 0;
    for (auto& b : request.buffers)
        if (b.back >= 0) {
            b.back = static_cast<long long>(returned);
            returned += (b.bytes() + 63) / 64 * 64;
        }
    if (returned > max_returned)
        throw std::logic_error("checker: " + call.op() + " asks " + std::to_string(returned >> 20) +
                               " MiB back; past 256 MiB, hold the call and fetch() its output window by window");
    if (!out_ || out_->bytes() < returned || out_.use_count() > 1)  // a Result still reads the last one
        out_ = std::make_shared<Arena>(std::max<std::size_t>(returned, std::size_t{1} << 20), "course-output");
    out = out_;
    if (std::find(known_.begin(), known_.end(), out->id()) == known_.end()) {
        request.new_arenas.push_back({out->id(), out->bytes(), true});
        fds.push_back(out->fd());
        known_.push_back(out->id());
    }
    request.out_arena = out->id();
    if (poison)
        for (const auto& b : request.buffers)
            if (b.back >= 0) std::memset(out->data() + b.back, 0xEE, b.bytes());

    const auto sending = std::chrono::steady_clock::now();
    const bool sent = boundary::send_message(process_->socket, boundary::encode(request), fds);
    for (int fd : owned_fds) close(fd);

    std::string text;
    int got = -1;
    if (sent) {
        pollfd p{process_->socket, POLLIN, 0};
        int ready;
        do {
            ready = poll(&p, 1, static_cast<int>(limit * 1000));
        } while (ready < 0 && errno == EINTR);
        if (ready == 0) {
            stop(std::chrono::seconds(0));
            dead_ = "TIMEOUT: " + where + " did not return within " + std::to_string(limit) +
                    " s (a hung kernel, a spin-wait that never ends, or an endless loop?)";
            result.outcome = Result::Outcome::timed_out;
            result.message = dead_;
            return result;
        }
        got = boundary::receive_message(process_->socket, text, nullptr);
    }
    boundary::Reply reply;
    std::string why;
    if (got != 1 || !boundary::decode(text, reply, why)) {
        const std::string broke = got == 1 ? "it answered " + where + " with a malformed reply (" + why + ")" : "";
        stop(std::chrono::seconds(got == 1 ? 0 : 5));
        result.outcome = Result::Outcome::crashed;
        std::string ended = last_.signal != 0 ? "was killed by " + signal_name(last_.signal)
                                              : "exited with code " + std::to_string(last_.exit_code);
        result.message = (broke.empty() ? "it " + ended + " during " + where : broke) +
                         (last_.output.empty() ? std::string() : "; its output:\n" + last_.output.substr(0, 4000));
        return result;
    }
    ++calls_;
    spent_here.calls += 1;
    spent_here.call_seconds += seconds_since(sending);
    result.outcome = reply.status == boundary::Status::ok         ? Result::Outcome::ok
                     : reply.status == boundary::Status::rejected ? Result::Outcome::rejected
                                                                  : Result::Outcome::error;
    result.message = reply.message;
    result.values = reply.values;
    if (reply.fatal) {
        stop(std::chrono::seconds(30));
        result.message += " (the runner ended: its CUDA context is unusable after this error)";
    }
    return result;
}

namespace {
int faulted = 0;

Result counted(Result result)
{
    if (!result.ok() && !result.rejected()) ++faulted;
    return result;
}
}  // namespace

int faulted_calls() { return faulted; }
const Spent& spent() { return spent_here; }

Result Session::run(const Call& call)
{
    boundary::Request request;
    std::shared_ptr<Arena> out;
    Result result = counted(exchange(call, request, out, true));
    if (result.outcome == Result::Outcome::crashed || result.outcome == Result::Outcome::timed_out) return result;
    for (const auto& b : request.buffers) {
        Result::Bytes bytes;
        bytes.elem = b.elem;
        bytes.lead = b.lead;
        if (b.back >= 0) {  // where it lies: while this Result lives, the next call gets an output arena of its own
            bytes.size = b.bytes();
            bytes.data = out->data() + b.back;
            bytes.keep = out;
        }
        result.buffers.push_back(bytes);
    }
    return result;
}

Result Session::fetch(std::size_t buffer, std::size_t first, std::size_t bytes,
                      const std::function<void(const unsigned char*)>& use)
{
    Call c("@fetch", 0);
    c.param("buffer", static_cast<long long>(buffer)).param("first", static_cast<long long>(first));
    c.param("bytes", static_cast<long long>(bytes)).output(1, bytes, 0);
    boundary::Request request;
    std::shared_ptr<Arena> out;
    // Not poisoned: gigabytes, one window at a time; what lies there is the last window, of other elements.
    Result result = counted(exchange(c, request, out, false));
    if (result.ok()) use(out->data() + request.buffers[0].back);
    return result;
}

Session::End Session::finish()
{
    stop(std::chrono::seconds(60));  // a tool writes its report in seconds once its runner has ended
    End end = last_;
    end.restarts = std::max(0, starts_ - 1 - stalled_starts_);
    end.stalled_starts = stalled_starts_;
    end.log = earlier_logs_ + read_log();
    earlier_logs_.clear();
    return end;
}

std::string Session::read_log() const
{
    if (log_path_.empty()) return "";
    std::ifstream in(log_path_);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

// ------------------------------------------------------------------------------------------------ tools
std::string sanitizer_tool()
{
    const char* tool = std::getenv("COURSE_SANITIZER");
    return tool != nullptr ? tool : "";
}

std::string temporary_path(const std::string& name)
{
    static const std::string folder = [] {
        const char* base = std::getenv("TMPDIR");
        std::string pattern = std::string(base != nullptr && *base != '\0' ? base : "/tmp") + "/course-checker-XXXXXX";
        if (mkdtemp(pattern.data()) == nullptr)
            throw std::runtime_error("checker: cannot make a temporary folder: " + std::string(std::strerror(errno)));
        chmod(pattern.c_str(), 0711);  // a tool running as another user may write a file in it, not list it
        return pattern;
    }();
    static std::atomic<int> counter{0};
    return folder + "/" + std::to_string(++counter) + "-" + name;
}

std::vector<std::string> sanitizer_command(const std::string& tool, const std::string& log)
{
    return {"compute-sanitizer", "--tool", tool, "--error-exitcode", "99", "--print-limit", "20",
            "--report-api-errors", "no", "--require-cuda-init", "no", "--log-file", log};
}

namespace {
Session* current = nullptr;  // a UseSession's
}

Session& program_session()
{
    static Session own = [] {
        const std::string tool = sanitizer_tool();
        if (tool.empty()) return Session();
        const std::string log = temporary_path(tool + ".log");
        return Session(sanitizer_command(tool, log), log);
    }();
    return own;
}

Session& session() { return current != nullptr ? *current : program_session(); }

UseSession::UseSession(Session& s) : previous_(current) { current = &s; }
UseSession::~UseSession() { current = previous_; }

}  // namespace course::checker
