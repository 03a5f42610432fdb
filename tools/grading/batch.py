"""Grading many submissions: one trusted workspace per worker, workers pinned round-robin to the GPUs.

Each worker owns a workspace (its own tree, build and output directories). Worker i runs its tests with
CUDA_VISIBLE_DEVICES set to GPU i mod (number of GPUs), and holds that GPU's lock while a submission's tests
run: builds overlap, test runs never share a GPU. A crash, hang or grader error costs only that submission.
"""
import os
import queue
import shutil
import subprocess
import tempfile
import threading
import time
import traceback
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from . import reports
from .model import FAILED, Outcome, Task
from .runner import task_id_of, task_name_of, chapter_of, gpu_works, run_tasks
from .shortcuts import find_forbidden
from .submission import find_course_root, ignored_files, open_submission, take_student_files
from .workspace import Workspace


def visible_gpus():
    """The GPUs this process may use: CUDA_VISIBLE_DEVICES if set, else what nvidia-smi lists, else none."""
    if os.environ.get("CUDA_VISIBLE_DEVICES", "").strip():
        return [g.strip() for g in os.environ["CUDA_VISIBLE_DEVICES"].split(",") if g.strip()]
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=index", "--format=csv,noheader"], capture_output=True,
                             text=True, timeout=60)
        return [line.strip() for line in out.stdout.splitlines() if line.strip()] if out.returncode == 0 else []
    except (OSError, subprocess.TimeoutExpired):
        return []


class Worker:
    def __init__(self, index, workspace, gpu, gpu_lock):
        self.index, self.ws, self.gpu, self.gpu_lock = index, workspace, gpu, gpu_lock
        self.env = {"CUDA_VISIBLE_DEVICES": gpu} if gpu is not None else {}
        self.gpu_present = gpu_works(workspace.build, workspace.path, self.env)


def grade_one(worker, path, student, out_root, options):
    """One submission in the worker's workspace; returns its record (written to out_root/student)."""
    ws = worker.ws
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
        read_s = time.monotonic() - start
        blocked, hashes, build_s = ws.compile(out_dir / "build.log", options.build_timeout)
        look_start = time.monotonic()
        owned = {ch: [ws.src / ch / f for f in fs] for ch, fs in ws.manifest.items()
                 if ch not in blocked and any((ch, f) in files for f in fs)}
        blocked.update(find_forbidden(ws.build_dir, owned, ws.src, scratch))
        look_s = time.monotonic() - look_start
    with worker.gpu_lock:
        tests_start = time.monotonic()
        tasks = run_tasks(ws.build, list(ws.manifest), out_dir / "tests", gpu_present=worker.gpu_present,
                          chapter_timeout=options.chapter_timeout, blocked=blocked, exe_hashes=hashes,
                          env=worker.env, jobs=options.jobs or options.jobs_default)
        tests_s = time.monotonic() - tests_start
    record = reports.grade_record(student, list(tasks.values()), list(ws.manifest), submission=str(path),
                                  read_as=how, graded_against=ws.origin, gpu=worker.gpu_present,
                                  missing_files=missing, ignored_files=ignored,
                                  # where the time went: reading the submission, the build, the forbidden-
                                  # library look, the tests (the lock wait for a shared GPU is in `seconds`)
                                  read_seconds=round(read_s, 1), build_seconds=round(build_s, 1),
                                  library_check_seconds=round(look_s, 1), test_seconds=round(tests_s, 1),
                                  seconds=round(time.monotonic() - start, 1))
    reports.write_all(record, out_dir)
    return record


def grader_error_record(ws, path, student, error, out_root, seconds):
    """Every task failed, with the grader's own error: one submission's problem never stops the batch."""
    tasks = {}
    for test in ws.build.task_tests():
        task_id = task_id_of(test["name"])
        name = task_name_of(test["name"])
        task = tasks.setdefault(task_id, Task(task_id, chapter_of(task_id, list(ws.manifest)), name))
        task.add(Outcome(test["name"], FAILED, f"grader error: {error}"))
    record = reports.grade_record(student, list(tasks.values()), list(ws.manifest), submission=str(path),
                                  grader_error=error, gpu=False, missing_files=[], ignored_files=[],
                                  seconds=round(seconds, 1))
    (out_root / student).mkdir(parents=True, exist_ok=True)
    reports.write_all(record, out_root / student)
    return record


