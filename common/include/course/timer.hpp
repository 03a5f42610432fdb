// Timing: a host wall-clock timer, an RAII CUDA-event timer, and "median of N runs after warm-up".
//
// GPU work is asynchronous: a host clock read right after a launch measures only the launch. time_gpu()
// records CUDA events around each run on the stream and reads them after the stream finishes.
#pragma once

#include <cuda_runtime.h>

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace course {

class WallTimer {
public:
    WallTimer() : start_(std::chrono::steady_clock::now()) {}
    void restart() { start_ = std::chrono::steady_clock::now(); }
    double elapsed_ms() const
    {
        return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_).count();
    }

private:
    std::chrono::steady_clock::time_point start_;
};

// Two CUDA events; start() and stop() record them on a stream, elapsed_ms() waits for stop.
class EventTimer {
public:
    EventTimer();
    ~EventTimer();
    EventTimer(const EventTimer&) = delete;
    EventTimer& operator=(const EventTimer&) = delete;

    void start(cudaStream_t stream = nullptr);
    void stop(cudaStream_t stream = nullptr);
    float elapsed_ms() const;

private:
    cudaEvent_t start_ = nullptr;
    cudaEvent_t stop_ = nullptr;
};

struct Timing {
    double median_ms = 0;
    double min_ms = 0;
    double max_ms = 0;
    int runs = 0;
};

double median(std::vector<double> values);

// Runs `enqueue` (which launches GPU work on the default stream) `warmup` times untimed, then `runs` times
// each between two events; returns the median, min and max.
Timing time_gpu(const std::function<void()>& enqueue, int runs = 20, int warmup = 3);

// For work that destroys its input (in-place reductions): `reset` (e.g. a device-to-device copy from a
// pristine input) is enqueued before every run, warm-up included, outside the two events, so it is not timed.
Timing time_gpu_with_reset(const std::function<void()>& reset, const std::function<void()>& enqueue,
                           int runs = 20, int warmup = 3);

// Benchmarks: runs `enqueue` once, then asks `check` whether the result is right ("" if so, else what is
// wrong). A wrong result gets no time: "<name>: <what is wrong>: not timed" goes to stderr and the answer is
// nullopt. Otherwise the timing of time_gpu(enqueue, runs).
std::optional<Timing> time_gpu_verified(const std::string& name, const std::function<void()>& enqueue,
                                        const std::function<std::string()>& check, int runs = 20);

// The same with a host clock, for CPU code.
Timing time_cpu(const std::function<void()>& work, int runs = 5, int warmup = 1);

}  // namespace course
