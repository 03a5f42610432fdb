// Chapter 07 demo (docs/07_scan.md, "The demo and the benchmark"): every scan of scan_progression.hpp on one
// random input, checked against the CPU and timed; the single-block scans take one block's worth of it.
//   build/subprojects/07_scan/bin/scan_demo --n 2^24 --block 256 --seed 1 [--kernel NAME] [--list]
#include "scan.hpp"
#include "scan_problem.hpp"

#include "course/args.hpp"
#include "course/chapter.hpp"
#include "course/data.hpp"
#include "course/reference.hpp"

#include <cmath>
#include <memory>
#include <string>
#include <vector>
namespace {

// scan_single_pass<float> on floats in [-1, 1), within the error bound of docs/07_scan.md, "Floats".
struct FloatScan {
    std::vector<float> floats;
    std::vector<double> reference;
    course::DeviceBuffer<float> d_in, d_out;

    explicit FloatScan(const course::Args& args)
        : floats(course::random_floats(args.n, args.seed)), reference(args.n), d_in(floats), d_out(args.n)
    {
        course::inclusive_scan_reference(floats.data(), reference.data(), args.n);
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
    return course::demo_main<ScanProblem>(
        argc, argv, "prefix sums of random ints: the CPU reference and every GPU scan of chapter 07",
        [](ScanProblem& problem, const course::Args& args) {
            if (!args.wants("scan_single_pass")) return;
            // scan_single_pass on the problem's ScanWorkspace: a look-back that gave up is reported before `wrong`.
            const auto row = [&](const char* label, auto* in, auto* out, ScanKind kind, auto wrong, auto result) {
                const auto run = [&, in, out, kind] {
                    scan_single_pass(in, out, kind, args.n, args.block, problem.scratch);
                };
                const auto checked = [&, label, wrong] {
                    problem.scratch.check(label);
                    return wrong();
                };
                return course::DemoRow{label, args.n, run, checked, result};
            };
            problem.demo_rows.push_back(row("scan_single_pass, exclusive", problem.data(), problem.out(),
                                            ScanKind::exclusive, [&] { return problem.wrong_exclusive(args.n); },
                                            [&] { return problem.result(args.n); }));
            problem.demo_rows.back().prepare = [&] { problem.prepare(); };
            const auto floats = std::make_shared<FloatScan>(args);
            problem.demo_rows.push_back(row("scan_single_pass<float>", floats->d_in.data(), floats->d_out.data(),
                                            ScanKind::inclusive, [floats] { return floats->wrong(); },
                                            [floats] { return floats->last(); }));
        });
}
