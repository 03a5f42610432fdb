"""Grading many submissions: one checker tree for the batch, one runner workspace per worker, workers pinned
round-robin to the GPUs.

The checker tree (the instructor's checks, no student code) is built once. Each worker owns a runner workspace
(a pristine tree without solutions, copied afresh for every submission) and runs its tests with
CUDA_VISIBLE_DEVICES set to GPU i mod (number of GPUs). Builds overlap everything. The GPU is shared
(tools/grading/gpu_share.py): the tests of several submissions run on it at once, the large ones scheduled by the
GPU memory they declare, the lesson ones one at a time, the performance ones alone; with --gpu-share off, one
submission's whole test phase holds the GPU. The submission's build runs in the build sandbox; its runners run in
the runner sandbox (tools/grading/sandbox.py). A crash, hang or grader error costs only that submission.
"""
import hashlib
import os
import queue
import secrets
import shutil
import socket
import subprocess
import tempfile
import threading
import time
import traceback
from concurrent.futures import ThreadPoolExecutor
from contextlib import nullcontext
from pathlib import Path

from . import preflight, reports, sandbox
from .gpu_share import GpuShare
from .model import FAILED, LESSON, Outcome
from .runner import gpu_works, run_tasks, tasks_from
from .shortcuts import find_forbidden
from .submission import (COMMITTED_HEAD, edition_commit, find_by_name, find_course_root, ignored_files,
                         open_submission, take_student_files, working_tree_files)
from .workspace import BuildCache, CheckerTree, RunnerWorkspace, load_manifest, origin_commit


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


# --workers when not given: three submissions per GPU, the fastest the fixture class was graded with (one H100:
# 28.7 s per student first to last, where four, with older checks, graded 9 of 13 in 545 s; two H200: six gave
# 17.2 s, four 23.9-26.6 s), at most one per five cores (each runs up to eight test programs and builds the next
# submission), one where no GPU is found.
WORKERS_PER_GPU = 3
CORES_PER_WORKER = 5


