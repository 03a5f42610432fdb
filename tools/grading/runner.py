"""Runs the graded tests of a configured build: every Meson test named "TODO(NN.k) ...", each program run on
its own with doctest's XML report, a time limit per test and a wall-clock limit per chapter.

The test list, commands and time limits come from Meson's introspection files of the build; the test cases
each run must report come from the checks programs themselves (their --list-test-cases; for a submission:
the checker tree's, which link no student code).
The test programs are the checks, which link no student code; the student's code runs in the runner each of
them starts (COURSE_RUNNER), in the sandbox COURSE_SANDBOX describes.
"""
import hashlib
import json
import os
import re
import signal
import subprocess
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import nullcontext
from pathlib import Path

from . import doctest_xml
from .model import FAILED, LESSON, LESSON_NAME, PASSED, PERFORMANCE, PERFORMANCE_NAME, RANK, TASK_TEST, Outcome, Task, \
    judged_per_task, task_id_of, task_lines_of, task_outcomes, task_sort_key

TIMEOUT_HINT = "a hung kernel, a spin-wait that never ends, or an endless loop?"


class Build:
    """A configured Meson build directory of the course (or of one chapter built alone)."""

    def __init__(self, build_dir):
        self.dir = Path(build_dir).resolve()
        info = self.dir / "meson-info"
        if not (info / "meson-info.json").exists():
            raise SystemExit(f"grade: {self.dir} is not a configured Meson build directory (run meson setup first)")
        self.source = Path(json.loads((info / "meson-info.json").read_text())["directories"]["source"])
        self.tests = json.loads((info / "intro-tests.json").read_text())
        self.targets = json.loads((info / "intro-targets.json").read_text())

    with_lesson = True  # grade.py --no-lesson: leave the lesson suite out
    with_performance = True  # grade.py --no-performance: leave the performance tasks out

    def task_tests(self):
        """The graded tests, in task order."""
        tests = [t for t in self.tests if TASK_TEST.match(t["name"]) and (self.with_lesson or not is_lesson(t["name"]))
                 and (self.with_performance or not is_performance(t["name"]))]
        return sorted(tests, key=lambda t: task_sort_key(task_id_of(t["name"])))

    def executables(self):
        """The test programs of the graded tests, and the course's programs they start besides the runner
        (COURSE_BASELINES: the performance tasks' copy and CUB timings), as paths in the build directory."""
        helpers = {t["env"]["COURSE_BASELINES"] for t in self.task_tests()
                   if "COURSE_BASELINES" in (t.get("env") or {})}
        return sorted({t["cmd"][0] for t in self.task_tests()} | helpers)

    def probe_test(self, name):
        return next((t for t in self.tests if t["name"] == name), None)


def is_lesson(test_name):
    return TASK_TEST.match(test_name).group("what").strip().startswith(LESSON)


def is_performance(test_name):
    return TASK_TEST.match(test_name).group("what").strip() == PERFORMANCE


def task_name_of(test_name):
    if is_performance(test_name):
        return PERFORMANCE_NAME
    return LESSON_NAME if is_lesson(test_name) else TASK_TEST.match(test_name).group("what").strip()


def read_measure(path):
    """The measurement a performance test's checks wrote (course/performance.hpp), or None."""
    try:
        measure = json.loads(Path(path).read_text())
        return measure if isinstance(measure.get("fraction"), (int, float)) else None
    except (OSError, ValueError, AttributeError):
        return None


def chapter_of(task_id, chapters):
    return next((c for c in chapters if c.startswith(task_id.split(".")[0] + "_")), task_id.split(".")[0])


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def hung_test(outcome):
    """A failure by time-out: the test's (the grader's TIMEOUT) or one call's, which the checks report as
    "TIMEOUT: <call> did not return within N s" (course/checker.hpp; a runner that did not start is not a hang)."""
    return outcome.status == FAILED and (outcome.reason.startswith("TIMEOUT") or
                                         "did not return within" in outcome.reason)


def _safe_name(text):
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("_")


def run_program(cmd, log_path, timeout, env=None, cwd=None):
    """Runs one program in its own process group; returns (exit code or None on timeout, seconds)."""
    start = time.monotonic()
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                env=env, cwd=cwd, start_new_session=True)
        try:
            code = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            code = None
        finally:
            try:
                os.killpg(proc.pid, signal.SIGKILL)  # the program and anything it started
            except ProcessLookupError:
                pass
            proc.wait()
    return code, time.monotonic() - start


