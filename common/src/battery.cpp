#include "course/battery.hpp"

#include <algorithm>
#include <map>
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

// The chapter's race session (chapter_race_session) and what it found for each task. A function's static: the
// race cases register from other files' static initializers.
struct ChapterRace {
    std::vector<std::pair<std::string, std::function<void()>>> cases;  // each race task's case, as registered
    bool ran = false;                           // the tools' reports were read
    bool clean = false;                         // nothing reported, every call answered, every runner ended well
    std::set<std::string> watched;              // the tasks whose small cases ran in it
    std::map<std::string, std::string> failed;  // task: the first of its checks that failed there
    const std::string* collecting = nullptr;    // the task whose small cases run now
};
ChapterRace& chapter_race()
{
    static ChapterRace race;
    return race;
}

std::string chapter_of(const std::string& task) { return task.substr(5, task.find('.') - 5); }  // "07"

// The first case of a chapter's race test: every race task's small cases, in order, in one racecheck session and
// then one synccheck session (their starts overlapping, run_under_tools); each task's own case reads the verdict.
void chapter_race_session(const std::string& chapter)
{
    ChapterRace& race = chapter_race();
    std::string tasks;
    const auto runs = detail::run_sanitizer_tools("TODO(" + chapter + ")", race_tools, [&] {
        for (const auto& [task, body] : race.cases) {
            if (chapter_of(task) != chapter || task_failed(task)) continue;
            if (race.watched.insert(task).second) tasks += (tasks.empty() ? "" : ", ") + task;
            race.collecting = &task;
            try {
                body();
            } catch (...) {  // a REQUIRE that failed: the other tasks' calls still run
                race.failed.emplace(task, "its checks stopped at a failed requirement");
            }
            race.collecting = nullptr;
        }
    });
    if (!runs) return;
    race.ran = true;
    std::string problems;
    for (std::size_t i = 0; i < race_tools.size(); ++i)
        problems += detail::tool_problem("the chapter's session", race_tools[i], (*runs)[i]);
    race.clean = problems.empty();
    if (race.clean)
        MESSAGE("racecheck and synccheck reported nothing over the small cases of " << tasks);
    else
        MESSAGE("the chapter's session of " << tasks << " was not clean; each task's small cases run again in "
                                             "sessions of their own, which decide:\n" << problems);
    VERIFY(true, "");
}
}  // namespace

void detail::case_ended(const std::string& name, bool passed)
{
    if (!passed && name.rfind("TODO(", 0) == 0) failed_tasks.insert(name.substr(0, name.find(')') + 1));
}

void detail::assertion_failed(const std::string& text)
{
    ChapterRace& race = chapter_race();
    if (race.collecting) race.failed.emplace(*race.collecting, text);
}

bool task_failed(const std::string& task) { return failed_tasks.count(task) > 0; }

std::vector<bool> check_race_free(const std::string& task, const std::function<void()>& small_cases)
{
    const std::vector<bool> clean(race_tools.size(), true);
    const ChapterRace& race = chapter_race();
    if (race.collecting) {  // the chapter's session: the calls alone, in its sessions
        small_cases();
        return clean;
    }
    if (!gpu_available_or_skip()) return clean;
    if (task_failed(task)) {
        VERIFY(false, task << ": racecheck and synccheck were not run: the checks above fail already");
        return clean;
    }
    if (race.ran && race.watched.count(task) > 0) {
        const auto failed = race.failed.find(task);
        if (failed != race.failed.end()) {
            VERIFY(false, task << ": its small cases failed under racecheck and synccheck, in the chapter's session "
                                  "(the case 'TODO(" << chapter_of(task) << ") racecheck and synccheck' above): "
                               << failed->second);
            return clean;
        }
        if (race.clean) {
            VERIFY(true, "");
            MESSAGE(task << ": racecheck and synccheck reported nothing in the chapter's session");
            return clean;
        }
    }
    return check_tools_clean(task, race_tools, small_cases);
}

int register_task(const char* file, int line, const TaskCases& cases)
{
    register_case(file, line, cases.task + " " + cases.title, cases.checks);
    for (const auto& [name, body] : cases.own) register_case(file, line, cases.task + " " + name, body);
    if (cases.race) {
        ChapterRace& race = chapter_race();
        const std::string chapter = chapter_of(cases.task);
        if (std::none_of(race.cases.begin(), race.cases.end(), [&](const auto& c) { return chapter_of(c.first) == chapter; }))
            register_case(file, 0,  // line 0: before the chapter's cases, in doctest's order (file, line)
                          "TODO(" + chapter + ") racecheck and synccheck: one session of each tool over every race "
                                              "task's small cases",
                          [chapter] { chapter_race_session(chapter); });
        race.cases.emplace_back(cases.task, cases.race);
        register_case(file, line, cases.task + " racecheck and synccheck", cases.race);
    }
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
