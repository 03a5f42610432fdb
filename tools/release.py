#!/usr/bin/env python3
"""The student edition: the course as students receive it, without the reference solutions.

    python3 tools/release.py OUT [--ref HEAD]

writes the files of commit REF (default HEAD) into OUT, less:
  - every `solution/` folder, and what is built from or about them: tests/ (mutants, fixtures, exploits),
    tools/mutants.py, tools/gpu_check.sh, this tool, CONTRIBUTING.md;
  - in Markdown files, every block between `<!-- instructor -->` and `<!-- /instructor -->` (the grading and
    contributor sections, how to build the solutions), and every line of a code block that builds them;
and with:
  - the `variant` option offering `starter` only (meson_options.txt of the course, `common/` and each chapter);
  - `.ci/run` replaced by tools/release/student-ci.sh (a student's own CI: the README's commands);
  - `course-edition.json`: the commit and the SHA-256 of every file, so a grader can tell which edition a
    submission was made from.
Checks, given files and starters are byte for byte those of REF. The edition is then verified: no file of it
holds a line that appears only in a solution file (nor a mention of `-Dvariant=solution`), and every Markdown
link to an anchor of the same file still finds it. Exit 1, saying what, when it does not hold.
"""
import argparse
import hashlib
import io
import json
import re
import subprocess
import sys
import tarfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LEFT_OUT = ("tests/", "tools/mutants.py", "tools/gpu_check.sh", "tools/release", "CONTRIBUTING.md")
MARKED = re.compile(r"<!-- instructor -->.*?<!-- /instructor -->\n?", re.S)
VARIANT = re.compile(r"choices: \['starter', 'solution'\]")


def files_of(ref):
    """({path: bytes}, {path: link target}) of the commit (git archive: committed content, nothing of the
    working tree); the links are the chapters' subprojects/ entries."""
    data = subprocess.run(["git", "-C", str(ROOT), "archive", "--format=tar", ref], check=True,
                          capture_output=True).stdout
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        members = tar.getmembers()
        return ({m.name: tar.extractfile(m).read() for m in members if m.isfile()},
                {m.name: m.linkname for m in members if m.issym()})


def student_text(path, text):
    """A Markdown or option file as students get it."""
    if path.endswith(".md"):
        text = MARKED.sub("", text)
        text = "".join(line for line in text.splitlines(keepends=True) if "-Dvariant=solution" not in line)
    if path.endswith("meson_options.txt"):
        text = VARIANT.sub("choices: ['starter']", text)
        text = text.replace("Build the student files (starter, graded by meson test) or the reference solutions",
                            "Build the student files (starter, graded by meson test)")
    return text


def solution_only_lines(course):
    """Lines (stripped, 12 characters or more) of the solution files that no other file of the course has."""
    def lines(blob):
        return {line.strip() for line in blob.decode(errors="replace").splitlines() if len(line.strip()) >= 12}
    solution, rest = set(), set()
    for path, blob in course.items():
        (solution if "/solution/" in f"/{path}" else rest).update(lines(blob))
    return solution - rest


def verify(edition, course):
    problems = []
    unique = solution_only_lines(course)
    for path, blob in edition.items():
        text = blob.decode(errors="replace")
        if "/solution/" in f"/{path}":
            problems.append(f"{path}: a solution file")
        if "-Dvariant=solution" in text:
            problems.append(f"{path}: mentions -Dvariant=solution")
        leaked = sorted({line.strip() for line in text.splitlines()} & unique)
        if leaked:
            problems.append(f"{path}: {len(leaked)} line(s) of a solution file, e.g. {leaked[0]!r}")
        if path.endswith(".md"):
            anchors = {re.sub(r"[^\w\- ]", "", h.strip("# ").lower()).replace(" ", "-")
                       for h in re.findall(r"^#+ .*$", text, re.M)} | set(re.findall(r'<a id="([^"]+)"', text))
            for target in re.findall(r"\]\(#([^)]+)\)", text):
                if target not in anchors:
                    problems.append(f"{path}: a link to #{target}, which the edition does not have")
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", help="the folder to write (must not exist, or be empty)")
    ap.add_argument("--ref", default="HEAD", help="the commit to release (default HEAD)")
    args = ap.parse_args()
    out = Path(args.out)
    if out.exists() and any(out.iterdir()):
        sys.exit(f"release: {out} is not empty")
    course, links = files_of(args.ref)
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", args.ref], check=True, capture_output=True,
                            text=True).stdout.strip()
    edition = {}
    for path, blob in course.items():
        if "/solution/" in f"/{path}" or path.startswith(LEFT_OUT):
            continue
        if path.endswith((".md", "meson_options.txt")):
            blob = student_text(path, blob.decode()).encode()
        edition[path] = blob
    edition[".ci/run"] = course["tools/release/student-ci.sh"]
    problems = verify(edition, course)
    if problems:
        sys.exit("release: the edition would leak or break:\n  " + "\n  ".join(problems))
    for path, blob in edition.items():
        (out / path).parent.mkdir(parents=True, exist_ok=True)
        (out / path).write_bytes(blob)
        if path == ".ci/run" or path.endswith(".sh"):
            (out / path).chmod(0o755)
    for path, target in links.items():
        if "solution" in Path(target).parts or path.startswith(LEFT_OUT):
            continue
        (out / path).parent.mkdir(parents=True, exist_ok=True)
        (out / path).symlink_to(target)
    manifest = {"commit": commit, "files": {p: hashlib.sha256(b).hexdigest() for p, b in sorted(edition.items())}}
    (out / "course-edition.json").write_text(json.dumps(manifest, indent=1) + "\n")
    print(f"release: the student edition of {commit[:12]} in {out}: {len(edition)} files "
          f"({len(course) - len(edition) + 1} left out), course-edition.json; no solution line in it")


if __name__ == "__main__":
    main()