def default_workers(gpus, cores):
    return max(1, min(WORKERS_PER_GPU * gpus, cores // CORES_PER_WORKER))


def grader_version():
    """The first 12 hex digits of the SHA-256 of the grader's own code (tools/grade.py, tools/grading/*.py)."""
    h = hashlib.sha256()
    here = Path(__file__).resolve().parent
    for path in [here.parent / "grade.py", *sorted(here.glob("*.py"))]:
        h.update(path.name.encode() + b"\0" + path.read_bytes())
    return h.hexdigest()[:12]


class Worker:
    def __init__(self, index, workspace, gpu, gpu_lock, tmp):
        self.index, self.ws, self.gpu, self.gpu_lock, self.tmp = index, workspace, gpu, gpu_lock, tmp
        self.env = {"CUDA_VISIBLE_DEVICES": gpu} if gpu is not None else {}
        self.gpu_name = ""  # set by prepare() from nvidia-smi
        self.gpu_share = None  # set by prepare(): the GPU's GpuShare, or None with --gpu-share off


class Batch:
    """What every submission of a run shares: the checker tree, the seed, the folders the sandboxes hide."""

    def __init__(self, checker, seed, hidden, gpu_present, cache):
        self.checker, self.seed, self.hidden, self.gpu_present, self.cache = checker, seed, hidden, gpu_present, cache
        self.sandbox_problem = None  # why runners run unsandboxed, if they do
        self.partial = []  # what grade.py --partial graded without (preflight tokens); flagged in every row
        self.grader_version = grader_version()


def grade_one(batch, worker, path, student, out_root, options):
    """One submission in the worker's workspace; returns its record (written to out_root/student)."""
    ws = worker.ws
    start = time.monotonic()
    out_dir = out_root / reports.folder_name(student)
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
        by_name = ambiguous = None
        if root is None and folder is not None:  # the student files alone: read by name
            files, missing, ambiguous = find_by_name(folder, ws.manifest)
            by_name = bool(files)
        uncommitted = None  # a git folder whose working tree differs from HEAD: which of the two was graded
        if how == COMMITTED_HEAD:
            tree_files, tree_missing = working_tree_files(path, ws.manifest)
            if tree_files != files:
                uncommitted = options.uncommitted
                if options.uncommitted == "worktree":
                    files, missing = tree_files, tree_missing
                    how = "git repository (working tree, with its uncommitted changes)"
        ignored = ignored_files(root, Path(options.course_root), ws.manifest)
        # made from another edition of the course than the commit graded against (course-edition.json)
        graded_commit, made_from = origin_commit(batch.checker.origin), edition_commit(root)
        other_version = (made_from[:12] if made_from and graded_commit and not made_from.startswith(graded_commit)
                         else None)
        ws.fresh()
        ws.lay_over(files)
        read_s = time.monotonic() - start
        # Chapters whose files differ from the starter (already built in the fresh copy): built here, or taken
        # from the run's cache when an earlier submission had exactly the same bytes.
        graded = options.chapters or list(ws.manifest)
        if options.task:
            graded = [ch for ch in graded if ch.startswith(options.task.split(".")[0] + "_")]
        changed = {ch: batch.cache.key(ch, ws.chapter_files(ch, files)) for ch in graded
                   if ws.runner_of(ch) and ws.chapter_files(ch, files) != ws.chapter_files(ch, {})}
        cached = {ch: batch.cache.get(key) for ch, key in changed.items()}
        to_build = [ch for ch in changed if cached[ch] is None]
        # at a lower priority: the tests beside the build have time limits, the build has none that matters
        build_prefix = ["nice", "-n", "10"] + sandbox.build_prefix(batch.hidden, [ws.path])
        blocked, build_s = ws.compile(to_build, out_dir / "build.log", options.build_timeout, build_prefix)
        for ch, hit in cached.items():
            if hit is None:
                continue
            runner, verdict = hit
            Path(ws.runner_of(ch)).unlink(missing_ok=True)
            if verdict:
                blocked[ch] = verdict
            elif runner:
                shutil.copy2(runner, ws.runner_of(ch))
        spec, problem = sandbox.write_spec(worker.tmp / "sandbox.args", batch.hidden, [ws.build_dir])
        env = dict(worker.env, COURSE_SEED=str(batch.seed), TMPDIR=str(worker.tmp),
                   # the copy bandwidth and CUB, timed once per GPU and run (course/performance.hpp), where the
                   # sandboxed runners cannot reach (out_root is hidden from them)
                   COURSE_BASELINES_CACHE=str(out_root / "baselines" / f"{socket.gethostname()}-gpu{worker.gpu}"))
        if spec:
            env["COURSE_SANDBOX"] = spec
        hashes = {**batch.checker.hashes}
        # The look for forbidden libraries and macros (a few seconds of preprocessing on the CPU) runs while the
        # tests use the GPU; a chapter it refuses fails whatever its tests said.
        owned = {ch: [ws.src / ch / f for f in ws.manifest[ch]] for ch in to_build if ch not in blocked}

        def look():
            look_start = time.monotonic()
            return find_forbidden(ws.build_dir, owned, ws.baseline, ws.student_paths), time.monotonic() - look_start

        waited = {"gpu": 0.0, "confirmed": []}
        with ThreadPoolExecutor(max_workers=1) as pool:
            forbidden = pool.submit(look)
            lock_start = time.monotonic()
            with nullcontext() if worker.gpu_share else worker.gpu_lock:
                waited["gpu"] += time.monotonic() - lock_start
                tests_start = time.monotonic()
                tasks = run_tasks(batch.checker.build, list(ws.manifest), out_dir / "tests",
                                  gpu_present=batch.gpu_present, chapter_timeout=options.chapter_timeout,
                                  blocked=blocked, exe_hashes=hashes, env=env, runner_build=ws.build_dir,
                                  jobs=options.jobs or options.jobs_default, only_task=options.task,
                                  only_chapters=graded, gpu_share=worker.gpu_share, waited=waited)
                tests_s = time.monotonic() - tests_start
            refused, look_s = forbidden.result()
        for task in tasks.values():
            if task.chapter in refused:
                task.fail_all(refused[task.chapter])
        blocked.update(refused)
        for ch in to_build:
            batch.cache.put(changed[ch], ws.runner_of(ch), blocked.get(ch))
    flags = reports.flags_of(read_as=how, files=files, missing=missing, ignored=ignored, starter=ws.starter,
                             sandbox_problem=problem, by_name=by_name, ambiguous=ambiguous, uncommitted=uncommitted,
                             blocked=blocked, other_version=other_version, partial=batch.partial)
    record = reports.grade_record(student, list(tasks.values()), graded, submission=str(path),
                                  read_as=how, graded_against=batch.checker.origin, gpu=batch.gpu_present,
                                  gpu_name=worker.gpu_name, grader_version=batch.grader_version,
                                  seed=batch.seed, sandbox="unsandboxed: " + problem if problem else "bubblewrap",
                                  flags=flags, missing_files=missing, ignored_files=ignored,
                                  reproduce=reports.reproduce_command(path, student, batch.seed, options),
                                  # where the time went: reading the submission, the build, the forbidden-
                                  # library look (beside the tests), the tests (their waits for the GPU
                                  # included), and those waits (summed over tests that wait side by side)
                                  read_seconds=round(read_s, 1), build_seconds=round(build_s, 1),
                                  library_check_seconds=round(look_s, 1), test_seconds=round(tests_s, 1),
                                  gpu_wait_seconds=round(waited["gpu"], 1),
                                  tests_confirmed_alone=len(waited["confirmed"]),
                                  confirmed_alone=waited["confirmed"],
                                  seconds=round(time.monotonic() - start, 1))
    reports.write_all(record, out_dir)
    return record


def grader_error_record(batch, path, student, error, out_root, seconds):
    """Every task failed, with the grader's own error: one submission's problem never stops the batch."""
    manifest = list(load_manifest())
    tests = batch.checker.build.task_tests()
    tasks = tasks_from(tests, [Outcome(t["name"], FAILED, f"grader error: {error}") for t in tests], manifest)
    record = reports.grade_record(student, list(tasks.values()), manifest, submission=str(path),
                                  grader_error=error, gpu=False, seed=batch.seed,
                                  flags=["grader-error"] + (["partial:" + ",".join(batch.partial)] if batch.partial
                                                            else []),
                                  graded_against=batch.checker.origin, grader_version=batch.grader_version,
                                  missing_files=[], ignored_files=[], seconds=round(seconds, 1))
    (out_root / reports.folder_name(student)).mkdir(parents=True, exist_ok=True)
    reports.write_all(record, out_root / reports.folder_name(student))
    return record


def prepare(n, course_root, out_root, options, log=print):
    """The checker tree and n runner workspaces, prepared side by side; workers pinned round-robin to the GPUs."""
    gpus = visible_gpus()
    locks = {g: threading.Lock() for g in gpus}
    base = Path(options.workspace).resolve() if options.workspace else Path(tempfile.mkdtemp(prefix="grade-ws-"))
    base.mkdir(parents=True, exist_ok=True)
    base.chmod(0o711)  # the runners (user nobody, in the sandbox) reach their own build in here, nothing else
    log(f"preparing the checks and {n} runner workspace(s) in {base} (GPUs: {', '.join(gpus) if gpus else 'none found'}) ...")

    def make_worker(i):
        gpu = gpus[i % len(gpus)] if gpus else None
        tmp = base / f"tmp{i}"
        tmp.mkdir(exist_ok=True)
        tmp.chmod(0o711)
        ws = RunnerWorkspace(base / f"worker{i}", course_root, options.gpu_arch, worktree=options.worktree,
                             reuse=bool(options.workspace))
        return Worker(i, ws, gpu, locks[gpu] if gpu is not None else threading.Lock(), tmp)

    with ThreadPoolExecutor(max_workers=n + 1) as pool:
        checker_future = pool.submit(CheckerTree, base / "checker", course_root, options.gpu_arch, options.worktree,
                                     bool(options.workspace))
        workers = list(pool.map(make_worker, range(n)))
        checker = checker_future.result()
    gpu_present = gpu_works(checker.build, base, workers[0].env)
    facts = preflight.gpu_facts(gpus) if gpu_present else {}
    # one GpuShare per GPU, as many test programs at once as one submission runs (--jobs): more make the
    # GPU's time slices and the CPU the bottleneck (16 at once on a 16-core H100 machine timed tests out)
    slots = options.gpu_slots or options.jobs or options.jobs_default
    shares = {g: GpuShare(slots, facts.get(g, ("", 16.0))[1]) for g in gpus} if options.gpu_share == "on" else {}
    for w in workers:
        w.gpu_name = facts.get(w.gpu, ("",))[0]
        w.gpu_share = shares.get(w.gpu)
    lacking = preflight.missing(checker.build, list(load_manifest()), gpu_present, facts, options.task,
                                options.chapters)
    if lacking and not options.partial:
        if not options.workspace:
            shutil.rmtree(base, ignore_errors=True)
        raise SystemExit("grade: this machine cannot grade the selected tasks; it lacks:\n  - " +
                         "\n  - ".join(what for _, what in lacking) +
                         "\nGrade on a machine that has them (or select other tasks: --chapters, --no-lesson), or pass "
                         "--partial: those tasks are then not graded, score 0 of the course's maximum, and every "
                         "row is flagged partial:" + ",".join(token for token, _ in lacking))
    seed = options.seed if options.seed is not None else secrets.randbits(63)
    hidden = [str(Path(course_root).resolve()), str(out_root), str(base)] + [str(Path(h).resolve()) for h in options.hide]
    # the cache outlives a run with --workspace: one folder per course commit and architecture
    same_course = hashlib.sha256(f"{checker.origin} {options.gpu_arch}".encode()).hexdigest()[:16]
    batch = Batch(checker, seed, hidden, gpu_present, BuildCache(base / "cache" / same_course))
    batch.partial = [token for token, _ in lacking]
    _, batch.sandbox_problem = sandbox.write_spec(base / "sandbox-test.args", hidden, [workers[0].ws.build_dir])
    return batch, workers, base


def grade_batch(entries, course_root, out_root, options, log=print):
    """Grades [(path, student id)] with options.workers workers; returns (records, summary lines)."""
    start = time.monotonic()
    batch, workers, base = prepare(max(1, min(options.workers, len(entries))), course_root, out_root, options, log)
    log(f"graded against {batch.checker.origin}; GPU: "
        + ("yes" if batch.gpu_present else "none usable (GPU tasks: not graded)") + f"; seed {batch.seed}")
    if batch.partial:
        log(f"PARTIAL (--partial): graded without {', '.join(batch.partial)}; every row says so")
    if batch.sandbox_problem:
        log(f"WARNING: runners run UNSANDBOXED ({batch.sandbox_problem}); every report says so")
    idle = queue.Queue()
    for w in workers:
        idle.put(w)
    records, done, finished, lock = [], [], [], threading.Lock()
    batch_start = time.monotonic()

    def grade(entry):
        path, student = entry
        worker = idle.get()
        t0 = time.monotonic()
        try:
            record = grade_one(batch, worker, path, student, out_root, options)
        except Exception as e:  # noqa: BLE001 - one submission's failure must not stop the batch
            traceback.print_exc()
            record = grader_error_record(batch, path, student, f"{type(e).__name__}: {e}", out_root,
                                         time.monotonic() - t0)
        finally:
            idle.put(worker)
        with lock:
            records.append(record)
            done.append(record)
            finished.append(time.monotonic())
            failing = sum(r["failed"] > 0 for r in done)
            errors = sum("grader_error" in r for r in done)
            left = len(entries) - len(done)
            eta = (time.monotonic() - batch_start) / len(done) * left
            log(f"[{len(done)}/{len(entries)}] {reports.printable(student)}: {record['points']}/{record['max_points']} points"
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
    lesson = sum(test.get("seconds") or 0 for r in records for task in r["tasks"] if task["task"].endswith("." + LESSON)
                 for test in task["tests"])
    sharing = f"GPU shared ({workers[0].gpu_share.slots} tests at once)" if workers[0].gpu_share else "GPU not shared"
    summary = [f"{len(records)} submission(s), {len(workers)} worker(s): {wall:.0f} s wall "
               f"({wall / len(records):.1f} s per student, grading trees included"
               + (f"; {(finished[-1] - finished[0]) / (len(finished) - 1):.1f} s per student between the first and "
                  "the last to finish" if len(finished) > 1 else "") + "); "
               f"each submission {sum(r['seconds'] for r in records) / len(records):.1f} s on average; {sharing}",
               "per submission on average: " + ", ".join(
                   f"{what} {sum(r.get(key, 0) for r in records) / len(records):.1f} s"
                   for what, key in (("build", "build_seconds"), ("library check", "library_check_seconds"),
                                     ("tests", "test_seconds"), ("of which waiting for the GPU (summed over tests)",
                                                                 "gpu_wait_seconds"))),
               "tests run again with the GPU alone (a failure beside other submissions is confirmed alone, and "
               f"so are the passes of a submission whose test found no GPU memory): "
               f"{sum(r.get('tests_confirmed_alone', 0) for r in records)}",
               "slowest: " + ", ".join(f"{reports.printable(r['student'])} {r['seconds']:.0f} s" for r in slowest),
               f"seed {batch.seed}" + (f"; UNSANDBOXED: {batch.sandbox_problem}" if batch.sandbox_problem else "")]
    if lesson:  # never two at once on one GPU (GpuShare's counters place): a floor under the wall per GPU
        summary.insert(2, f"lesson tests (Nsight Compute's counters, one at a time on a GPU): {lesson / len(records):.1f} s "
                          f"per submission on average, {lesson:.0f} s in all")
    if not options.workspace:
        shutil.rmtree(base, ignore_errors=True)
    return records, summary
