// A chapter's progression table: its kernels in the order the README teaches them. Checks, demo, bench and
// tools/profile.sh all read the one table in <topic>_progression.hpp, so a kernel is listed once; demos and
// benches run a subset with --kernel NAME and print the table with --list [--json] (facts_of(table) goes into
// ArgSpec::steps; tests/manifest_test.py checks it against Meson's task lists, the checks, the mutants and
// profile.sh).
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace course {

template <class Launcher>
struct Step {
    const char* task;    // "04.6": the TODO(NN.k) that writes it
    const char* name;    // the launcher's name, which --kernel takes
    Launcher* launch;    // the launcher (all the steps of one table share its signature)
    const char* change;  // one line: what it changes over the step before
    // Which of its task's tests run this kernel beyond the ordinary checks (Meson's large_tasks, lesson_tasks
    // and performance_task must agree):
    bool large = false;            // 'TODO(NN.k) large': past 2^31 elements
    const char* lesson = nullptr;  // the Nsight Compute metrics its lesson judges (ncu's --metrics list) in the
                                   // chapter's 'TODO(NN.j-NN.k) lesson', which tools/profile.sh prints too
    bool timed = false;            // 'TODO(NN.k) performance': the chapter's final kernel, timed (course/performance.hpp)
};

inline constexpr bool large = true;  // Step::large, spelled in a table
inline constexpr bool timed = true;  // Step::timed

// What a program says of a step (--list --json) and what --kernel accepts: the table without its launchers.
struct StepFacts {
    std::string task;
    std::string name;
    std::string change;
    bool large;
    std::string lesson;  // "" when none
    bool timed;
};

template <class Launcher, std::size_t N>
std::vector<StepFacts> facts_of(const Step<Launcher> (&steps)[N])
{
    std::vector<StepFacts> facts;
    for (const Step<Launcher>& s : steps)
        facts.push_back({s.task, s.name, s.change, s.large, s.lesson ? s.lesson : "", s.timed});
    return facts;
}

// A chapter whose launchers have two signatures keeps two tables (04, 07): the progression is both, in order.
template <class First, std::size_t N, class Second, std::size_t M>
std::vector<StepFacts> facts_of(const Step<First> (&first)[N], const Step<Second> (&second)[M])
{
    std::vector<StepFacts> facts = facts_of(first);
    for (StepFacts& s : facts_of(second)) facts.push_back(std::move(s));
    return facts;
}

}  // namespace course
