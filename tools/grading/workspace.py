"""The two trees a class is graded with.

- The checker tree: the instructor's checks (no student code in them), configured and built once per batch.
  Its test programs decide every verdict.
- A runner workspace per worker: a tree without any reference solution, configured as the starter variant and
  its runners built once, then kept aside as a pristine copy. Each submission starts from a fresh copy of it
  (nothing an earlier submission did can be there), gets only the student's files laid over it, and its build
  rebuilds what those files change - inside the sandbox, with only the workspace writable.

Both trees hold only what building needs: the top-level meson files, common/, subprojects/ and the chapters
without their solution/ folders (no reference object of a student task, no mutant of one).
"""
import hashlib
import io
import json
import re
import shutil
import subprocess
import tarfile
import threading
from pathlib import Path

from .runner import Build, run_program, sha256
from .shortcuts import Baseline

MANIFEST = Path(__file__).with_name("student_files.json")
TREE_FILES = ("meson.build", "meson_options.txt")
TREE_FOLDERS = ("common", "subprojects")


def load_manifest():
    """{chapter: [paths relative to the chapter]} in chapter order."""
    data = json.loads(MANIFEST.read_text())
    return {k: v for k, v in sorted(data.items()) if not k.startswith("_")}


def _wanted(rel):
    """Whether a path of the course belongs in a grading tree: never a solution, a mutant or a tool."""
    parts = Path(rel).parts
    if not parts:
        return False
    if parts[0] in TREE_FILES or parts[0] in TREE_FOLDERS:
        return True
    return bool(re.fullmatch(r"\d\d_\w+", parts[0])) and "solution" not in parts[1:2] and "build" not in parts[0:2]


def export_tree(course_root, dest, worktree=False):
    """The instructor's tree minus everything a submission must not reach: its HEAD commit (uncommitted edits are
    not graded with), or with worktree=True (or outside a git checkout) the files as they are. Returns where it
    came from."""
    dest.mkdir(parents=True)
    archive = None
    if not worktree:
        try:
            commit = subprocess.run(["git", "-C", str(course_root), "rev-parse", "HEAD"], check=True,
                                    capture_output=True, text=True).stdout.strip()
            archive = subprocess.run(["git", "-C", str(course_root), "archive", "--format=tar", commit],
                                     check=True, capture_output=True).stdout
        except (OSError, subprocess.CalledProcessError):
            archive = None
    if archive is None:
        for item in sorted(course_root.iterdir()):
            rel = item.name
            if not _wanted(rel):
                continue
            if item.is_dir() and not item.is_symlink():
                shutil.copytree(item, dest / rel, symlinks=True,
                                ignore=lambda d, names: [n for n in names if not _wanted(
                                    str(Path(d).relative_to(course_root) / n)) or n.startswith("build")
                                    or n == "__pycache__"])
            else:
                shutil.copy2(item, dest / rel, follow_symlinks=False)
        origin = f"the working tree of {course_root}"
    else:
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            members = [m for m in tar.getmembers() if _wanted(m.name)]
            safe = {"filter": "tar"} if hasattr(tarfile, "data_filter") else {}
            tar.extractall(dest, members=members, **safe)
        origin = f"commit {commit[:12]} of {course_root}"
    # doctest fetched through the wrap on this machine: reuse it instead of downloading it again.
    for cached in list((course_root / "subprojects").glob("doctest-*")) + [course_root / "subprojects/packagecache"]:
        if cached.is_dir():
            shutil.copytree(cached, dest / "subprojects" / cached.name, symlinks=True, dirs_exist_ok=True)
    return origin


def configure(src, build_dir, gpu_arch, log):
    setup = subprocess.run(["meson", "setup", str(build_dir), str(src), "-Dvariant=starter",
                            f"-Dgpu_arch={gpu_arch}"], capture_output=True, text=True)
    log.write_text(setup.stdout + setup.stderr)
    if setup.returncode != 0:
        raise SystemExit(f"grade: configuring a grading tree failed:\n{setup.stdout[-3000:]}{setup.stderr}")
    return Build(build_dir)


def origin_commit(origin):
    """The 12 hex digits of the commit an export_tree() origin names, or None (a working tree)."""
    m = re.match(r"commit ([0-9a-f]{12}) of ", origin)
    return m.group(1) if m else None


