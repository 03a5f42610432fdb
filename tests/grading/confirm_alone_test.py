#!/usr/bin/env python3
"""tools/grading/runner.py without a GPU: a test that failed while other tests ran is run again on its own, and
that run decides. Fake checks programs (this file, run as a script) play the tests: a "hog" holds a marker while
it runs (as a test that holds the GPU's memory, or a fork bomb that leaves no process for a sandbox), a "victim"
fails when it sees the marker, a "broken" one always fails (a call without an answer), a "wrong" one always fails
with every call answered (its checks write 0 to COURSE_CALL_FAULTS: a verdict no neighbour can change) and a
"hung" one times out (the whole test; "call_hung": one call, as the checks report it).
  1. one submission, 5 tests at once: the victim passes (run again after the others), the broken test still
     fails, the time-outs (the test's and a call's) are not run again: 2 re-runs;
  2. two submissions at once on one shared GPU (gpu_share.GpuShare), one test each: the victim, beside the other
     submission's hog, passes when run again with the GPU alone: 1 re-run (its run beside the hog kept as
     <test>.beside.xml and .log, its reason there in grade.json's confirmed_alone);
  3. one submission, one test at a time: a broken test ran beside nothing and is not run again;
  4. beside another submission's hog, a submission's three failures (two broken, one victim) are run again in
     ONE turn alone on the GPU (emptying the GPU once per submission, not once per failed test): 3 re-runs; its
     wrong answer is not run again;
  5. a task's large test is not run when the task's test failed for good (a wrong answer), and is run when that
     failure is run again (a broken test beside others) or the test passed;
  6. lesson tests share the GPU with another submission's hog: a passing one takes no turn alone, and one whose
     measured rate fell short beside the hog (its checks count the shortfall in COURSE_CALL_FAULTS) is run again
     with the GPU alone, where it passes: 1 re-run, 1 turn alone;
  7. a submission that holds the GPU's free memory (gpu_memory_hog): one of its tests, "greedy", passes beside
     another submission's hog (which holds some of that memory) and finds none alone; another, "starved", finds
     none at all. The starved failure is run again alone, and since it found no memory even there, so is the
     greedy pass: both fail, 2 re-runs (without that rule the greedy test would pass only beside a neighbour).
     A victim that found no memory beside the hog and passes alone is the neighbour's doing: its "fine" pass is
     not run again (1 re-run).
Exits 1 with what went otherwise."""
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

from fake_checks import FakeBuild, answer, finish, main_or_fake, program

CASE = "TODO(02.1) {} case"
OUT_OF_MEMORY = "reduce_neighbored(n=16777223, block=32) failed: cudaErrorMemoryAllocation (out of memory)"


def fake_checks(role, argv):
    """The checks program of `role`: --list-test-cases, or one run writing its XML report (--out=FILE)."""
    marker = Path(os.environ["FAKE_MARKER"])
    if "--list-test-cases" not in argv:
        if role == "hog":
            marker.write_text("held")
            time.sleep(1.0)
            marker.unlink()
        elif role == "hung":
            time.sleep(60)
        elif role in ("wrong", "lesson"):
            Path(os.environ["COURSE_CALL_FAULTS"]).write_text("0\n")
        time.sleep(0.3)  # the victim looks while the hog holds on
        if role == "lesson_rate":  # a rate: lower beside the hog
            Path(os.environ["COURSE_CALL_FAULTS"]).write_text(f"{int(marker.exists())}\n")
    ok = (role in ("hog", "large", "lesson", "fine") or (role in ("victim", "lesson_rate", "victim_oom") and
                                                         not marker.exists()) or (role == "greedy" and marker.exists()))
    reason = ("TODO(02.5): reduce_neighbored(n=1, block=32) TIMEOUT: reduce_neighbored did not return within 60 s"
              if role == "call_hung"
              else OUT_OF_MEMORY if role in ("greedy", "starved", "victim_oom")
              else "kernel launch failed")
    return answer(CASE.format(role), argv, ok, reason)


