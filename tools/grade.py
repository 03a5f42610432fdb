#!/usr/bin/env python3
"""Grade the course: the points grading.toml gives each task (a Meson test named "TODO(NN.k) ...").

    python3 tools/grade.py --submission PATH [--student ID]   # one student, in a trusted tree
    python3 tools/grade.py --class DIR [--workers N]           # every submission in DIR -> gradebook.csv
    python3 tools/grade.py --class DIR --slurm [--submit]      # the same as a Slurm job array
    python3 tools/grade.py --merge OUT                         # gradebook.csv from OUT/*/grade.json
    python3 tools/grade.py build                               # a build directory as it is (your own work)

A submission is a folder, a git repository (its committed HEAD) or a .tar.gz/.zip. Only the files that
tools/grading/student_files.json names are taken from it; they are laid over a copy of this repository's
HEAD, so an edited checks.cpp or meson.build changes nothing (such files are listed as ignored). Each
chapter is built on its own terms: a compile error fails that chapter's tasks, with the compiler's first
lines, and every other chapter is still graded.

A task passes only when doctest's own XML report says that every test case of its tests ran and passed with
at least one assertion, and the program exited 0. The maximum is the course's (every selected task), the same
on every machine: before it builds any submission the grader checks that this machine has what the tasks need
(a GPU, compute-sanitizer, Nsight Compute, the large tests' GPU memory) and refuses to start, naming what is
missing, unless --partial (those tasks are then "not graded", with the reason, and score 0; every row is
flagged). A student file that uses a library implementing the task (CUB, Thrust, libcu++ algorithms,
cuBLAS, ...) fails its chapter.

Reports per student (under --out, default ./grades/<student>/): grade.json, grade.junit.xml, results.json
(Gradescope), build.log and one log and XML report per test; --class (and --merge) also writes
grades/gradebook.csv, summary.html and leaderboard.csv/.html (the performance tasks ranked per chapter, students
by pseudonym unless --leaderboard-names).
With --workers N (default: 3 per GPU, at most one per 5 cores), N trusted trees grade N submissions at once,
pinned round-robin to the GPUs (CUDA_VISIBLE_DEVICES): their builds overlap, and their tests share the GPU
(--gpu-share on, the default: the large tests scheduled by the GPU memory their chapter declares, one lesson test
at a time, the performance tests alone); with --gpu-share off, one submission's whole test phase holds the GPU.
Either way the verdicts are the same.
"""
import argparse
import os
import secrets
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from grading import leaderboard, points, reports, slurm  # noqa: E402
from grading import summary as summary_page  # noqa: E402
from grading.batch import default_workers, grade_batch, visible_gpus  # noqa: E402
from grading.runner import Build, gpu_works, run_tasks  # noqa: E402
from grading.submission import ARCHIVES, student_id  # noqa: E402
from grading.workspace import compile_tests, load_manifest  # noqa: E402

COURSE_ROOT = Path(__file__).resolve().parent.parent
# What a run can leave out of grading, as grading.toml can for every run: the option, grading.toml's key, the flag of
# Build that says whether it is graded, and what it is.
LEAVE_OUT = [
    ("--no-lesson", "lesson", "with_lesson", "the lesson suite (Nsight Compute counters; one line per chapter)"),
    ("--no-performance", "performance_tasks", "with_performance",
     "the performance tasks (Nsight Compute's timing, one line per chapter, 14-47 s each alone on the GPU)"),
]


