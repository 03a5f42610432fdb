// The checker side of the boundary (course/boundary.hpp): how a chapter's checks call the student's code.
//
// The checks never link a student's file. They describe a call and send it to the chapter's runner, a separate
// process (named by COURSE_RUNNER, which meson test sets), then judge the bytes that come back:
//
//   const course::checker::Input data(course::random_ints(n, seed));      // sealed shared memory
//   const auto r = course::checker::run(course::checker::Call("reduce_interleaved", n, 256)
//                                           .input(data, 0, n)             // buffer 0: d_in
//                                           .output<long long>(1, 0xA5));  // buffer 1: d_total, poisoned
//   if (r.ok()) CHECK(r.element<long long>(1) == expected);
//
// A runner that crashes, hangs or breaks the protocol costs that call only (a later call starts a new runner;
// after a hang, later calls of the same program fail at once). With COURSE_SANDBOX set (tools/grade.py sets
// it) the runner starts inside the sandbox that file describes; COURSE_SANITIZER=<tool> runs every runner under
// compute-sanitizer. The runner gets a fixed, minimal environment: nothing of the checker's (its seed, its
// report path, whether a sanitizer watches) reaches it.
#pragma once

#include "course/boundary.hpp"

#include <chrono>
#include <cstddef>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace course::checker {

// Shared memory: a memfd mapped into the checker. Inputs are sealed against writing before a runner sees them.
class Arena;

// Data that calls read, copied once into a sealed arena (the runner can map it read-only and never change it).
class Input {
public:
    Input() = default;
    template <class T>
    explicit Input(const std::vector<T>& values) : Input(values.data(), values.size(), sizeof(T))
    {
        static_assert(std::is_trivially_copyable_v<T>, "inputs are raw bytes");
    }
    Input(const void* data, std::size_t count, std::size_t elem);
    // count elements of elem bytes written by fill(out) straight into the shared memory, which it first touches
    // (spread over all cores: course::random_ints(int*, ...)); no copy of a gigabyte.
    Input(std::size_t count, std::size_t elem, const std::function<void(void*)>& fill);

    template <class T>
    const T* data() const
    {
        if (sizeof(T) != elem_) throw std::logic_error("Input: wrong element type");
        return static_cast<const T*>(bytes());
    }
    std::size_t size() const { return count_; }
    std::size_t elem() const { return elem_; }
    const std::shared_ptr<Arena>& arena() const { return arena_; }

private:
    const void* bytes() const;
    std::shared_ptr<Arena> arena_;
    std::size_t count_ = 0;
    std::size_t elem_ = 1;
};

// One call of a runner operation, with its buffers in order (buffer i is the i-th one added).
class Call {
public:
    Call(std::string op, std::size_t n, int block = 0) : op_(std::move(op)), n_(n), block_(block) {}

    Call& param(const std::string& key, long long value);
    Call& on_own_stream() { return param("stream", 1); }
    // The call's time limit (default 60 s); a session under a tool (compute-sanitizer, ncu) allows 4x as much.
    Call& timeout(std::chrono::seconds limit)
    {
        timeout_ = limit;
        return *this;
    }

    // Elements [first, first + count) of `data`, in a buffer that holds `lead` more elements of `data` before
    // them (the call's pointer then sits lead elements past the allocation's start: misaligned by design) and
    // `tail` after them (values a kernel must not read).
    Call& input(const Input& data, std::size_t first, std::size_t count, std::size_t lead = 0, std::size_t tail = 0);
    // The same, but the call may write it (an in-place kernel).
    Call& inout(const Input& data, std::size_t first, std::size_t count, std::size_t lead = 0, std::size_t tail = 0);
    // `period` (all of it) repeated over lead + count elements, the call's pointer at element `lead`: inputs past
    // 2^31 elements, made on the runner's side.
    Call& periodic(const Input& period, std::size_t count, boundary::Role role = boundary::Role::in,
                   std::size_t lead = 0);
    // lead + count elements of `elem` bytes, every byte `byte`, the call's pointer at element `lead`.
    Call& filled(std::size_t elem, std::size_t count, unsigned char byte, boundary::Role role = boundary::Role::in,
                 std::size_t lead = 0);
    // `count` elements poisoned with `poison`, plus `tail` guard elements after them (and `lead` before), all of
    // which come back.
    Call& output(std::size_t elem, std::size_t count, unsigned char poison, std::size_t tail = 0, std::size_t lead = 0);
    template <class T>
    Call& output(std::size_t count, unsigned char poison, std::size_t tail = 0, std::size_t lead = 0)
    {
        return output(sizeof(T), count, poison, tail, lead);
    }
    // A null pointer in this place (rejection checks).
    Call& null(std::size_t elem);
    // This address in this place, never a real buffer (rejection checks: misaligned or host pointers).
    Call& fake(std::size_t elem, unsigned long long address);
    // The buffer added last comes back as well (an input that must be left untouched).
    Call& returned();
    // The runner keeps this call's buffers until the next call, for Session::fetch (outputs of gigabytes); none
    // comes back with the reply.
    Call& hold()
    {
        hold_ = true;
        return *this;
    }

