// Chapter 07's runner: the one program that links your scan_student.cuh (through scan_launch.cu). The checks
// (checks.cpp) send it calls and judge what comes back (course/runner.hpp).
//
// Every scan operation is a launcher of the same name: buffer 0 the input, buffer 1 the output, the parameter
// `kind` (0 inclusive, 1 exclusive). The multi-tile scans use the ScanWorkspace for `max_n` elements, made on the
// first call that asks for that max_n and kept for the calls after it (the contract's "created once for the
// largest n and reused"). A single-pass call waits for its stream and then runs scratch.check(): a look-back
// that gave up waiting becomes an error reply with its message. With the parameter pending_error = 1 a CUDA
// error that has nothing to do with the scan is left pending just before the call; with stale_timeout_record = 1
// the scratch holds a look-back record no check() has read ("tile 5 waited on tile 3") and this call does not
// check() either (the given-code checks of the launcher's bookkeeping).
//
// probe_decoupled_look_back: buffer 0 the prepared statuses, parameters tile, aggregate, late_tile (absent: no
// late tile) and late_word; it writes the 32 lanes' prefixes to buffer 1 and {published, 1 if the late writer
// saw the tile's A else 0, timeout_record} to buffer 2.
#include "scan_progression.hpp"

#include "course/check.hpp"
#include "course/runner.hpp"

#include <cstddef>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace {

using course::runner::Call;

ScanKind kind_of(const Call& c) { return c.param("kind") == 1 ? ScanKind::exclusive : ScanKind::inclusive; }

ScanWorkspace& scratch_of(Call& c)
{
    const auto max_n = static_cast<std::size_t>(c.param("max_n"));
    ScanWorkspace& scratch = c.keep<ScanWorkspace>("scratch max_n=" + std::to_string(max_n), max_n);
    // Its memsets (a new scratch's, the last check()'s) go on the legacy default stream, with which a
    // non-blocking stream does not wait: they are done before the scan starts.
    CUDA_CHECK(cudaDeviceSynchronize());
    return scratch;
}

void single_block(Call& c, SingleBlockScan* launch)
{
    launch(c.buffer<int>(0), c.buffer<int>(1), kind_of(c), c.n, c.block, c.stream());
}

template <MultiTileScan* Launch>
void multi_tile(Call& c)
{
    Launch(c.buffer<int>(0), c.buffer<int>(1), kind_of(c), c.n, c.block, scratch_of(c), c.stream());
}

template <class T>
void single_pass(Call& c)
{
    ScanWorkspace& scratch = scratch_of(c);
    const cudaStream_t stream = c.stream();
    if (c.param("pending_error") == 1) (void)cudaSetDevice(-1);  // an unrelated error, left pending (not sticky)
    const bool stale_record = c.param("stale_timeout_record") == 1;
    if (stale_record) {  // what an earlier launch that gave up leaves when nobody calls check() after it
        const unsigned long long record = (5ull << 32) | 3ull;
        CUDA_CHECK(cudaMemcpy(scratch.look_back_timeout(), &record, sizeof record, cudaMemcpyHostToDevice));
    }
    scan_single_pass(c.buffer<T>(0), c.buffer<T>(1), kind_of(c), c.n, c.block, scratch, stream);
    CUDA_CHECK(cudaStreamSynchronize(stream));
    if (!stale_record) scratch.check(std::is_same_v<T, float> ? "scan_single_pass<float>" : "scan_single_pass");
}

void look_back_probe(Call& c)
{
    if (c.count(1) < 32 || c.count(2) < 3)
        throw std::logic_error("probe_decoupled_look_back: buffer 1 holds 32 prefixes, buffer 2 three words");
    std::vector<unsigned long long> statuses(c.count(0));
    if (!statuses.empty())
        CUDA_CHECK(cudaMemcpy(statuses.data(), c.buffer<unsigned long long>(0),
                              statuses.size() * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
    const LookBackProbe probe = probe_decoupled_look_back(
        statuses, static_cast<std::size_t>(c.param("tile")), static_cast<unsigned>(c.param("aggregate")),
        c.has("late_tile") ? static_cast<std::size_t>(c.param("late_tile")) : static_cast<std::size_t>(-1),
        static_cast<unsigned long long>(c.param("late_word")));
    const unsigned long long facts[3] = {probe.published, probe.late_writer_saw_aggregate ? 1ull : 0ull,
                                         probe.timeout_record};
    CUDA_CHECK(cudaMemcpy(c.buffer<unsigned>(1), probe.prefix, sizeof probe.prefix, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(c.buffer<unsigned long long>(2), facts, sizeof facts, cudaMemcpyHostToDevice));
}

}  // namespace

int main()
{
    return course::runner::serve({
        course::runner::ops_of(scan_single_block_progression, single_block),
        {
            {"scan_multiblock", multi_tile<scan_multiblock>},
            {"scan_warp_shuffle", multi_tile<scan_warp_shuffle>},
            {"scan_single_pass", single_pass<int>},
            {"scan_single_pass<float>", single_pass<float>},
            {"probe_decoupled_look_back", look_back_probe},
        },
    });
}
