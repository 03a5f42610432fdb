#include "course/sweep.hpp"

#include "course/check.hpp"
#include "course/device.hpp"
#include "course/report.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <ostream>
#include <sstream>
#include <stdexcept>

namespace course {

L2Flush::L2Flush() : buffer_(std::max<std::size_t>(2 * device_info().l2_bytes, std::size_t{1} << 20)) {}

void L2Flush::operator()() { CUDA_CHECK(cudaMemsetAsync(buffer_.data(), 0, buffer_.bytes())); }

SizeSweep::SizeSweep(std::string title, std::string kernel, std::string reference)
    : title_(std::move(title)), kernel_(std::move(kernel)), reference_(std::move(reference))
{
}

void SizeSweep::add(std::size_t n, double bytes, const std::function<void()>& kernel,
                    const std::function<void()>& reference, int runs)
{
    Point p{n, bytes, {}, {}, {}, {}};
    p.kernel_cold = time_gpu_with_reset([this] { flush_(); }, kernel, runs);
    p.reference_cold = time_gpu_with_reset([this] { flush_(); }, reference, runs);
    const auto busy = [] { gpu_wait(50); };  // longer than the host takes to enqueue a call
    p.kernel_hot = time_gpu_with_reset(busy, kernel, runs);
    p.reference_hot = time_gpu_with_reset(busy, reference, runs);
    points_.push_back(p);
}

bool SizeSweep::add_verified(std::size_t n, double bytes, const std::function<void()>& kernel,
                             const std::function<void()>& reference, const std::function<void()>& prepare,
                             const std::function<std::string()>& wrong, int runs)
{
    std::string why;
    for (const auto* call : {&kernel, &reference}) {
        prepare();
        (*call)();
        if (const std::string w = wrong(); !w.empty() && why.empty())
            why = (call == &kernel ? kernel_ : reference_) + ": " + w;
    }
    if (!why.empty()) {
        std::cerr << "size sweep, n = " << n << ", " << why << ": not timed\n";
        return false;
    }
    add(n, bytes, kernel, reference, runs);
    return true;
}

std::vector<std::size_t> SizeSweep::sizes(std::size_t max_n)
{
    std::vector<std::size_t> out;
    for (std::size_t n = std::size_t{1} << 10; n < max_n; n *= 4) out.push_back(n);
    out.push_back(max_n);
    return out;
}

std::string sweep_csv_path(const std::string& csv, const std::string& name)
{
    const std::string suffix = ".csv";
    const bool has_suffix =
        csv.size() >= suffix.size() && csv.compare(csv.size() - suffix.size(), suffix.size(), suffix) == 0;
    return (has_suffix ? csv.substr(0, csv.size() - suffix.size()) : csv) + "-" + name + ".csv";
}

double SizeSweep::worst_ratio() const
{
    double worst = 1e300;
    for (const Point& p : points_)
        worst = std::min({worst, p.reference_cold.median_ms / p.kernel_cold.median_ms,
                          p.reference_hot.median_ms / p.kernel_hot.median_ms});
    return worst;
}

void SizeSweep::print(std::ostream& out, const std::string& conditions) const
{
    const auto gbps = [](double bytes, const Timing& t) { return fixed(bytes / (t.median_ms * 1e6), 1); };
    out << "### " << title_ << ": " << kernel_ << " against " << reference_ << " by size\n\n"
        << "| n | cold: " << kernel_ << " ms | " << reference_ << " ms | GB/s | vs CUB | hot: " << kernel_
        << " ms | " << reference_ << " ms | GB/s | vs CUB |\n|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
    for (const Point& p : points_)
        out << "| " << p.n << " | " << fixed(p.kernel_cold.median_ms, 4) << " | " << fixed(p.reference_cold.median_ms, 4)
            << " | " << gbps(p.bytes, p.kernel_cold) << " | "
            << fixed(p.reference_cold.median_ms / p.kernel_cold.median_ms, 2) << "x | "
            << fixed(p.kernel_hot.median_ms, 4) << " | " << fixed(p.reference_hot.median_ms, 4) << " | "
            << gbps(p.bytes, p.kernel_hot) << " | " << fixed(p.reference_hot.median_ms / p.kernel_hot.median_ms, 2)
            << "x |\n";
    out << "\ncold: L2 flushed before every timed run; hot: the same call repeated (the input stays in L2 when it "
           "fits); either way the GPU time of the call, without the host's launch time. Medians of "
        << (points_.empty() ? 0 : points_[0].kernel_hot.runs) << " runs. " << conditions << "\n\n";
}

void SizeSweep::write_csv(const std::string& path, const std::string& conditions, bool append) const
{
    std::error_code ec;
    const bool needs_header = !append || std::filesystem::file_size(path, ec) == 0 || ec;
    std::ofstream f(path, append ? std::ios::app : std::ios::trunc);
    if (!f) throw std::runtime_error("cannot write " + path);
    if (needs_header)
        f << "title,n,bytes,cache,kernel,kernel_ms,reference,reference_ms,vs_reference,conditions\n";
    for (const Point& p : points_)
        for (const bool cold : {true, false}) {
            const Timing& k = cold ? p.kernel_cold : p.kernel_hot;
            const Timing& r = cold ? p.reference_cold : p.reference_hot;
            f << csv_field(title_) << ',' << p.n << ',' << p.bytes << ',' << (cold ? "cold" : "hot") << ','
              << csv_field(kernel_) << ',' << k.median_ms << ',' << csv_field(reference_) << ',' << r.median_ms << ','
              << r.median_ms / k.median_ms << ',' << csv_field(conditions) << '\n';
        }
    if (!f) throw std::runtime_error("error writing " + path);
}

}  // namespace course