def grade_build(args):
    """A build directory as it stands: the student's own tree, for practice (not a trusted grade)."""
    build = Build(args.build)
    chapters = list(load_manifest())
    start = time.monotonic()
    errors, _ = compile_tests(build, chapters, build.dir / "grade-build.log", args.build_timeout)
    gpu = gpu_works(build, build.dir)
    env = {"COURSE_SEED": str(args.seed)} if args.seed is not None else None
    tasks = run_tasks(build, chapters, build.dir / "grade-logs", gpu_present=gpu,
                      chapter_timeout=args.chapter_timeout, blocked=errors, jobs=args.jobs or args.jobs_default,
                      env=env, only_task=args.task, only_chapters=args.chapters,
                      progress=None if args.quiet else lambda t: print(f"  running {t}", flush=True))
    if not tasks:
        sys.exit("grade: no TODO task tests in this build")
    record = reports.grade_record(str(build.dir), list(tasks.values()), chapters, gpu=gpu,
                                  seconds=round(time.monotonic() - start, 1))
    reports.print_table(record)
    reports.write_all(record, build.dir)
    print(f"reports: {build.dir}/grade.json, grade.junit.xml, results.json; logs in {build.dir / 'grade-logs'}")


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
        sys.exit("grade: two submissions have the same student id: "
                 + ", ".join(sorted({s for s in ids if ids.count(s) > 1})))
    if args.slurm:
        if args.seed is None:  # one seed for the whole class, as a run on one machine would have
            args.seed = secrets.randbits(63)
        folder = slurm.write_jobs(entries, out_root, Path(__file__).resolve(), args)
        print(f"Slurm jobs for {len(entries)} submission(s) in {folder}: grade-array.sbatch (one array task "
              f"each), merge.sbatch (gradebook.csv after them); submit with: bash {folder / 'submit.sh'}")
        if args.submit:
            print(slurm.submit(folder), end="")
        return
    if args.workers is None:
        args.workers = default_workers(len(visible_gpus()), len(os.sched_getaffinity(0)))
    records, summary = grade_batch(entries, COURSE_ROOT, out_root, args, log=lambda line: print(line, flush=True))
    if args.submission:
        reports.print_table(records[0], out=lambda line: print("    " + line))
    if args.class_dir:
        reports.write_gradebook(records, list(load_manifest()), out_root / "gradebook.csv")
        summary_page.write_class_summary(records, list(load_manifest()), out_root / "summary.html")
        write_leaderboard(records, out_root, args.leaderboard_names)
        print(f"gradebook: {out_root / 'gradebook.csv'}; class summary: {out_root / 'summary.html'}; "
              f"leaderboard: {out_root / 'leaderboard.html'}")
    print("\n".join(summary))
    print(f"reports under {out_root}")