def prepare_workers(n, course_root, options, log=print):
    """n workspaces, prepared side by side, pinned round-robin to the visible GPUs."""
    gpus = visible_gpus()
    locks = {g: threading.Lock() for g in gpus}
    base = Path(options.workspace).resolve() if options.workspace else Path(tempfile.mkdtemp(prefix="grade-ws-"))
    log(f"preparing {n} trusted workspace(s) in {base} (GPUs: {', '.join(gpus) if gpus else 'none found'}) ...")

    def make(i):
        gpu = gpus[i % len(gpus)] if gpus else None
        ws = Workspace(base / f"worker{i}", course_root, options.gpu_arch, reuse=bool(options.workspace),
                       worktree=options.worktree)
        return Worker(i, ws, gpu, locks[gpu] if gpu is not None else threading.Lock())

    with ThreadPoolExecutor(max_workers=n) as pool:
        workers = list(pool.map(make, range(n)))
    return workers, base


def grade_batch(entries, course_root, out_root, options, log=print):
    """Grades [(path, student id)] with options.workers workers; returns (records, summary lines)."""
    start = time.monotonic()
    workers, base = prepare_workers(max(1, min(options.workers, len(entries))), course_root, options, log)
    ws0 = workers[0].ws
    log(f"graded against {ws0.origin}; GPU: "
        + ("yes" if any(w.gpu_present for w in workers) else "none usable (GPU tasks: not graded)"))
    idle = queue.Queue()
    for w in workers:
        idle.put(w)
    records, done, lock = [], [], threading.Lock()
    batch_start = time.monotonic()

    def grade(entry):
        path, student = entry
        worker = idle.get()
        t0 = time.monotonic()
        try:
            record = grade_one(worker, path, student, out_root, options)
        except Exception as e:  # noqa: BLE001 - one submission's failure must not stop the batch
            traceback.print_exc()
            record = grader_error_record(worker.ws, path, student, f"{type(e).__name__}: {e}", out_root,
                                         time.monotonic() - t0)
        finally:
            idle.put(worker)
        with lock:
            records.append(record)
            done.append(record)
            failing = sum(r["failed"] > 0 for r in done)
            errors = sum("grader_error" in r for r in done)
            left = len(entries) - len(done)
            eta = (time.monotonic() - batch_start) / len(done) * left
            log(f"[{len(done)}/{len(entries)}] {student}: {record['points']}/{record['max_points']} points"
                + (f", {record['not_graded']} not graded" if record["not_graded"] else "")
                + f" in {record['seconds']:.0f} s (worker {worker.index}"
                + (f", GPU {worker.gpu}" if worker.gpu is not None else "") + ")"
                + f" | {failing} with failed tasks, {errors} grader errors | about {eta / 60:.1f} min left")
            if options.verbose:
                reports.print_table(record, out=lambda line: log("    " + line))
        return record

    with ThreadPoolExecutor(max_workers=len(workers)) as pool:
        list(pool.map(grade, entries))
    wall = time.monotonic() - start
    slowest = sorted(records, key=lambda r: -r["seconds"])[:3]
    summary = [f"{len(records)} submission(s), {len(workers)} worker(s): {wall:.0f} s wall "
               f"({wall / len(records):.1f} s per student, trusted trees included); "
               f"each submission {sum(r['seconds'] for r in records) / len(records):.1f} s on average",
               "slowest: " + ", ".join(f"{r['student']} {r['seconds']:.0f} s" for r in slowest)]
    if not options.workspace:
        shutil.rmtree(base, ignore_errors=True)
    return records, summary
