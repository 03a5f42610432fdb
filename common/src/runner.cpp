#include "course/runner.hpp"

#include "course/check.hpp"
#include "course/device.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <tuple>

namespace course::runner {

Call::Call(const boundary::Request& request, std::vector<Buffer>& buffers, std::map<std::string, Kept>& kept,
           std::vector<cudaStream_t>& streams, cudaEvent_t inputs_filled)
    : n(request.n), block(static_cast<int>(request.block)), request_(&request), buffers_(&buffers), kept_(&kept),
      streams_(&streams), inputs_filled_(inputs_filled)
{
    reply_.status = boundary::Status::ok;
}

long long Call::param(const std::string& key, long long fallback) const
{
    for (const auto& [name, value] : request_->params)
        if (name == key) return value;
    return fallback;
}

bool Call::has(const std::string& key) const
{
    for (const auto& p : request_->params)
        if (p.first == key) return true;
    return false;
}

void* Call::pointer(std::size_t i, std::size_t elem) const
{
    if (i >= buffers_->size())
        throw std::logic_error("runner: the request has no buffer " + std::to_string(i));
    const Buffer& b = (*buffers_)[i];
    if (b.spec.elem != elem)
        throw std::logic_error("runner: buffer " + std::to_string(i) + " holds elements of " +
                               std::to_string(b.spec.elem) + " bytes, not " + std::to_string(elem));
    if (b.spec.address != 0) return reinterpret_cast<void*>(static_cast<std::uintptr_t>(b.spec.address));
    if (b.spec.null || b.base == nullptr) return nullptr;
    return b.base + b.spec.lead * b.spec.elem;
}

std::size_t Call::count(std::size_t i) const
{
    return i < buffers_->size() ? (*buffers_)[i].spec.count : 0;
}

cudaStream_t Call::own_stream(int which)
{
    used_streams_ = true;
    while (static_cast<int>(streams_->size()) <= which) {
        cudaStream_t s = nullptr;
        CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
        streams_->push_back(s);
    }
    cudaStream_t s = (*streams_)[static_cast<std::size_t>(which)];
    // A non-blocking stream does not wait for stream 0, where the inputs were filled.
    if (inputs_filled_ != nullptr) CUDA_CHECK(cudaStreamWaitEvent(s, inputs_filled_, 0));
    return s;
}

cudaStream_t Call::stream() { return param("stream") == 1 ? own_stream(0) : cudaStream_t{}; }

void Call::value(const std::string& key, const std::string& text) { reply_.values.emplace_back(key, text); }

namespace {

struct Arena {
    unsigned char* map = nullptr;
    std::size_t bytes = 0;
    bool writable = false;
};

// Device buffers of exactly the sizes calls ask for, kept for the next call of the same size: cudaFree waits for
// the whole GPU and costs as much as a small kernel, and the checks make thousands of calls of a few sizes. A
// reused buffer is exactly as large as asked (compute-sanitizer still sees any access past it), and every
// buffer is filled again before a call.
class DevicePool {
public:
    ~DevicePool()
    {
        for (auto& [bytes, list] : free_)
            for (void* p : list) cudaFree(p);
    }
    void* get(std::size_t bytes)
    {
        auto& list = free_[bytes];
        if (!list.empty()) {
            void* p = list.back();
            list.pop_back();
            cached_ -= bytes;
            return p;
        }
        void* p = nullptr;
        CUDA_CHECK(cudaMalloc(&p, bytes));
        return p;
    }
    void put(void* p, std::size_t bytes)
    {
        if (bytes > keep_one || cached_ + bytes > keep_all) {
            cudaFree(p);
            return;
        }
        free_[bytes].push_back(p);
        cached_ += bytes;
    }

private:
    static constexpr std::size_t keep_one = std::size_t{256} << 20;
    static constexpr std::size_t keep_all = std::size_t{2} << 30;
    std::map<std::size_t, std::vector<void*>> free_;
    std::size_t cached_ = 0;
};

// Page-locked host memory for a call's small copies. A copy from pageable memory makes the runner wait for the GPU
// there and then; one from page-locked memory is queued on the stream like a kernel. Beside other programs each
// wait costs a turn on the GPU (docs/grading_at_scale.md, "One wait per call"), so a call queues its fills, the
// operation and its copies back, and waits once.
class Staging {
public:
    static constexpr std::size_t small = std::size_t{1} << 20;  // larger copies go straight, and wait
    ~Staging()
    {
        if (base_ != nullptr) cudaFreeHost(base_);
    }
    // Room for a whole call's small copies, made before any of them is queued (nothing queued still uses it).
    void reserve(std::size_t bytes)
    {
        used_ = 0;
        if (bytes <= capacity_) return;
        if (base_ != nullptr) cudaFreeHost(base_);
        base_ = nullptr;
        capacity_ = 0;
        CUDA_CHECK(cudaMallocHost(&base_, bytes));
        capacity_ = bytes;
    }
    unsigned char* take(std::size_t bytes)
    {
        if (bytes > capacity_ - used_) throw std::logic_error("runner: staging memory reserved too small");
        unsigned char* p = static_cast<unsigned char*>(base_) + used_;
        used_ += bytes;
        return p;
    }

private:
    void* base_ = nullptr;
    std::size_t capacity_ = 0, used_ = 0;
};

class Server {
public:
    Server(const Op* ops, std::size_t count) : ops_(ops), count_(count) {}
    ~Server()
    {
        release_held();
        if (inputs_filled_ != nullptr) cudaEventDestroy(inputs_filled_);
    }

