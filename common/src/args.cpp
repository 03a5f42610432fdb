#include "course/args.hpp"

#include "course/data.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <optional>

namespace course {
namespace {

// Whole decimal numbers only: no sign, no spaces, no trailing junk, no overflow.
std::optional<std::uint64_t> parse_decimal(const std::string& text)
{
    if (text.empty() || text.size() > 20) return std::nullopt;
    std::uint64_t value = 0;
    for (char c : text) {
        if (c < '0' || c > '9') return std::nullopt;
        const auto digit = static_cast<std::uint64_t>(c - '0');
        if (value > (std::numeric_limits<std::uint64_t>::max() - digit) / 10) return std::nullopt;
        value = value * 10 + digit;
    }
    return value;
}

// "1000", or "2^28" for a power of two.
std::optional<std::uint64_t> parse_count(const std::string& text)
{
    if (text.rfind("2^", 0) == 0) {
        const auto exponent = parse_decimal(text.substr(2));
        if (!exponent || *exponent > 62) return std::nullopt;
        return std::uint64_t{1} << *exponent;
    }
    return parse_decimal(text);
}

std::string json_string(const std::string& text)
{
    std::string out = "\"";
    for (unsigned char c : text) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += static_cast<char>(c);
        } else if (c < 0x20) {
            char code[8];
            std::snprintf(code, sizeof code, "\\u%04x", c);
            out += code;
        } else {
            out += static_cast<char>(c);
        }
    }
    return out + "\"";
}

// The progression as --list --json prints it:
// {"program": ..., "steps": [{"task", "name", "change", "large", "lesson", "timed"}, ...]}.
std::string steps_json(const ArgSpec& spec)
{
    std::string out = "{\"program\": " + json_string(spec.program) + ", \"steps\": [";
    for (std::size_t i = 0; i < spec.steps.size(); ++i) {
        const StepFacts& s = spec.steps[i];
        out += std::string(i ? ",\n  " : "\n  ") + "{\"task\": " + json_string(s.task) + ", \"name\": " +
               json_string(s.name) + ", \"change\": " + json_string(s.change) +
               ", \"large\": " + (s.large ? "true" : "false") + ", \"lesson\": " + json_string(s.lesson) +
               ", \"timed\": " + (s.timed ? "true" : "false") + "}";
    }
    return out + "\n]}\n";
}

}  // namespace

std::string help_text(const ArgSpec& spec)
{
    const auto line = [](const std::string& option, const std::string& text) { return "  " + option + text + "\n"; };
    std::string h = std::string(spec.program) + ": " + spec.summary + "\n\n";
    h += line("--n N        ", "elements (decimal or 2^K; at most " + std::to_string(spec.max_n) + "; default " +
                                   std::to_string(spec.default_n) + ")");
    if (spec.uses_block)
        h += line("--block B    ", "threads per block, a power of two in [" + std::to_string(spec.min_block) + ", " +
                                       std::to_string(spec.max_block) + "] (default " +
                                       std::to_string(spec.default_block) + ")");
    else
        h += line("--block B    ", "validated like the GPU chapters' option, but unused here");
    h += line("--seed S     ", "input seed (default: a fresh one, printed)");
    if (spec.benchmark) {
        h += line("--runs R     ", "timed runs per kernel; the median is reported (default " +
                                       std::to_string(spec.default_runs) + ")");
        h += line("--csv PATH   ", "also write the table as CSV");
    }
    if (!spec.steps.empty()) {
        h += line("--kernel K   ", "run only kernel K (repeatable; default: all); one of:");
        for (const StepFacts& k : spec.steps) h += "                 " + k.name + "\n";
        h += line("--list       ", "print the kernel names, one per line (with --json: the progression, each "
                                   "step's task, name and change)");
    }
    h += line("--help       ", "this text");
    return h;
}