def run_doctest(cmd, report, log, timeout, env=None, cwd=None, first_failure=False):
    """A doctest program with its XML report written to `report`. first_failure: it stops at the first failed
    assertion (--abort-after=1): a failing task's verdict and reason (its first failure) are the same, and its
    other cases (often minutes under compute-sanitizer) do not run."""
    report.unlink(missing_ok=True)
    return run_program(list(cmd) + ["--reporters=xml", f"--out={report}"] +
                       (["--abort-after=1"] if first_failure else []), log, timeout, env, cwd)


def gpu_works(build, out_dir, env=None):
    """Whether this machine runs GPU code, asked of the course's own helper tests (no student code in them)."""
    test = build.probe_test("gpu helpers")
    if test is None or not Path(test["cmd"][0]).exists():
        return False
    report = out_dir / "gpu-probe.xml"
    code, _ = run_doctest([test["cmd"][0], "--test-case=DeviceBuffer*"], report, out_dir / "gpu-probe.log", 120,
                          env=dict(os.environ, **(env or {})), cwd=build.dir)
    cases = doctest_xml.parse(report) or {}
    return code == 0 and any(c["passed"] and c["asserts"] > 0 for c in cases.values())


def run_tasks(build, chapters, out_dir, *, gpu_present, chapter_timeout, blocked=None, exe_hashes=None,
              env=None, runner_build=None, jobs=1, progress=None, only_task=None, only_chapters=None,
              gpu_share=None, waited=None):
    """Runs every graded test (or those of `only_task`, e.g. "04.2"); returns {task id: Task}.

    blocked: {chapter: reason} for chapters that must not run (compile error, forbidden library): their
    tasks fail with that reason. exe_hashes: {program: sha256} taken right after the build; a program that
    changed since is not run. env: variables for every test (e.g. CUDA_VISIBLE_DEVICES, COURSE_SANDBOX,
    COURSE_SEED). runner_build: the build whose runners the checks call instead of those of `build` (a
    submission's runners, same layout). jobs: test programs run at once (correctness checks only: nothing
    graded is timed). gpu_share: where a GPU test takes its place on the GPU (gpu_share.GpuShare; None: it
    just runs); the seconds its tests waited for it are added to waited["gpu"]. A test that failed while other
    tests ran is run again on its own, and that run decides (confirm(); listed in waited["confirmed"]). A
    chapter's time limit counts only while one of its tests runs, never while they wait.
    """
    blocked = blocked or {}
    out_dir.mkdir(parents=True, exist_ok=True)
    tests = [t for t in build.task_tests() if (only_task is None or only_task in task_lines_of(t["name"]))
             and (only_chapters is None or chapter_of(task_id_of(t["name"]), chapters) in only_chapters)]
    outcomes = [None] * len(tests)
    lock = threading.Lock()
    # per (chapter, phase): [seconds used, tests running, when the first of them started]; the chapter's limit
    # counts its shared and its one-at-a-time phase apart
    clocks = {}
    waited = waited if waited is not None else {}
    waited.setdefault("gpu", 0.0)
    waited.setdefault("confirmed", [])

    def suites(test):
        return {s.split(":")[-1] for s in test.get("suite", [])}

    def after_shared(test):  # GBs of GPU memory (large), the GPU's counters (lesson) or its time (performance)
        return bool(suites(test) & {"large", "lesson", "performance"})

    # Tests whose checks ended normally with every runner call answered (COURSE_CALL_FAULTS read "0"): their
    # failures are verdicts on answers, which no neighbour can change (a neighbour can take the GPU's memory or
    # slow it down: a call then ends in an error or a time-out instead)
    answered = [False] * len(tests)
    owner = object()  # this submission's places on a shared GPU
    beside_others = set()  # tests that shared the GPU with another submission's tests

    def run_one(i):  # a shared, large or lesson test: its place on the GPU, by the memory it declares
        test = tests[i]
        if gpu_share is None or "gpu" not in suites(test):
            return run_timed(i)
        gib = (test.get("env") or {}).get("COURSE_GPU_MEMORY_GIB")
        with gpu_share.use(float(gib) if gib else None, owner=owner, counters=is_lesson(test["name"])) as wait:
            with lock:
                waited["gpu"] += wait
            outcome = run_timed(i)
        if gpu_share.contended():
            with lock:
                beside_others.add(i)
        return outcome

    def to_confirm(indices):
        """The failures to run again, one at a time, where that run decides: neither a neighbour that held the
        GPU's memory (another submission) nor the student's own test running beside it (a fork bomb that left no
        process for a sandbox) may fail a test. A time-out is not run again (a hung kernel would hang again)."""
        return [i for i in indices if outcomes[i].status == FAILED and outcomes[i].seconds > 0
                and not hung_test(outcomes[i]) and (i in beside_others or jobs > 1)
                and not answered[i]]

    def confirm(indices):
        """Runs each test again; its run beside others is kept as <test>.beside.xml and .log, and what it
        said in waited["confirmed"] (grade.json: confirmed_alone)."""
        for i in indices:
            waited["confirmed"].append({"test": tests[i]["name"], "beside_others": outcomes[i].reason[:300]})
            stem = _safe_name(tests[i]["name"])
            for kind in ("xml", "log"):
                if (out_dir / f"{stem}.{kind}").exists():
                    (out_dir / f"{stem}.{kind}").replace(out_dir / f"{stem}.beside.{kind}")
            outcomes[i] = run_timed(i)

    def run_timed(i):
        key = (chapter_of(task_id_of(tests[i]["name"]), chapters), after_shared(tests[i]))
        with lock:
            clock = clocks.setdefault(key, [0.0, 0, 0.0])
            if clock[1] == 0:
                clock[2] = time.monotonic()
            clock[1] += 1
            left = chapter_timeout - clock[0] - (time.monotonic() - clock[2])
        try:
            return run_test(i, left)
        finally:
            with lock:
                clock[1] -= 1
                if clock[1] == 0:
                    clock[0] += time.monotonic() - clock[2]

    def run_test(i, left):
        test = tests[i]
        exe = test["cmd"][0]
        if left <= 0:
            return Outcome(test["name"], FAILED, f"TIMEOUT: the chapter's limit of {chapter_timeout:.0f} s was used "
                                                 "up before this test ran")
        test_env = dict(test.get("env") or {})
        if runner_build is not None and "COURSE_RUNNER" in test_env:
            test_env["COURSE_RUNNER"] = str(Path(runner_build) / Path(test_env["COURSE_RUNNER"]).relative_to(build.dir))
        programs = [exe] + [test_env[k] for k in ("COURSE_RUNNER", "COURSE_BASELINES") if k in test_env]
        if not all(Path(p).exists() for p in programs):
            return Outcome(test["name"], FAILED, "the test program or its runner was not built (see build.log)")
        if exe_hashes is not None and any(p in exe_hashes and exe_hashes[p] != sha256(p) for p in programs):
            return Outcome(test["name"], FAILED, "the test program or its runner was changed after the build")
        if progress:
            progress(test["name"])
        stem = _safe_name(test["name"])
        report, log = out_dir / f"{stem}.xml", out_dir / f"{stem}.log"
        timeout = min(test["timeout"] or chapter_timeout, left)
        run_env = dict(os.environ, **test_env, **(env or {}))
        measured = out_dir / f"{stem}.measure.json"  # written by the checks (no student code), never the runner
        measured.unlink(missing_ok=True)
        if is_performance(test["name"]):
            run_env["COURSE_PERFORMANCE_REPORT"] = str(measured)
        faults = out_dir / f"{stem}.faults"  # written by the checks at their end (common/src/test_main.cpp)
        faults.unlink(missing_ok=True)
        run_env["COURSE_CALL_FAULTS"] = str(faults)
        per_task = judged_per_task(test["name"])  # each task's cases must run, whatever another's do
        code, seconds = run_doctest(test["cmd"], report, log, timeout, run_env, test.get("workdir") or build.dir,
                                    first_failure=not per_task)
        answered[i] = code is not None and faults.exists() and faults.read_text().strip() == "0"
        if code is None:
            return Outcome(test["name"], FAILED, f"TIMEOUT after {timeout:.0f} s ({TIMEOUT_HINT})", round(seconds, 2))
        expected = doctest_xml.expected_cases(doctest_xml.declared_cases(exe), test["cmd"][1:])
        if per_task:
            by_task = {task: doctest_xml.verdict(report, expected, code, gpu_present, task)
                       for task in task_lines_of(test["name"])}
            status, reason = max(by_task.values(), key=lambda v: RANK[v[0]])
            return Outcome(test["name"], status, reason, round(seconds, 2), by_task=by_task)
        status, reason = doctest_xml.verdict(report, expected, code, gpu_present)
        measure = read_measure(measured) if status == PASSED and is_performance(test["name"]) else None
        if status == PASSED and is_performance(test["name"]) and measure is None:
            status, reason = FAILED, "the performance checks passed but wrote no measurement"
        return Outcome(test["name"], status, reason, round(seconds, 2), measure)

    runnable = []
    for i, test in enumerate(tests):
        chapter = chapter_of(task_id_of(test["name"]), chapters)
        if chapter in blocked:
            outcomes[i] = Outcome(test["name"], FAILED, blocked[chapter])
        else:
            runnable.append(i)
    shared = [i for i in runnable if not after_shared(tests[i])]
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        for i, outcome in zip(shared, pool.map(run_one, shared)):
            outcomes[i] = outcome
    # A kernel that hung already failed its task: its large test, and the chapter's lesson tests (which run the
    # chapter's kernels under Nsight Compute), would only hang again, one time limit each. A task whose test
    # failed for good (a failure to_confirm does not run again) fails whatever its large test finds: that test is
    # not run either (the lesson tests are graded lines of their own and run).
    def task_key(i):
        return TASK_TEST.match(tests[i]["name"]).group(1, 2)

    def task_results(i):  # ((chapter, task number), the task's Outcome) of each task the test judges
        return [(tuple(line.split(".")), o) for line, o in task_outcomes(tests[i]["name"], outcomes[i])]

    hung = {key: tests[i]["name"] for i in shared for key, o in task_results(i) if hung_test(o)}
    failed = {key: tests[i]["name"] for i in shared if not to_confirm([i])
              for key, o in task_results(i) if o.status == FAILED and not hung_test(o)}
    later = []
    for i in runnable:
        if after_shared(tests[i]):
            key, lesson = task_key(i), is_lesson(tests[i]["name"])
            blocker = hung.get(key) or (lesson and next((n for k, n in hung.items() if k[0] == key[0]), None))
            if blocker:
                outcomes[i] = Outcome(tests[i]["name"], FAILED, f"not run: '{blocker}' timed out (a hung kernel)")
            elif key in failed and not lesson and not is_performance(tests[i]["name"]):
                outcomes[i] = Outcome(tests[i]["name"], FAILED, f"not run: '{failed[key]}' failed already")
            else:
                later.append(i)
    timed = [i for i in later if is_performance(tests[i]["name"])]
    beside = [i for i in later if i not in timed]
    # On a shared GPU the large tests run side by side as their declared memory allows, and the lesson tests
    # (Nsight Compute's counters) beside them and the other submissions' tests, one lesson test at a time on the
    # GPU; the performance tests (Nsight Compute's timing) in the turn alone below. Without sharing, each runs
    # alone in turn.
    with ThreadPoolExecutor(max_workers=max(1, jobs) if gpu_share else 1) as pool:
        for i, outcome in zip(beside, pool.map(run_one, beside)):
            outcomes[i] = outcome
    # The failures to confirm and the tests on the GPU's time, in one turn alone on a shared GPU: emptying it once
    # per submission, not once per test (what waits for it holds back every other submission).
    ran = shared + (beside if gpu_share else [])
    again = to_confirm(ran)
    gpu_timed = [i for i in timed if "gpu" in suites(tests[i])]
    with gpu_share.use(alone=True) if gpu_share and (gpu_timed or again) else nullcontext(0.0) as wait:
        waited["gpu"] += wait
        confirm(again)
        # A program that holds the GPU's free memory starves itself less while its neighbours hold some: beside
        # them gpu_memory_hog's 03.4 passed, alone it fails (H100, 2026-11-28). A test that finds no GPU memory
        # even alone shows such a program: its tests that passed beside others are run alone too, and decide.
        if any("out of memory" in outcomes[i].reason for i in again):
            confirm([i for i in ran if i not in again and outcomes[i].status == PASSED
                     and (i in beside_others or jobs > 1) and "gpu" in suites(tests[i])])
        for i in timed:
            outcomes[i] = run_timed(i)

    return tasks_from(tests, outcomes, chapters, only_task)


def tasks_from(tests, outcomes, chapters, only_task=None):
    """{task line: Task} of the tests' outcomes, in the tests' order; each task named by its own tests, which
    come first (a task's reason is its first failure), then the chapter's race test."""
    tasks = {}
    for test in tests:
        line = task_id_of(test["name"])
        if not judged_per_task(test["name"]) and only_task in (None, line):
            tasks.setdefault(line, Task(line, chapter_of(line, chapters), task_name_of(test["name"])))
    for test, outcome in sorted(zip(tests, outcomes), key=lambda pair: judged_per_task(pair[0]["name"])):
        for line, task_outcome in task_outcomes(test["name"], outcome):
            if only_task is not None and line != only_task:
                continue
            if line not in tasks:
                tasks[line] = Task(line, chapter_of(line, chapters), task_name_of(test["name"]))
            tasks[line].add(task_outcome)
    return tasks