def write_leaderboard(records, out_root, names):
    """The class leaderboard; each student's reports then say under which pseudonym they appear on it."""
    alias = leaderboard.write_leaderboard(records, list(load_manifest()), out_root, names=names)
    for record in records:
        if not names and not record.get("grader_error"):
            reports.write_all({**record, "leaderboard_name": alias[record["student"]]},
                              out_root / reports.folder_name(record["student"]))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    what = ap.add_mutually_exclusive_group(required=True)
    what.add_argument("build", nargs="?", help="a configured build directory, graded as it is")
    what.add_argument("--submission", metavar="PATH", help="one submission (folder, git repository, archive)")
    what.add_argument("--class", dest="class_dir", metavar="DIR", help="a folder of submissions, one per student")
    what.add_argument("--merge", metavar="OUT", help="write OUT/gradebook.csv from OUT/*/grade.json")
    ap.add_argument("--student", help="the student id of --submission (default: its file name)")
    ap.add_argument("--out", default="grades", help="where reports go (default: ./grades)")
    ap.add_argument("--workspace", help="keep the grading trees and their builds here, and reuse them next time "
                                        "(the same course commit and options only)")
    ap.add_argument("--worktree", action="store_true",
                    help="grade against this repository's files as they are, not its HEAD commit")
    ap.add_argument("--uncommitted", choices=("head", "worktree"), default="head",
                    help="a student's git folder whose student files differ from its last commit: grade that commit "
                         "(head, the default) or the files as they are (worktree); flagged either way")
    ap.add_argument("--gpu-arch", default="native", help="the gpu_arch option of the trusted build (default native)")
    ap.add_argument("--chapter-timeout", type=float, default=600, help="wall-clock seconds per chapter's tests")
    ap.add_argument("--build-timeout", type=int, default=1800, help="seconds for one submission's build")
    ap.add_argument("--workers", type=int, help="submissions graded at once (default: 3 per GPU, at most one per 5 "
                                                 "cores, 1 without a GPU)")
    ap.add_argument("--jobs", type=int,
                    help="test programs of one submission run at once (default: 8, or the cores this process may use if fewer)")
    ap.add_argument("--gpu-share", choices=("on", "off"), default="on",
                    help="tests of several submissions on one GPU at once (on, the default) or one submission's "
                         "tests at a time (off)")
    ap.add_argument("--gpu-slots", type=int,
                    help="with --gpu-share on: test programs on one GPU at once, whichever submissions they are "
                         "of (default: --jobs)")
    ap.add_argument("--slurm", action="store_true", help="with --class: write a Slurm job array instead of grading")
    ap.add_argument("--submit", action="store_true", help="with --slurm: submit it (sbatch)")
    ap.add_argument("--slurm-time", default="00:30:00", help="time limit of one array task (default 00:30:00)")
    ap.add_argument("--slurm-cpus", type=int, default=8, help="CPUs of one array task (default 8)")
    ap.add_argument("--slurm-gpus", type=int, default=1,
                    help="GPUs of one array task, asked as --gres=gpu:N (default 1; 0: no GPU asked, as on a "
                         "cluster without GPUs, where --partial grades the host tasks)")
    ap.add_argument("--slurm-option", action="append", default=[], metavar="OPT",
                    help="an extra #SBATCH line, e.g. --slurm-option=--partition=gpu (repeatable)")
    ap.add_argument("--seed", type=int, help="the inputs' seed (default: a fresh secret one per run, recorded in "
                                              "every report; a failed task's report gives the command that replays it)")
    ap.add_argument("--task", metavar="NN.k", help="grade this one task only (with --seed: reproduce a failure)")
    ap.add_argument("--chapters", metavar="NN_name,...", help="grade these chapters only (the others are not built)")
    ap.add_argument("--hide", action="append", default=[], metavar="DIR",
                    help="one more folder the sandbox hides from submissions (e.g. another copy of the solutions); "
                         "the course, the reports, the workspaces, /tmp, /home and /root always are (repeatable)")
    for option, key, _, what in LEAVE_OUT:
        ap.add_argument(option, action="store_true", help=f"leave out {what}, as grading.toml's {key} = false does")
    ap.add_argument("--partial", action="store_true",
                    help="grade even where this machine lacks what some tasks need (a GPU, compute-sanitizer, ncu, "
                         "GPU memory): those are not graded (0 of their points) and every row is flagged partial")
    ap.add_argument("--leaderboard-names", action="store_true",
                    help="show students' ids on the leaderboard instead of pseudonyms (with --class or --merge)")
    ap.add_argument("--verbose", action="store_true", help="print every student's table with --class")
    ap.add_argument("--quiet", action="store_true", help="no progress lines")
    args = ap.parse_args()
    if args.student and not args.submission:
        ap.error("--student goes with --submission")
    if (args.slurm and not args.class_dir) or (args.submit and not args.slurm):
        ap.error("--slurm goes with --class, --submit with --slurm")
    if args.leaderboard_names and not (args.class_dir or args.merge):
        ap.error("--leaderboard-names goes with --class or --merge")
    if any(n is not None and n < 1 for n in (args.workers, args.jobs, args.gpu_slots)):
        ap.error("--workers, --jobs and --gpu-slots take a number of at least 1")
    scheme = points.load(chapters=list(load_manifest()))
    for option, key, flag, _ in LEAVE_OUT:
        setattr(Build, flag, getattr(scheme, key) and not getattr(args, option[2:].replace("-", "_")))
    args.course_root = str(COURSE_ROOT)
    known = list(load_manifest())
    args.chapters = [c.strip() for c in args.chapters.split(",")] if args.chapters else None
    if args.chapters and any(c not in known for c in args.chapters):
        ap.error(f"--chapters takes names among {', '.join(known)}")
    if args.task and not any(c.startswith(args.task.split(".")[0] + "_") for c in known):
        ap.error(f"--task takes a task such as 04.2 of a chapter among {', '.join(known)}")
    if args.seed is not None and not 0 <= args.seed < 2**64:
        ap.error("--seed takes a number in [0, 2^64)")
    # Decided where the tests run (a Slurm node's allocation, not the login node's cores).
    args.jobs_default = min(8, len(os.sched_getaffinity(0)))
    if args.build:
        grade_build(args)
    elif args.merge:
        out_root = Path(args.merge).resolve()
        records = reports.merge_gradebook(out_root, list(load_manifest()))
        summary_page.write_class_summary(records, list(load_manifest()), out_root / "summary.html")
        write_leaderboard(records, out_root, args.leaderboard_names)
        print(f"gradebook: {out_root / 'gradebook.csv'} ({len(records)} students); "
              f"leaderboard: {out_root / 'leaderboard.html'}")
    else:
        grade_submissions(args)


if __name__ == "__main__":
    main()
