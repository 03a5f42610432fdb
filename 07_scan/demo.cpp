// Chapter 07 demo: the chapter's scans (scan_progression.hpp) on one random input, checked against the CPU and
// timed. --kernel NAME (repeatable) runs only those; --list prints the names.
//   build/subprojects/07_scan/bin/scan_demo --n 2^24 --block 256 --seed 1
// The single-block scans can only take one block's worth: they scan the first block (or 2 * block) items.
#include "scan.hpp"
#include "scan_problem.hpp"
#include "scan_progression.hpp"

#include "course/args.hpp"
#include "course/chapter.hpp"
#include "course/check.hpp"
#include "course/data.hpp"
#include "course/reference.hpp"

#include <cmath>
#include <optional>
#include <string>
#include <vector>

namespace {

// scan_single_pass<float> on floats in [-1, 1), within the error bound of docs/07_scan.md, "Floats".
struct FloatScan {
    std::vector<float> floats;
    std::vector<double> reference;
    course::DeviceBuffer<float> d_in, d_out;

    explicit FloatScan(const course::Args& args)
        : floats(course::random_floats(args.n, args.seed)), reference(args.n), d_in(args.n), d_out(args.n)
    {
        course::inclusive_scan_reference(floats.data(), reference.data(), args.n);
        d_in.copy_from_host(floats);
    }

    std::string wrong() const
    {
        const std::vector<float> got = d_out.to_host();
        double abs_prefix = 0;
        for (std::size_t i = 0; i < got.size(); ++i) {
            abs_prefix += std::fabs(static_cast<double>(floats[i]));
            if (!(std::fabs(static_cast<double>(got[i]) - reference[i]) <= float_scan_tolerance(i + 1, abs_prefix)))
                return "element " + std::to_string(i) + " is off by more than the bound";
        }
        return "";
    }

    std::string last() const
    {
        const std::vector<float> got = d_out.to_host();
        return got.empty() ? "-" : std::to_string(got.back());
    }
};

}  // namespace

int main(int argc, char** argv)
{
    course::ArgSpec spec{"scan_demo", "prefix sums of random ints: the CPU reference and every GPU scan of chapter 07",
                         std::size_t{1} << 24, std::size_t{1} << 30};
    spec.steps = scan_step_facts();
    const course::Args args = course::parse_args(argc, argv, spec);

    return course::run_gpu_main(spec.program, [&] {
        ScanProblem problem(args);
        std::optional<FloatScan> float_scan;
        const std::size_t n = args.n;
        if (args.wants("scan_single_pass")) {
            float_scan.emplace(args);
            problem.demo_rows.push_back(
                {"scan_single_pass, exclusive", n,
                 [&] {
                     scan_single_pass(problem.data(), problem.out(), ScanKind::exclusive, n, args.block,
                                      problem.scratch);
                 },
                 [&] {
                     problem.scratch.check("scan_single_pass, exclusive");
                     return problem.wrong_exclusive(n);
                 },
                 [&] { return problem.result(n); }, [&] { problem.prepare(); }});
            problem.demo_rows.push_back(
                {"scan_single_pass<float>", n,
                 [&] {
                     scan_single_pass(float_scan->d_in.data(), float_scan->d_out.data(), ScanKind::inclusive, n, args.block,
                                      problem.scratch);
                 },
                 [&] {
                     problem.scratch.check("scan_single_pass<float>");
                     return float_scan->wrong();
                 },
                 [&] { return float_scan->last(); }});
        }
        return course::run_demo(spec, args, problem);
    });
}