    const std::string& op() const { return op_; }
    std::size_t n() const { return n_; }
    int block() const { return block_; }
    std::chrono::seconds limit() const { return timeout_; }
    bool held() const { return hold_; }
    const std::vector<boundary::BufferSpec>& buffers() const { return buffers_; }
    const std::vector<std::shared_ptr<Arena>>& sources() const { return sources_; }
    const std::vector<std::pair<std::string, long long>>& params() const { return params_; }

private:
    Call& add(boundary::BufferSpec spec, const std::shared_ptr<Arena>& source);

    std::string op_;
    std::size_t n_;
    int block_;
    std::chrono::seconds timeout_{60};
    bool hold_ = false;
    std::vector<std::pair<std::string, long long>> params_;
    std::vector<boundary::BufferSpec> buffers_;
    std::vector<std::shared_ptr<Arena>> sources_;  // per buffer: its arena, or null
};

// What a call gave. ok(): it returned. Anything else says what happened instead in what().
class Result {
public:
    enum class Outcome { ok, rejected, error, crashed, timed_out };

    Outcome outcome = Outcome::crashed;
    std::string message;  // the exception's text, or how the runner ended (with the end of its output)

    bool ok() const { return outcome == Outcome::ok; }
    bool rejected() const { return outcome == Outcome::rejected; }
    // "threw std::invalid_argument: ...", "the runner crashed: ...", "TIMEOUT: ...": for failure messages.
    std::string what() const;

    // Buffer i as it came back, whole (lead + count + tail elements); empty when it was not asked back.
    template <class T>
    std::vector<T> whole(std::size_t i) const
    {
        const auto& b = bytes_of(i, sizeof(T));
        std::vector<T> out(b.size / sizeof(T));
        if (b.size > 0) std::memcpy(out.data(), b.data, out.size() * sizeof(T));
        return out;
    }
    // Element k of buffer i's `count` part (after its lead).
    template <class T>
    T element(std::size_t i, std::size_t k = 0) const
    {
        const auto& b = bytes_of(i, sizeof(T));
        const std::size_t at = (lead_of(i) + k) * sizeof(T);
        if (at + sizeof(T) > b.size) throw std::logic_error("Result: element outside the returned buffer");
        T value;
        std::memcpy(&value, b.data + at, sizeof(T));
        return value;
    }
    // A pointer to buffer i's `count` part, valid as long as this Result.
    template <class T>
    const T* elements(std::size_t i) const
    {
        const auto& b = bytes_of(i, sizeof(T));
        return reinterpret_cast<const T*>(b.data + lead_of(i) * sizeof(T));
    }

    std::optional<std::string> value(const std::string& key) const;
    long long number(const std::string& key, long long fallback = -1) const;

    struct Bytes {
        const unsigned char* data = nullptr;
        std::size_t size = 0;
        std::size_t elem = 1;
        std::size_t lead = 0;
        std::shared_ptr<const void> keep;  // owns `data`
    };
    std::vector<Bytes> buffers;
    std::vector<std::pair<std::string, std::string>> values;

private:
    const Bytes& bytes_of(std::size_t i, std::size_t elem) const;
    std::size_t lead_of(std::size_t i) const { return buffers.at(i).lead; }
};

// The file lock that every checks program on the machine takes to start a chain under a tool, until its runner
// runs: one start at a time (Session::start; side by side such chains stall more often).
inline constexpr const char* tool_start_lock = "/tmp/course-tool-starts.lock";

// A runner process. Started on its first call (or by begin()), again after it crashed; ended by finish() or the
// destructor.
// tool: the command placed in front of the runner (compute-sanitizer or ncu with their options), whose log
// file the session owns (tool_log()). stalled_start: under a tool, how long a start may take before it is
// abandoned and made again (four times at most; see await_runner()); sooner when no process of the chain runs the
// runner 3 s after the start. Beside other submissions' tests a race check's three starts (one plain, two under
// compute-sanitizer) took 3.4 s at most when none stalled (H100, a class of 13).
class Session {
public:
    explicit Session(std::vector<std::string> tool = {}, std::string log_path = {},
                     std::chrono::seconds stalled_start = std::chrono::seconds(8));
    ~Session();
    Session(const Session&) = delete;
    Session& operator=(const Session&) = delete;

