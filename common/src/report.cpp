#include "course/report.hpp"

#include "course/device.hpp"
#include "course/device_buffer.hpp"

#include <algorithm>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <ostream>
#include <sstream>
#include <stdexcept>

namespace course {
namespace {

std::string times(double ratio) { return fixed(ratio, 2) + "x"; }

}  // namespace

void ResultTable::add(std::string variant, std::string result, bool correct, double ms, double bytes)
{
    rows_.push_back(Row{std::move(variant), std::move(result), correct, ms, bytes});
}

bool ResultTable::all_correct() const
{
    for (const auto& r : rows_)
        if (!r.correct) return false;
    return true;
}

void ResultTable::print(std::ostream& out) const
{
    out << "### " << title_ << "\n\n"
        << "| variant | result | correct | time (ms) | GB/s | speedup vs " << (rows_.empty() ? "" : rows_[0].variant)
        << " |\n|---|---:|:---:|---:|---:|---:|\n";
    for (const auto& r : rows_) {
        const double gbps = r.ms > 0 ? r.bytes / (r.ms * 1e6) : 0;
        out << "| " << r.variant << " | " << r.result << " | " << (r.correct ? "yes" : "**NO**") << " | "
            << fixed(r.ms, 3) << " | " << fixed(gbps, 1) << " | " << (r.ms > 0 ? times(rows_[0].ms / r.ms) : "-")
            << " |\n";
    }
    out << '\n';
}

double copy_bandwidth_gbps(std::size_t bytes, int runs)
{
    DeviceBuffer<unsigned char> src(bytes), dst(bytes);
    src.fill_bytes(1);
    const Timing t = time_gpu(
        [&] { CUDA_CHECK(cudaMemcpyAsync(dst.data(), src.data(), bytes, cudaMemcpyDeviceToDevice)); }, runs);
    return 2.0 * static_cast<double>(bytes) / (t.median_ms * 1e6);
}

BenchTable::BenchTable(std::string title, std::size_t n, double copy_gbps)
    : title_(std::move(title)), n_(n), copy_gbps_(copy_gbps) {}

void BenchTable::add(std::string kernel, const Timing& t, double bytes)
{
    rows_.push_back(Row{std::move(kernel), t, bytes});
}

void BenchTable::set_reference(std::string name, const Timing& t, double bytes)
{
    reference_.assign(1, Row{std::move(name), t, bytes});
}

void BenchTable::print(std::ostream& out, const std::string& conditions) const
{
    const bool has_ref = !reference_.empty();
    out << "### " << title_ << " (n = " << n_ << ")\n\n"
        << "| kernel | median ms | GB/s | % of copy | step | total |" << (has_ref ? " vs " + reference_[0].kernel + " |" : "")
        << "\n|---|---:|---:|---:|---:|---:|" << (has_ref ? "---:|" : "") << '\n';
    auto line = [&](const Row& r, const Row* prev, bool is_ref) {
        out << "| " << r.kernel << " | " << fixed(r.t.median_ms, 3) << " | " << fixed(gbps(r), 1) << " | "
            << fixed(100.0 * gbps(r) / copy_gbps_, 1) << "% | "
            << (is_ref ? "" : times(prev ? prev->t.median_ms / r.t.median_ms : 1.0)) << " | "
            << (is_ref ? "" : times(rows_[0].t.median_ms / r.t.median_ms)) << " |";
        if (has_ref) out << ' ' << times(reference_[0].t.median_ms / r.t.median_ms) << " |";
        out << '\n';
    };
    for (std::size_t i = 0; i < rows_.size(); ++i) line(rows_[i], i ? &rows_[i - 1] : nullptr, false);
    if (has_ref) line(reference_[0], nullptr, true);
    out << "\nCopy bandwidth (device-to-device, read + write): " << fixed(copy_gbps_, 1)
        << " GB/s. Median of " << (rows_.empty() ? 0 : rows_[0].t.runs) << " runs. " << conditions << "\n\n";
}

void BenchTable::write_csv(const std::string& path, const std::string& conditions, bool append) const
{
    std::error_code ec;
    const bool needs_header = !append || std::filesystem::file_size(path, ec) == 0 || ec;
    std::ofstream f(path, append ? std::ios::app : std::ios::trunc);
    if (!f) throw std::runtime_error("cannot write " + path);
    const std::string stamp_gpu = csv_field(device_info().name);
    if (needs_header)
        f << "title,gpu,date,n,kernel,is_reference,median_ms,min_ms,max_ms,runs,bytes,gbps,pct_of_copy,"
             "step_speedup,total_speedup,vs_reference,copy_gbps,conditions\n";
    auto line = [&](const Row& r, const Row* prev, bool is_ref) {
        f << csv_field(title_) << ',' << stamp_gpu << ',' << today_utc() << ',' << n_ << ','
          << csv_field(r.kernel) << ',' << (is_ref ? 1 : 0) << ',' << r.t.median_ms << ',' << r.t.min_ms << ','
          << r.t.max_ms << ',' << r.t.runs << ',' << r.bytes << ',' << gbps(r) << ','
          << 100.0 * gbps(r) / copy_gbps_ << ',';
        if (!is_ref) f << (prev ? prev->t.median_ms / r.t.median_ms : 1.0) << ',' << rows_[0].t.median_ms / r.t.median_ms;
        else f << ',';
        f << ',';
        if (!reference_.empty()) f << reference_[0].t.median_ms / r.t.median_ms;
        f << ',' << copy_gbps_ << ',' << csv_field(conditions) << '\n';
    };
    for (std::size_t i = 0; i < rows_.size(); ++i) line(rows_[i], i ? &rows_[i - 1] : nullptr, false);
    if (!reference_.empty()) line(reference_[0], nullptr, true);
    if (!f) throw std::runtime_error("error writing " + path);
}

std::string csv_field(std::string s)
{
    std::replace(s.begin(), s.end(), '"', '\'');
    std::replace(s.begin(), s.end(), '\n', ' ');
    return '"' + s + '"';
}

std::string today_utc()
{
    const std::time_t now = std::time(nullptr);
    std::tm utc{};
    gmtime_r(&now, &utc);
    char buf[16];
    std::strftime(buf, sizeof buf, "%Y-%m-%d", &utc);
    return buf;
}

std::string fixed(double value, int digits)
{
    std::ostringstream s;
    s << std::fixed << std::setprecision(digits) << value;
    return s.str();
}

}  // namespace course
