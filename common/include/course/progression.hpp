// A chapter's progression table: its kernels in the order the README teaches them. Checks, demo, bench and
// tools/profile.sh all read the one table in <topic>_progression.hpp, so a kernel is listed once; demos and
// benches run a subset with --kernel NAME (names_of(table) goes into ArgSpec::kernels).
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

template <class Launcher, std::size_t N>
std::vector<std::string> names_of(const Step<Launcher> (&steps)[N])
{
    std::vector<std::string> names;
    for (const Step<Launcher>& s : steps) names.emplace_back(s.name);
    return names;
}

}  // namespace course
