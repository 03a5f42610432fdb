// The boundary between a checker and a runner: what crosses it and how.
//
// The student's code runs only in the runner (<topic>_runner: the chapter's launchers, built with the student's
// file). The checker (<topic>_checks: doctest, the CPU references, no student code) sends the runner one
// request per call - which operation, n, block, a few named parameters and the buffers - and gets back a short
// reply (ok, the call rejected its arguments, or an error) plus the raw bytes of every buffer it asked back.
// Everything a check decides (exact comparison, poison, guard zones, input untouched) is decided on the
// checker's side from those bytes; nothing the runner says about itself is believed.
//
// Besides a chapter's operations, every runner answers "@device" (whether it has a GPU, its free memory) and
// "@fetch" (bytes of a buffer of the last call made with `hold`: outputs of gigabytes, read window by window).
//
// Messages are text lines over a SOCK_SEQPACKET socket (the runner's file descriptor 3). Bulk data never goes
// through the socket: it lives in shared memory (memfd "arenas") whose file descriptors ride along with the
// message that first names them. Input arenas are sealed against writing before the runner sees them; returned
// buffers land in an output arena the checker owns.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace course::boundary {

constexpr int runner_fd = 3;                       // the socket, in the runner
constexpr char hello[] = "runner started";          // the runner's first message, sent when its main() runs
constexpr std::size_t max_message = 1u << 16;      // bytes of one message, either way
constexpr std::size_t max_reply_text = 1u << 12;   // bytes of a reply's message kept by the checker

enum class Role { in, inout, out };
enum class Init {
    none,      // left as allocated
    data,      // bytes copied from an arena
    fill,      // every byte `fill`
    periodic,  // `period` elements from an arena, repeated over the whole buffer
};

// One buffer of a call. The runner allocates lead + count + tail elements of elem bytes (in device memory,
// or host memory for host operations) and hands the operation a pointer to element `lead`.
struct BufferSpec {
    Role role = Role::in;
    std::size_t elem = 1;
    std::size_t lead = 0;   // elements before the pointer (a start that is not 16-byte aligned)
    std::size_t count = 0;  // elements the call may touch
    std::size_t tail = 0;   // elements after them: a guard the call must leave alone
    Init init = Init::none;
    int arena = -1;            // Init::data / periodic: the source arena
    std::size_t offset = 0;    // its byte offset there
    std::size_t period = 0;    // Init::periodic: elements of one period
    unsigned fill = 0;         // Init::fill, and the poison of outputs
    bool null = false;         // the operation gets nullptr instead (rejection checks)
    unsigned long long address = 0;  // not 0: the operation gets this address instead, never dereferenced by a
                                     // launcher that rejects it (misaligned or host pointers, rejection checks)
    long long back = -1;       // >= 0: byte offset in the output arena where the whole buffer comes back

    std::size_t elements() const { return lead + count + tail; }
    std::size_t bytes() const { return elements() * elem; }
};

struct NewArena {
    int id = -1;
    std::size_t bytes = 0;
    bool writable = false;  // the output arena; inputs are sealed and mapped read-only
};

struct Request {
    std::string op;
    std::size_t n = 0;
    long long block = 0;
    std::vector<std::pair<std::string, long long>> params;
    std::vector<BufferSpec> buffers;
    int out_arena = -1;
    bool hold = false;  // the runner keeps the call's buffers for "@fetch" requests until the next call
    std::vector<NewArena> new_arenas;  // their file descriptors come with the message, in this order
    std::vector<int> dropped_arenas;
};

enum class Status {
    ok,        // the call returned; the buffers asked back are in the output arena
    rejected,  // it threw std::invalid_argument (message: what())
    error,     // it threw something else, or the runner could not do the request (message: why)
};

struct Reply {
    Status status = Status::error;
    std::string message;
    std::vector<std::pair<std::string, std::string>> values;  // results that are not buffers (counts, ...)
    bool fatal = false;  // the runner ends after this reply (a sticky CUDA error spoiled its context)
};

std::string encode(const Request& request);
std::string encode(const Reply& reply);
// false, with `why`, for a message that is not well formed (a checker never trusts a runner's bytes).
bool decode(const std::string& text, Request& request, std::string& why);
bool decode(const std::string& text, Reply& reply, std::string& why);

const char* to_string(Status status);

// One message and its file descriptors. send_message: false when the peer is gone. receive_message: 1 for a
// message, 0 when the peer closed the socket, -1 on an error or one that is too long; received descriptors are
// appended to `fds` (or closed when fds is null).
bool send_message(int socket, const std::string& text, const std::vector<int>& fds = {});
int receive_message(int socket, std::string& text, std::vector<int>* fds);

}  // namespace course::boundary
