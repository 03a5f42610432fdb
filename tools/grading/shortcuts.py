"""What a student's file brought into the course's code, decided from what the compiler did, not from its text.

Each translation unit that includes a student file (the chapter's <topic>_launch.cu, or the student's .cpp/.cu)
is compared with the same unit built from the starter, once per run:

  - headers: the compiler's own dependency list (ninja -t deps, from nvcc -MD). A header of a library that
    implements the task (CUB, Thrust, libcu++ algorithms, cuBLAS, ...) that the starter's unit does not include
    fails the chapter, however it came in (directly, through another chapter's or common's file, behind a
    preprocessor condition, after #line markers): the compiler evaluated all of that;
  - symbols: a CUB or Thrust kernel, or a cuBLAS/cuSPARSE/... call, in the unit's object file;
  - macros: the student's file is compiled before the course's launcher in the same unit, so a macro it defines
    (or removes) would change what the course's own code does. The preprocessor's output with its directives
    kept (-dD) says which file each #define and #undef is in; one in a student file fails the chapter, and so
    does a #line that renames the file being read (it would hide where a definition comes from).

A unit it cannot decide about (no dependency record, a preprocessor that fails) fails the chapter too.
"""
import functools
import json
import os
import re
import shlex
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

# Libraries found both by their headers and by their code: those of a C++ namespace (a folder of headers of that
# name), and those of a C API (headers and functions named with one prefix).
NAMESPACED = [("CUB", "cub"), ("Thrust", "thrust")]
PREFIXED = [("cuBLAS", "cublas"), ("cuSPARSE", "cusparse"), ("cuSOLVER", "cusolver"), ("cuFFT", "cufft")]
HEADERS = [
    *[(library, re.compile(rf"/{namespace}/")) for library, namespace in NAMESPACED],
    ("libcu++ algorithms", re.compile(r"/cuda/std/(algorithm|numeric|execution)$|/cuda/std/__numeric/"
                                      r"|/cuda/(algorithm|numeric)$")),
    *[(library, re.compile(rf"/{prefix}[^/]*$")) for library, prefix in PREFIXED],
    ("NPP", re.compile(r"/npp[^/]*\.h$")),
    ("the C++ standard library's numeric algorithms", re.compile(r"/c\+\+/[^/]+/(numeric|execution)$")),
]
SYMBOLS = [
    *[(library, re.compile(rf"\b{namespace}::")) for library, namespace in NAMESPACED],
    *[(library, re.compile(rf"\b{prefix}\w+")) for library, prefix in PREFIXED],
]


def recorded_headers(build_dir):
    """{object: set of its headers, as real paths}, as the compiler reported them (ninja -t deps)."""
    deps = subprocess.run(["ninja", "-C", str(build_dir), "-t", "deps"], capture_output=True, text=True).stdout
    real = functools.lru_cache(maxsize=None)(lambda rel: os.path.realpath(os.path.join(build_dir, rel)))
    headers, current = {}, None
    for line in deps.splitlines():
        if line and not line[0].isspace():
            current = line.split(": #deps", 1)[0] if ": #deps" in line else None
            if current:
                headers[current] = set()
        elif current and line.strip():
            headers[current].add(real(line.strip()))
    return headers


def _is_nvcc(entry):
    return os.path.basename(shlex.split(entry["command"])[0]).startswith("nvcc")


_MARKER = re.compile(r'^#\s*(\d+)\s+"((?:[^"\\]|\\.)*)"((?:\s+\d+)*)\s*$')
_DIRECTIVE = re.compile(r"^#\s*(define|undef)\s+(\w+)(.*)$")


def _preprocessed(entry):
    """The unit preprocessed with its macro directives kept in place (-dD), or None when that fails."""
    args, keep, skip = shlex.split(entry["command"]), [], False
    for a in args:
        if skip:
            skip = False
        elif a in ("-o", "-MF", "-MT", "-MQ"):
            skip = True
        elif a not in ("-c", "-MD", "-MMD"):
            keep.append(a)
    dump = ["-E", "-Xcompiler", "-dD"] if _is_nvcc(entry) else ["-E", "-dD"]
    done = subprocess.run(keep + dump + ["-o", "-"], cwd=entry["directory"], capture_output=True, text=True,
                          errors="replace")
    return done.stdout if done.returncode == 0 else None


