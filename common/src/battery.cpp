#include "course/battery.hpp"

#include <algorithm>
#include <set>

namespace course::testing {

std::vector<std::size_t> sizes_with(int block, const std::vector<std::size_t>& extra)
{
    std::vector<std::size_t> sizes = standard_sizes(block);
    sizes.insert(sizes.end(), extra.begin(), extra.end());
    std::sort(sizes.begin(), sizes.end());
    sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
    return sizes;
}

std::size_t largest_of(const Sizes& sizes, const std::vector<int>& blocks)
{
    std::size_t largest = 0;
    for (int block : blocks)
        for (std::size_t n : sizes(block)) largest = std::max(largest, n);
    return largest;
}

bool check_each(const std::vector<int>& blocks, const Sizes& sizes, const SizeCheck& check)
{
    for (int block : blocks)
        for (std::size_t n : sizes(block))
            if (!check(n, block)) return false;
    return true;
}

std::optional<long long> written_outside(const checker::Result& r, std::size_t buffer, std::size_t count,
                                         unsigned char poison)
{
    const checker::Result::Bytes& b = r.buffers.at(buffer);
    const std::size_t elements = b.size / b.elem;
    const auto poisoned = [&](std::size_t k) {
        const unsigned char* element = b.data + k * b.elem;
        return std::all_of(element, element + b.elem, [&](unsigned char c) { return c == poison; });
    };
    for (std::size_t k = 0; k < elements; ++k)
        if ((k < b.lead || k >= b.lead + count) && !poisoned(k))
            return static_cast<long long>(k) - static_cast<long long>(b.lead);
    return std::nullopt;
}

void check_battery(const Battery& b)
{
    if (b.gate && !b.gate()) return;
    check_each(b.blocks, b.sizes, b.check);
    if (b.unique) b.unique();
    if (b.reject)
        for (int block : bad_blocks) b.reject(block);
    if (b.bad_arguments) b.bad_arguments();
}

namespace {
std::set<std::string> failed_tasks;  // the tasks with a failed test case so far ("TODO(07.5)")
}  // namespace

void detail::case_ended(const std::string& name, bool passed)
{
    if (!passed && name.rfind("TODO(", 0) == 0) failed_tasks.insert(name.substr(0, name.find(')') + 1));
}

bool task_failed(const std::string& task) { return failed_tasks.count(task) > 0; }

void check_race_free(const std::string& task, const std::function<void()>& small_cases)
{
    REQUIRE_GPU();
    if (task_failed(task)) {
        VERIFY(false, task << ": racecheck and synccheck were not run: the checks above fail already");
        return;
    }
    check_tools_clean(task, race_tools, small_cases);
}

int register_task(const char* file, int line, const TaskCases& cases)
{
    register_case(file, line, cases.task + " " + cases.title, cases.checks);
    for (const auto& [name, body] : cases.own) register_case(file, line, cases.task + " " + name, body);
    if (cases.race) register_case(file, line, cases.task + " racecheck and synccheck", cases.race);
    if (cases.large) register_case(file, line, cases.task + " large: " + cases.large_title, cases.large);
    return 0;
}

bool depends_on(const std::string& task, const std::string& earlier_task, const std::string& earlier_call,
                const std::string& problem)
{
    VERIFY(problem.empty(), task << ": depends on " << earlier_task << " (" << earlier_call << "), which fails: "
                                 << problem << "; fix " << earlier_task << " first");
    return problem.empty();
}

}  // namespace course::testing