class CheckerTree:
    """The instructor's checks, built once: every graded test program and the GPU probe (common's helpers)."""

    def __init__(self, path, course_root, gpu_arch="native", worktree=False, reuse=False):
        self.path = Path(path).resolve()
        if reuse and (self.path / "origin.txt").exists():  # grade.py --workspace: built by an earlier run
            self.origin = (self.path / "origin.txt").read_text()
            self.build = Build(self.path / "build")
        else:
            if self.path.exists():
                shutil.rmtree(self.path)
            self.origin = export_tree(Path(course_root).resolve(), self.path / "src", worktree)
            self.build = configure(self.path / "src", self.path / "build", gpu_arch, self.path / "setup.log")
        probe = self.build.probe_test("gpu helpers")
        programs = self.build.executables() + ([probe["cmd"][0]] if probe else [])
        targets = [str(Path(p).relative_to(self.build.dir)) for p in programs]
        code, _ = run_program(["ninja", "-C", str(self.build.dir)] + targets, self.path / "build.log", 3600)
        missing = [p for p in programs if not Path(p).exists()]
        if code != 0 or missing:
            raise SystemExit(f"grade: building the checks failed (see {self.path / 'build.log'})")
        self.hashes = {p: sha256(p) for p in programs}
        (self.path / "origin.txt").write_text(self.origin)


class RunnerWorkspace:
    """A worker's runner tree: made and built once, kept aside, copied afresh for every submission."""

    def __init__(self, path, course_root, gpu_arch="native", worktree=False, reuse=False):
        self.path = Path(path).resolve()
        self.pristine = self.path.with_name(self.path.name + ".pristine")
        self.src = self.path / "src"
        self.build_dir = self.path / "build"
        self.manifest = load_manifest()
        reused = reuse and (self.pristine / "origin.txt").exists()  # grade.py --workspace: prepared earlier
        if reused:
            shutil.rmtree(self.path, ignore_errors=True)
            shutil.copytree(self.pristine, self.path, symlinks=True)
            self.origin = (self.path / "origin.txt").read_text()
            build = Build(self.build_dir)
        else:
            for folder in (self.path, self.pristine):
                if folder.exists():
                    shutil.rmtree(folder)
            self.origin = export_tree(Path(course_root).resolve(), self.src, worktree)
            (self.path / "origin.txt").write_text(self.origin)
            build = configure(self.src, self.build_dir, gpu_arch, self.path / "setup.log")
        self.runners = sorted({t["env"]["COURSE_RUNNER"] for t in build.task_tests()
                               if "COURSE_RUNNER" in (t.get("env") or {})})
        targets = [str(Path(r).relative_to(self.build_dir)) for r in self.runners]
        if not reused:
            run_program(["ninja", "-C", str(self.build_dir)] + targets, self.path / "prepare.log", 3600)
        self.starter = {(ch, f): (self.src / ch / f).read_bytes()
                        for ch, files in self.manifest.items() for f in files if (self.src / ch / f).exists()}
        self.student_paths = [self.src / ch / f for ch, files in self.manifest.items() for f in files]
        self.baseline = Baseline(self.build_dir, {ch: [self.src / ch / f for f in files]
                                                  for ch, files in self.manifest.items()})
        if not reused:
            shutil.copytree(self.path, self.pristine, symlinks=True)

    def fresh(self):
        """This worker's tree as it was prepared: whatever the last submission built or left is gone."""
        shutil.rmtree(self.path)
        shutil.copytree(self.pristine, self.path, symlinks=True)
        self.build = Build(self.build_dir)

    def lay_over(self, student_files):
        """Writes the manifest's files: the student's where given, else the instructor's starter (ninja rebuilds
        what differs from the prepared starter build)."""
        for key, starter in self.starter.items():
            content = student_files.get(key, starter)
            if content != starter:
                (self.src / key[0] / key[1]).write_bytes(content)

    def runner_of(self, chapter):
        return next((r for r in self.runners if f"/subprojects/{chapter}/" in r), None)

    def chapter_files(self, chapter, student_files):
        """The bytes of a chapter's student files as graded: the student's, else the starter's."""
        return {f: student_files.get((chapter, f), self.starter.get((chapter, f), b"")) for f in self.manifest[chapter]}

    def compile(self, chapters, log, timeout, prefix=()):
        """Builds the runners of `chapters` (`prefix`: the build sandbox); returns ({chapter: compile error},
        seconds).

        The runners are deleted first, so a chapter that no longer compiles can never be graded with a runner
        an earlier build left behind. `ninja -k 0` goes on past a failure: one chapter's error costs that chapter.
        """
        runners = [self.runner_of(ch) for ch in chapters if self.runner_of(ch)]
        if not runners:
            return {}, 0.0
        for runner in runners:
            Path(runner).unlink(missing_ok=True)
        targets = [str(Path(r).relative_to(self.build_dir)) for r in runners]
        code, seconds = run_program(list(prefix) + ["ninja", "-C", str(self.build_dir), "-k", "0"] + targets, log,
                                    timeout)
        text = log.read_text(errors="replace")
        errors = {}
        for chapter in chapters:
            runner = self.runner_of(chapter)
            if runner and not Path(runner).exists():
                errors[chapter] = (f"the build was stopped after {timeout} s" if code is None else
                                   "does not compile: " + (first_errors(text, chapter) or "see build.log"))
        return errors, seconds


