#!/usr/bin/env python3
"""Grader fixtures: a class of submissions, each made from this repository's starter or solution files plus
one typical problem, in every form tools/grade.py reads; and the check of the grades they must get.

    python3 tests/grading/fixtures.py make CLASS_DIR            # write the submissions
    python3 tools/grade.py --class CLASS_DIR --out GRADES
    python3 tests/grading/fixtures.py check CLASS_DIR GRADES    # exit 1 unless every grade is as expected

Both take --part K/N: the K-th of N parts of the class (fixtures K-1, K-1+N, ...), for a machine that cannot
grade the whole class in one go (a lent GPU's 10-minute limit).

With a GPU the solution must score every task; without one, every host task, the GPU tasks "not graded".
"""
import json
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MANIFEST = {k: v for k, v in json.loads((ROOT / "tools/grading/student_files.json").read_text()).items()
            if not k.startswith("_")}

STATIC_INIT_EXIT = "\n#include <cstdlib>\nstruct G { G() { std::_Exit(0); } };\nstatic G g;\n"


def hang_first_kernel(text):
    """Every thread of the file's first kernel spins forever (clock64() cannot be optimized away)."""
    return re.sub(r"(__global__[^{]*\{)", r"\1\n    while (clock64() >= 0) {}  // never ends\n", text, count=1)


def files_of(variant):
    """{'NN_name/starter/file': text} with the starter's or the solution's content."""
    return {f"{ch}/{f}": (ROOT / ch / f.replace("starter/", f"{variant}/", 1)).read_text()
            for ch, fs in MANIFEST.items() for f in fs}


def only(chapter, files):
    return next(k for k in files if k.startswith(chapter + "/"))


def write_tree(folder, files):
    for rel, text in files.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(text)


# name -> (how it is packed, files, expectation). Expectations are checked by check() below.
def fixtures():
    solution, starter = files_of("solution"), files_of("starter")
    broken = dict(solution)
    broken[only("03_interleaved", broken)] += "\nthis line is not C++;\n"
    cheat = dict(solution)
    cheat[only("03_interleaved", cheat)] += STATIC_INIT_EXIT
    edited = dict(starter)
    edited["03_interleaved/checks.cpp"] = ('#include <doctest/doctest.h>\n'
                                           'TEST_CASE("TODO(03.1) everything passes") { CHECK(true); }\n')
    edited["03_interleaved/meson.build"] = "project('edited')\n"
    cub = dict(solution)
    cub[only("04_unroll_warp", cub)] = "#include <cub/block/block_reduce.cuh>\n" + cub[only("04_unroll_warp", cub)]
    hang = dict(solution)
    hang[only("02_neighbored", hang)] = hang_first_kernel(hang[only("02_neighbored", hang)])
    partial = {k: v for k, v in solution.items() if k[:2] in ("01", "02", "03")}
    return {
        "solution": ("folder", solution, "all"),
        "hung_kernel_02": ("folder", hang, "timeout 02"),
        "partial_01_03": ("bare git", partial, "partial"),
        "starter": ("tar.gz", starter, "zero"),
        "compile_error_03": ("git", broken, "compile error 03"),
        "static_init_exit_03": ("folder", cheat, "runner exits 03"),
        "edited_checks": ("zip", edited, "ignored"),
        "uses_cub_04": ("git", cub, "uses CUB 04"),
        # the solution saved but never committed: HEAD (the starter) is graded, and flagged
        "uncommitted_git": ("uncommitted git", starter, "zero"),
        # the seven student files alone, as a learning platform collects them
        "flat_zip": ("flat zip", solution, "all"),
        # the solution, made from another student edition (tools/release.py's course-edition.json)
        "other_version": ("folder", {**solution, "course-edition.json": json.dumps({"commit": "0" * 40})}, "all"),
        # the same with chapter 01's file twice (an old copy in a folder): neither is taken, 01 is the starter
        # handed in with nothing in it: an empty folder
        "empty": ("folder", {}, "zero"),
        "flat_zip_twice": ("flat zip", {**solution, "old/serial_reduce_student.cpp": starter[only("01_serial_recursive", starter)]},
                           "ambiguous 01"),
    }


# The flags each fixture's row must carry (the gradebook's `flags` column; others may be there too).
FLAGS = {
    "starter": ["unchanged-starter"],
    "partial_01_03": ["missing:04,05,06,07"],
    "compile_error_03": ["compile-error:03"],
    "uses_cub_04": ["refused:04"],
    "edited_checks": ["unchanged-starter", "ignored-files:2"],
    "uncommitted_git": ["unchanged-starter", "uncommitted-changes:head"],
    "flat_zip": ["matched-by-name"],
    "other_version": ["other-version:000000000000"],
    "flat_zip_twice": ["matched-by-name", "ambiguous:serial_reduce_student.cpp", "missing:01"],
    "empty": ["empty"],
}


