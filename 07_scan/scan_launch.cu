// Chapter 07 launchers, shared by both variants: the argument checks, the grid sizes, the recursion levels of
// scan_warp_shuffle and the launches. The kernels (and multiblock_levels, TODO(07.3)) come from
// <variant>/scan_kernels.cuh (starter/ is yours, solution/ the reference); meson.build puts the -Dvariant folder
// on the include path.
#include "scan.hpp"

#include "course/check.hpp"

#include <cstdint>
#include <stdexcept>
#include <string>

namespace scan_detail {

// ------------------------------------------------------------------------------------------ launch checks
void check_block(const char* name, int block)
{
    if (block < 32 || block > 1024 || (block & (block - 1)) != 0)
        throw std::invalid_argument(std::string(name) + ": block must be a power of two in [32, 1024], got " +
                                    std::to_string(block));
}

void check_fits(const char* name, std::size_t n, std::size_t limit, const char* why)
{
    if (n > limit)
        throw std::invalid_argument(std::string(name) + ": n = " + std::to_string(n) + " is larger than " +
                                    std::to_string(limit) + " (" + why + ")");
}

std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

}  // namespace scan_detail

// The kernels, and multiblock_levels (which calls ceil_div above and launches through CUDA_CHECK_LAUNCH).
#include "scan_kernels.cuh"

namespace scan_detail {

// -------------------------------------------------------------------------------------------- 07.4 warp shuffle
void warp_shuffle_levels(const unsigned* in, unsigned* out, std::size_t n, int block, ScanKind kind, unsigned* sums)
{
    const std::size_t tiles = ceil_div(n, static_cast<std::size_t>(block) * scan_items_per_thread);
    const bool vector_io = aligned16(in) && aligned16(out);
    if (tiles == 1) {
        scan_tiles_kernel<<<1, block>>>(in, out, n, nullptr, kind, vector_io);
        CUDA_CHECK_LAUNCH();
        return;
    }
    const auto grid = static_cast<unsigned>(tiles);
    reduce_tiles_kernel<<<grid, block>>>(in, n, sums, aligned16(in));
    CUDA_CHECK_LAUNCH();
    warp_shuffle_levels(sums, sums, tiles, block, ScanKind::exclusive, sums + tiles);
    scan_tiles_kernel<<<grid, block>>>(in, out, n, sums, kind, vector_io);
    CUDA_CHECK_LAUNCH();
}

// ------------------------------------------------------------------------------------------- 07.5 single pass
template <class T>
void single_pass(const char* name, const T* in, T* out, std::size_t n, int block, ScanKind kind, ScanScratch& scratch)
{
    check_block(name, block);
    check_fits(name, n, scratch.max_n(), "the ScanScratch was sized for less");
    if (n == 0) return;
    const std::size_t tiles = ceil_div(n, static_cast<std::size_t>(block) * scan_items_per_thread);
    // Every status back to X and the ticket counter to 0, ordered before the kernel on the same stream.
    CUDA_CHECK(cudaMemsetAsync(scratch.tile_status(), 0, (tiles + 1) * sizeof(unsigned long long)));
    const bool vector_io = aligned16(in) && aligned16(out);
    single_pass_kernel<T><<<static_cast<unsigned>(tiles), block>>>(in, out, n, scratch.tile_status(), kind, vector_io);
    CUDA_CHECK_LAUNCH();
}

const unsigned* as_unsigned(const int* p) { return reinterpret_cast<const unsigned*>(p); }
unsigned* as_unsigned(int* p) { return reinterpret_cast<unsigned*>(p); }

}  // namespace scan_detail

using namespace scan_detail;

void scan_hillis_steele(const int* d_in, int* d_out, std::size_t n, int block, ScanKind kind)
{
    check_block("scan_hillis_steele", block);
    check_fits("scan_hillis_steele", n, hillis_steele_max_n(block), "one block, one item per thread");
    if (n == 0) return;
    const std::size_t shared = 2 * static_cast<std::size_t>(block) * sizeof(unsigned);
    hillis_steele_kernel<<<1, block, shared>>>(as_unsigned(d_in), as_unsigned(d_out), static_cast<unsigned>(n), kind);
    CUDA_CHECK_LAUNCH();
}

void scan_blelloch(const int* d_in, int* d_out, std::size_t n, int block, ScanKind kind)
{
    check_block("scan_blelloch", block);
    check_fits("scan_blelloch", n, blelloch_max_n(block), "one block, two items per thread");
    if (n == 0) return;
    blelloch_tiles_kernel<<<1, block, blelloch_shared_bytes(block)>>>(as_unsigned(d_in), as_unsigned(d_out), n,
                                                                       nullptr, kind);
    CUDA_CHECK_LAUNCH();
}

void scan_multiblock(const int* d_in, int* d_out, std::size_t n, int block, ScanKind kind, ScanScratch& scratch)
{
    check_block("scan_multiblock", block);
    check_fits("scan_multiblock", n, scratch.max_n(), "the ScanScratch was sized for less");
    if (n == 0) return;
    multiblock_levels(as_unsigned(d_in), as_unsigned(d_out), n, block, kind, scratch.block_sums());
}

void scan_warp_shuffle(const int* d_in, int* d_out, std::size_t n, int block, ScanKind kind, ScanScratch& scratch)
{
    check_block("scan_warp_shuffle", block);
    check_fits("scan_warp_shuffle", n, scratch.max_n(), "the ScanScratch was sized for less");
    if (n == 0) return;
    warp_shuffle_levels(as_unsigned(d_in), as_unsigned(d_out), n, block, kind, scratch.block_sums());
}

void scan_single_pass(const int* d_in, int* d_out, std::size_t n, int block, ScanKind kind, ScanScratch& scratch)
{
    single_pass("scan_single_pass", as_unsigned(d_in), as_unsigned(d_out), n, block, kind, scratch);
}

void scan_single_pass(const float* d_in, float* d_out, std::size_t n, int block, ScanKind kind, ScanScratch& scratch)
{
    single_pass("scan_single_pass<float>", d_in, d_out, n, block, kind, scratch);
}
