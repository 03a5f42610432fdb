#!/usr/bin/env python3
"""Grade the course: one point per task (a Meson test named "TODO(NN.k) ...").

    python3 tools/grade.py --submission PATH [--student ID]   # one student, in a trusted tree
    python3 tools/grade.py --class DIR                         # every submission in DIR -> gradebook.csv
    python3 tools/grade.py build                               # a build directory as it is (your own work)

A submission is a folder, a git repository (its committed HEAD) or a .tar.gz/.zip. Only the files that
tools/grading/student_files.json names are taken from it; they are laid over a copy of this repository's
HEAD, so an edited checks.cpp or meson.build changes nothing (such files are listed as ignored). Each
chapter is built on its own terms: a compile error fails that chapter's tasks, with the compiler's first
lines, and every other chapter is still graded.

A task passes only when doctest's own XML report says that every test case of its tests ran and passed with
at least one assertion, and the program exited 0. A task whose GPU cases could not run on this machine is
"not graded" (with the reason), never passed, and is left out of the maximum. A student file that uses a
library implementing the task (CUB, Thrust, libcu++ algorithms, cuBLAS, ...) fails its chapter.

Reports per student (under --out, default ./grades/<student>/): grade.json, grade.junit.xml, results.json
(Gradescope), build.log and one log and XML report per test; --class also writes grades/gradebook.csv.
"""
import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from grading import reports  # noqa: E402
from grading.runner import Build, gpu_works, run_tasks  # noqa: E402
from grading.shortcuts import find_forbidden  # noqa: E402
from grading.submission import (ARCHIVES, find_course_root, ignored_files, open_submission,  # noqa: E402
                                student_id, take_student_files)
from grading.workspace import Workspace, compile_tests, load_manifest  # noqa: E402

COURSE_ROOT = Path(__file__).resolve().parent.parent


def write_reports(record, out_dir):
    out_dir.mkdir(parents=True, exist_ok=True)
    reports.write_json(record, out_dir / "grade.json")
    reports.write_junit(record, out_dir / "grade.junit.xml")
    reports.write_gradescope(record, out_dir / "results.json")


def grade_build(args):
    """A build directory as it stands: the student's own tree, for practice (not a trusted grade)."""
    build = Build(args.build)
    chapters = list(load_manifest())
    out = build.dir / "grade-logs"
    start = time.monotonic()
    errors, _, _ = compile_tests(build, chapters, build.dir / "grade-build.log", args.build_timeout)
    gpu = gpu_works(build, out.parent)
    tasks = run_tasks(build, chapters, out, gpu_present=gpu, chapter_timeout=args.chapter_timeout,
                      blocked=errors, progress=None if args.quiet else lambda t: print(f"  running {t}", flush=True))
    if not tasks:
        sys.exit("grade: no TODO task tests in this build")
    record = reports.grade_record(str(build.dir), list(tasks.values()), chapters, gpu=gpu,
                                  seconds=round(time.monotonic() - start, 1))
    reports.print_table(record)
    for name, path in (("grade.json", reports.write_json), ("grade.junit.xml", reports.write_junit),
                       ("results.json", reports.write_gradescope)):
        path(record, build.dir / name)
    print(f"reports: {build.dir}/grade.json, grade.junit.xml, results.json; logs in {out}")


def grade_one(ws, path, student, out_root, args, gpu):
    """One submission in the workspace; returns its record."""
    start = time.monotonic()
    out_dir = out_root / student
    if out_dir.exists():
        shutil.rmtree(out_dir)
    out_dir.mkdir(parents=True)
    with tempfile.TemporaryDirectory(prefix="grade-") as scratch:
        scratch = Path(scratch)
        try:
            folder, how = open_submission(path, scratch)
        except (ValueError, OSError) as e:
            folder, how = None, f"unreadable: {e}"
        root = find_course_root(folder, ws.manifest) if folder else None
        files, missing = take_student_files(root, ws.manifest)
        ignored = ignored_files(root, ws.src, ws.manifest)
        ws.lay_over(files)
        blocked, hashes, build_s = ws.compile(out_dir / "build.log", args.build_timeout)
        owned = {ch: [ws.src / ch / f for f in fs] for ch, fs in ws.manifest.items()
                 if ch not in blocked and any((ch, f) in files for f in fs)}
        blocked.update(find_forbidden(ws.build_dir, owned, ws.src, scratch))
    tasks = run_tasks(ws.build, list(ws.manifest), out_dir / "tests", gpu_present=gpu,
                      chapter_timeout=args.chapter_timeout, blocked=blocked, exe_hashes=hashes)
    record = reports.grade_record(student, list(tasks.values()), list(ws.manifest), submission=str(path),
                                  read_as=how, graded_against=ws.origin, gpu=gpu, missing_files=missing,
                                  ignored_files=ignored, build_seconds=round(build_s, 1),
                                  seconds=round(time.monotonic() - start, 1))
    write_reports(record, out_dir)
    return record


