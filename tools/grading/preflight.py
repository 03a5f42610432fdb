"""What the selected tasks need of this machine, checked once the instructor's checks are built and before any
submission is: a GPU that runs CUDA code, compute-sanitizer (every GPU task's race checks), Nsight Compute (the
lesson suite) and the free GPU memory of the `large` tests (each chapter's meson.build declares it). The grader
refuses to start while something is missing, naming it, unless grade.py --partial: then those tasks are not
graded (0 of their points; the maximum stays the course's) and every row is flagged partial:<what>."""
import os
import subprocess
from pathlib import Path

from .runner import chapter_of, is_lesson, is_performance, task_id_of


def find_cuda_tool(name):
    """As the checks find it (common/src/testing.cpp): PATH, $CUDA_HOME/bin, $CUDA_PATH/bin, /usr/local/cuda/bin."""
    dirs = os.environ.get("PATH", "").split(":")
    dirs += [os.path.join(os.environ[v], "bin") for v in ("CUDA_HOME", "CUDA_PATH") if os.environ.get(v)]
    dirs.append("/usr/local/cuda/bin")
    return next((str(Path(d or ".") / name) for d in dirs if os.access(Path(d or ".") / name, os.X_OK)), None)


def gpu_facts(gpus):
    """{index: (name, GiB of memory)} of these GPUs (nvidia-smi's indices), {} when nvidia-smi cannot tell."""
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=index,name,memory.total", "--format=csv,noheader,nounits"],
                             capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return {}
    facts = {}
    for line in out.stdout.splitlines() if out.returncode == 0 else []:
        index, name, mib = [f.strip() for f in line.split(",")]
        if index in gpus:
            facts[index] = (name, int(mib) / 1024)
    return facts


def missing(build, manifest, gpu_present, facts, only_task=None, only_chapters=None):
    """[(token, what is missing)] for the graded tests the run selects (as run_tasks selects them)."""
    tests = [t for t in build.task_tests()
             if (only_task is None or task_id_of(t["name"]) == only_task)
             and (only_chapters is None or chapter_of(task_id_of(t["name"]), manifest) in only_chapters)]
    suites = lambda t: {s.split(":")[-1] for s in t.get("suite", [])}  # noqa: E731
    gpu_tests = [t for t in tests if "gpu" in suites(t)]
    if not gpu_tests:
        return []
    chapters = sorted({chapter_of(task_id_of(t["name"]), manifest)[:2] for t in gpu_tests})
    if not gpu_present:
        return [("no-gpu", f"a GPU that runs CUDA code (the GPU tasks of chapters {', '.join(chapters)})")]
    out = []
    if not find_cuda_tool("compute-sanitizer"):
        out.append(("no-compute-sanitizer", "compute-sanitizer (the race checks of the GPU tasks; it comes with "
                                            "the CUDA Toolkit: put its bin directory on PATH)"))
    profiled = sorted({task_id_of(t["name"]) for t in gpu_tests if is_lesson(t["name"]) or is_performance(t["name"])})
    if profiled and not find_cuda_tool("ncu"):
        out.append(("no-ncu", f"Nsight Compute, ncu (the tests {', '.join(profiled)}; or grade.py --no-lesson)"))
    need = {chapter_of(task_id_of(t["name"]), manifest): float(t["env"]["COURSE_GPU_MEMORY_GIB"])
            for t in gpu_tests if "large" in suites(t) and (t.get("env") or {}).get("COURSE_GPU_MEMORY_GIB")}
    smallest = min((gib for _, gib in facts.values()), default=None)
    short = {ch: gib for ch, gib in need.items() if smallest is not None and gib > smallest}
    if short:
        out.append(("gpu-memory", "GPU memory for the large tests: " +
                    ", ".join(f"{ch} needs {gib:g} GiB free" for ch, gib in sorted(short.items())) +
                    f" (this GPU has {smallest:.1f} GiB in all)"))
    return out
