"""The verdict of one test program, read from doctest's own XML report (`--reporters=xml --out=FILE`).

An exit code alone proves nothing: a student's static initializer can call std::_Exit(0) before any test
runs. A test passes only when the report is complete, names every test case the trusted checks program
declares for it (its --list-test-cases: cases a chapter registers from data count too), every one of them
passed with at least one assertion, and the program exited 0.
A case that ran no assertion counts only when it logged why it was left out (course/testing.hpp's
kSkipMarker, e.g. no GPU on this machine): then the test is "not graded", with that reason.
"""
import functools
import re
import signal
import subprocess
import xml.etree.ElementTree as ET

from .model import FAILED, NOT_GRADED, PASSED

SKIP_MARKER = "course-skip: "          # course::testing::kSkipMarker
NO_GPU = SKIP_MARKER + "no CUDA-capable GPU or driver found"

@functools.lru_cache(maxsize=None)
def declared_cases(checks_program):
    """The test case names of a trusted checks program (built from the grader's tree: it links no student
    code), as its doctest lists them."""
    out = subprocess.run([str(checks_program), "--list-test-cases", "--reporters=xml"], capture_output=True,
                         text=True, timeout=60)
    if out.returncode != 0:
        raise RuntimeError(f"{checks_program} --list-test-cases: exit {out.returncode}: {out.stderr.strip()[:500]}")
    return tuple(case.get("name") for case in ET.fromstring(out.stdout).iter("TestCase"))


def _doctest_filters(args):
    """--test-case / --test-case-exclude patterns of a command line (doctest's comma-separated wildcards)."""
    include, exclude = [], []
    for arg in args:
        for flag, into in (("--test-case=", include), ("-tc=", include),
                           ("--test-case-exclude=", exclude), ("-tce=", exclude)):
            if arg.startswith(flag):
                into += arg[len(flag):].split(",")
    return include, exclude


def _wildcard(pattern):
    """doctest's wildcards: * and ?, case-insensitive (its default)."""
    body = "".join(".*" if c == "*" else "." if c == "?" else re.escape(c) for c in pattern)
    return re.compile(body + r"\Z", re.IGNORECASE | re.DOTALL)


def expected_cases(declared, args):
    """The declared cases that the command line's filters select."""
    include, exclude = _doctest_filters(args)
    inc, exc = [_wildcard(p) for p in include], [_wildcard(p) for p in exclude]
    return [c for c in declared
            if (not inc or any(p.match(c) for p in inc)) and not any(p.match(c) for p in exc)]


def _text(element):
    return " ".join("".join(element.itertext()).split())


def _first_error(case):
    """The first failure message of a test case: a FAIL_CHECK text, a failed expression or an exception."""
    for node in case.iter():
        if node.tag == "Message" and node.get("type") == "ERROR":
            return _text(node)
        if node.tag == "Expression" and node.get("success") == "false":
            info = node.find("Info")
            if info is not None:
                return _text(info)  # the message VERIFY / CHECK_RESULT logged, which names the task
            original = node.find("Original")
            expanded = node.find("Expanded")
            where = f"{node.get('filename', '?')}:{node.get('line', '?')}"
            return (f"{where}: {node.get('type', 'CHECK')}({_text(original) if original is not None else ''})"
                    + (f" is {_text(expanded)}" if expanded is not None else ""))
        if node.tag == "Exception":
            return ("crashed: " if node.get("crash") == "true" else "exception: ") + _text(node)
    return "failed"


def parse(path):
    """{case name: {"passed", "asserts", "error", "skip"}}, or None when the report is missing or cut short."""
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError):
        return None
    if root.tag != "doctest" or root.find("OverallResultsTestCases") is None:
        return None
    cases = {}
    for case in root.iter("TestCase"):
        if case.get("skipped") == "true":
            continue  # filtered out by the command line
        result = case.find("OverallResultsAsserts")
        if result is None:
            return None  # the program stopped inside this case
        skip = next((_text(m) for m in case.iter("Message")
                     if m.get("type") == "WARNING" and _text(m).startswith(SKIP_MARKER)), None)
        passed = result.get("test_case_success") == "true"
        cases[case.get("name")] = {
            "passed": passed,
            "asserts": int(result.get("successes", 0)) + int(result.get("failures", 0)),
            "error": "" if passed else _first_error(case),
            "skip": skip,
        }
    return cases


def _exit_text(code):
    if code < 0:
        try:
            return f"was killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"was killed by signal {-code}"
    return f"exited with code {code}"


def verdict(report_path, expected, exit_code, gpu_present, task=None):
    """(status, reason) of one test program run; `expected` are the case names it must report. With `task`
    ("04.2"), of that task's cases only ("TODO(04.2) ..."): another case's failure (and the exit code 1 it
    gives) is not this task's."""
    cases = parse(report_path)
    if cases is None:
        return FAILED, f"no test report: the program {_exit_text(exit_code)} before doctest finished its report"
    if task is not None:
        def own(name):
            return name.startswith(f"TODO({task}) ")
        if exit_code == 1 and any(not c["passed"] for name, c in cases.items() if not own(name)):
            exit_code = 0
        cases = {name: c for name, c in cases.items() if own(name)}
        expected = [name for name in expected if own(name)]
    if not cases:
        return FAILED, f"no test report: no test case ran (the program {_exit_text(exit_code)})"
    for name, case in cases.items():  # before the missing ones: a crash ends the report at the crashed case
        if not case["passed"]:
            return FAILED, case["error"] if not case["error"].startswith("crashed") else f"'{name}' {case['error']}"
    missing = [c for c in expected if c not in cases]
    if missing:
        return FAILED, f"no test report for '{missing[0]}' (the program {_exit_text(exit_code)})"
    skipped = []
    for name, case in cases.items():
        if case["asserts"] > 0:
            continue
        if case["skip"] is None:
            return FAILED, f"test case '{name}' ran no assertion"
        if case["skip"].startswith(NO_GPU) and gpu_present:
            return FAILED, (f"'{name}' was left out for want of a GPU on a machine whose GPU works "
                            f"({case['skip'][len(SKIP_MARKER):]})")
        skipped.append(case["skip"][len(SKIP_MARKER):])
    if skipped:
        if exit_code not in (0, 77):
            return FAILED, f"the program {_exit_text(exit_code)}"
        return NOT_GRADED, skipped[0]
    if exit_code != 0:
        return FAILED, f"every case passed, but the program {_exit_text(exit_code)}"
    return PASSED, ""
