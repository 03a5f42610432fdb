// Checks of the boundary itself (course/checker.hpp, course/runner.hpp), against boundary_runner.cpp's host
// operations: they run everywhere, CI included.
#include "course/checker.hpp"
#include "course/testing.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <numeric>
#include <string>
#include <stdexcept>
#include <thread>
#include <vector>

using course::checker::Call;
using course::checker::Input;
using course::checker::Result;

TEST_SUITE("boundary")
{
TEST_CASE("an output comes back whole: what the call wrote, and the poison of its lead and tail")
{
    const Result r = course::checker::run(Call("iota", 10).output<int>(10, 0xAB, 3, 2));
    REQUIRE(r.ok());
    const std::vector<int> whole = r.whole<int>(0);
    REQUIRE(whole.size() == 15);
    for (std::size_t i = 0; i < 10; ++i) CHECK(r.element<int>(0, i) == static_cast<int>(i));
    for (std::size_t i : {0, 1, 12, 13, 14}) CHECK(whole[i] == static_cast<int>(0xABABABABu));
}

TEST_CASE("an input arrives as it was sealed, and a call that writes it dies")
{
    std::vector<int> values(1000);
    std::iota(values.begin(), values.end(), -500);
    const Input data(values);
    const Result r = course::checker::run(Call("copy", 1000).input(data, 0, 1000).output<int>(1000, 0));
    REQUIRE(r.ok());
    CHECK(std::equal(values.begin(), values.end(), r.elements<int>(1)));
    const Result w = course::checker::run(Call("write_input", 1000).input(data, 0, 1000));
    CHECK(w.outcome == Result::Outcome::crashed);
    CHECK(data.data<int>()[0] == -500);

    // written in place (a performance task's gigabyte): sealed the same way
    const Input filled(1000, sizeof(int), [&](void* out) { std::copy(values.begin(), values.end(), static_cast<int*>(out)); });
    const Result f = course::checker::run(Call("copy", 1000).input(filled, 0, 1000).output<int>(1000, 0));
    REQUIRE(f.ok());
    CHECK(std::equal(values.begin(), values.end(), f.elements<int>(1)));
    CHECK(course::checker::run(Call("write_input", 1000).input(filled, 0, 1000)).outcome == Result::Outcome::crashed);
    CHECK(filled.data<int>()[999] == 499);
}

TEST_CASE("a Result keeps what came back while later calls are answered")
{
    const Result first = course::checker::run(Call("iota", 1000).output<int>(1000, 0));
    const Result second = course::checker::run(Call("iota", 10).output<int>(10, 0x7F, 0, 990));
    REQUIRE(first.ok());
    REQUIRE(second.ok());
    for (std::size_t i : {0, 10, 999}) CHECK(first.element<int>(0, i) == static_cast<int>(i));
    CHECK(second.whole<int>(0).at(0) == 0x7F7F7F7F);  // 990 elements of lead, then 0..9
}

TEST_CASE("a runner cannot raise its limits")
{
    const Result r = course::checker::run(Call("raise_limits", 0));
    REQUIRE(r.ok());
    const auto at_most = [&](const char* limit, long long most) {  // -1: unlimited
        const long long got = r.number(limit);
        CHECK_MESSAGE((got >= 0 && got <= most), limit << ": " << got);
    };
    at_most("core", 0);
    at_most("fsize", 256LL << 20);
    at_most("nproc", 8192);
    at_most("data", 4LL << 30);
}

TEST_CASE("a runner's environment holds nothing of the checks' but one hardware queue per context")
{
    const Result r = course::checker::run(Call("environment", 0));
    REQUIRE(r.ok());
    CHECK_MESSAGE(r.number("course_variables") == 0, "the runner sees COURSE_ variables (the seed among them?)");
    const char* set_here = std::getenv("CUDA_DEVICE_MAX_CONNECTIONS");  // an instructor's choice passes through
    CHECK(r.number("connections") == (set_here != nullptr ? std::atoll(set_here) : 1));
}

TEST_CASE("a rejection, a crash and the call after it")
{
    const Result r = course::checker::run(Call("reject", 7));
    CHECK(r.rejected());
    CHECK(r.message == "n = 7 is not allowed");
    const Result c = course::checker::run(Call("crash", 1));
    CHECK(c.outcome == Result::Outcome::crashed);
    CHECK(c.what().find("SIGABRT") != std::string::npos);
    const Result after = course::checker::run(Call("iota", 4).output<int>(4, 0));  // a new runner
    REQUIRE(after.ok());
    CHECK(after.element<int>(0, 3) == 3);
    CHECK(course::checker::run(Call("no_such_operation", 1)).outcome == Result::Outcome::error);
}

// A tool whose chain stalls before it starts the runner (as compute-sanitizer's did in the sandbox, now and
// then): the start is abandoned and made again; a chain that never starts the runner is a TIMEOUT, not a hang.
TEST_CASE("a start that stalls under a tool is made again; one that never starts times out")
{
    const std::string marker = course::checker::temporary_path("started-once");
    const std::string stall_once = course::checker::temporary_path("stall-once.sh");
    const std::string stall_always = course::checker::temporary_path("stall-always.sh");
    std::ofstream(stall_once) << "[ -e " << marker << " ] && exec \"$@\"\n: > " << marker << "\nexec sleep 600\n";
    std::ofstream(stall_always) << "exec sleep 600\n";

    // The stall is seen when no process of the chain runs the runner 3 s after the start, not after stalled_start.
    course::checker::Session once({"/bin/sh", stall_once}, "", std::chrono::seconds(12));
    const auto begin = std::chrono::steady_clock::now();
    const Result r = once.run(Call("iota", 4).output<int>(4, 0));
    CHECK(std::chrono::steady_clock::now() - begin < std::chrono::seconds(8));
    REQUIRE(r.ok());
    CHECK(r.element<int>(0, 3) == 3);
    const auto end = once.finish();
    CHECK(end.stalled_starts == 1);
    CHECK(end.restarts == 0);

    course::checker::Session never({"/bin/sh", stall_always}, "", std::chrono::seconds(1));
    const Result t = never.run(Call("iota", 4).output<int>(4, 0).timeout(std::chrono::seconds(1)));
    CHECK(t.outcome == Result::Outcome::timed_out);
    CHECK(t.message.find("did not start") != std::string::npos);
    CHECK(never.finish().stalled_starts == 4);  // four abandoned; the fifth waited the call's limit (4 s < 60 s)
}

// A tool that fails after its runner answered every call (compute-sanitizer without its summary, Nsight Compute's
// crash: exit code 139) is run once more; a runner that crashed is a verdict, not the tool's trouble.
TEST_CASE("a tool that fails after every call was answered is run once more, a crashed runner is not")
{
    using course::testing::detail::run_under_tool;
    const std::string marker = course::checker::temporary_path("failed-once");
    const std::string fail_once = course::checker::temporary_path("fail-once.sh");
    const std::string fail_always = course::checker::temporary_path("fail-always.sh");
    std::ofstream(fail_once) << "\"$@\"; code=$?\n[ -e " << marker << " ] && exit $code\n: > " << marker
                             << "\nexit 139\n";
    std::ofstream(fail_always) << "\"$@\"\nexit 3\n";
    const auto failed = [](const course::checker::Session::End& end) { return end.exit_code != 0; };
    int runs = 0;
    const auto iota = [&] {
        ++runs;
        CHECK(course::checker::run(Call("iota", 4).output<int>(4, 0)).ok());
    };

    const auto once = run_under_tool({"/bin/sh", fail_once}, "", iota, failed);
    CHECK(runs == 2);
    CHECK(once.end.exit_code == 0);
    CHECK(once.answered == 1);
    CHECK(once.again.find("exit code 139") != std::string::npos);

    runs = 0;
    const auto always = run_under_tool({"/bin/sh", fail_always}, "", iota, failed);
    CHECK(runs == 2);  // once more, not again and again
    CHECK(always.end.exit_code == 3);
    CHECK(!always.again.empty());

    runs = 0;
    const auto crashed = run_under_tool({"/bin/sh", fail_always}, "", [&] {
        ++runs;
        CHECK(course::checker::run(Call("crash", 1)).outcome == Result::Outcome::crashed);
    }, failed);
    CHECK(runs == 1);
    CHECK(crashed.answered < crashed.asked);
    CHECK(crashed.again.empty());
}

// A race check's second tool starts its chain once the first's runner said hello (chains that start side by side
// stall more often), while the first's calls run: a start under compute-sanitizer takes about a second beside
// other programs. So a runner may say hello long before its first call: that is no stalled start.
TEST_CASE("a check's next tool starts while the one before runs its calls; an early hello is no stalled start")
{
    using course::testing::detail::run_under_tools;
    // A script named as the runner is (its file name: what /proc shows of a script), below the tool, is the runner
    // running as far as the start's turn can tell, which then ends at once: its 2 s come after, as a context's do.
    const std::string times = course::checker::temporary_path("start-times");
    const std::string folder = course::checker::temporary_path("slow-tool");
    REQUIRE(mkdir(folder.c_str(), 0700) == 0);
    const std::string runner = std::getenv("COURSE_RUNNER");
    const std::string slow = folder + runner.substr(runner.rfind('/'));
    std::ofstream(slow) << "#!/bin/sh\ndate +%s%N >> " << times << "\nsleep 2\nexec \"$@\"\n";
    REQUIRE(chmod(slow.c_str(), 0700) == 0);
    const std::string quick = course::checker::temporary_path("quick-start.sh");
    std::ofstream(quick) << "exec \"$@\"\n";
    int runs = 0;
    const auto begin = std::chrono::steady_clock::now();
    const std::vector<std::string> tool{"/bin/sh", "-c", "\"$@\"; exit $?", "sh", slow};
    const auto got = run_under_tools({{tool, ""}, {tool, ""}}, [&] {
        ++runs;
        CHECK(course::checker::run(Call("iota", 4).output<int>(4, 0)).ok());
        std::this_thread::sleep_for(std::chrono::seconds(2));
    }, [](const course::checker::Session::End&) { return false; });
    CHECK(std::chrono::steady_clock::now() - begin < std::chrono::milliseconds(7500));  // one after the other: 8 s
    CHECK(runs == 2);
    for (const auto& run : got) {
        CHECK(run.answered == 1);
        CHECK(run.end.exit_code == 0);
        CHECK(run.end.stalled_starts == 0);
    }
    std::ifstream started(times);
    long long first = 0, second = 0;
    started >> first >> second;
    REQUIRE(!started.fail());
    const long long apart_ns = second - first;
    CHECK(apart_ns >= 2'000'000'000LL);  // not side by side: after the first's start had ended

    course::checker::Session early({"/bin/sh", quick}, "", std::chrono::seconds(1));
    early.begin();
    std::this_thread::sleep_for(std::chrono::seconds(2));
    CHECK(early.run(Call("iota", 4).output<int>(4, 0)).ok());
    CHECK(early.finish().stalled_starts == 0);
}

// Chains under a tool start one at a time on the machine (tool_start_lock, held until the runner runs); runners
// without a tool do not wait for that turn.
TEST_CASE("a start under a tool waits for the machine's turn; one without a tool does not")
{
    const std::string quick = course::checker::temporary_path("turn-start.sh");
    std::ofstream(quick) << "exec \"$@\"\n";
    const int held = open(course::checker::tool_start_lock, O_RDONLY | O_CREAT | O_CLOEXEC, 0644);
    REQUIRE(held >= 0);
    REQUIRE(flock(held, LOCK_EX) == 0);
    std::thread release([held] {
        std::this_thread::sleep_for(std::chrono::milliseconds(1500));
        close(held);
    });
    const auto begin = std::chrono::steady_clock::now();
    course::checker::Session plain;
    CHECK(plain.run(Call("iota", 4).output<int>(4, 0)).ok());
    CHECK(std::chrono::steady_clock::now() - begin < std::chrono::milliseconds(1500));
    course::checker::Session tool({"/bin/sh", quick}, "");
    CHECK(tool.run(Call("iota", 4).output<int>(4, 0)).ok());
    CHECK(std::chrono::steady_clock::now() - begin >= std::chrono::milliseconds(1500));
    release.join();
    CHECK(tool.finish().stalled_starts == 0);
}

TEST_CASE("a held call's buffer comes back window by window, until the next call")
{
    course::checker::Session& runner = course::checker::session();
    const std::size_t n = 100000, tail = 5;
    const Result r = runner.run(Call("iota", n).output<int>(n, 0xCD, tail).hold());
    REQUIRE(r.ok());
    CHECK(r.buffers.at(0).data == nullptr);  // nothing came back with the reply
    std::vector<int> got;
    const std::size_t window = 4096;
    for (std::size_t first = 0; first < n + tail; first += window) {
        const std::size_t count = std::min(window, n + tail - first);
        const Result w = runner.fetch(0, first * sizeof(int), count * sizeof(int), [&](const unsigned char* bytes) {
            const int* ints = reinterpret_cast<const int*>(bytes);
            got.insert(got.end(), ints, ints + count);
        });
        REQUIRE(w.ok());
    }
    REQUIRE(got.size() == n + tail);
    for (std::size_t i = 0; i < n; ++i)
        if (got[i] != static_cast<int>(i)) FAIL_CHECK("element " << i << " came back as " << got[i]);
    CHECK(got[n + tail - 1] == static_cast<int>(0xCDCDCDCDu));
    bool used = false;
    const auto use = [&](const unsigned char*) { used = true; };
    CHECK(runner.fetch(0, (n + tail) * sizeof(int) - 4, 8, use).outcome == Result::Outcome::error);  // past the end
    CHECK(runner.fetch(1, 0, 4, use).outcome == Result::Outcome::error);  // no such buffer
    REQUIRE(runner.run(Call("iota", 1).output<int>(1, 0)).ok());
    CHECK(runner.fetch(0, 0, 4, use).outcome == Result::Outcome::error);  // the next call let it go
    CHECK(!used);
}

TEST_CASE("more than 256 MiB asked back in one reply is refused before anything is sent")
{
    const std::size_t n = (std::size_t{256} << 20) + 1;
    CHECK_THROWS_AS(course::checker::run(Call("iota", n).output(1, n, 0)), std::logic_error);
}

TEST_CASE("@device: every runner says whether it has a GPU")
{
    const Result r = course::checker::run(Call("@device", 0));
    REQUIRE(r.ok());
    CHECK((r.value("unavailable") || r.number("free", -1) >= 0));
}
}
