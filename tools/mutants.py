#!/usr/bin/env python3
"""Mutation test of the checks: every typical mistake in tests/mutants/*.toml must fail its task.

    python3 tools/mutants.py                 # every mutant (GPU tasks need a GPU)
    python3 tools/mutants.py --host-only     # the mutants of tasks whose tests are in the Meson suite 'host'
    python3 tools/mutants.py --only ID ...   # some mutants (repeatable, or ID,ID)
    python3 tools/mutants.py --list          # the mutants, without running them

A mutant is one exact edit ("replace this text with that") of one solution file, and the task whose graded
Meson tests ("TODO(NN.k) ...") must fail on it. The working tree (uncommitted edits included, build folders
and other git-ignored files left out) is copied once into a temporary folder; each chapter that has mutants is
configured there once with -Dvariant=solution. Then, for each chapter:

  - baseline: only the targets the selected tasks' tests need are built and those tests run on the pristine
    solution; they must pass (else every mutant would look killed): error otherwise;
  - each mutant in turn: the file is edited, ninja rebuilds what changed (the test programs are deleted first,
    so a build that fails can never run an old program), the task's tests run, and the pristine file is
    written back.

A mutant is KILLED when its build fails or one of its task's tests fails, SURVIVED when they all pass, and
NOT GRADED when its task's GPU tests could not run on this machine. Verdicts come from doctest's XML report
exactly as tools/grade.py reads them (a crash, a timeout or a case that ran no assertion fails the test).

Output: one line per mutant, then exactly `N mutants, N killed, N survived`. Exit status: 0 when every mutant
was killed, 1 when one survived (or could not be graded here), 2 on an error: bad mutant data, a replace text
not found exactly once in its file, a chapter that does not configure, or a solution that fails its own tests.
"""
import argparse
import fcntl
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

from grading import doctest_xml  # noqa: E402
from grading.model import FAILED, NOT_GRADED, PASSED, judged_per_task, tasks_of  # noqa: E402
from grading.runner import TIMEOUT_HINT, Build, gpu_works, is_lesson, run_doctest, run_program  # noqa: E402
from grading.workspace import first_errors  # noqa: E402

DATA = ROOT / "tests" / "mutants"  # one NN_name.toml per chapter
KEYS = ("id", "task", "file", "description", "replace", "with")
KILLED, SURVIVED = "killed", "survived"
BUILD_TIMEOUT = 1800  # seconds for one build of a chapter's test programs


class MutantError(Exception):
    """Bad mutant data or a tree the mutants cannot run in: exit status 2. logs: keep the work folder."""

    def __init__(self, message, logs=False):
        super().__init__(message)
        self.logs = logs


@dataclass
class Mutant:
    id: str
    task: str
    file: str
    description: str
    replace: str
    with_: str

    @property
    def chapter(self):
        return self.file.split("/")[0]


def log(text):
    print(text, file=sys.stderr, flush=True)


def load_mutants(path=DATA):
    """The mutants of `path`: one TOML file, or every *.toml of a folder in name order."""
    entries = []
    for file in sorted(path.glob("*.toml")) if path.is_dir() else [path]:
        try:
            entries += [(file, e) for e in tomllib.loads(file.read_text(encoding="utf-8")).get("mutant", [])]
        except (OSError, tomllib.TOMLDecodeError) as e:
            raise MutantError(f"{file}: {e}")
    if not entries:
        raise MutantError(f"{path}: no [[mutant]] found")
    mutants, seen = [], set()
    for i, (path, entry) in enumerate(entries, 1):
        where = f"{path}: mutant #{i} ({entry.get('id', 'no id')})"
        missing = [k for k in KEYS if not isinstance(entry.get(k), str)]
        unknown = sorted(set(entry) - set(KEYS))
        if missing or unknown:
            raise MutantError(f"{where}: " + "; ".join(
                ([f"missing or not a string: {', '.join(missing)}"] if missing else [])
                + ([f"unknown keys: {', '.join(unknown)}"] if unknown else [])))
        m = Mutant(entry["id"], entry["task"], entry["file"], entry["description"], entry["replace"], entry["with"])
        if not re.fullmatch(r"[A-Za-z0-9._-]+", m.id):
            raise MutantError(f"{where}: the id may hold letters, digits, '.', '_' and '-' only")
        if m.id in seen:
            raise MutantError(f"{where}: a second mutant with id {m.id}")
        seen.add(m.id)
        if not re.fullmatch(r"\d\d\.\d+", m.task):
            raise MutantError(f"{where}: task must read like 01.2, not {m.task!r}")
        parts = Path(m.file).parts
        if Path(m.file).is_absolute() or ".." in parts or len(parts) < 3 or parts[1] != "solution" \
                or not parts[0].startswith(m.task.split(".")[0] + "_"):
            raise MutantError(f"{where}: file must be a solution file of chapter {m.task.split('.')[0]} "
                              f"(NN_name/solution/...), not {m.file!r}")
        if not m.replace:
            raise MutantError(f"{where}: empty replace text")
        if m.replace == m.with_:
            raise MutantError(f"{where}: replace and with are the same text")
        mutants.append(m)
    return mutants