    int run()
    {
        if (!boundary::send_message(boundary::runner_fd, boundary::hello)) return 3;
        for (;;) {
            std::string text;
            std::vector<int> fds;
            const int got = boundary::receive_message(boundary::runner_fd, text, &fds);
            if (got == 0) return 0;  // the checker is done
            if (got < 0) return 3;
            boundary::Request request;
            boundary::Reply reply;
            std::string why;
            if (!boundary::decode(text, request, why)) {
                reply.message = "runner: " + why;
            } else {
                reply = answer(request, fds);
            }
            for (int fd : fds) close(fd);
            if (!boundary::send_message(boundary::runner_fd, boundary::encode(reply))) return 3;
            if (reply.fatal) return 1;
        }
    }

private:
    boundary::Reply answer(const boundary::Request& request, const std::vector<int>& fds)
    {
        boundary::Reply reply;
        try {
            map_arenas(request, fds);
            if (request.op != "@fetch") release_held();
            if (request.op == "@device") return device();
            if (request.op == "@fetch") return fetch(request);
            const Op* op = find(request.op);
            if (op == nullptr) {
                reply.message = "runner: no operation named '" + request.op + "'";
                return reply;
            }
            return call(*op, request);
        } catch (const CudaError& e) {
            reply.status = boundary::Status::error;
            reply.message = e.what();
            // A sticky error (a kernel that faulted) spoils the context: the checker starts a new runner. One that
            // is not (a bad launch configuration, an error left pending) leaves it usable, and the objects kept
            // for later calls stay as the call left them.
            const bool usable = cudaDeviceSynchronize() == cudaSuccess;
            (void)cudaGetLastError();
            reply.fatal = !usable;
        } catch (const std::exception& e) {
            reply.status = boundary::Status::error;
            reply.message = e.what();
        }
        return reply;
    }

    const Op* find(const std::string& name) const
    {
        for (std::size_t i = 0; i < count_; ++i)
            if (name == ops_[i].name) return &ops_[i];
        return nullptr;
    }

    void map_arenas(const boundary::Request& request, const std::vector<int>& fds)
    {
        for (int id : request.dropped_arenas) drop(id);
        if (fds.size() != request.new_arenas.size())
            throw std::runtime_error("runner: the request names " + std::to_string(request.new_arenas.size()) +
                                     " new arenas but carries " + std::to_string(fds.size()) + " descriptors");
        for (std::size_t i = 0; i < fds.size(); ++i) {
            const boundary::NewArena& a = request.new_arenas[i];
            drop(a.id);
            Arena arena;
            arena.bytes = a.bytes;
            arena.writable = a.writable;
            if (a.bytes > 0) {
                void* p = mmap(nullptr, a.bytes, PROT_READ | (a.writable ? PROT_WRITE : 0), MAP_SHARED | MAP_POPULATE,
                               fds[i], 0);
                if (p == MAP_FAILED) throw std::runtime_error("runner: cannot map arena " + std::to_string(a.id));
                arena.map = static_cast<unsigned char*>(p);
            }
            arenas_[a.id] = arena;
        }
    }