def selected(part):
    """The fixtures of part "K/N" (every one for None): K-1, K-1+N, ... in fixtures()'s order."""
    everything = fixtures()
    if part is None:
        return everything
    k, n = (int(x) for x in part.split("/"))
    if not 1 <= k <= n:
        sys.exit(f"fixtures: --part {part}: K must be 1 to N")
    return {name: f for i, (name, f) in enumerate(everything.items()) if i % n == k - 1}


def make(class_dir, part=None):
    class_dir = Path(class_dir)
    if class_dir.exists():
        shutil.rmtree(class_dir)
    class_dir.mkdir(parents=True)
    chosen = selected(part)
    for name, (form, files, _) in chosen.items():
        if form == "flat zip":
            with zipfile.ZipFile(class_dir / f"{name}.zip", "w") as z:
                for rel, text in files.items():
                    z.writestr(Path(rel).name if rel.count("/") > 1 else rel, text)  # NN_name/starter/x: by name
            continue
        if form in ("folder", "git", "bare git", "uncommitted git"):
            (class_dir / name).mkdir()
            write_tree(class_dir / name, files)
            if form != "folder":
                git = ["git", "-C", str(class_dir / name), "-c", "user.name=student", "-c", "user.email=s@example.org"]
                subprocess.run(git[:3] + ["init", "-q"], check=True)
                subprocess.run(git + ["add", "-A"], check=True)
                subprocess.run(git + ["commit", "-q", "-m", "my solutions"], check=True)
            if form == "uncommitted git":
                write_tree(class_dir / name, files_of("solution"))
            if form == "bare git":
                subprocess.run(["git", "clone", "-q", "--bare", str(class_dir / name), str(class_dir / f"{name}.git")],
                               check=True)
                shutil.rmtree(class_dir / name)
            continue
        staging = class_dir / f".{name}"
        write_tree(staging / "course-main", files)  # archives hold the course one folder down
        if form == "tar.gz":
            with tarfile.open(class_dir / f"{name}.tar.gz", "w:gz") as tar:
                tar.add(staging / "course-main", arcname="course-main")
        else:
            with zipfile.ZipFile(class_dir / f"{name}.zip", "w") as z:
                for p in sorted((staging / "course-main").rglob("*")):
                    if p.is_file():
                        z.write(p, p.relative_to(staging).as_posix())
        shutil.rmtree(staging)
    print(f"{len(chosen)} fixture submissions in {class_dir}")


# expectation -> (the chapter whose tasks must all fail, a phrase of the reason); every host task of the
# other chapters must pass.
ONE_CHAPTER_FAILS = {
    "compile error 03": ("03_interleaved", "does not compile"),
    "runner exits 03": ("03_interleaved", "exited with code 0"),  # judged on a GPU only: the checks know
    "uses CUB 04": ("04_unroll_warp", "uses CUB"),                 # there is none before any runner starts
}
NEEDS_GPU = {"runner exits 03"}


