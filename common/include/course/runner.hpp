// The runner side of the boundary (course/boundary.hpp): the only program that links a student's code.
//
// A chapter's <topic>_runner.cpp lists its operations - each a few lines that call one launcher with the
// buffers of a request - and hands them to serve():
//
//   void reduce(course::runner::Call& c) { reduce_interleaved(c.buffer<int>(0), c.buffer<long long>(1), c.n, c.block, c.stream()); }
//   const course::runner::Op ops[] = {{"reduce_interleaved", reduce}};
//   int main() { return course::runner::serve(ops); }
//
// The steps of a progression table (course/progression.hpp) become operations of their names through ops_of():
//   void launch(course::runner::Call& c, HistogramLauncher* histogram) { histogram(c.buffer<std::uint8_t>(0), ...); }
//   int main() { return course::runner::serve({course::runner::ops_of(histogram_progression, launch)}); }
//
// serve() answers requests until the checker closes the socket: it allocates each buffer (exactly lead + count
// + tail elements, so compute-sanitizer sees any access outside them), fills it, runs the operation, copies back
// what the checker asked for - all queued on stream 0 (or the runner's own streams), with one wait at the end -
// and replies. std::invalid_argument becomes a "rejected"
// reply; any other exception an "error" one (a sticky CUDA error, one that spoils the context, also ends the
// runner).
#pragma once

#include "course/boundary.hpp"
#include "course/progression.hpp"

#include <cuda_runtime.h>

#include <cstddef>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <typeindex>
#include <utility>
#include <vector>

namespace course::runner {

class Call {
public:
    std::size_t n = 0;
    int block = 0;

    // A named parameter of the request (a ScanKind, a workspace size, ...), or `fallback`.
    long long param(const std::string& key, long long fallback = 0) const;
    bool has(const std::string& key) const;

    // Buffer i: a pointer to its element `lead` (device memory, or host memory in a host operation); nullptr
    // when the request asked for a null pointer or the buffer is empty.
    template <class T>
    T* buffer(std::size_t i) const
    {
        return static_cast<T*>(pointer(i, sizeof(T)));
    }
    std::size_t count(std::size_t i) const;

    // The stream to hand a launcher: 0, or with the request parameter stream = 1 a non-blocking stream of the
    // runner's (a launcher that puts work elsewhere is then not waited for, and its output is read too early).
    cudaStream_t stream();
    // Own non-blocking stream `which` (0, 1, ...): launches at the same time on several streams.
    cudaStream_t own_stream(int which);

    // A result that is not a buffer (a count, a flag); the checker decides what it means.
    void value(const std::string& key, const std::string& text);
    void value(const std::string& key, long long number) { value(key, std::to_string(number)); }

    // An object that lives from one request to the next (a workspace, a scratch), made from `args` the first
    // time `key` is asked for.
    template <class T, class... Args>
    T& keep(const std::string& key, Args&&... args)
    {
        auto found = kept_->find(key);
        if (found == kept_->end()) {
            auto object = std::make_shared<T>(std::forward<Args>(args)...);
            found = kept_->emplace(key, Kept{std::type_index(typeid(T)), object}).first;
        }
        if (found->second.type != std::type_index(typeid(T)))
            throw std::logic_error("runner: object '" + key + "' was made with another type");
        return *static_cast<T*>(found->second.object.get());
    }

    struct Kept {
        std::type_index type;
        std::shared_ptr<void> object;
    };
    struct Buffer {
        boundary::BufferSpec spec;
        unsigned char* base = nullptr;  // the allocation (lead + count + tail elements)
        bool owned = true;              // false: a host input read in place from its (read-only) arena
    };

    // For serve(): not part of an operation's interface.
    Call(const boundary::Request& request, std::vector<Buffer>& buffers, std::map<std::string, Kept>& kept,
         std::vector<cudaStream_t>& streams, cudaEvent_t inputs_filled);
    bool used_own_streams() const { return used_streams_; }
    boundary::Reply& reply() { return reply_; }

private:
    void* pointer(std::size_t i, std::size_t elem) const;

    const boundary::Request* request_;
    std::vector<Buffer>* buffers_;
    std::map<std::string, Kept>* kept_;
    std::vector<cudaStream_t>* streams_;
    cudaEvent_t inputs_filled_;  // recorded on stream 0 after the buffers were filled (nullptr: a host operation)
    bool used_streams_ = false;
    boundary::Reply reply_;
};

struct Op {
    const char* name;
    std::function<void(Call&)> run;
    bool host = false;  // buffers in host memory: the chapter's CPU tasks (no CUDA at all)
};

// One operation per step of a progression table, named as the step's launcher: `call(c, launcher)` hands the
// launcher the request's buffers. The table lists the chapter's launchers once, for the runner too.
template <class Launcher, std::size_t N, class Adapter>
std::vector<Op> ops_of(const Step<Launcher> (&steps)[N], Adapter call)
{
    std::vector<Op> ops;
    for (const Step<Launcher>& step : steps)
        ops.push_back({step.name, [call, launch = step.launch](Call& c) { call(c, launch); }});
    return ops;
}

// Launched before an operation whose request sets course_mark = 1 (a performance task's timed calls): a kernel
// named course_timed_call_marker, which cuts Nsight Compute's list of the runner's kernels into calls.
void launch_timed_call_marker();

// The runner's main loop over the socket on file descriptor boundary::runner_fd; returns main()'s exit code.
int serve(const Op* ops, std::size_t count);
template <std::size_t N>
int serve(const Op (&ops)[N])
{
    return serve(ops, N);
}
// The same over several lists of operations (those of ops_of() and the chapter's others), in order.
int serve(std::initializer_list<std::vector<Op>> lists);

}  // namespace course::runner
