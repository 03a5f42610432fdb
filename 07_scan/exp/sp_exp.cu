// TEMPORARY experiment harness (not part of the chapter): single-pass scan variants vs CUB, int32 inclusive.
#include <cub/device/device_scan.cuh>
#include <cuda/atomic>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#define CK(x)                                                                                   \
    do {                                                                                        \
        cudaError_t e_ = (x);                                                                   \
        if (e_ != cudaSuccess) {                                                                \
            std::printf("CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); \
            std::exit(1);                                                                       \
        }                                                                                       \
    } while (0)

constexpr unsigned full_warp = 0xffffffffu;

struct Params {
    unsigned init_ns, poll_ns, poll_max_ns;
    int stream;  // 1: __ldcs/__stcs
};

__device__ __forceinline__ unsigned long long load_status(unsigned long long* w)
{
    return cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(*w).load(cuda::memory_order_relaxed);
}
__device__ __forceinline__ void store_status(unsigned long long* w, unsigned long long v)
{
    cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(*w).store(v, cuda::memory_order_relaxed);
}
constexpr unsigned long long FA = 1ull << 32, FP = 2ull << 32;
__device__ __forceinline__ unsigned long long flag(unsigned long long w) { return w & ~0xffffffffull; }

__device__ __forceinline__ unsigned warp_sum(unsigned x)
{
#pragma unroll
    for (int m = 1; m < 32; m *= 2) x += __shfl_xor_sync(full_warp, x, m);
    return x;
}
__device__ __forceinline__ unsigned warp_incl(unsigned x)
{
    const unsigned lane = threadIdx.x & 31;
#pragma unroll
    for (unsigned d = 1; d < 32; d *= 2) {
        const unsigned y = __shfl_up_sync(full_warp, x, d);
        if (lane >= d) x += y;
    }
    return x;
}
__device__ __forceinline__ unsigned excl_from_incl(unsigned incl)
{
    const unsigned b = __shfl_up_sync(full_warp, incl, 1);
    return (threadIdx.x & 31) == 0 ? 0u : b;
}

__device__ unsigned look_back(unsigned long long* status, std::size_t tile, unsigned aggregate, const Params& p)
{
    const unsigned lane = threadIdx.x & 31;
    if (tile == 0) {
        if (lane == 0) store_status(&status[0], FP | aggregate);
        return 0;
    }
    if (lane == 0) store_status(&status[tile], FA | aggregate);
    if (p.init_ns) __nanosleep(p.init_ns);
    unsigned exclusive = 0;
    long long newest = static_cast<long long>(tile) - 1;
    while (true) {
        const long long pred = newest - static_cast<long long>(lane);
        unsigned long long word = pred >= 0 ? load_status(&status[pred]) : FP;
        unsigned s = p.poll_ns;
        while (__any_sync(full_warp, flag(word) == 0)) {
            if (s) {
                __nanosleep(s);
                s = min(2 * s, p.poll_max_ns);
            }
            if (pred >= 0) word = load_status(&status[pred]);
        }
        const unsigned pl = __ballot_sync(full_warp, flag(word) == FP);
        const unsigned last = pl ? __ffs(static_cast<int>(pl)) - 1 : 31;
        exclusive += warp_sum(lane <= last ? static_cast<unsigned>(word) : 0u);
        if (pl) break;
        newest -= 32;
    }
    if (lane == 0) store_status(&status[tile], FP | (exclusive + aggregate));
    return exclusive;
}

__device__ __forceinline__ uint4 ld4(const unsigned* p, int stream)
{
    return stream ? __ldcs(reinterpret_cast<const uint4*>(p)) : *reinterpret_cast<const uint4*>(p);
}
__device__ __forceinline__ void st4(unsigned* p, uint4 v, int stream)
{
    if (stream) __stcs(reinterpret_cast<uint4*>(p), v);
    else *reinterpret_cast<uint4*>(p) = v;
}

// Warp w owns chunk [w*32*ITEMS, ...). Striped: round r, lane l holds items r*128 + 4l .. +3.
template <int BLOCK, int ITEMS, bool TRANSPOSE, bool TICKET, int MINB>
__global__ void __launch_bounds__(BLOCK, MINB)
    sp_kernel(const unsigned* in, unsigned* out, std::size_t n, unsigned long long* status_base, Params p)
{
    constexpr int WARPS = BLOCK / 32, V = ITEMS / 4;
    __shared__ uint4 exch[TRANSPOSE ? WARPS * 32 * V : 1];
    __shared__ unsigned warp_pre[32];
    __shared__ unsigned tile_pre;
    __shared__ unsigned long long ticket;
    std::size_t tile;
    if (TICKET) {
        if (threadIdx.x == 0) ticket = atomicAdd(&status_base[0], 1ull);
        __syncthreads();
        tile = ticket;
    } else {
        tile = blockIdx.x;
    }
    unsigned long long* status = status_base + 1;
    const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const std::size_t tile_start = tile * static_cast<std::size_t>(BLOCK * ITEMS);
    const std::size_t chunk = tile_start + static_cast<std::size_t>(warp) * (32 * ITEMS);
    const bool full = tile_start + BLOCK * ITEMS <= n;
    unsigned x[ITEMS];
#pragma unroll
    for (int r = 0; r < V; ++r) {
        const std::size_t i = chunk + 128 * r + 4 * lane;
        if (full) {
            const uint4 v = ld4(in + i, p.stream);
            x[4 * r] = v.x, x[4 * r + 1] = v.y, x[4 * r + 2] = v.z, x[4 * r + 3] = v.w;
        } else {
#pragma unroll
            for (int k = 0; k < 4; ++k) x[4 * r + k] = i + k < n ? in[i + k] : 0u;
        }
    }
    unsigned warp_total;
    unsigned run_pre[TRANSPOSE ? 1 : V];
    uint4* ex = exch + (TRANSPOSE ? warp * 32 * V : 0);
    if constexpr (TRANSPOSE) {
#pragma unroll
        for (int r = 0; r < V; ++r) ex[r * 32 + lane] = make_uint4(x[4 * r], x[4 * r + 1], x[4 * r + 2], x[4 * r + 3]);
        __syncwarp();
#pragma unroll
        for (int j = 0; j < V; ++j) {
            const uint4 v = ex[lane * V + j];
            x[4 * j] = v.x, x[4 * j + 1] = v.y, x[4 * j + 2] = v.z, x[4 * j + 3] = v.w;
        }
#pragma unroll
        for (int i = 1; i < ITEMS; ++i) x[i] += x[i - 1];
        const unsigned incl = warp_incl(x[ITEMS - 1]);
        run_pre[0] = excl_from_incl(incl);
        warp_total = __shfl_sync(full_warp, incl, 31);
    } else {
        unsigned running = 0;
#pragma unroll
        for (int r = 0; r < V; ++r) {
            x[4 * r + 1] += x[4 * r];
            x[4 * r + 2] += x[4 * r + 1];
            x[4 * r + 3] += x[4 * r + 2];
            const unsigned incl = warp_incl(x[4 * r + 3]);
            run_pre[r] = running + excl_from_incl(incl);
            running += __shfl_sync(full_warp, incl, 31);
        }
        warp_total = running;
    }
    if (lane == 0) warp_pre[warp] = warp_total;
    __syncthreads();
    if (warp == 0) {
        const unsigned t = lane < WARPS ? warp_pre[lane] : 0u;
        const unsigned incl = warp_incl(t);
        const unsigned aggregate = __shfl_sync(full_warp, incl, 31);
        const unsigned prefix = look_back(status, tile, aggregate, p);
        if (lane < WARPS) warp_pre[lane] = prefix + excl_from_incl(incl);
    }
    __syncthreads();
    const unsigned base = warp_pre[warp];
    if constexpr (TRANSPOSE) {
        const unsigned b = base + run_pre[0];
#pragma unroll
        for (int j = 0; j < V; ++j)
            ex[lane * V + j] = make_uint4(b + x[4 * j], b + x[4 * j + 1], b + x[4 * j + 2], b + x[4 * j + 3]);
        __syncwarp();
#pragma unroll
        for (int r = 0; r < V; ++r) {
            const uint4 v = ex[r * 32 + lane];
            x[4 * r] = v.x, x[4 * r + 1] = v.y, x[4 * r + 2] = v.z, x[4 * r + 3] = v.w;
        }
    } else {
#pragma unroll
        for (int r = 0; r < V; ++r)
#pragma unroll
            for (int k = 0; k < 4; ++k) x[4 * r + k] += base + run_pre[r];
    }
#pragma unroll
    for (int r = 0; r < V; ++r) {
        const std::size_t i = chunk + 128 * r + 4 * lane;
        if (full) {
            st4(out + i, make_uint4(x[4 * r], x[4 * r + 1], x[4 * r + 2], x[4 * r + 3]), p.stream);
        } else {
#pragma unroll
            for (int k = 0; k < 4; ++k)
                if (i + k < n) out[i + k] = x[4 * r + k];
        }
    }
    (void)tile_pre;
}

__global__ void count_diff(const unsigned* a, const unsigned* b, std::size_t n, unsigned long long* bad)
{
    unsigned long long c = 0;
    for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
         i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
        c += a[i] != b[i];
    if (c) atomicAdd(bad, c);
}

using KernelFn = void (*)(const unsigned*, unsigned*, std::size_t, unsigned long long*, Params);
struct Variant {
    std::string name;
    KernelFn fn;
    int block, items;
};
#define V_(B, I, T, K, M) \
    Variant{std::string(#B "x" #I) + (T ? " transp" : " stripe") + (K ? " ticket" : " blkidx") + " minb" #M, \
            sp_kernel<B, I, T, K, M>, B, I}

static float median(std::vector<float> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

int main(int argc, char** argv)
{
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    const std::size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 0) : (std::size_t{1} << 28);
    const int runs = 21;
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    std::printf("%s, %d SMs, n = %zu\n", prop.name, prop.multiProcessorCount, n);
    std::vector<unsigned> h(n), ref(n);
    unsigned s = 12345, acc = 0;
    for (std::size_t i = 0; i < n; ++i) {
        s = s * 1664525u + 1013904223u;
        h[i] = static_cast<unsigned>(static_cast<int>((s >> 8) % 2001) - 1000);
        acc += h[i];
        ref[i] = acc;
    }
    unsigned *d_in, *d_out, *d_ref;
    unsigned long long* d_bad;
    CK(cudaMalloc(&d_ref, n * 4));
    CK(cudaMalloc(&d_bad, 8));
    unsigned long long* d_status;
    CK(cudaMalloc(&d_in, n * 4));
    CK(cudaMalloc(&d_out, n * 4));
    CK(cudaMalloc(&d_status, (n / 256 + 2) * 8));
    CK(cudaMemcpy(d_in, h.data(), n * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_ref, ref.data(), n * 4, cudaMemcpyHostToDevice));
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    const double bytes = 8.0 * n;
    auto timeit = [&](auto&& f) {
        for (int i = 0; i < 3; ++i) f();
        std::vector<float> t;
        for (int i = 0; i < runs; ++i) {
            CK(cudaEventRecord(e0));
            f();
            CK(cudaEventRecord(e1));
            CK(cudaEventSynchronize(e1));
            float ms;
            CK(cudaEventElapsedTime(&ms, e0, e1));
            t.push_back(ms);
        }
        CK(cudaGetLastError());
        return median(t);
    };
    auto check = [&](const char* what) {
        CK(cudaMemset(d_bad, 0, 8));
        count_diff<<<1024, 256>>>(d_out, d_ref, n, d_bad);
        unsigned long long bad = 0;
        CK(cudaMemcpy(&bad, d_bad, 8, cudaMemcpyDeviceToHost));
        if (bad) std::printf("%s: WRONG, %llu mismatches\n", what, bad);
        return bad == 0;
    };
    // copy
    const float copy_ms = timeit([&] { CK(cudaMemcpyAsync(d_out, d_in, n * 4, cudaMemcpyDeviceToDevice)); });
    std::printf("copy             %.4f ms %7.0f GB/s\n", copy_ms, bytes / copy_ms / 1e6);
    std::size_t tmp_bytes = 0;
    cub::DeviceScan::InclusiveSum(nullptr, tmp_bytes, d_in, d_out, n);
    void* d_tmp;
    CK(cudaMalloc(&d_tmp, tmp_bytes));
    auto cub_run = [&] { cub::DeviceScan::InclusiveSum(d_tmp, tmp_bytes, d_in, d_out, n); };
    cub_run();
    check("cub");
    const float cub_ms = timeit(cub_run);
    std::printf("CUB              %.4f ms %7.0f GB/s\n", cub_ms, bytes / cub_ms / 1e6);

    std::vector<Variant> vs = {
        V_(256, 24, false, true, 1),  V_(128, 24, false, true, 1),  V_(128, 16, false, true, 1),
        V_(256, 16, false, true, 1),  V_(512, 8, false, true, 1),   V_(128, 24, false, false, 1),
        V_(256, 24, false, false, 1), V_(128, 24, true, true, 1),   V_(128, 24, true, false, 1),
        V_(128, 16, true, true, 1),   V_(256, 16, true, true, 1),   V_(128, 20, true, true, 1),
        V_(128, 28, true, true, 1),   V_(256, 12, true, true, 1),   V_(256, 20, true, true, 1),
        V_(128, 12, true, true, 1),   V_(128, 32, true, true, 1),   V_(512, 12, true, true, 1),
        V_(256, 24, true, true, 1),   V_(64, 24, true, true, 1),    V_(128, 24, true, true, 8),   V_(128, 16, true, true, 12),  V_(128, 20, true, true, 10),
    };
    const Params sleeps[] = {{0, 32, 256, 0}, {0, 0, 0, 0}, {1245, 648, 648, 0}, {500, 100, 400, 0}, {300, 64, 256, 0},
                             {0, 32, 256, 1}, {1245, 648, 648, 1}};
    for (const auto& v : vs) {
        int regs = 0;
        cudaFuncAttributes fa;
        CK(cudaFuncGetAttributes(&fa, v.fn));
        regs = fa.numRegs;
        int occ = 0;
        CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, v.fn, v.block, 0));
        const std::size_t tile = static_cast<std::size_t>(v.block) * v.items;
        const std::size_t tiles = (n + tile - 1) / tile;
        for (const Params& p : sleeps) {
            auto run = [&] {
                CK(cudaMemsetAsync(d_status, 0, (tiles + 1) * 8));
                v.fn<<<static_cast<unsigned>(tiles), v.block>>>(d_in, d_out, n, d_status, p);
            };
            if (&p == &sleeps[0] || p.stream) {
                CK(cudaMemset(d_out, 0xAB, n * 4));
                run();
                if (!check(v.name.c_str())) break;
            }
            const float ms = timeit(run);
            std::printf("%-32s regs %3d occ %2d blk  sleep %4u/%3u/%3u st%d  %.4f ms %7.0f GB/s  %.3fx CUB\n",
                        v.name.c_str(), regs, occ, p.init_ns, p.poll_ns, p.poll_max_ns, p.stream, ms,
                        bytes / ms / 1e6, cub_ms / ms);
        }
    }
    const float cub_ms2 = timeit(cub_run);
    std::printf("CUB again        %.4f ms %7.0f GB/s\n", cub_ms2, bytes / cub_ms2 / 1e6);
    return 0;
}
