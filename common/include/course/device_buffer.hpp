// DeviceBuffer<T>: an owning, move-only array in GPU global memory.
//
//   course::DeviceBuffer<int> d_in(host);   // a copy of std::vector<int> host (or d_in(n), then copy_from_host)
//   kernel<<<g, b>>>(d_in.data(), d_in.size());
//   std::vector<int> back = d_in.to_host();
//
// The destructor frees the memory on every path, exceptions included. A buffer of 0 elements holds a null
// pointer, which kernels given n = 0 must never dereference.
#pragma once

#include "course/check.hpp"

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

namespace course {

template <class T>
class DeviceBuffer {
public:
    DeviceBuffer() = default;
    explicit DeviceBuffer(std::size_t count) : count_(count)
    {
        if (count_ > 0) CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&ptr_), bytes()));
    }
    explicit DeviceBuffer(const std::vector<T>& host) : DeviceBuffer(host.size()) { copy_from_host(host); }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    DeviceBuffer(DeviceBuffer&& other) noexcept
        : ptr_(std::exchange(other.ptr_, nullptr)), count_(std::exchange(other.count_, 0)) {}
    DeviceBuffer& operator=(DeviceBuffer&& other) noexcept
    {
        if (this != &other) {
            release();
            ptr_ = std::exchange(other.ptr_, nullptr);
            count_ = std::exchange(other.count_, 0);
        }
        return *this;
    }
    ~DeviceBuffer() { release(); }

    T* data() noexcept { return ptr_; }
    const T* data() const noexcept { return ptr_; }
    std::size_t size() const noexcept { return count_; }
    std::size_t bytes() const noexcept { return count_ * sizeof(T); }

    void copy_from_host(const T* src, std::size_t count)
    {
        check_fits(count);
        if (count > 0) CUDA_CHECK(cudaMemcpy(ptr_, src, count * sizeof(T), cudaMemcpyHostToDevice));
    }
    void copy_from_host(const std::vector<T>& src) { copy_from_host(src.data(), src.size()); }

    void copy_to_host(T* dst, std::size_t count) const
    {
        check_fits(count);
        if (count > 0) CUDA_CHECK(cudaMemcpy(dst, ptr_, count * sizeof(T), cudaMemcpyDeviceToHost));
    }
    std::vector<T> to_host() const
    {
        std::vector<T> out(count_);
        copy_to_host(out.data(), count_);
        return out;
    }

    // Device-to-device copy of all of `src`, ordered on the default stream (no host wait): restores the input
    // of an in-place kernel between timed runs.
    void copy_from(const DeviceBuffer& src)
    {
        check_fits(src.size());
        if (src.size() > 0)
            CUDA_CHECK(cudaMemcpyAsync(ptr_, src.data(), src.bytes(), cudaMemcpyDeviceToDevice));
    }

    // Sets every byte to `byte`: checks poison outputs with it so an unwritten element cannot look right.
    // Synchronous: returns once the bytes are written (a plain cudaMemset may still be running when it
    // returns, and work on a non-blocking stream does not wait for it).
    void fill_bytes(unsigned char byte)
    {
        if (count_ > 0) CUDA_CHECK(cudaMemset(ptr_, byte, bytes()));
        CUDA_CHECK(cudaDeviceSynchronize());
    }

private:
    void check_fits(std::size_t count) const
    {
        if (count > count_) throw std::out_of_range("DeviceBuffer: copy of more elements than the buffer holds");
    }
    void release() noexcept
    {
        if (ptr_) cudaFree(ptr_);  // no CUDA_CHECK: a destructor must not throw
        ptr_ = nullptr;
        count_ = 0;
    }

    T* ptr_ = nullptr;
    std::size_t count_ = 0;
};

// d_data[0, n) = `period` repeated: copied to the device once, then doubled with device-to-device copies, so
// an input past 2^31 elements takes about log2(n / period.size()) copies. Synchronous.
template <class T>
void fill_periodic(T* d_data, std::size_t n, const std::vector<T>& period)
{
    const std::size_t first = std::min(n, period.size());
    if (first > 0) CUDA_CHECK(cudaMemcpy(d_data, period.data(), first * sizeof(T), cudaMemcpyHostToDevice));
    for (std::size_t filled = first; filled < n; filled *= 2)  // filled is a whole number of periods
        CUDA_CHECK(cudaMemcpy(d_data + filled, d_data, std::min(filled, n - filled) * sizeof(T),
                              cudaMemcpyDeviceToDevice));
}

// A stream of its own (RAII), created non-blocking: it does not synchronize with the default stream, so
// work launched on it shows whether a launcher really puts all of its work on the stream it is given.
class Stream {
public:
    Stream() { CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
    ~Stream() { cudaStreamDestroy(stream_); }
    Stream(const Stream&) = delete;
    Stream& operator=(const Stream&) = delete;
    cudaStream_t get() const { return stream_; }
    void synchronize() const { CUDA_CHECK(cudaStreamSynchronize(stream_)); }

private:
    cudaStream_t stream_ = nullptr;
};

}  // namespace course
