#!/usr/bin/env python3
"""tools/lint_chapters.py must fail on a chapter that breaks a rule: copies of chapter 06, each with one typical
breach, must each be refused for that rule; the untouched copy must pass. Exits 1 otherwise."""
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LINT = ROOT / "tools" / "lint_chapters.py"
CHAPTER = "06_atomic_histogram"


def edit(path, old, new):
    text = path.read_text()
    assert old in text, f"{path}: '{old}' not found (update this test)"
    path.write_text(text.replace(old, new, 1))


def append(path, text):
    path.write_text(path.read_text() + text)


# rule -> how a chapter breaks it
BREACHES = {
    "files": lambda ch: (ch / "histogram_progression.hpp").rename(ch / "progression.hpp"),
    "steps": lambda ch: edit(ch / "histogram_progression.hpp", "histogram_progression[]", "kernels[]"),
    "workspace": lambda ch: edit(ch / "histogram.hpp", "#pragma once", "#pragma once\nstruct HistogramScratch {};"),
    "launches": lambda ch: append(ch / "starter" / "histogram_student.cuh",
                                  "\ninline void run_it() { some_kernel<<<1, 32>>>(); }\n"),
}


def lint(chapter):
    return subprocess.run([sys.executable, str(LINT), str(chapter)], capture_output=True, text=True)


def main():
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        for rule, breach in [("none", None), *BREACHES.items()]:
            chapter = Path(tmp) / rule / CHAPTER
            shutil.copytree(ROOT / CHAPTER, chapter, symlinks=True)
            if breach:
                breach(chapter)
            out = lint(chapter)
            rules = set(re.findall(r": (files|steps|workspace|launches): ", out.stdout))
            if breach is None and out.returncode != 0:
                problems.append(f"the untouched copy of {CHAPTER} fails the lint:\n{out.stdout}")
            elif breach and (out.returncode == 0 or rule not in rules):
                problems.append(f"a copy that breaks '{rule}' passes it (rules reported: {sorted(rules)})")
            else:
                print(f"  {rule:<10} {'passes' if breach is None else 'refused: ' + out.stdout.splitlines()[0]}")
    if problems:
        sys.exit("lint_chapters_test:\n  " + "\n  ".join(problems))
    print(f"lint_chapters_test: the untouched copy passes, each of the {len(BREACHES)} breaches is refused")


if __name__ == "__main__":
    main()
