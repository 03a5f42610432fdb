// Size sweeps: a chapter's best kernel against CUB from 2^10 elements up, each size timed twice, labelled:
//   cold  the L2 cache is flushed before every timed run (the input comes from DRAM, as for a large n)
//   hot   the same call repeated: an input that fits in L2 is read from L2 from the second run on
// Either way each timed run is queued behind other GPU work (the flush, or gpu_wait), so that the GPU reaches
// the start event only after the host has enqueued the call: the timing is the GPU's, without the host's launch
// time (which at small n would be most of it, and varies from run to run of the program).
// and the conditions of the run (GPU, clocks at the start and the end, driver, CUDA, CCCL) beside the table.
#pragma once

#include "course/device_buffer.hpp"
#include "course/timer.hpp"

#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

namespace course {

// Evicts the L2 cache: writes a buffer of twice its size (enqueued on the default stream).
class L2Flush {
public:
    L2Flush();
    void operator()();

private:
    DeviceBuffer<unsigned char> buffer_;
};

// Keeps the GPU busy for about `microseconds` (one thread that watches the global timer), on the default
// stream: what is enqueued after it starts when it ends, however long the host took to enqueue it.
void gpu_wait(unsigned microseconds);

class SizeSweep {
public:
    SizeSweep(std::string title, std::string kernel, std::string reference);
    // Times `kernel` and `reference` (already verified by the caller) on n elements of `bytes` bytes, cold
    // and hot, `runs` times each.
    void add(std::size_t n, double bytes, const std::function<void()>& kernel, const std::function<void()>& reference,
             int runs);
    // add() for calls not checked yet: runs `kernel` and then `reference` once, each after `prepare()` (poison
    // the output, restore an input) and followed by `wrong()` (why the result is wrong; empty: right). Times
    // them only if both were right; otherwise says why on stderr. Returns whether both were right.
    bool add_verified(std::size_t n, double bytes, const std::function<void()>& kernel,
                      const std::function<void()>& reference, const std::function<void()>& prepare,
                      const std::function<std::string()>& wrong, int runs);
    void print(std::ostream& out, const std::string& conditions) const;
    void write_csv(const std::string& path, const std::string& conditions, bool append = false) const;
    // Sizes 2^10, 2^12, ..., up to max_n (and max_n itself).
    static std::vector<std::size_t> sizes(std::size_t max_n);
    // The smallest kernel-vs-reference speedup (reference ms / kernel ms) over every size, cold and hot.
    double worst_ratio() const;

private:
    struct Point {
        std::size_t n;
        double bytes;
        Timing kernel_cold, reference_cold, kernel_hot, reference_hot;
    };
    std::string title_, kernel_, reference_;
    std::vector<Point> points_;
    L2Flush flush_;
};

// "dir/06_atomic_histogram.csv" -> "dir/06_atomic_histogram-sweep.csv": where a bench writes its sweep (or,
// with another name, another extra table: "-launch-costs.csv").
std::string sweep_csv_path(const std::string& csv, const std::string& name = "sweep");

}  // namespace course
