// A chapter's progression table: its kernels in the order the README teaches them. Checks, demo, bench and
// tools/profile.sh all read the one table in <topic>_progression.hpp, so a kernel is listed once; demos and
// benches run a subset with --kernel NAME and print the table with --list [--json] (facts_of(table) goes into
// ArgSpec::steps; tests/manifest_test.py checks it against the chapter's tasks, mutants and profile.sh).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace course {

template <class Launcher>
struct Step {
    const char* task;    // "04.6": the TODO(NN.k) that writes it
    const char* name;    // the launcher's name, which --kernel takes
    Launcher* launch;    // the launcher (all the steps of one table share its signature)
    const char* change;  // one line: what it changes over the step before
};

// What a program says of a step (--list --json) and what --kernel accepts: the table without its launchers.
struct StepFacts {
    std::string task;
    std::string name;
    std::string change;
};

template <class Launcher, std::size_t N>
std::vector<StepFacts> facts_of(const Step<Launcher> (&steps)[N])
{
    std::vector<StepFacts> facts;
    for (const Step<Launcher>& s : steps) facts.push_back({s.task, s.name, s.change});
    return facts;
}

}  // namespace course