def main():
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
    from grading.gpu_share import GpuShare
    from grading.model import FAILED, PASSED
    from grading.runner import run_tasks

    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        marker = tmp / "marker"

        def test(task, role, timeout=30):  # a checks program per role: the grader lists each one's cases once
            checks = program(tmp, f"{role}_checks", __file__, [role], env=f'FAKE_MARKER="{marker}" ')
            lesson = role.startswith("lesson")
            return {"name": f"TODO({task}) {'lesson: ' if lesson else ''}{role}", "cmd": [str(checks)],
                    "timeout": timeout, "suite": ["02_neighbored:gpu"] + (["02_neighbored:large"] if role == "large"
                                                                         else ["02_neighbored:lesson"] if lesson else [])}

        def grade(build, jobs, share, out):
            waited = {}
            tasks = run_tasks(build, ["02_neighbored"], tmp / out, gpu_present=True, chapter_timeout=60, jobs=jobs,
                              gpu_share=share, waited=waited)
            assert all(c["beside_others"] == "kernel launch failed" for c in waited["confirmed"]), waited["confirmed"]
            return {task_id: (t.status, t.reason) for task_id, t in tasks.items()}, len(waited["confirmed"])

        def expect(what, got, want):
            if got != want:
                problems.append(f"{what}: {got}, expected {want}")

        got, confirmed = grade(FakeBuild(tmp, test("02.1", "hog"), test("02.2", "victim"), test("02.3", "broken"),
                                         test("02.4", "hung", 2), test("02.5", "call_hung")), 4, GpuShare(4, 80.0),
                               "one")
        expect("1. the hog", got["02.1"][0], PASSED)
        expect("1. the victim beside its own hog", got["02.2"][0], PASSED)
        expect("1. the broken test", got["02.3"], (FAILED, "kernel launch failed"))
        expect("1. the hung test", got["02.4"][0] == FAILED and got["02.4"][1].startswith("TIMEOUT"), True)
        expect("1. the call that hung", got["02.5"][0], FAILED)
        expect("1. re-runs (victim, broken; not the time-outs)", confirmed, 2)

        share, results = GpuShare(4, 80.0), {}
        hog, victim = FakeBuild(tmp, test("02.1", "hog")), FakeBuild(tmp, test("02.2", "victim"))
        a = threading.Thread(target=lambda: results.update(a=grade(hog, 1, share, "a")))
        b = threading.Thread(target=lambda: results.update(b=grade(victim, 1, share, "b")))
        a.start(), b.start(), a.join(), b.join()
        expect("2. the other submission's hog", results["a"], ({"02.1": (PASSED, "")}, 0))
        expect("2. the victim beside another submission's hog", results["b"], ({"02.2": (PASSED, "")}, 1))
        expect("2. its run beside the hog, kept", [(tmp / "b" / f"TODO_02.2_victim.beside.{k}").exists()
                                                   for k in ("xml", "log")], [True, True])

        got, confirmed = grade(FakeBuild(tmp, test("02.3", "broken")), 1, GpuShare(4, 80.0), "three")
        expect("3. a broken test that ran beside nothing", (got["02.3"][0], confirmed), (FAILED, 0))

        class CountingShare(GpuShare):  # counts the turns alone on the GPU
            turns = 0

            def use(self, gib=None, alone=False, owner=None, counters=False):
                self.turns += alone
                return super().use(gib, alone, owner, counters)

        share, results = CountingShare(8, 80.0), {}
        hog = FakeBuild(tmp, test("02.1", "hog"))
        failing = FakeBuild(tmp, test("02.2", "victim"), test("02.3", "broken"), test("02.4", "broken"),
                            test("02.5", "wrong"))
        a = threading.Thread(target=lambda: results.update(a=grade(hog, 1, share, "4a")))
        b = threading.Thread(target=lambda: results.update(b=grade(failing, 4, share, "4b")))
        a.start(), b.start(), a.join(), b.join()
        expect("4. re-runs beside another submission's hog", results["b"][1], 3)
        expect("4. the victim", results["b"][0]["02.2"][0], PASSED)
        expect("4. the wrong answer", results["b"][0]["02.5"][0], FAILED)
        expect("4. turns alone on the GPU for three re-runs", share.turns, 1)

        tasks = run_tasks(FakeBuild(tmp, test("02.1", "wrong"), test("02.1", "large"), test("02.2", "broken"),
                                    test("02.2", "large"), test("02.3", "hog"), test("02.3", "large")),
                          ["02_neighbored"], tmp / "five", gpu_present=True, chapter_timeout=60, jobs=4)
        large = {task_id: t.tests[-1] for task_id, t in tasks.items()}
        expect("5. the large test of a wrong answer", (large["02.1"].status, large["02.1"].reason),
               (FAILED, "not run: 'TODO(02.1) wrong' failed already"))
        expect("5. the wrong answer's task", tasks["02.1"].reason, "kernel launch failed")
        expect("5. the large tests of a failure run again and of a pass",
               (large["02.2"].status, large["02.3"].status, large["02.3"].seconds > 0), (PASSED, PASSED, True))

        for lessons, want in (([test("02.2", "lesson")], (PASSED, 0, 0)),
                              ([test("02.2", "lesson"), test("02.3", "lesson_rate")], (PASSED, 1, 1))):
            share, results = CountingShare(8, 80.0), {}
            hog, lessons = FakeBuild(tmp, test("02.1", "hog")), FakeBuild(tmp, *lessons)
            a = threading.Thread(target=lambda: results.update(a=grade(hog, 1, share, "6a")))
            b = threading.Thread(target=lambda: results.update(b=grade(lessons, 4, share, "6b")))
            a.start(), b.start(), a.join(), b.join()
            expect(f"6. lessons {[t['name'] for t in lessons.tests]} beside another submission's hog: the lesson "
                   "line, its re-runs, turns alone", (results["b"][0]["02.lesson"][0], results["b"][1], share.turns),
                   want)

        for roles, want in ((("greedy", "starved"), ({"02.2": FAILED, "02.3": FAILED}, ["TODO(02.3) starved",
                                                                                      "TODO(02.2) greedy"])),
                            (("victim_oom", "fine"), ({"02.2": PASSED, "02.3": PASSED}, ["TODO(02.2) victim_oom"]))):
            share, results = GpuShare(8, 80.0), {"waited": {}}
            hog = FakeBuild(tmp, test("02.1", "hog"))
            other = FakeBuild(tmp, test("02.2", roles[0]), test("02.3", roles[1]))
            a = threading.Thread(target=lambda: results.update(a=grade(hog, 1, share, "7a")))
            b = threading.Thread(target=lambda: results.update(
                b=run_tasks(other, ["02_neighbored"], tmp / "7b", gpu_present=True, chapter_timeout=60, jobs=4,
                            gpu_share=share, waited=results["waited"])))
            a.start(), b.start(), a.join(), b.join()
            expect(f"7. {' and '.join(roles)} beside another submission's hog: their verdicts, the tests run again "
                   "alone",
                   ({t: results["b"][t].status for t in ("02.2", "02.3")},
                    [c["test"] for c in results["waited"]["confirmed"]]), want)
    finish("confirm_alone_test", problems,
           "a failure beside other tests is run again on its own and that run decides (beside its own tests: one at a "
           "time; beside another submission's: with the GPU alone, one turn per submission); time-outs, failures "
           "beside nothing and wrong answers with every call answered are not run again, nor the large tests of their "
           "tasks; lesson tests share the GPU, and a rate that fell short beside others is run again alone; when a "
           "failure finds no GPU memory even alone, the submission's passes beside others are run alone too")


if __name__ == "__main__":
    main_or_fake(main, fake_checks, fake_args=1)
