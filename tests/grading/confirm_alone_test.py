#!/usr/bin/env python3
"""tools/grading/runner.py with the GPU shared, without a GPU: a test that fails beside another submission's test
runs again with the GPU to itself, and that run decides. Two fake checks programs (this file, run as a script)
share a GPU (gpu_share.GpuShare, 2 slots): the "hog" holds a marker while it runs, the "victim" fails when it
sees the marker (as a neighbour holding the GPU's memory made real tests fail), a "broken" one always fails and
a "hung" one times out. Exits 1 unless the victim passes (confirmed alone), the broken test still fails, the
time-out is not run again, and waited["confirmed"] counts the two re-runs."""
import os
import sys
import tempfile
import time
from pathlib import Path

CASE = "TODO(02.1) {} case"
XML = ('<?xml version="1.0" encoding="UTF-8"?>\n<doctest binary="fake">\n{cases}'
       '<OverallResultsTestCases unskipped="1"/>\n</doctest>\n')


def fake_checks(role, argv):
    """The checks program of `role`: --list-test-cases, or one run writing its XML report (--out=FILE)."""
    marker = Path(os.environ["FAKE_MARKER"])
    name = CASE.format(role)
    if "--list-test-cases" in argv:
        print(XML.format(cases=f'<TestCase name="{name}" filename="x" line="1"/>\n'))
        return 0
    out = next(a.split("=", 1)[1] for a in argv if a.startswith("--out="))
    if role == "hog":
        marker.write_text("held")
        time.sleep(1.0)
        marker.unlink()
    elif role == "hung":
        time.sleep(60)
    time.sleep(0.3)  # the victim looks while the hog holds the GPU
    ok = role == "hog" or (role == "victim" and not marker.exists())
    result = (f'<OverallResultsAsserts successes="{int(ok)}" failures="{int(not ok)}" '
              f'test_case_success="{"true" if ok else "false"}"/>')
    message = "" if ok else '<Message type="ERROR" filename="x" line="1"><Text>kernel launch failed</Text></Message>'
    Path(out).write_text(XML.format(cases=f'<TestCase name="{name}" filename="x" line="1">{message}{result}'
                                          '</TestCase>\n'))
    return 0 if ok else 1


def main():
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
    from grading.gpu_share import GpuShare
    from grading.model import FAILED, PASSED
    from grading.runner import run_tasks

    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        marker = tmp / "marker"

        def test(task, role, timeout=30):  # a checks program per role: the grader lists each one's cases once
            program = tmp / f"{role}_checks"
            program.write_text(f'#!/bin/sh\nFAKE_MARKER="{marker}" exec "{sys.executable}" "{__file__}" --fake {role} '
                               '"$@"\n')
            program.chmod(0o755)
            return {"name": f"TODO({task}) {role}", "cmd": [str(program)], "timeout": timeout,
                    "suite": ["02_neighbored:gpu"]}

        class FakeBuild:
            dir = tmp
            tests = [test("02.1", "hog"), test("02.2", "victim"), test("02.3", "broken"), test("02.4", "hung", 2)]

            def task_tests(self):
                return self.tests

        waited = {}
        tasks = run_tasks(FakeBuild(), ["02_neighbored"], tmp / "out", gpu_present=True, chapter_timeout=60,
                          jobs=4, gpu_share=GpuShare(4, 80.0), waited=waited)
        got = {task_id: (t.status, t.reason) for task_id, t in tasks.items()}
        problems = []
        if got["02.1"][0] != PASSED:
            problems.append(f"the hog: {got['02.1']}")
        if got["02.2"][0] != PASSED:
            problems.append(f"the victim failed beside the hog and was not confirmed alone: {got['02.2']}")
        if got["02.3"][0] != FAILED or "kernel launch failed" not in got["02.3"][1]:
            problems.append(f"a test that fails alone too must fail: {got['02.3']}")
        if got["02.4"][0] != FAILED or not got["02.4"][1].startswith("TIMEOUT"):
            problems.append(f"the hung test must time out: {got['02.4']}")
        if waited.get("confirmed") != 2:
            problems.append(f"re-runs alone: {waited.get('confirmed')}, expected 2 (victim, broken; not the time-out)")
        if problems:
            sys.exit("confirm_alone_test:\n  " + "\n  ".join(problems))
        print("confirm_alone_test: a failure beside another submission is re-run alone and that run decides "
              "(2 re-runs; a time-out is not re-run)")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--fake"]:
        sys.exit(fake_checks(sys.argv[2], sys.argv[3:]))
    main()