ParsedArgs try_parse_args(int argc, const char* const* argv, const ArgSpec& spec)
{
    ParsedArgs parsed{ParsedArgs::Outcome::run, Args{spec.default_n, spec.default_block, 0, spec.default_runs, "", {}}, ""};
    bool seed_given = false, list = false, json = false;
    const auto error = [&](std::string message) {
        parsed.outcome = ParsedArgs::Outcome::error;
        parsed.error = std::move(message);
        return parsed;
    };
    for (int i = 1; i < argc; ++i) {
        std::string name = argv[i];
        std::optional<std::string> value;
        if (const auto eq = name.find('='); name.rfind("--", 0) == 0 && eq != std::string::npos) {
            value = name.substr(eq + 1);  // --n=1000
            name.resize(eq);
        }
        if (name == "--help" || name == "-h") {
            parsed.outcome = ParsedArgs::Outcome::help;
            return parsed;
        }
        if ((name == "--list" || name == "--json") && !spec.steps.empty()) {
            (name == "--list" ? list : json) = true;
            continue;
        }
        const bool known = name == "--n" || name == "--block" || name == "--seed" ||
                           (spec.benchmark && (name == "--runs" || name == "--csv")) ||
                           (name == "--kernel" && !spec.steps.empty());
        if (!known) return error("unknown argument '" + name + "'");
        if (!value) {
            if (i + 1 >= argc) return error(name + " needs a value");
            value = argv[++i];
        }
        Args& a = parsed.args;
        if (name == "--n") {
            const auto n = parse_count(*value);
            if (!n) return error("--n expects a whole number >= 0 (or 2^K), got '" + *value + "'");
            if (*n > spec.max_n)
                return error("--n " + *value + " is more than this program supports (" + std::to_string(spec.max_n) + ")");
            a.n = *n;
        } else if (name == "--block") {
            const auto b = parse_decimal(*value);
            const bool ok = b && *b >= static_cast<std::uint64_t>(spec.min_block) &&
                            *b <= static_cast<std::uint64_t>(spec.max_block) && (*b & (*b - 1)) == 0;
            if (!ok)
                return error("--block must be a power of two in [" + std::to_string(spec.min_block) + ", " +
                             std::to_string(spec.max_block) + "], got '" + *value + "'");
            a.block = static_cast<int>(*b);
        } else if (name == "--seed") {
            const auto s = parse_decimal(*value);
            if (!s) return error("--seed expects a whole number >= 0, got '" + *value + "'");
            a.seed = *s;
            seed_given = true;
        } else if (name == "--runs") {
            const auto r = parse_decimal(*value);
            if (!r || *r < 1 || *r > 10000) return error("--runs expects a number in [1, 10000], got '" + *value + "'");
            a.runs = static_cast<int>(*r);
        } else if (name == "--kernel") {
            if (std::none_of(spec.steps.begin(), spec.steps.end(), [&](const StepFacts& s) { return s.name == *value; }))
                return error("--kernel '" + *value + "' is not a kernel of this program (--list shows them)");
            a.kernels.push_back(*value);
        } else {  // --csv
            if (value->empty()) return error("--csv needs a file name");
            a.csv = *value;
        }
    }
    if (json && !list) return error("--json goes with --list");
    if (list) parsed.outcome = json ? ParsedArgs::Outcome::list_json : ParsedArgs::Outcome::list;
    if (!seed_given) parsed.args.seed = fresh_seed();
    return parsed;
}

Args parse_args(int argc, char** argv, const ArgSpec& spec)
{
    const ParsedArgs parsed = try_parse_args(argc, argv, spec);
    switch (parsed.outcome) {
    case ParsedArgs::Outcome::help:
        std::fputs(help_text(spec).c_str(), stdout);
        std::exit(0);
    case ParsedArgs::Outcome::list:
        for (const StepFacts& k : spec.steps) std::printf("%s\n", k.name.c_str());
        std::exit(0);
    case ParsedArgs::Outcome::list_json:
        std::fputs(steps_json(spec).c_str(), stdout);
        std::exit(0);
    case ParsedArgs::Outcome::error:
        std::fprintf(stderr, "%s: error: %s (try --help)\n", spec.program, parsed.error.c_str());
        std::exit(2);
    case ParsedArgs::Outcome::run: break;
    }
    return parsed.args;
}

bool Args::wants(const std::string& name) const
{
    return kernels.empty() || std::find(kernels.begin(), kernels.end(), name) != kernels.end();
}

}  // namespace course
