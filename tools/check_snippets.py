#!/usr/bin/env python3
"""Compiles every code block of the chapters' READMEs, so that no hint a student copies fails to build.

    python3 tools/check_snippets.py                      # every NN_*/README.md
    python3 tools/check_snippets.py 03_interleaved/README.md

A fenced block whose info string is `cuda`, `cpp` or `c++` is one translation unit: it is compiled on its own
with `nvcc -std=c++17 -arch=sm_<arch> -c -x cu -I<chapter> -Icommon/include` after PRELUDE, so a hint that
is an expression or a few statements is written as a whole function. A block that shows broken code on purpose
is fenced `text`, or has `<!-- no-compile: <why> -->` on the line just above its opening fence. Needs nvcc,
not a GPU. Exit code 1 when a block does not compile.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COMPILED = {"cuda", "cpp", "c++"}
PRELUDE = """#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <cuda_runtime.h>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;
"""
FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*([^\s`]*)")
NO_COMPILE = re.compile(r"<!--\s*no-compile:\s*(.+?)\s*-->")


def blocks(path):
    """(first line number, info string, code, no-compile reason or None) of every fenced block of a Markdown file."""
    lines = path.read_text().splitlines()
    found, i = [], 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, fence, info = len(m.group(1)), m.group(2), m.group(3).lower()
        above = NO_COMPILE.search(lines[i - 1]) if i > 0 else None
        start, body = i + 1, []
        i += 1
        while i < len(lines) and not re.match(r"^\s*" + re.escape(fence[0]) * len(fence) + r"\s*$", lines[i]):
            line = lines[i]
            body.append(line[indent:] if line[:indent].strip() == "" else line)
            i += 1
        found.append((start, info, "\n".join(body) + "\n", above.group(1) if above else None))
        i += 1
    return found


def compile_block(nvcc, arch, chapter, code, workdir, index):
    source = Path(workdir) / f"block{index}.cu"
    source.write_text(PRELUDE + f'#line 1 "block"\n' + code)
    cmd = [nvcc, "-std=c++17", f"-arch=sm_{arch}", "-c", "-x", "cu", f"-I{chapter}", f"-I{ROOT / 'common' / 'include'}",
           str(source), "-o", os.devnull]
    done = subprocess.run(cmd, capture_output=True, text=True)
    return done.returncode == 0, (done.stdout + done.stderr).strip()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("readmes", nargs="*", help="Markdown files (default: every chapter's README.md)")
    ap.add_argument("--arch", default="90", help="the GPU architecture to compile for (default 90)")
    args = ap.parse_args()
    nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    if not Path(nvcc).exists() and not shutil.which(nvcc):
        sys.exit("check_snippets: nvcc not found (PATH or /usr/local/cuda/bin)")
    readmes = [Path(p) for p in args.readmes] or sorted(ROOT.glob("[0-9][0-9]_*/README.md"))
    jobs, skipped = [], []
    for readme in readmes:
        for line, info, code, reason in blocks(readme):
            if info not in COMPILED:
                continue
            if reason:
                skipped.append(f"{readme}:{line}: not compiled ({reason})")
            else:
                jobs.append((readme, line, code))
    failures = []
    with tempfile.TemporaryDirectory(prefix="snippets-") as workdir, \
            ThreadPoolExecutor(max_workers=max(1, min(8, os.cpu_count() or 1))) as pool:
        results = pool.map(lambda ij: compile_block(nvcc, args.arch, ij[1][0].resolve().parent, ij[1][2], workdir, ij[0]),
                           enumerate(jobs))
        for (readme, line, _), (ok, output) in zip(jobs, results):
            if not ok:
                failures.append(f"{readme}:{line}: the block does not compile:\n" +
                                "\n".join("    " + l for l in output.splitlines()[:12]))
    for s in skipped:
        print(s)
    for f in failures:
        print(f)
    print(f"check_snippets: {len(jobs) - len(failures)} of {len(jobs)} code blocks compile"
          f" ({len(skipped)} marked no-compile) in {len(readmes)} file(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
