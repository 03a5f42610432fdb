// Chapter 05's runner: the one program that links your nested_student.cu (through nested_launch.cu). The checks
// (checks.cpp) send it calls and judge what comes back (course/runner.hpp).
//
// Every reduction takes the input (n ints) as buffer 0 and writes the total to buffer 1. The nested ones take
// their NestedWorkspace from the request's parameters:
//   workspace   an id: the runner keeps that workspace (one per id and max_n) from call to call; without it the
//               call gets a fresh one of its own
//   max_n       the workspace's size (default: n)
//   poison      a byte: the level buffer and the partial sums are filled with it before the launch
//   widen_race_windows, force_launch_failure   1: that test hook of the workspace is on for this call
// nested_reduce_while_busy (given code: the launcher makes no device-wide call) also answers "launch_us".
// After the launch they report what workspace.check() says, as values: "launches", or, when it throws
// NestedLaunchError, "error" (its message), "device_error" (the cudaError_t) and "launches". The checks decide.
#include "nested.hpp"

#include "course/check.hpp"
#include "course/runner.hpp"

#include <chrono>
#include <optional>
#include <string>
#include <thread>

namespace {

using course::runner::Call;
using Launcher = void (*)(const int*, long long*, std::size_t, NestedWorkspace&, cudaStream_t);

NestedWorkspace& workspace(Call& c, std::optional<NestedWorkspace>& fresh)
{
    const auto max_n = static_cast<std::size_t>(c.param("max_n", static_cast<long long>(c.n)));
    if (!c.has("workspace")) return fresh.emplace(max_n);
    return c.keep<NestedWorkspace>("workspace " + std::to_string(c.param("workspace")) + " of " +
                                       std::to_string(max_n),
                                   max_n);
}

void set_up(const Call& c, NestedWorkspace& ws)
{
    ws.widen_race_windows(c.param("widen_race_windows") != 0);
    ws.force_launch_failure(c.param("force_launch_failure") != 0);
    if (c.has("poison")) ws.poison(static_cast<unsigned char>(c.param("poison")));  // synchronous
}

// What check() says of the tree, after its stream was synchronized. `suffix` tells two trees of one call apart.
void report(Call& c, const NestedWorkspace& ws, const std::string& suffix = "")
{
    try {
        c.value("launches" + suffix, static_cast<long long>(ws.check()));
    } catch (const NestedLaunchError& e) {
        c.value("error" + suffix, e.what());
        c.value("device_error" + suffix, static_cast<long long>(e.device_error()));
        c.value("launches" + suffix, static_cast<long long>(e.device_launches()));
    }
}

template <Launcher Launch>
void nested(Call& c)
{
    std::optional<NestedWorkspace> fresh;
    NestedWorkspace& ws = workspace(c, fresh);
    set_up(c, ws);
    const cudaStream_t stream = c.stream();
    Launch(c.buffer<int>(0), c.buffer<long long>(1), c.n, ws, stream);
    CUDA_CHECK(cudaStreamSynchronize(stream));
    report(c, ws);
}

// Two trees at once, each on an own non-blocking stream with a fresh workspace: buffers 0 and 1 (n ints), then
// buffers 2 and 3 (as many as buffer 2 holds). Values as above, with the suffixes "_0" and "_1".
template <Launcher Launch>
void nested_two_streams(Call& c)
{
    NestedWorkspace first(c.n), second(c.count(2));
    NestedWorkspace* const ws[] = {&first, &second};
    for (NestedWorkspace* w : ws) set_up(c, *w);
    for (int i = 0; i < 2; ++i)
        Launch(c.buffer<int>(2 * i), c.buffer<long long>(2 * i + 1), c.count(2 * i), *ws[i], c.own_stream(i));
    for (int i = 0; i < 2; ++i) {
        CUDA_CHECK(cudaStreamSynchronize(c.own_stream(i)));
        report(c, *ws[i], "_" + std::to_string(i));
    }
}

// The workspace's check() alone: before any reduction it must throw std::logic_error (an "error" reply).
void workspace_check(Call& c)
{
    std::optional<NestedWorkspace> fresh;
    report(c, workspace(c, fresh));
}

void flat(Call& c) { flat_reduce(c.buffer<int>(0), c.buffer<long long>(1), c.n, c.stream()); }

// nested_reduce's launcher timed on the host ("launch_us") while a host function holds a stream of the runner's
// for busy_ms: a device-wide call (cudaDeviceSetLimit) would wait for it, a stream-ordered launch does not. The
// workspace is made before, and a tree of 1000 ints first loads the kernels (loading one may wait too).
void nested_while_busy(Call& c)
{
    {
        NestedWorkspace warm(1000);
        nested_reduce(c.buffer<int>(0), c.buffer<long long>(1), 1000, warm, c.own_stream(0));
        CUDA_CHECK(cudaStreamSynchronize(c.own_stream(0)));
    }
    NestedWorkspace ws(c.n);
    long long busy_ms = c.param("busy_ms", 1000);
    CUDA_CHECK(cudaLaunchHostFunc(
        c.own_stream(1),
        [](void* ms) { std::this_thread::sleep_for(std::chrono::milliseconds(*static_cast<long long*>(ms))); },
        &busy_ms));
    const auto start = std::chrono::steady_clock::now();
    nested_reduce(c.buffer<int>(0), c.buffer<long long>(1), c.n, ws, c.own_stream(0));
    const auto took = std::chrono::steady_clock::now() - start;
    CUDA_CHECK(cudaDeviceSynchronize());
    c.value("launch_us", std::chrono::duration_cast<std::chrono::microseconds>(took).count());
    report(c, ws);
}

const course::runner::Op ops[] = {
    {"nested_reduce", nested<nested_reduce>},
    {"nested_reduce_strided", nested<nested_reduce_strided>},
    {"nested_reduce_two_streams", nested_two_streams<nested_reduce>},
    {"nested_reduce_strided_two_streams", nested_two_streams<nested_reduce_strided>},
    {"NestedWorkspace::check", workspace_check},
    {"flat_reduce", flat},
    {"nested_reduce_while_busy", nested_while_busy},
};

}  // namespace

int main() { return course::runner::serve(ops); }
