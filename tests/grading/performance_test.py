#!/usr/bin/env python3
"""The performance tasks' grading without a GPU (tools/grading/runner.py, points.py, reports.py). Fake checks
programs (this file, run as a script) play 'TODO(07.5) performance' tests:
  - "measured" passes and writes its measurement where COURSE_PERFORMANCE_REPORT says (as the checks do): the
    task "07.performance" passes with that measurement, and earns its points by grading.toml's thresholds,
    linearly between them (0 below the lowest, all at or above the full one);
  - "silent" passes but writes no measurement: the task fails (a pass proves nothing without one);
  - "wrong" writes a measurement and fails (a timed call was wrong): the task fails and keeps no measurement.
Also: grading.toml's [performance] is checked (bad thresholds are refused with the key named), the maximum
counts the performance task whatever it earned, and --no-performance (Build.with_performance) leaves it out.
Exits 1 with what went otherwise."""
import json
import os
import sys
import tempfile
from pathlib import Path

from fake_checks import FakeBuild, answer, finish, main_or_fake, program

CASE = "TODO(07.5) performance: scan_single_pass on 2^28 ints, as a fraction of copy bandwidth"


def fake_checks(role, fraction, argv):
    """The checks program of `role`: --list-test-cases, or one run writing its measurement (where
    COURSE_PERFORMANCE_REPORT says, unless silent) and its XML report (--out=FILE)."""
    if "--list-test-cases" not in argv and role != "silent":
        Path(os.environ["COURSE_PERFORMANCE_REPORT"]).write_text(json.dumps(
            {"task": "07.5", "kernel": "scan_single_pass", "fraction": float(fraction), "cub_fraction": 0.85,
             "gpu": "Fake GPU"}))
    return answer(CASE, argv, role != "wrong", "timed run 2: wrong")


def main():
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
    from grading import points, reports
    from grading.model import FAILED, PASSED
    from grading.runner import Build, run_tasks

    problems = []

    def expect(what, got, want):
        if got != want:
            problems.append(f"{what}: {got!r}, expected {want!r}")

    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)

        def test(role, fraction=0.0):
            checks = program(tmp, f"{role}-{fraction}_checks", __file__, [role, str(fraction)])
            return {"name": "TODO(07.5) performance", "cmd": [str(checks)], "timeout": 30,
                    "suite": ["07_scan:gpu", "07_scan:performance"]}

        def grade(role, fraction=0.0):
            tasks = run_tasks(FakeBuild(tmp, test(role, fraction)), ["07_scan"], tmp / f"{role}-{fraction}",
                              gpu_present=True, chapter_timeout=60)
            return tasks["07.performance"]

        scheme = points.Scheme(performance={"07": (0.75, 0.95)})
        # as written in the gradebook: 0.75006 earns 0.0003 points, written 0 as below the threshold (not 0.0)
        for fraction, share in ((0.5, 0), (0.75, 0), (0.75006, 0), (0.85, 0.5), (0.95, 1), (1.05, 1)):
            task = grade("measured", fraction)
            expect(f"measured at {fraction}: status", task.status, PASSED)
            record = reports.grade_record("s", [task], ["07_scan"], scheme=scheme)
            expect(f"measured at {fraction}: points (task, chapter, total)",
                   [f"{r['points']}/{r['max_points']}" for r in (record["tasks"][0], record["chapters"]["07_scan"],
                                                                 record)], [f"{share}/1"] * 3)
        expect("measured: the measurement kept", grade("measured", 0.9).measure["kernel"], "scan_single_pass")
        silent = grade("silent")
        expect("silent", (silent.status, silent.reason), (FAILED, "the performance checks passed but wrote no "
                                                                  "measurement"))
        wrong = grade("wrong", 1.0)
        expect("wrong: status and measurement", (wrong.status, wrong.measure), (FAILED, None))
        expect("wrong: points", reports.grade_record("s", [wrong], ["07_scan"], scheme=scheme)["points"], 0)

        for bad in ('"07" = [0.9, 0.5]', '"7" = [0.5, 0.9]', '"07" = [0.5]', '"07" = "fast"'):
            (tmp / "bad.toml").write_text(f"[performance]\n{bad}\n")
            try:
                points.load(tmp / "bad.toml")
                problems.append(f"grading.toml [performance] {bad} was accepted")
            except SystemExit as e:
                expect(f"the refusal of {bad} names the table", "[performance]" in str(e), True)
        (tmp / "off.toml").write_text("performance_tasks = false\n")
        expect("performance_tasks = false", points.load(tmp / "off.toml").performance_tasks, False)

        intro = tmp / "build" / "meson-info"
        intro.mkdir(parents=True)
        (intro / "meson-info.json").write_text(json.dumps({"directories": {"source": str(tmp)}}))
        (intro / "intro-targets.json").write_text("[]")
        ordinary = {**test("measured"), "name": "TODO(07.5) scan_single_pass"}
        (intro / "intro-tests.json").write_text(json.dumps([test("measured"), ordinary]))
        build = Build(tmp / "build")
        expect("with the performance tasks", [t["name"] for t in build.task_tests()],
               ["TODO(07.5) scan_single_pass", "TODO(07.5) performance"])
        Build.with_performance = False
        expect("--no-performance", [t["name"] for t in build.task_tests()], ["TODO(07.5) scan_single_pass"])
    finish("performance_test", problems,
           "a performance task passes only with a measurement from its checks and earns its points linearly between "
           "grading.toml's thresholds; a failed one earns none; bad thresholds are refused; --no-performance leaves "
           "the task out")


if __name__ == "__main__":
    main_or_fake(main, fake_checks, fake_args=2)
