#include "course/problems.hpp"

#include "course/check.hpp"
#include "course/verify.hpp"

#include <numeric>
#include <stdexcept>

namespace course {

IntSum::IntSum(std::string chapter, const Args& args, Input input)
    : Problem(std::move(chapter), "int32"),
      n_(args.n),
      overwritten_(input == Input::overwritten),
      host_(random_ints(args.n, args.seed)),
      pristine_(overwritten_ ? args.n : 0),
      work_(args.n),
      total_(1)
{
    result_name = "sum";
    work_.copy_from_host(host_);
    if (overwritten_) pristine_.copy_from(work_);
}

std::int64_t IntSum::expected(std::size_t n)
{
    if (!expected_ || expected_->first != n) expected_.emplace(n, sum_reference(host_.data(), n));
    return expected_->second;
}

void IntSum::prepare()
{
    restore();
    total_.fill_bytes(0xA5);  // a kernel that never writes the total must not show the previous one's
}

void IntSum::restore()
{
    if (overwritten_) work_.copy_from(pristine_);
}

std::string IntSum::wrong(std::size_t n)
{
    const long long got = total_.to_host()[0];
    const std::int64_t want = expected(n);
    return got == want ? "" : "returned " + std::to_string(got) + ", expected " + std::to_string(want);
}

std::string IntSum::result(std::size_t) { return std::to_string(total_.to_host()[0]); }

std::string IntSum::about() { return "expected sum = " + std::to_string(expected(n_)); }

Problem::CpuRow IntSum::cpu_row()
{
    std::int64_t sum = 0;
    const Timing t = time_cpu([&] { sum = sum_reference(host_.data(), n_); });
    return {"CPU sum_reference", std::to_string(sum), sum == expected(n_), t};
}

ByteHistogram::ByteHistogram(std::string chapter, const Args& args, std::vector<ByteDistribution> distributions,
                             CpuHistogram cpu)
    : Problem(std::move(chapter), std::string(to_string(distributions.at(0))) + " bytes"),
      n_(args.n),
      seed_(args.seed),
      distributions_(std::move(distributions)),
      cpu_(std::move(cpu)),
      loaded_(distributions_[0]),
      d_in_(args.n),
      d_bins_(256)
{
    host_ = random_bytes(n_, seed_, loaded_);
    d_in_.copy_from_host(host_);
}

std::vector<std::string> ByteHistogram::inputs() const
{
    std::vector<std::string> names;
    for (const ByteDistribution d : distributions_) names.push_back(to_string(d));
    return names;
}

void ByteHistogram::load(const std::string& input)
{
    for (const ByteDistribution d : distributions_) {
        if (input != to_string(d) && !(input.empty() && d == distributions_[0])) continue;
        if (d == loaded_) return;
        loaded_ = d;
        host_ = random_bytes(n_, seed_, d);
        d_in_.copy_from_host(host_);
        expected_.reset();
        return;
    }
    throw std::logic_error("ByteHistogram: no input '" + input + "'");
}

const Histogram256& ByteHistogram::expected(std::size_t n)
{
    if (!expected_ || expected_->first != n) expected_.emplace(n, histogram_reference(host_.data(), n));
    return expected_->second;
}

std::string ByteHistogram::wrong(std::size_t n)
{
    const auto mismatch = first_mismatch(expected(n).data(), d_bins_.to_host().data(), d_bins_.size());
    return mismatch ? std::string(to_string(loaded_)) + " bytes: " + describe(*mismatch, d_bins_.size()) : "";
}

std::string ByteHistogram::result(std::size_t)
{
    const std::vector<unsigned> bins = d_bins_.to_host();
    return "total " + std::to_string(std::accumulate(bins.begin(), bins.end(), std::uint64_t{0}));
}

std::string ByteHistogram::about() { return std::string(to_string(loaded_)) + " random bytes"; }

Problem::CpuRow ByteHistogram::cpu_row()
{
    std::vector<unsigned> bins(d_bins_.size());
    const Timing t = time_cpu([&] { cpu_.run(host_.data(), bins.data(), n_); });
    const bool correct = !first_mismatch(expected(n_).data(), bins.data(), bins.size());
    return {cpu_.label, "total " + std::to_string(std::accumulate(bins.begin(), bins.end(), std::uint64_t{0})),
            correct, t};
}

IntScan::IntScan(std::string chapter, const Args& args)
    : Problem(std::move(chapter), "inclusive int32 scan (bytes = read + write)"),
      n_(args.n),
      host_(random_ints(args.n, args.seed)),
      inclusive_(args.n),
      d_in_(args.n),
      d_out_(args.n)
{
    inclusive_scan_reference(host_.data(), inclusive_.data(), n_);
    d_in_.copy_from_host(host_);
}

std::string IntScan::first_mismatch_in(const std::vector<int>& expected, std::size_t n) const
{
    std::vector<int> got(n);
    d_out_.copy_to_host(got.data(), n);
    const auto mismatch = first_mismatch(expected.data(), got.data(), n);
    return mismatch ? describe(*mismatch, n) : "";
}

std::string IntScan::wrong(std::size_t n) { return first_mismatch_in(inclusive_, n); }

std::string IntScan::wrong_exclusive(std::size_t n)
{
    if (exclusive_.size() != n_) {
        exclusive_.resize(n_);
        exclusive_scan_reference(host_.data(), exclusive_.data(), n_);
    }
    return first_mismatch_in(exclusive_, n);
}

std::string IntScan::result(std::size_t n)
{
    if (n == 0) return "-";
    int last = 0;
    CUDA_CHECK(cudaMemcpy(&last, d_out_.data() + (n - 1), sizeof last, cudaMemcpyDeviceToHost));
    return std::to_string(last);
}

Problem::CpuRow IntScan::cpu_row()
{
    const Timing t = time_cpu([&] { inclusive_scan_reference(host_.data(), inclusive_.data(), n_); });
    return {"CPU inclusive_scan_reference", n_ ? std::to_string(inclusive_.back()) : "-", true, t};
}

}  // namespace course
