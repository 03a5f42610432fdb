"""The trusted tree a submission is graded in.

A workspace is a copy of the instructor's commit (`git archive HEAD`), configured once as the starter variant
(the student's files are the starter files). For each submission, only the files the manifest names are
laid over it (a file the submission lacks goes back to the instructor's starter); every other file, checks
and meson.build included, stays the instructor's. Ninja then rebuilds what those files change (Meson >= 1.4
records nvcc's header dependencies), so common/ and everything trusted is built once per workspace.
"""
import io
import json
import re
import shutil
import subprocess
import tarfile
from pathlib import Path

from .runner import Build, run_program, sha256

MANIFEST = Path(__file__).with_name("student_files.json")


def load_manifest():
    """{chapter: [paths relative to the chapter]} in chapter order."""
    data = json.loads(MANIFEST.read_text())
    return {k: v for k, v in sorted(data.items()) if not k.startswith("_")}


def export_tree(course_root, dest, worktree=False):
    """The instructor's tree: its HEAD commit (uncommitted edits are not graded with), or with worktree=True
    (or outside a git checkout) the files as they are. Returns a description."""
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
        ignore = shutil.ignore_patterns(".git", "build*", "grades", "__pycache__")
        shutil.copytree(course_root, dest, symlinks=True, ignore=ignore, dirs_exist_ok=True)
        origin = f"the working tree of {course_root}"
    else:
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(dest)
        origin = f"commit {commit[:12]} of {course_root}"
    # doctest fetched through the wrap on this machine: reuse it instead of downloading it again.
    for cached in list((course_root / "subprojects").glob("doctest-*")) + [course_root / "subprojects/packagecache"]:
        if cached.is_dir():
            shutil.copytree(cached, dest / "subprojects" / cached.name, symlinks=True, dirs_exist_ok=True)
    return origin


class Workspace:
    def __init__(self, path, course_root, gpu_arch="native", reuse=False, worktree=False):
        self.path = Path(path).resolve()
        self.src = self.path / "src"
        self.build_dir = self.path / "build"
        self.manifest = load_manifest()
        if reuse and (self.build_dir / "build.ninja").exists():
            self.origin = (self.path / "origin.txt").read_text()
        else:
            if self.path.exists():
                shutil.rmtree(self.path)
            self.path.mkdir(parents=True)
            self.origin = export_tree(Path(course_root).resolve(), self.src, worktree)
            (self.path / "origin.txt").write_text(self.origin)
            setup = subprocess.run(["meson", "setup", str(self.build_dir), str(self.src), "-Dvariant=starter",
                                    f"-Dgpu_arch={gpu_arch}"], capture_output=True, text=True)
            (self.path / "setup.log").write_text(setup.stdout + setup.stderr)
            if setup.returncode != 0:
                raise SystemExit(f"grade: configuring the trusted tree failed:\n{setup.stdout[-3000:]}{setup.stderr}")
        # The instructor's starter files, kept aside: the tree itself holds the last submission's files.
        kept = self.path / "pristine"
        if not kept.exists():
            for ch, files in self.manifest.items():
                for f in files:
                    if (self.src / ch / f).exists():
                        (kept / ch / f).parent.mkdir(parents=True, exist_ok=True)
                        shutil.copyfile(self.src / ch / f, kept / ch / f)
        self.pristine = {(ch, f): (kept / ch / f).read_bytes()
                         for ch, files in self.manifest.items() for f in files if (kept / ch / f).exists()}
        self.build = Build(self.build_dir)
        probe = self.build.probe_test("gpu helpers")
        if probe:  # the trusted GPU probe, and with it common/, built once
            run_program(["ninja", "-C", str(self.build_dir), str(Path(probe["cmd"][0]).relative_to(self.build_dir))],
                        self.path / "probe-build.log", 3600)

    def lay_over(self, student_files):
        """Writes the manifest's files: the student's where given, else the instructor's starter.

        student_files: {(chapter, path): bytes}. A file is rewritten only when its content changes, so
        ninja rebuilds exactly what differs from the previous submission.
        """
        for key, pristine in self.pristine.items():
            target = self.src / key[0] / key[1]
            content = student_files.get(key, pristine)
            if not target.exists() or target.read_bytes() != content:
                target.write_bytes(content)

    def compile(self, log, timeout):
        return compile_tests(self.build, self.manifest, log, timeout)


def compile_tests(build, chapters, log, timeout):
    """Builds every graded test program; returns ({chapter: compile error}, {program: sha256}, seconds).

    The programs are deleted first, so a chapter that no longer compiles can never be graded with the program
    an earlier build left behind. `ninja -k 0` goes on past a failure: one chapter's error costs that chapter.
    """
    exes = build.executables()
    for exe in exes:
        Path(exe).unlink(missing_ok=True)
    targets = [str(Path(e).relative_to(build.dir)) for e in exes]
    code, seconds = run_program(["ninja", "-C", str(build.dir), "-k", "0"] + targets, log, timeout)
    text = log.read_text(errors="replace")
    errors = {}
    for exe in exes:
        if not Path(exe).exists():
            chapter = next((p for p in Path(exe).relative_to(build.dir).parts if p in chapters), None) \
                or build.source.name
            errors[chapter] = (f"the build was stopped after {timeout} s" if code is None else
                               "does not compile: " + (first_errors(text, chapter, chapter == build.source.name)
                                                      or "see build.log"))
    return errors, {e: sha256(e) for e in exes if Path(e).exists()}, seconds


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