def macro_problem(entry, student_paths):
    """Why the student's files may not be compiled in front of the course's code, or None: a macro they define
    or remove (include guards aside), or a #line directive that renames the file the compiler reads (which would
    make the student's own definitions look like a system header's). Decided from the preprocessor's output, in
    which every line marker names the file that really holds the lines after it."""
    text = _preprocessed(entry)
    if text is None:
        return "the grader cannot tell which macros this chapter's code defines (preprocessing failed); refused"
    directory = entry["directory"]
    current, defined, seen = None, [], set()
    for line in text.splitlines():
        if not line.startswith("#"):
            continue
        m = _MARKER.match(line)
        if m:
            name, flags = m.group(2), m.group(3).split()
            if name.endswith("//"):
                continue  # the compiler's working directory (-fworking-directory), not a file
            real = name if name.startswith("<") else os.path.realpath(os.path.join(directory, name))
            # A marker without flags that moves to another file comes from a #line directive (an #include
            # enters with flag 1 and returns with flag 2): refused in a student file, or towards a file the
            # compiler never opened.
            if not flags and current is not None and real != current and not name.startswith("<") \
                    and (current in student_paths or real not in seen):
                return ("uses #line to give its code another file's name; the grader refuses code it cannot "
                        "attribute")
            current = real
            seen.add(real)
            continue
        d = _DIRECTIVE.match(line)
        if d and current in student_paths and not (d.group(1) == "define" and _include_guard(d.group(2), d.group(3))):
            defined.append(d.group(2))
    if defined:
        names = sorted(set(defined))
        return ("defines or removes macros, which would reach the course's own code in the same translation unit: "
                + ", ".join(names[:8]) + (" ..." if len(names) > 8 else "")
                + "; use constexpr constants or functions instead")
    return None


def _units(recorded, student_paths):
    return sorted(unit for unit, headers in recorded.items() if student_paths & headers)


class Baseline:
    """The starter's units of every chapter, as built in a pristine runner workspace: their headers."""

    def __init__(self, build_dir, student_files):
        recorded = recorded_headers(Path(build_dir))
        self.units = {}
        for paths in student_files.values():
            for unit in _units(recorded, {os.path.realpath(p) for p in paths}):
                self.units[unit] = recorded[unit]


def _chapter_verdict(build_dir, commands, recorded, paths, all_student_paths, baseline):
    units = _units(recorded, {os.path.realpath(p) for p in paths})
    if not units:
        return "the grader cannot tell what this chapter's compiled code includes (no dependency record); refused"
    for unit in units:
        headers, base_headers = recorded[unit], baseline.units.get(unit, set())
        new_headers = sorted(headers - base_headers)
        hits = [(library, next(h for h in new_headers if pattern.search(h))) for library, pattern in HEADERS
                if any(pattern.search(h) for h in new_headers)]
        if hits:  # every library named (CUB comes with Thrust, and Thrust's headers with CUB's)
            return (f"uses {' and '.join(lib for lib, _ in hits)}: the compiled code includes "
                    f"{hits[0][1].split('/include/')[-1]}; write the kernels yourself")
        symbols = subprocess.run(["nm", "-C", str(Path(build_dir) / unit)], capture_output=True, text=True).stdout
        hit = next(((lib, p.search(symbols).group(0)) for lib, p in SYMBOLS if p.search(symbols)), None)
        if hit:
            return f"uses {hit[0]}: the compiled code refers to {hit[1]}; write the kernels yourself"
        if unit not in commands:
            return "the grader cannot tell how this chapter's code was compiled; refused"
        problem = macro_problem(commands[unit], all_student_paths)
        if problem:
            return problem
    return None


def _include_guard(name, definition):
    """An empty macro named like an include guard (FOO_H, FOO_CUH, FOO_HPP, FOO_INCLUDED): harmless."""
    return definition is not None and definition.strip() == "" and re.search(r"_(H|HPP|CUH|INCLUDED)_?$", name) is not None


def find_forbidden(build_dir, student_files, baseline, all_student_paths):
    """{chapter: reason} for the chapters whose student files bring in a library the course forbids, or macros.

    student_files: {chapter: [absolute paths of the student's files in the workspace]} of the chapters to look at;
    all_student_paths: every student file of the workspace, whichever chapter (one may include another);
    baseline: the same workspace's Baseline (the starter). The chapters are looked at side by side.
    """
    build_dir = Path(build_dir)
    commands = {e["output"]: e for e in json.loads((build_dir / "compile_commands.json").read_text())}
    recorded = recorded_headers(build_dir)
    every = {os.path.realpath(p) for p in all_student_paths}
    chapters = list(student_files)
    with ThreadPoolExecutor(max_workers=max(1, min(len(chapters), os.cpu_count() or 1))) as pool:
        verdicts = pool.map(lambda ch: _chapter_verdict(build_dir, commands, recorded, student_files[ch], every,
                                                        baseline), chapters)
        return {ch: v for ch, v in zip(chapters, verdicts) if v}
