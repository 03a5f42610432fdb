"""A chapter's race test ("TODO(04.1-04.3) racecheck and synccheck", one program for the chapter's race tasks)
judges each task by that task's own cases: another task's race, or the chapter's first case ("TODO(04) ...", the
one session of each tool), never fails it; its own failure or a missing case of its own does; a time-out fails
them all. And a task's reason stays its own test's first failure, whatever the race test says."""
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
from grading import doctest_xml  # noqa: E402
from grading.model import FAILED, PASSED, Outcome, judged_per_task, task_outcomes, tasks_of  # noqa: E402
from grading.runner import tasks_from  # noqa: E402
from fake_checks import XML, finish  # noqa: E402

SESSION = "TODO(04) racecheck and synccheck: one session of each tool over every race task's small cases"
RACE_TEST = "TODO(04.1-04.3) racecheck and synccheck"
CASES = [SESSION] + [f"TODO(04.{k}) racecheck and synccheck" for k in (1, 2, 3)]


def report(folder, results):
    """doctest's XML report of the cases in `results` ({name: passed}), in order."""
    def case(name, ok):
        logged = "" if ok else f'<Message type="ERROR" filename="x" line="1"><Text>{name}: a race</Text></Message>'
        return (f'<TestCase name="{name}" filename="x" line="1">{logged}<OverallResultsAsserts successes="{int(ok)}" '
                f'failures="{int(not ok)}" test_case_success="{"true" if ok else "false"}"/></TestCase>\n')
    path = Path(folder) / "report.xml"
    path.write_text(XML.format(cases="".join(case(n, ok) for n, ok in results.items())))
    return path


def main():
    problems = []

    def expect(what, got, want):
        if got != want:
            problems.append(f"{what}: {got}, expected {want}")

    expect("judged per task", (judged_per_task(RACE_TEST), judged_per_task("TODO(03.2-03.4) lesson"),
                               judged_per_task("TODO(04.2) syncwarp last warp")), (True, False, False))
    expect("its tasks", tasks_of(RACE_TEST), ["04.1", "04.2", "04.3"])
    with tempfile.TemporaryDirectory() as folder:
        def verdicts(results, code):
            path = report(folder, results)
            return {t: doctest_xml.verdict(path, CASES, code, True, t)[0] for t in tasks_of(RACE_TEST)}

        clean = dict.fromkeys(CASES, True)
        expect("all clean", verdicts(clean, 0), dict.fromkeys(tasks_of(RACE_TEST), PASSED))
        expect("04.2 racy", verdicts({**clean, CASES[2]: False}, 1),
               {"04.1": PASSED, "04.2": FAILED, "04.3": PASSED})
        expect("the chapter's session failed (wrong answers there)", verdicts({**clean, SESSION: False}, 1),
               dict.fromkeys(tasks_of(RACE_TEST), PASSED))
        expect("04.3's case missing (the program stopped)", verdicts({k: v for k, v in clean.items() if k != CASES[3]}, 1),
               {"04.1": FAILED, "04.2": FAILED, "04.3": FAILED})
        expect("every case passed, exit code 1", verdicts(clean, 1), dict.fromkeys(tasks_of(RACE_TEST), FAILED))
        expect("no report", {t: doctest_xml.verdict(Path(folder) / "none.xml", CASES, 0, True, t)[0]
                             for t in tasks_of(RACE_TEST)}, dict.fromkeys(tasks_of(RACE_TEST), FAILED))

    timeout = Outcome(RACE_TEST, FAILED, "TIMEOUT after 360 s", 360.0)
    expect("a time-out", [(t, o.status) for t, o in task_outcomes(RACE_TEST, timeout)],
           [("04.1", FAILED), ("04.2", FAILED), ("04.3", FAILED)])
    tests = [{"name": "TODO(04.1) unrolling"}, {"name": RACE_TEST}, {"name": "TODO(04.2) syncwarp last warp"},
             {"name": "TODO(04.3) complete unroll"}]
    outcomes = [Outcome(tests[0]["name"], PASSED),
                Outcome(RACE_TEST, FAILED, "TODO(04.2): a race", 9.0,
                        by_task={"04.1": (PASSED, ""), "04.2": (FAILED, "TODO(04.2): a race"),
                                 "04.3": (FAILED, "TODO(04.3): a race")}),
                Outcome(tests[2]["name"], PASSED), Outcome(tests[3]["name"], FAILED, "TODO(04.3): wrong sum")]
    tasks = tasks_from(tests, outcomes, ["04_unroll_warp"])
    expect("the tasks, named by their own tests", [(t.task, t.name, t.status) for t in tasks.values()],
           [("04.1", "unrolling", PASSED), ("04.2", "syncwarp last warp", FAILED), ("04.3", "complete unroll", FAILED)])
    expect("04.3's reason: its own test's failure first", tasks["04.3"].reason, "TODO(04.3): wrong sum")
    expect("04.2's reason", tasks["04.2"].reason, "TODO(04.2): a race")
    expect("only 04.2", list(tasks_from(tests, outcomes, ["04_unroll_warp"], only_task="04.2")), ["04.2"])
    finish("race_verdict_test", problems, "a chapter's race test judges each task by its own cases; a time-out fails "
                                          "them all; a task's reason is its own test's first failure")


if __name__ == "__main__":
    main()