    void drop(int id)
    {
        const auto found = arenas_.find(id);
        if (found == arenas_.end()) return;
        if (found->second.map != nullptr) munmap(found->second.map, found->second.bytes);
        arenas_.erase(found);
        for (auto it = cache_.begin(); it != cache_.end();) {
            if (std::get<0>(it->first) == id) {
                cudaFree(it->second);
                it = cache_.erase(it);
            } else {
                ++it;
            }
        }
    }

    const unsigned char* source(const boundary::BufferSpec& b, std::size_t bytes) const
    {
        const auto found = arenas_.find(b.arena);
        if (found == arenas_.end() || b.offset > found->second.bytes || bytes > found->second.bytes - b.offset)
            throw std::runtime_error("runner: a buffer's source lies outside its arena");
        return found->second.map + b.offset;
    }

    unsigned char* destination(int arena, long long offset, std::size_t bytes) const
    {
        const auto found = arenas_.find(arena);
        if (found == arenas_.end() || !found->second.writable || offset < 0 ||
            static_cast<std::size_t>(offset) > found->second.bytes ||
            bytes > found->second.bytes - static_cast<std::size_t>(offset))
            throw std::runtime_error("runner: a returned buffer lies outside the output arena");
        return found->second.map + offset;
    }

    // The device copy of an input that many requests use (the same bytes of the same arena): copied from the
    // host once, then device to device.
    const void* cached(const boundary::BufferSpec& b, std::size_t bytes)
    {
        const auto key = std::make_tuple(b.arena, b.offset, bytes);
        if (const auto found = cache_.find(key); found != cache_.end()) return found->second;
        void* d = nullptr;
        CUDA_CHECK(cudaMalloc(&d, bytes));
        CUDA_CHECK(cudaMemcpy(d, source(b, bytes), bytes, cudaMemcpyHostToDevice));
        cache_[key] = d;
        return d;
    }

    // The bytes buffer `b` copies from the host through the staging memory: its fill and its copy back.
    static std::size_t staged_bytes(const boundary::BufferSpec& b)
    {
        const std::size_t bytes = b.bytes();
        std::size_t from_host = 0;
        if (b.init == boundary::Init::data && bytes < Staging::small) from_host = bytes;
        if (b.init == boundary::Init::periodic) from_host = std::min(b.period * b.elem, bytes);
        return (from_host < Staging::small ? from_host : 0) + (b.back >= 0 && bytes < Staging::small ? bytes : 0);
    }

    // Queued on stream 0 when small; a larger copy from pageable memory waits.
    void to_device(unsigned char* to, const unsigned char* from, std::size_t bytes)
    {
        if (bytes >= Staging::small) {
            CUDA_CHECK(cudaMemcpy(to, from, bytes, cudaMemcpyHostToDevice));
            return;
        }
        unsigned char* staged = staging_.take(bytes);
        std::memcpy(staged, from, bytes);
        CUDA_CHECK(cudaMemcpyAsync(to, staged, bytes, cudaMemcpyHostToDevice, cudaStream_t{}));
    }

    // Device buffers are filled on stream 0, without waiting.
    void fill(Call::Buffer& buf, bool host)
    {
        const boundary::BufferSpec& b = buf.spec;
        const std::size_t bytes = b.bytes();
        if (bytes == 0 || b.init == boundary::Init::none) return;
        if (b.init == boundary::Init::fill) {
            if (host) std::memset(buf.base, static_cast<int>(b.fill), bytes);
            else CUDA_CHECK(cudaMemsetAsync(buf.base, static_cast<int>(b.fill), bytes, cudaStream_t{}));
            return;
        }
        if (b.init == boundary::Init::data) {
            if (host) std::memcpy(buf.base, source(b, bytes), bytes);
            else if (bytes >= Staging::small)
                CUDA_CHECK(cudaMemcpyAsync(buf.base, cached(b, bytes), bytes, cudaMemcpyDeviceToDevice, cudaStream_t{}));
            else to_device(buf.base, source(b, bytes), bytes);
            return;
        }
        // periodic: one period from the arena, then doubling copies (a whole number of periods each time)
        const std::size_t period = std::min(b.period * b.elem, bytes);
        if (period == 0) throw std::runtime_error("runner: a periodic buffer with an empty period");
        const unsigned char* src = source(b, period);
        if (host) {
            for (std::size_t at = 0; at < bytes; at += period) std::memcpy(buf.base + at, src, std::min(period, bytes - at));
            return;
        }
        to_device(buf.base, src, period);
        for (std::size_t filled = period; filled < bytes; filled *= 2)
            CUDA_CHECK(cudaMemcpyAsync(buf.base + filled, buf.base, std::min(filled, bytes - filled),
                                       cudaMemcpyDeviceToDevice, cudaStream_t{}));
    }