def copy_working_tree(dest):
    """The files git would see (tracked and untracked, not ignored) as they are now; symlinks stay symlinks."""
    try:
        listing = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z", "--cached", "--others",
                                  "--exclude-standard"], check=True, capture_output=True).stdout
        paths = sorted({p for p in listing.decode().split("\0") if p})
    except (OSError, subprocess.CalledProcessError):
        paths = None
    if paths is None:  # not a git checkout
        ignore = shutil.ignore_patterns(".git", "build*", "grades", "__pycache__")
        shutil.copytree(ROOT, dest, symlinks=True, ignore=ignore, dirs_exist_ok=True)
    else:
        for rel in paths:
            src, dst = ROOT / rel, dest / rel
            if not src.is_symlink() and not src.is_file():
                continue  # deleted in the working tree (still in the index)
            dst.parent.mkdir(parents=True, exist_ok=True)
            if src.is_symlink():
                os.symlink(os.readlink(src), dst)
            else:
                shutil.copy2(src, dst)
    # doctest fetched through the wrap on this machine (git-ignored): reuse it instead of downloading it again.
    for folder in [ROOT / "subprojects", *sorted(ROOT.glob("[0-9][0-9]_*/subprojects"))]:
        for cached in list(folder.glob("doctest-*")) + [folder / "packagecache"]:
            if cached.is_dir() and not cached.is_symlink():
                shutil.copytree(cached, dest / cached.relative_to(ROOT), symlinks=True, dirs_exist_ok=True)


def check_edits(tree, mutants):
    """Every replace text occurs exactly once in its file: else an error, never a silently skipped mutant."""
    problems = []
    for m in mutants:
        path = tree / m.file
        if not path.is_file():
            problems.append(f"{m.id}: {m.file} does not exist")
            continue
        count = path.read_text(encoding="utf-8").count(m.replace)
        if count != 1:
            first = m.replace.strip().splitlines()[0]
            problems.append(f"{m.id}: its replace text (first line: {first!r}) occurs {count} times in {m.file}, "
                            "not once: update the mutant to the solution's text")
    if problems:
        raise MutantError("mutants that no longer fit their solution file:\n  " + "\n  ".join(problems))


# Two Nsight Compute sessions at once on one GPU get a runner killed (exit code 9: H100, CUDA 13.0, the mutants
# of 02 and 03 checked side by side as tools/gpu_check.sh runs them). The lesson tests of every mutants.py on the
# machine take turns through this lock, as the grader's take the GPU's counters place one at a time.
COUNTERS_LOCK = Path(tempfile.gettempdir()) / "course-mutants-counters.lock"