    // One call; the buffers it asks back (at most 256 MiB in all) come with the Result, which reads them where
    // they arrived (the output arena, kept for it: the next call gets another while it lives).
    Result run(const Call& call);
    // After a call made with hold(): bytes [first, first + bytes) of its buffer `buffer` (counted from the
    // allocation's start, lead included; at most 256 MiB), handed to `use` while they lie in the output arena.
    Result fetch(std::size_t buffer, std::size_t first, std::size_t bytes,
                 const std::function<void(const unsigned char*)>& use);
    // Starts the runner now, without waiting for its hello: the first call waits for it (the chain starts while the
    // checks do other work). Nothing when it runs already.
    void begin();
    // Starts the runner unless one runs, and waits (a minute at most) until it said hello: the first call then
    // starts no runner. A runner that never started fails every call, as on a call.
    void ready();
    // Tells the runner that no call comes (its socket closed for writing): it ends, and its tool writes its report,
    // while the checks go on; finish() then waits for that end.
    void hang_up();
    int calls() const { return calls_; }        // calls answered so far
    int requests() const { return requests_; }  // calls made so far (answered or not)

    struct End {
        int exit_code = -1;     // the process at the top (the tool, the sandbox or the runner)
        int signal = 0;         // it was killed by this signal
        std::string log;        // the tool's log file, read once it ended
        std::string output;     // the start of what the runner printed
        int restarts = 0;       // runners this session started after the first (each after a crash)
        int stalled_starts = 0; // starts abandoned because the runner did not start (started again; see started())
    };
    // Closes the runner's socket, waits for it (and the tool) to end and reads the tool's log.
    End finish();
    // Ends the runner now (a tool's report is kept for finish()); the next call starts a new one.
    void restart() { stop(std::chrono::seconds(30)); }

    struct Process;

private:
    void start();
    bool started(std::chrono::seconds limit, bool watch_exec);
    bool await_runner(long long limit, const std::string& before);
    void stop(std::chrono::seconds grace);
    Result exchange(const Call& call, boundary::Request& request, std::shared_ptr<Arena>& out, bool poison);
    std::string read_log() const;

    std::vector<std::string> tool_;
    std::string log_path_;
    std::chrono::seconds stalled_start_;
    std::unique_ptr<Process> process_;
    std::shared_ptr<Arena> out_;
    std::vector<int> known_;  // arenas the runner has mapped
    std::string dead_;        // set after a hang: later calls fail at once with this
    std::string earlier_logs_;  // the tool's reports of runners that ended before the last one
    std::chrono::steady_clock::time_point started_at_;  // the last start()
    bool greeted_ = false;                              // the runner of the last start() said hello
    int starts_ = 0;
    int stalled_starts_ = 0;
    int calls_ = 0;
    int requests_ = 0;
    End last_;
};

// The calls of this program, in every session, that ended without an answer (an error, a crash, a time-out):
// what another program on the same GPU can cause (too little memory, a slow GPU); a wrong answer it cannot.
// tools/grade.py runs a test that failed beside other tests again alone only when it had one.
int faulted_calls();

// Where this program's time with its runners went: the calls answered and the seconds from each request to its
// reply, and the runners started and the seconds until each said hello (the test's last line tells them: where a
// test under load, beside other programs on the GPU, loses its time).
struct Spent {
    int calls = 0;
    double call_seconds = 0;
    int starts = 0;
    double start_seconds = 0;
};
const Spent& spent();

// The session run() uses: the program's own (under COURSE_SANITIZER's tool when that is set), or the one a
// UseSession in scope names (a graded race check runs the same checks in a session under compute-sanitizer).
Session& session();
// The program's own session (under COURSE_SANITIZER's tool when that is set), whatever UseSession is in scope.
Session& program_session();
inline Result run(const Call& call) { return session().run(call); }

class UseSession {
public:
    explicit UseSession(Session& s);
    ~UseSession();
    UseSession(const UseSession&) = delete;
    UseSession& operator=(const UseSession&) = delete;

private:
    Session* previous_;
};

// The COURSE_SANITIZER tool of this run, or "".
std::string sanitizer_tool();

// A command for `tool` (memcheck, racecheck, synccheck, initcheck) that writes its report to `log`.
std::vector<std::string> sanitizer_command(const std::string& tool, const std::string& log);
// A private temporary file name for a tool's log (in a folder only this program can write).
std::string temporary_path(const std::string& name);

}  // namespace course::checker