    void give_back(std::vector<Call::Buffer>& buffers, bool host)
    {
        for (auto& x : buffers)
            if (x.base != nullptr && x.owned) {
                if (host) std::free(x.base);
                else pool_.put(x.base, x.spec.bytes());
            }
        buffers.clear();
    }

    // The buffers of the last call made with `hold`, kept for @fetch requests until the next call.
    void release_held() { give_back(held_, held_host_); }

    boundary::Reply call(const Op& op, const boundary::Request& request)
    {
        std::vector<Call::Buffer> buffers;
        struct Release {  // every buffer is given back, whatever happens
            Server& server;
            std::vector<Call::Buffer>& b;
            bool host;
            ~Release()
            {
                if (!host) cudaDeviceSynchronize();  // nothing still running writes into a buffer given back
                server.give_back(b, host);
            }
        } release{*this, buffers, op.host};
        for (const boundary::BufferSpec& spec : request.buffers) {
            Call::Buffer buf;
            buf.spec = spec;
            const std::size_t bytes = spec.bytes();
            if (op.host && spec.role == boundary::Role::in && spec.init == boundary::Init::data && spec.back < 0) {
                // read where it lies: the arena is mapped read-only, so the call cannot change it
                buf.base = const_cast<unsigned char*>(source(spec, bytes));
                buf.owned = false;
            } else if (bytes > 0) {
                if (op.host) {
                    buf.base = static_cast<unsigned char*>(std::aligned_alloc(64, (bytes + 63) / 64 * 64));
                    if (buf.base == nullptr) throw std::bad_alloc();
                } else {
                    buf.base = static_cast<unsigned char*>(pool_.get(bytes));
                }
            }
            buffers.push_back(buf);
        }
        if (!op.host) {
            std::size_t staged = 0;
            for (const auto& buf : buffers) staged += staged_bytes(buf.spec);
            staging_.reserve(staged);
            if (inputs_filled_ == nullptr) CUDA_CHECK(cudaEventCreateWithFlags(&inputs_filled_, cudaEventDisableTiming));
        }
        for (auto& buf : buffers)
            if (buf.owned) fill(buf, op.host);
        if (!op.host) CUDA_CHECK(cudaEventRecord(inputs_filled_, cudaStream_t{}));  // own streams wait for it

        Call c(request, buffers, kept_, streams_, op.host ? nullptr : inputs_filled_);
        if (!op.host && c.param("course_mark") == 1) launch_timed_call_marker();
        try {
            op.run(c);
        } catch (const std::invalid_argument& e) {
            c.reply().status = boundary::Status::rejected;
            c.reply().message = e.what();
        }
        copy_back(request, buffers, op.host, c.used_own_streams());
        if (request.hold) {  // kept for @fetch: nothing left for the Release to give back
            held_.swap(buffers);
            held_host_ = op.host;
        }
        return c.reply();
    }

    // Every buffer the checker asked for, whole (lead, count and tail), into the output arena: the small ones
    // queued behind the operation on stream 0 (on the runner's first own stream after launches on its own
    // streams, when the others are done), then one wait. Work that a launcher put on a non-blocking stream of its
    // own is not waited for, so its output is read as it is then.
    void copy_back(const boundary::Request& request, std::vector<Call::Buffer>& buffers, bool host, bool own_streams)
    {
        struct Copy {
            unsigned char* to;
            const unsigned char* from;
            std::size_t bytes;
        };
        std::vector<Copy> staged, large;
        cudaStream_t stream{};
        if (!host && own_streams) {
            for (std::size_t i = 1; i < streams_.size(); ++i) CUDA_CHECK(cudaStreamSynchronize(streams_[i]));
            stream = streams_[0];
        }
        for (const Call::Buffer& buf : buffers) {
            if (buf.spec.back < 0) continue;
            const std::size_t bytes = buf.spec.bytes();
            unsigned char* to = destination(request.out_arena, buf.spec.back, bytes);
            if (bytes == 0) continue;
            if (host) {
                std::memcpy(to, buf.base, bytes);
            } else if (bytes < Staging::small) {
                unsigned char* into = staging_.take(bytes);
                CUDA_CHECK(cudaMemcpyAsync(into, buf.base, bytes, cudaMemcpyDeviceToHost, stream));
                staged.push_back({to, into, bytes});
            } else {
                large.push_back({to, buf.base, bytes});
            }
        }
        if (host) return;
        CUDA_CHECK(cudaStreamSynchronize(stream));  // the call's one wait
        for (const Copy& c : large) CUDA_CHECK(cudaMemcpy(c.to, c.from, c.bytes, cudaMemcpyDeviceToHost));
        for (const Copy& c : staged) std::memcpy(c.to, c.from, c.bytes);
        CUDA_CHECK(cudaDeviceSynchronize());
        CUDA_CHECK(cudaGetLastError());
    }