class BuildCache:
    """Runners already built from the same bytes: a chapter whose student files are byte for byte those of an
    earlier submission of the run gets the runner (or the verdict: a compile error, a forbidden library) that
    building them gave, instead of building them again. The compiler's output depends only on those bytes and the
    course's own files, which do not change during a run, so this is what a fresh build would give; the cache is
    written by the grader alone, never by a submission's build or runner."""

    def __init__(self, folder):
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.lock = threading.Lock()

    @staticmethod
    def key(chapter, files):
        h = hashlib.sha256(chapter.encode())
        for name in sorted(files):
            h.update(b"\0" + name.encode() + b"\0" + hashlib.sha256(files[name]).digest())
        return h.hexdigest()

    def get(self, key):
        """(runner path or None, verdict or None), or None when these bytes were not built yet."""
        entry = self.folder / key
        with self.lock:
            if not (entry / "verdict.json").exists():
                return None
            verdict = json.loads((entry / "verdict.json").read_text())["verdict"]
            return (entry / "runner" if (entry / "runner").exists() else None), verdict

    def put(self, key, runner, verdict):
        entry = self.folder / key
        with self.lock:
            entry.mkdir(exist_ok=True)
            if verdict is None and runner and Path(runner).exists():
                shutil.copy2(runner, entry / "runner")
            (entry / "verdict.json").write_text(json.dumps({"verdict": verdict}))


def compile_tests(build, chapters, log, timeout):
    """Builds every graded test program of a build as it is (grade.py BUILD: the student's own tree, checks and
    runners); returns ({chapter: compile error}, seconds)."""
    programs = sorted(set(build.executables()) | {t["env"]["COURSE_RUNNER"] for t in build.task_tests()
                                                   if "COURSE_RUNNER" in (t.get("env") or {})})
    for program in programs:
        Path(program).unlink(missing_ok=True)
    targets = [str(Path(p).relative_to(build.dir)) for p in programs]
    code, seconds = run_program(["ninja", "-C", str(build.dir), "-k", "0"] + targets, log, timeout)
    text = log.read_text(errors="replace")
    errors = {}
    for program in programs:
        if not Path(program).exists():
            chapter = next((p for p in Path(program).relative_to(build.dir).parts if p in chapters),
                           build.source.name)
            errors[chapter] = (f"the build was stopped after {timeout} s" if code is None else
                               "does not compile: " + (first_errors(text, chapter, chapter == build.source.name)
                                                      or "see build.log"))
    return errors, seconds


def first_errors(ninja_log, chapter, alone=False, lines=6):
    """The compiler's first error lines for a chapter (every error when it is built alone), from ninja's output."""
    out, keep = [], False
    for line in ninja_log.splitlines():
        if line.startswith("FAILED: "):
            keep = alone or f"subprojects/{chapter}/" in line
            continue
        if re.match(r"^\[\d+/\d+\] |^ninja: ", line):
            keep = False
        if keep and re.search(r"\berror\b", line, re.IGNORECASE) and "detected in the compilation" not in line:
            out.append(re.sub(r"^.*?/" + re.escape(chapter) + "/", f"{chapter}/", line.strip()))
            if len(out) == lines:
                break
    return " | ".join(out)
