"""Finds student files that use a library which already implements the task (CUB, Thrust, ...).

Two independent looks, neither a text grep of the student's file:
  - the headers: every translation unit that includes a student file has its headers recorded by the build
    (ninja -t deps). When one of them is a forbidden header, the unit is preprocessed with its own compile
    command, and the line markers give the include tree: the header counts when the student's file includes
    it, directly or through a header that is not the course's own (the course's given headers may use, e.g.,
    <cuda/atomic>; what they pull in is theirs);
  - the object's symbols: a CUB or Thrust kernel, or a cuBLAS/cuSPARSE/... call, leaves a symbol behind.
"""
import functools
import json
import os
import re
import shlex
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

# (library, header path pattern, counts only when the student's file includes it directly)
HEADERS = [
    ("CUB", re.compile(r"/cub/"), False),
    ("Thrust", re.compile(r"/thrust/"), False),
    ("libcu++ algorithms", re.compile(r"/cuda/std/(algorithm|numeric|execution)$|/cuda/std/__numeric/"
                                      r"|/cuda/(algorithm|numeric)$"), False),
    ("cuBLAS", re.compile(r"/cublas[^/]*$"), False),
    ("cuSPARSE", re.compile(r"/cusparse[^/]*$"), False),
    ("cuSOLVER", re.compile(r"/cusolver[^/]*$"), False),
    ("cuFFT", re.compile(r"/cufft[^/]*$"), False),
    ("NPP", re.compile(r"/npp[^/]*\.h$"), False),
    ("the C++ standard library's numeric algorithms", re.compile(r"/c\+\+/[^/]+/(numeric|execution)$"), True),
]
SYMBOLS = [
    ("CUB", re.compile(r"\bcub::")),
    ("Thrust", re.compile(r"\bthrust::")),
    ("cuBLAS", re.compile(r"\bcublas\w+")),
    ("cuSPARSE", re.compile(r"\bcusparse\w+")),
    ("cuSOLVER", re.compile(r"\bcusolver\w+")),
    ("cuFFT", re.compile(r"\bcufft\w+")),
]
_MARKER = re.compile(r'^#\s*\d+\s+"((?:[^"\\]|\\.)*)"((?:\s+\d+)*)\s*$')


def _recorded_headers(build_dir):
    """{object: [its headers, as real paths]}, as the build recorded them (ninja -t deps)."""
    deps = subprocess.run(["ninja", "-C", str(build_dir), "-t", "deps"], capture_output=True, text=True).stdout
    real = functools.lru_cache(maxsize=None)(lambda rel: os.path.realpath(os.path.join(build_dir, rel)))
    headers, current = {}, None
    for line in deps.splitlines():
        if line and not line[0].isspace():
            current = line.split(": #deps", 1)[0] if ": #deps" in line else None
            if current:
                headers[current] = []
        elif current and line.strip():
            headers[current].append(real(line.strip()))
    return headers


def _preprocess_command(entry, out):
    args, keep, skip = shlex.split(entry["command"]), [], False
    for a in args:
        if skip:
            skip = False
        elif a in ("-o", "-MF", "-MT", "-MQ"):
            skip = True
        elif a not in ("-c", "-MD", "-MMD"):
            keep.append(a)
    return keep + ["-E", "-o", str(out)]


def _included_by_student(preprocessed, cwd, student_paths, course_root):
    """[(library, header, student file)] for the forbidden headers a student file brings in."""
    found, stack, origin = [], [], {}
    with open(preprocessed, errors="replace") as f:
        for line in f:
            if not line.startswith("#"):
                continue
            m = _MARKER.match(line.rstrip("\n"))
            if not m:
                continue
            name, flags = m.group(1), m.group(2).split()
            real = name if name.startswith("<") else os.path.realpath(os.path.join(cwd, name))
            if "1" in flags:  # entering `real`, included from the top of the stack
                parent = stack[-1] if stack else None
                if parent in student_paths:
                    origin[real] = (real, parent)  # included by the student's file itself
                else:
                    origin[real] = origin.get(parent)
                stack.append(real)
                src = origin[real]
                if src is None or src[0].startswith(course_root):
                    continue  # not from a student file, or through one of the course's own headers
                for library, pattern, direct_only in HEADERS:
                    if pattern.search(real) and (not direct_only or src[0] == real):
                        found.append((library, real, src[1]))
            elif "2" in flags:  # back in `real`
                while stack and stack[-1] != real:
                    stack.pop()
            elif len(stack) <= 1:
                stack = [real]
    return found


def _symbols(obj):
    nm = subprocess.run(["nm", "-C", str(obj)], capture_output=True, text=True)
    return nm.stdout


def _chapter_verdict(build_dir, commands, recorded, paths, course_root, scratch):
    student_paths = {os.path.realpath(p) for p in paths}
    units = {unit: hs for unit, hs in recorded.items() if student_paths.intersection(hs)}
    for unit, headers in sorted(units.items()):
        entry = commands.get(unit)
        if entry is None:
            continue
        # The preprocessor's include tree is needed only to tell who brought a suspect header in.
        suspect = any(pattern.search(h) for h in headers for _, pattern, _ in HEADERS)
        out = scratch / (re.sub(r"[^A-Za-z0-9._-]", "_", unit) + ".i")
        pre = subprocess.run(_preprocess_command(entry, out), cwd=entry["directory"], capture_output=True) \
            if suspect else None
        hits = _included_by_student(out, entry["directory"], student_paths, course_root) \
            if pre is not None and pre.returncode == 0 else []
        out.unlink(missing_ok=True)
        if hits:
            library, header, by = hits[0]
            return f"uses {library}: {Path(by).name} includes {header.split('/include/')[-1]}; write the kernels yourself"
        symbols = _symbols(build_dir / unit)
        hit = next(((lib, p.search(symbols).group(0)) for lib, p in SYMBOLS if p.search(symbols)), None)
        if hit:
            return f"uses {hit[0]}: the compiled code refers to {hit[1]}; write the kernels yourself"
    return None


def find_forbidden(build_dir, student_files, course_root, scratch):
    """{chapter: 'uses CUB (...)'} for the chapters whose student files use a forbidden library.

    student_files: {chapter: [absolute paths of the student's files in the trusted tree]}. The chapters are
    looked at side by side (one preprocessor run each).
    """
    build_dir = Path(build_dir)
    commands = {e["output"]: e for e in json.loads((build_dir / "compile_commands.json").read_text())}
    course_root = os.path.realpath(course_root) + os.sep
    recorded = _recorded_headers(build_dir)
    chapters = list(student_files)
    with ThreadPoolExecutor(max_workers=max(1, min(len(chapters), os.cpu_count() or 1))) as pool:
        verdicts = pool.map(lambda ch: _chapter_verdict(build_dir, commands, recorded, student_files[ch], course_root,
                                                        scratch), chapters)
        return {ch: v for ch, v in zip(chapters, verdicts) if v}