def check(class_dir, grades, part=None):
    grades = Path(grades)
    problems = []
    chosen = selected(part)
    rows = (grades / "gradebook.csv").read_text().splitlines()
    if len(rows) - 1 != len(chosen):
        problems.append(f"gradebook.csv has {len(rows) - 1} rows, expected {len(chosen)}")
    summary = (grades / "summary.html").read_text()
    if f"Class summary: {len(chosen)} submissions" not in summary or "TODO(01.1) serial_sum" not in summary:
        problems.append("summary.html lacks the class's count or the task table")
    for name, (_, _, expect) in chosen.items():
        g = json.loads((grades / name / "grade.json").read_text())
        tasks = g["tasks"]
        gpu = g["gpu"]
        by_chapter = lambda ch: [t for t in tasks if t["chapter"] == ch]  # noqa: E731
        host = [t for t in tasks if t["chapter"] in ("01_serial_recursive",) or t["task"] in ("04.7", "06.1")]

        def want(cond, what):
            if not cond:
                problems.append(f"{name}: {what}")

        if expect == "all":
            if gpu:
                want(all(t["status"] == "passed" for t in tasks), "with a GPU, every task must pass: " +
                     ", ".join(f"{t['task']} {t['status']} ({t['reason']})" for t in tasks if t["status"] != "passed"))
            else:
                want(all(t["status"] == "passed" for t in host), "every host task must pass")
                want(all(t["status"] == "not graded" for t in tasks if t not in host), "GPU tasks must be not graded")
                want(g["max_points"] == len(tasks), f"maximum {g['max_points']}, expected the course's {len(tasks)} "
                                                    "(every task, graded or not)")
        elif expect == "zero":
            want(g["points"] == 0, f"scored {g['points']} (the starter's or no work: 0)")
            want(all(t["status"] != "passed" for t in tasks), "a starter task passed")
        elif expect in ONE_CHAPTER_FAILS:
            chapter, phrase = ONE_CHAPTER_FAILS[expect]
            failing = by_chapter(chapter)
            if gpu or expect not in NEEDS_GPU:
                want(all(t["status"] == "failed" and phrase in t["reason"] for t in failing),
                     f"{chapter} must fail with '{phrase}': {failing[0]['reason']}")
            else:
                want(all(t["status"] == "not graded" for t in failing), f"{chapter} without a GPU must be not graded")
            want(all(t["status"] == "passed" for t in host if t["chapter"] != chapter),
                 "the other chapters must still be graded")
        elif expect == "ignored":
            want(g["points"] == 0, f"edited checks.cpp/meson.build scored {g['points']} (must be graded as pristine)")
            for f in ("03_interleaved/checks.cpp", "03_interleaved/meson.build"):
                want(f in g["ignored_files"], f"{f} is not listed as ignored: {g['ignored_files']}")
        elif expect == "timeout 02":
            if gpu:  # the first kernel of 02 (task 02.1) hangs; everything else is the solution
                hung = next(t for t in tasks if t["task"] == "02.1")
                want(hung["status"] == "failed" and "TIMEOUT" in hung["reason"],
                     "a hung kernel must be a TIMEOUT of its task: " + hung["reason"])
                lesson = next((t for t in tasks if t["task"] == "02.lesson"), None)  # runs 02.1's kernel too
                want(lesson is None or "timed out" in lesson["reason"], "02's lesson line must not run the hung kernel")
                want(all(t["status"] == "passed" for t in tasks if t is not hung and t is not lesson),
                     "every other task must pass")
            want(all(t["status"] == "passed" for t in host), "the other chapters must still be graded")
        elif expect == "ambiguous 01":
            want(all(t["status"] != "passed" for t in by_chapter("01_serial_recursive")), "chapter 01 must be the starter")
            want(all(t["status"] == "passed" for t in host if t["chapter"] != "01_serial_recursive"),
                 "the other chapters must still be graded")
        elif expect == "partial":
            want(sorted(g["missing_files"]) == sorted(k for k in files_of("starter") if k[:2] in ("04", "05", "06", "07")),
                 f"missing files: {g['missing_files']}")
            early = [t for t in tasks if t["chapter"][:2] in ("01", "02", "03")]
            want(all(t["status"] == ("passed" if gpu or t in host else "not graded") for t in early),
                 "chapters 01-03 must be graded as solved")
            want(all(t["status"] != "passed" for t in tasks if t not in early), "chapters 04-07 are the starter")
        report = (grades / name / "report.md").read_text()
        want((grades / name / "report.html").read_text().startswith("<!DOCTYPE html>"), "no report.html")
        for t in tasks:
            if t["status"] == "failed":
                want(f"meson test -C build '{t['chapter']}:" in report, f"report.md has no command for {t['task']}")
        if not gpu:  # graded with --partial: every row says so
            want("partial:no-gpu" in g["flags"], f"not flagged partial:no-gpu without a GPU: {g['flags']}")
        for flag in FLAGS.get(name, []):
            if flag.startswith("other-version:") and not g["graded_against"].startswith("commit "):
                continue  # graded against a working tree (--worktree): no commit to compare the edition's with
            want(flag in g["flags"], f"not flagged {flag}: {g['flags']}")
        print(f"{name:<22} {g['points']:>3}/{g['max_points']:<3} not graded {g['not_graded']:<3} {g['seconds']:>6.0f} s")
    if problems:
        sys.exit("grader fixtures:\n  " + "\n  ".join(problems))
    print(f"grader fixtures: all {len(chosen)} graded as expected")


if __name__ == "__main__":
    args, part = sys.argv[1:], None
    if len(args) >= 2 and args[-2] == "--part" and re.fullmatch(r"\d+/\d+", args[-1]):
        args, part = args[:-2], args[-1]
    if len(args) == 2 and args[0] == "make":
        make(args[1], part)
    elif len(args) == 3 and args[0] == "check":
        check(args[1], args[2], part)
    else:
        sys.exit(__doc__)