@contextmanager
def counters_turn(test):
    """Holds the machine's counters lock while a lesson test runs (other tests run at once)."""
    if not is_lesson(test["name"]):
        yield
        return
    with open(COUNTERS_LOCK, "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        yield


def is_host(test):
    return any(s.split(":")[-1] == "host" for s in test["suite"])


class Chapter:
    """One chapter of the copy, configured alone with -Dvariant=solution."""

    def __init__(self, tree, name, work, gpu_arch):
        self.name, self.work = name, work
        self.src = tree / name
        self.build_dir = work / "build" / name
        self.logs = work / "logs" / name
        self.logs.mkdir(parents=True, exist_ok=True)
        if not (self.src / "meson.build").is_file():
            raise MutantError(f"{name}: no such chapter (no {name}/meson.build)")
        setup_log = self.logs / "setup.log"
        code, _ = run_program(["meson", "setup", str(self.build_dir), str(self.src), "-Dvariant=solution",
                               f"-Dgpu_arch={gpu_arch}"], setup_log, BUILD_TIMEOUT)
        if code != 0:
            tail = setup_log.read_text(errors="replace").strip().splitlines()[-5:]
            raise MutantError(f"{name}: meson setup failed (log {setup_log}):\n  " + "\n  ".join(tail), logs=True)
        self.build = Build(self.build_dir)
        self.outputs = {t["id"]: t["filename"] for t in self.build.targets}
        self.gpu = None  # asked once, when a GPU task is run

    def tests_of(self, task):
        """The task's graded tests, less its performance test: a mutant is a wrong kernel, which the ordinary
        checks kill; timing one would only hold Nsight Compute (one profiler at a time per GPU) from the other
        chapters' mutants running beside it."""
        return [t for t in self.build.task_tests() if task in tasks_of(t["name"])
                and not any(s.split(":")[-1] == "performance" for s in t["suite"])]

    def targets_for(self, tests):
        """The build outputs the tests need (their programs and what those are built from), for ninja."""
        files = set()
        for test in tests:
            for dep in test.get("depends", []):
                files.update(self.outputs.get(dep, []))
            files.add(test["cmd"][0])
        return sorted(str(Path(f).relative_to(self.build_dir)) for f in files
                      if Path(f).is_relative_to(self.build_dir))

    def compile(self, tests, log_name):
        """Builds what the tests need; returns None, or why the build failed."""
        # The checks, and the runner that links the solution file (the one a mutant changes): never run a
        # program an earlier build left behind.
        programs = {t["cmd"][0] for t in tests} | {t["env"]["COURSE_RUNNER"] for t in tests
                                                   if "COURSE_RUNNER" in (t.get("env") or {})}
        for program in programs:
            Path(program).unlink(missing_ok=True)
        build_log = self.logs / f"{log_name}.build.log"
        code, _ = run_program(["ninja", "-C", str(self.build_dir)] + self.targets_for(tests), build_log,
                              BUILD_TIMEOUT)
        if code == 0 and all(Path(p).exists() for p in programs):
            return None
        if code is None:
            return f"the build was stopped after {BUILD_TIMEOUT} s"
        errors = first_errors(build_log.read_text(errors="replace"), self.name, alone=True, lines=2)
        return "does not compile: " + (errors or f"see {build_log}")

    def gpu_present(self):
        if self.gpu is None:
            probe = self.build.probe_test("gpu helpers")
            if probe is not None:
                self.compile([probe], "gpu-probe")
            self.gpu = gpu_works(self.build, self.logs)
        return self.gpu

    def run_tests(self, task, tests, log_name):
        """(status, reason) of a task's tests, as the grader reads them: the first failure wins."""
        gpu = self.gpu_present() if not all(is_host(t) for t in tests) else False
        statuses = []
        for i, test in enumerate(tests):
            stem = f"{log_name}.{i}"
            report, out = self.logs / f"{stem}.xml", self.logs / f"{stem}.log"
            timeout = test.get("timeout") or 600
            env = dict(os.environ, **(test.get("env") or {}))
            per_task = judged_per_task(test["name"])  # a chapter's race test: this task's own cases decide
            with counters_turn(test):
                code, _ = run_doctest(test["cmd"], report, out, timeout, env, test.get("workdir") or self.build_dir,
                                      first_failure=not per_task)
            if code is None:
                return FAILED, f"{test['name']}: TIMEOUT after {timeout:.0f} s ({TIMEOUT_HINT})"
            exe = test["cmd"][0]
            expected = doctest_xml.expected_cases(doctest_xml.declared_cases(exe), test["cmd"][1:])
            status, reason = doctest_xml.verdict(report, expected, code, gpu, task if per_task else None)
            if status == FAILED:
                return FAILED, f"{test['name']}: {reason}"
            statuses.append((status, f"{test['name']}: {reason}"))
        not_graded = [reason for status, reason in statuses if status == NOT_GRADED]
        return (NOT_GRADED, not_graded[0]) if not_graded else (PASSED, "")


def one_line(text, width=220):
    text = " ".join(text.split())
    return text if len(text) <= width else text[:width - 3] + "..."


def run(mutants, args):
    work = Path(tempfile.mkdtemp(prefix="course-mutants-"))
    tree = work / "tree"
    log(f"mutants: copying the working tree of {ROOT} to {tree}")
    results = []
    try:
        copy_working_tree(tree)
        check_edits(tree, mutants)
        chapters = {}
        for m in mutants:
            chapters.setdefault(m.chapter, []).append(m)
        selected = []
        for name, chapter_mutants in chapters.items():
            log(f"mutants: configuring {name} (-Dvariant=solution)")
            chapter = Chapter(tree, name, work, args.gpu_arch)
            tasks = {}
            for m in chapter_mutants:
                tests = chapter.tests_of(m.task)
                if not tests:
                    raise MutantError(f"{m.id}: {name} has no graded test of task {m.task} (no Meson test named "
                                      f"'TODO({m.task}) ...')")
                if args.host_only and not all(is_host(t) for t in tests):
                    continue
                tasks.setdefault(m.task, tests)
                selected.append((chapter, m, tests))
            if not tasks:
                continue
            # Baseline: the pristine solution must pass every task its mutants are meant to fail.
            for task, tests in sorted(tasks.items()):
                log(f"mutants: baseline {name}: building and running the tests of TODO({task}) on the solution")
                broken = chapter.compile(tests, f"baseline-{task}")
                status, reason = (FAILED, broken) if broken else chapter.run_tests(task, tests, f"baseline-{task}")
                if status == FAILED:
                    raise MutantError(f"the reference solution fails TODO({task}) ({one_line(reason)}); "
                                      f"logs in {chapter.logs}", logs=True)
        if args.host_only:
            log(f"mutants: {len(selected)} of {len(mutants)} mutants have host tasks")
        for chapter, m, tests in selected:
            results.append(run_mutant(chapter, tree, m, tests))
    except MutantError as e:
        args.keep = args.keep or e.logs  # the logs say why
        raise
    finally:
        if args.keep:
            log(f"mutants: the copy, its builds and logs are kept in {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    return results


def run_mutant(chapter, tree, m, tests):
    path = tree / m.file
    pristine = path.read_bytes()
    start = time.monotonic()
    try:
        path.write_bytes(pristine.decode("utf-8").replace(m.replace, m.with_, 1).encode("utf-8"))
        broken = chapter.compile(tests, m.id)
        status, reason = (FAILED, broken) if broken else chapter.run_tests(m.task, tests, m.id)
    finally:
        path.write_bytes(pristine)
    seconds = time.monotonic() - start
    verdict = {FAILED: KILLED, PASSED: SURVIVED, NOT_GRADED: NOT_GRADED}[status]
    if verdict == SURVIVED:
        reason = f"every test of TODO({m.task}) passed: {m.description}"
    print(f"{verdict.upper():<10} {m.id:<24} {seconds:6.1f} s  {one_line(reason)}", flush=True)
    return verdict


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--host-only", action="store_true",
                    help="only mutants of tasks whose tests are all in the Meson suite 'host' (no GPU needed)")
    ap.add_argument("--only", action="append", default=[], metavar="ID",
                    help="run this mutant only (repeatable, or comma-separated)")
    ap.add_argument("--list", action="store_true", help="list the mutants and exit")
    ap.add_argument("--keep", action="store_true", help="keep the temporary copy, its builds and the test logs")
    ap.add_argument("--gpu-arch", default="native", help="the gpu_arch option of the builds (default native)")
    ap.add_argument("--mutants", type=Path, default=DATA, metavar="FILE",
                    help="a mutant file, or a folder of them (default tests/mutants/)")
    args = ap.parse_args()
    started = time.monotonic()
    try:
        mutants = load_mutants(args.mutants.resolve())
        if args.only:
            wanted = [i for arg in args.only for i in arg.split(",") if i]
            unknown = [i for i in wanted if i not in {m.id for m in mutants}]
            if unknown:
                raise MutantError(f"no mutant with id {', '.join(unknown)} in {args.mutants}")
            mutants = [m for m in mutants if m.id in wanted]
        if args.list:
            for m in mutants:
                print(f"{m.id:<24} TODO({m.task})  {m.file}: {m.description}")
            return 0
        if not mutants:
            raise MutantError(f"no mutants in {args.mutants}")
        for tool in ("meson", "ninja"):
            if shutil.which(tool) is None:
                raise MutantError(f"{tool} is not on PATH")
        results = run(mutants, args)
    except MutantError as e:
        print(f"mutants: error: {e}", file=sys.stderr)
        return 2
    killed, survived = results.count(KILLED), results.count(SURVIVED)
    not_graded = results.count(NOT_GRADED)
    log(f"mutants: {time.monotonic() - started:.0f} s in all")
    if not_graded:
        print(f"{not_graded} mutant(s) not graded: their task's GPU tests could not run here (run them on a GPU "
              "machine, or pass --host-only)")
    print(f"{len(results)} mutants, {killed} killed, {survived} survived")
    return 0 if killed == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
