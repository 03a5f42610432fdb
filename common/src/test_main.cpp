// The one doctest main() of the course: the checks' program, which links no student code (the runner, a
// process of its own, does; course/checker.hpp).
//
// Exit codes: 0 all selected cases passed; 1 a case failed (the run's seed is printed for replay) or no case
// matched the filters; 77 nothing failed but GPU cases could not run here (Meson reports SKIP; the reason,
// in CUDA's words, is printed). A GPU test can therefore never pass silently on a machine without a GPU.
//
// With COURSE_CALL_FAULTS set (tools/grade.py), a run that ends here writes there how many runner calls ended
// without an answer, plus the test cases that threw and the doubtful failures (course/testing.hpp): 0 means every
// failure was a verdict on answers or counts, which no other program on the GPU can change (the grader then
// does not run a failed test again alone).
#define DOCTEST_CONFIG_IMPLEMENT
#include "course/battery.hpp"
#include "course/testing.hpp"

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>

namespace {

int cases_started = 0;
int cases_thrown = 0;  // an exception out of a case (std::bad_alloc while a neighbour holds the memory, ...)
std::string current_case;

// Counts the test cases that actually ran, so a filter that matches nothing fails instead of passing.
struct CaseCounter : doctest::IReporter {
    explicit CaseCounter(const doctest::ContextOptions&) {}
    void report_query(const doctest::QueryData&) override {}
    void test_run_start() override {}
    void test_run_end(const doctest::TestRunStats&) override {}
    void test_case_start(const doctest::TestCaseData& data) override
    {
        ++cases_started;
        current_case = data.m_name;
    }
    void test_case_reenter(const doctest::TestCaseData&) override {}
    void test_case_end(const doctest::CurrentTestCaseStats& stats) override
    {
        course::testing::detail::case_ended(current_case, stats.testCaseSuccess);  // course::testing::task_failed
    }
    // A crash (SIGSEGV, SIGABRT, ...) ends the program inside doctest's signal handler, before main() could
    // print the seed: print it here, after doctest has named the test case that crashed.
    void test_case_exception(const doctest::TestCaseException& e) override
    {
        ++cases_thrown;
        if (!e.is_crash) return;
        const auto seed = static_cast<unsigned long long>(course::testing::detail::run_seed());
        const std::string& last = course::testing::detail::last_call();
        std::printf("The crash happened in '%s'%s%s, with the random inputs of seed %llu; replay with "
                    "COURSE_SEED=%llu\n",
                    current_case.c_str(), last.empty() ? "" : " while checking ", last.c_str(), seed, seed);
        std::fflush(stdout);
    }
    void subcase_start(const doctest::SubcaseSignature&) override {}
    void subcase_end() override {}
    void log_assert(const doctest::AssertData& a) override  // a failed one (or any, with --success)
    {
        if (!a.m_failed) return;
        std::ostringstream text;  // its message (CHECK_MESSAGE's is a context), else its expression
        const doctest::IContextScope* const* contexts = doctest::IReporter::get_active_contexts();
        for (int i = 0; i < doctest::IReporter::get_num_active_contexts(); ++i) contexts[i]->stringify(&text);
        if (text.str().empty()) text << a.m_expr;
        course::testing::detail::assertion_failed(text.str());  // course::testing::check_race_free
    }
    void log_message(const doctest::MessageData&) override {}
    void test_case_skipped(const doctest::TestCaseData&) override {}
};
REGISTER_LISTENER("course_case_counter", 1, CaseCounter);

int exit_with(int code)
{
    if (const char* path = std::getenv("COURSE_CALL_FAULTS")) {
        if (std::FILE* f = std::fopen(path, "w")) {
            std::fprintf(f, "%d\n", course::checker::faulted_calls() + cases_thrown +
                                        course::testing::detail::doubtful_failures());
            std::fclose(f);
        }
    }
    return code;
}

int run(doctest::Context& context)
{
    const int result = context.run();
    if (context.shouldExit()) return result;  // --help, --list-test-cases, ...

    namespace t = course::testing::detail;
    // Under a sanitizer setup every runner ran under the tool: its report decides too.
    if (!course::checker::sanitizer_tool().empty()) {
        const auto end = course::checker::session().finish();
        if (!end.log.empty() && !t::summaries_clean(end.log)) {
            std::printf("compute-sanitizer --tool %s reported problems in the runner:\n%s\n",
                        course::checker::sanitizer_tool().c_str(), end.log.substr(0, 20000).c_str());
            return 1;
        }
    }
    if (cases_started == 0) {
        std::fprintf(stderr, "error: no test case matched the filters given on the command line\n");
        return 1;
    }
    if (result != 0) {
        const auto seed = static_cast<unsigned long long>(t::run_seed());
        std::printf("Random inputs of this run used seed %llu; replay with COURSE_SEED=%llu\n", seed, seed);
        return result;
    }
    if (t::skipped_gpu_cases() > 0) {
        std::printf("SKIP: %d GPU test case(s) not run: %s\n", t::skipped_gpu_cases(), t::skip_reason().c_str());
        return 77;
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv)
{
    doctest::Context context(argc, argv);
    const int code = run(context);
    if (const auto& s = course::checker::spent(); s.starts > 0)
        std::printf("checks: %d calls answered in %.1f s (request to reply), %d runner starts in %.1f s\n", s.calls,
                    s.call_seconds, s.starts, s.start_seconds);
    return exit_with(code);
}
