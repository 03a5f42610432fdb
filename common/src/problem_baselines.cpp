// cub_baseline() of course/problems.hpp: each problem's CUB call, its temporary storage allocated once for --n.
#include "course/cub_reference.hpp"
#include "course/problems.hpp"

#include <memory>

namespace course {

void cub_baseline(IntSum& problem)
{
    auto sum = std::make_shared<cub_ref::Sum>(problem.host().size());
    problem.baseline_name = "CUB DeviceReduce::Sum";
    problem.baseline = [&problem, sum](std::size_t n) { (*sum)(problem.data(), problem.total(), n); };
}

void cub_baseline(ByteHistogram& problem)
{
    auto histogram = std::make_shared<cub_ref::Histogram256>(problem.max_n());
    problem.baseline_name = "CUB HistogramEven";
    problem.baseline = [&problem, histogram](std::size_t n) { (*histogram)(problem.data(), problem.bins(), n); };
}

void cub_baseline(IntScan& problem)
{
    auto scan = std::make_shared<cub_ref::Scan>(problem.host().size());
    problem.baseline_name = "CUB DeviceScan::InclusiveSum";
    problem.baseline = [&problem, scan](std::size_t n) { scan->inclusive(problem.data(), problem.out(), n); };
}

}  // namespace course