def submissions_in(folder):
    entries = [p for p in sorted(Path(folder).iterdir())
               if not p.name.startswith(".") and (p.is_dir() or p.name.endswith(ARCHIVES))]
    if not entries:
        sys.exit(f"grade: no submission (folder, repository, {'/'.join(ARCHIVES)}) in {folder}")
    return entries


def grade_submissions(args):
    out_root = Path(args.out).resolve()
    if args.submission:
        entries = [(Path(args.submission), args.student or student_id(args.submission))]
    else:
        entries = [(p, student_id(p)) for p in submissions_in(args.class_dir)]
    ids = [s for _, s in entries]
    if len(set(ids)) != len(ids):
        sys.exit("grade: two submissions have the same student id: " + ", ".join(sorted({s for s in ids if ids.count(s) > 1})))
    workspace = Path(args.workspace).resolve() if args.workspace else Path(tempfile.mkdtemp(prefix="grade-ws-"))
    start = time.monotonic()
    print(f"preparing the trusted tree in {workspace} ...", flush=True)
    ws = Workspace(workspace, COURSE_ROOT, args.gpu_arch, reuse=bool(args.workspace), worktree=args.worktree)
    gpu = gpu_works(ws.build, ws.path)
    print(f"graded against {ws.origin}; GPU: {'yes' if gpu else 'none usable (GPU tasks: not graded)'}", flush=True)
    records = []
    for i, (path, student) in enumerate(entries, 1):
        record = grade_one(ws, path, student, out_root, args, gpu)
        records.append(record)
        print(f"[{i}/{len(entries)}] {student}: {record['points']}/{record['max_points']} points"
              + (f", {record['not_graded']} not graded" if record["not_graded"] else "")
              + f" ({record['seconds']:.0f} s)", flush=True)
        if args.submission or args.verbose:
            reports.print_table(record, out=lambda line: print("    " + line))
    if args.class_dir:
        reports.write_gradebook(records, list(ws.manifest), out_root / "gradebook.csv")
        print(f"gradebook: {out_root / 'gradebook.csv'}")
    wall = time.monotonic() - start
    print(f"{len(records)} submission(s) in {wall:.0f} s; reports under {out_root}")
    if not args.workspace:
        shutil.rmtree(workspace, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    what = ap.add_mutually_exclusive_group(required=True)
    what.add_argument("build", nargs="?", help="a configured build directory, graded as it is")
    what.add_argument("--submission", metavar="PATH", help="one submission (folder, git repository, archive)")
    what.add_argument("--class", dest="class_dir", metavar="DIR", help="a folder of submissions, one per student")
    ap.add_argument("--student", help="the student id of --submission (default: its file name)")
    ap.add_argument("--out", default="grades", help="where reports go (default: ./grades)")
    ap.add_argument("--workspace", help="keep the trusted tree and its build here, and reuse it next time")
    ap.add_argument("--worktree", action="store_true",
                    help="grade against this repository's files as they are, not its HEAD commit")
    ap.add_argument("--gpu-arch", default="native", help="the gpu_arch option of the trusted build (default native)")
    ap.add_argument("--chapter-timeout", type=float, default=600, help="wall-clock seconds per chapter's tests")
    ap.add_argument("--build-timeout", type=int, default=1800, help="seconds for one submission's build")
    ap.add_argument("--verbose", action="store_true", help="print every student's table with --class")
    ap.add_argument("--quiet", action="store_true", help="no progress lines")
    args = ap.parse_args()
    if args.student and not args.submission:
        ap.error("--student goes with --submission")
    if args.build:
        grade_build(args)
    else:
        grade_submissions(args)


if __name__ == "__main__":
    main()