    // @fetch: bytes [first, first + bytes) of buffer `buffer` of the held call (whole allocation, lead included)
    // into the output arena, where the request's one buffer says.
    boundary::Reply fetch(const boundary::Request& request)
    {
        boundary::Reply reply;
        long long index = -1, first = -1, bytes = -1;
        for (const auto& [key, value] : request.params) {
            if (key == "buffer") index = value;
            if (key == "first") first = value;
            if (key == "bytes") bytes = value;
        }
        const std::size_t size = index >= 0 && static_cast<std::size_t>(index) < held_.size()
                                     ? held_[static_cast<std::size_t>(index)].spec.bytes()
                                     : 0;
        if (size == 0 || first < 0 || bytes < 0 || request.buffers.size() != 1 ||
            static_cast<std::size_t>(first) > size || static_cast<std::size_t>(bytes) > size - static_cast<std::size_t>(first)) {
            reply.message = "runner: @fetch outside the buffers of the last call made with hold";
            return reply;
        }
        const unsigned char* from = held_[static_cast<std::size_t>(index)].base + first;
        const auto count = static_cast<std::size_t>(bytes);
        unsigned char* to = destination(request.out_arena, request.buffers[0].back, count);
        if (held_host_) std::memcpy(to, from, count);
        else CUDA_CHECK(cudaMemcpy(to, from, count, cudaMemcpyDeviceToHost));
        reply.status = boundary::Status::ok;
        return reply;
    }

    // @device: whether this runner has a GPU, and its free memory. Believed only as far as it can hurt the
    // runner: the checker looks for itself before it leaves anything out (course/testing.hpp).
    boundary::Reply device()
    {
        boundary::Reply reply;
        reply.status = boundary::Status::ok;
        if (const auto reason = gpu_unavailable_reason()) {
            reply.values.emplace_back("unavailable", *reason);
            return reply;
        }
        std::size_t free_bytes = 0, total = 0;
        CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total));
        reply.values.emplace_back("free", std::to_string(free_bytes));
        return reply;
    }

    const Op* ops_;
    std::size_t count_;
    DevicePool pool_;
    std::map<int, Arena> arenas_;
    std::map<std::tuple<int, std::size_t, std::size_t>, void*> cache_;
    std::map<std::string, Call::Kept> kept_;
    std::vector<cudaStream_t> streams_;
    Staging staging_;
    cudaEvent_t inputs_filled_ = nullptr;
    std::vector<Call::Buffer> held_;
    bool held_host_ = false;
};

}  // namespace

int serve(const Op* ops, std::size_t count)
{
    // A wait for the GPU sleeps instead of spinning on a core: beside other programs' tests a wait lasts their
    // turns on the GPU, and their checks need the cores. (Before any CUDA call; not in a host-only runner. Where
    // it fails - no GPU - its error is cleared, so that no call's cudaGetLastError() reports it.)
    if (std::any_of(ops, ops + count, [](const Op& op) { return !op.host; }) &&
        cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync) != cudaSuccess)
        (void)cudaGetLastError();
    try {
        return Server(ops, count).run();
    } catch (const std::exception& e) {
        std::fprintf(stderr, "runner: %s\n", e.what());
        return 1;
    }
}

int serve(std::initializer_list<std::vector<Op>> lists)
{
    std::vector<Op> ops;
    for (const std::vector<Op>& list : lists) ops.insert(ops.end(), list.begin(), list.end());
    return serve(ops.data(), ops.size());
}

}  // namespace course::runner
