#include "course/timer.hpp"

#include "course/check.hpp"

#include <algorithm>
#include <iostream>
#include <stdexcept>

namespace course {

EventTimer::EventTimer()
{
    CUDA_CHECK(cudaEventCreate(&start_));
    try {
        CUDA_CHECK(cudaEventCreate(&stop_));
    } catch (...) {
        cudaEventDestroy(start_);
        throw;
    }
}

EventTimer::~EventTimer()
{
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
}

void EventTimer::start(cudaStream_t stream) { CUDA_CHECK(cudaEventRecord(start_, stream)); }
void EventTimer::stop(cudaStream_t stream) { CUDA_CHECK(cudaEventRecord(stop_, stream)); }

float EventTimer::elapsed_ms() const
{
    CUDA_CHECK(cudaEventSynchronize(stop_));
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
    return ms;
}

double median(std::vector<double> values)
{
    if (values.empty()) throw std::invalid_argument("median of no values");
    const std::size_t mid = values.size() / 2;
    std::nth_element(values.begin(), values.begin() + mid, values.end());
    const double upper = values[mid];
    if (values.size() % 2 == 1) return upper;
    return (upper + *std::max_element(values.begin(), values.begin() + mid)) / 2;
}

static Timing summarize(const std::vector<double>& ms)
{
    return Timing{median(ms), *std::min_element(ms.begin(), ms.end()), *std::max_element(ms.begin(), ms.end()),
                  static_cast<int>(ms.size())};
}

Timing time_gpu_with_reset(const std::function<void()>& reset, const std::function<void()>& enqueue, int runs,
                           int warmup)
{
    if (runs < 1) throw std::invalid_argument("time_gpu: runs must be >= 1");
    for (int i = 0; i < warmup; ++i) {
        reset();
        enqueue();
    }
    CUDA_CHECK(cudaDeviceSynchronize());
    EventTimer timer;
    std::vector<double> ms;
    for (int i = 0; i < runs; ++i) {
        reset();
        timer.start();
        enqueue();
        timer.stop();
        ms.push_back(timer.elapsed_ms());
    }
    return summarize(ms);
}

Timing time_gpu(const std::function<void()>& enqueue, int runs, int warmup)
{
    return time_gpu_with_reset([] {}, enqueue, runs, warmup);
}

Timing time_cpu(const std::function<void()>& work, int runs, int warmup)
{
    if (runs < 1) throw std::invalid_argument("time_cpu: runs must be >= 1");
    for (int i = 0; i < warmup; ++i) work();
    std::vector<double> ms;
    for (int i = 0; i < runs; ++i) {
        WallTimer timer;
        work();
        ms.push_back(timer.elapsed_ms());
    }
    return summarize(ms);
}

std::optional<Timing> time_gpu_verified(const std::string& name, const std::function<void()>& enqueue,
                                        const std::function<std::string()>& check, int runs)
{
    enqueue();
    if (const std::string wrong = check(); !wrong.empty()) {
        std::cerr << name << ": " << wrong << ": not timed\n";
        return std::nullopt;
    }
    return time_gpu(enqueue, runs);
}

}  // namespace course
