"""Fake checks programs for the grader's CPU tests (confirm_alone_test.py, performance_test.py): a test script
that runs itself as a checks program answers --list-test-cases with one case and, when run, writes doctest's XML
report of that case; the grader (tools/grading/runner.py) runs them as it runs the real ones. Also the entry and
the end those scripts share."""
import sys
from pathlib import Path

XML = ('<?xml version="1.0" encoding="UTF-8"?>\n<doctest binary="fake">\n{cases}'
       '<OverallResultsTestCases unskipped="1"/>\n</doctest>\n')


def answer(case, argv, ok, message=""):
    """The checks program's answer to `argv`: its case listed, or a run's report (--out=FILE) with one passed or
    failed assertion (`message` logged on failure). Returns its exit code."""
    if "--list-test-cases" in argv:
        print(XML.format(cases=f'<TestCase name="{case}" filename="x" line="1"/>\n'))
        return 0
    out = next(a.split("=", 1)[1] for a in argv if a.startswith("--out="))
    result = (f'<OverallResultsAsserts successes="{int(ok)}" failures="{int(not ok)}" '
              f'test_case_success="{"true" if ok else "false"}"/>')
    logged = "" if ok else f'<Message type="ERROR" filename="x" line="1"><Text>{message}</Text></Message>'
    Path(out).write_text(XML.format(cases=f'<TestCase name="{case}" filename="x" line="1">{logged}{result}'
                                          '</TestCase>\n'))
    return 0 if ok else 1


def program(folder, name, script, args, env=""):
    """An executable `folder/name` that runs `script --fake ARGS...` with the grader's arguments after them."""
    path = Path(folder) / name
    path.write_text(f'#!/bin/sh\n{env}exec "{sys.executable}" "{script}" --fake {" ".join(args)} "$@"\n')
    path.chmod(0o755)
    return path


def finish(test, problems, proved):
    """The end of a test: exits 1 with each of its `problems` on a line, or prints what it `proved`."""
    if problems:
        sys.exit(f"{test}:\n  " + "\n  ".join(problems))
    print(f"{test}: {proved}")


def main_or_fake(main, fake_checks, fake_args):
    """A test script's entry: main(), or, when program() runs the script (--fake ARGS... then the grader's
    arguments), the fake checks program, fake_checks(*ARGS, grader_argv), as the exit code. `fake_args`: how many
    ARGS the script gives program()."""
    if sys.argv[1:2] == ["--fake"]:
        sys.exit(fake_checks(*sys.argv[2:2 + fake_args], sys.argv[2 + fake_args:]))
    main()


class FakeBuild:
    """What run_tasks reads of a build: its folder and its graded tests."""

    def __init__(self, folder, *tests):
        self.dir, self.tests = Path(folder), list(tests)

    def task_tests(self):
        return self.tests
