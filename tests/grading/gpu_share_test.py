#!/usr/bin/env python3
"""tools/grading/gpu_share.py under load, without a GPU: many threads take places as tests would and record
what ran at once. Exits 1 if a slot or memory limit was passed, if an `alone` test shared the GPU, if two tests
on the counters ran at once or none beside another test, or if a test never got its place; and if --workers's
default (grading.batch.default_workers) is not three submissions per GPU, fewer where cores are short."""
import random
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
from grading.batch import default_workers  # noqa: E402
from grading.gpu_share import MARGIN_GIB, SMALL_TEST_GIB, GpuShare  # noqa: E402

SLOTS, MEMORY = 6, 40.0 + MARGIN_GIB  # 34 GiB to reserve
share = GpuShare(SLOTS, MEMORY)
state = {"running": 0, "gib": 0.0, "alone": 0, "counters": 0, "counters_shared": 0, "max_running": 0,
         "max_gib": 0.0, "done": 0}
problems, lock = [], threading.Lock()


def test(kind, gib):
    with share.use(gib, alone=kind == "alone", counters=kind == "counters"):
        with lock:
            reserved = min(share.memory, SMALL_TEST_GIB if gib is None else max(gib, SMALL_TEST_GIB))
            state["running"] += 1
            state["gib"] += reserved
            state["alone"] += kind == "alone"
            state["counters"] += kind == "counters"
            if state["alone"] and state["running"] > 1:
                problems.append("an alone test shared the GPU")
            if state["counters"] > 1:
                problems.append("two tests on the counters at once")
            state["counters_shared"] += kind == "counters" and state["running"] > 1
            if state["gib"] > share.memory + 1e-9:
                problems.append(f"more GiB reserved than the {share.memory:.1f} GiB to share")
            state["max_running"] = max(state["max_running"], state["running"])
            state["max_gib"] = max(state["max_gib"], state["gib"])
        time.sleep(random.uniform(0.001, 0.01))
        with lock:
            state["running"] -= 1
            state["gib"] -= reserved
            state["alone"] -= kind == "alone"
            state["counters"] -= kind == "counters"
            state["done"] += 1


random.seed(1)
kinds = [random.choice([("small", None)] * 6 + [("large", 17.3), ("large", 32.5), ("large", 80.0), ("alone", None)]
                      + [("counters", None)] * 2) for _ in range(400)]
threads = [threading.Thread(target=test, args=k) for k in kinds]
for t in threads:
    t.start()
for t in threads:
    t.join(timeout=60)
if any(t.is_alive() for t in threads):
    problems.append("a test never got its place (deadlock)")
if state["max_running"] > SLOTS:
    problems.append(f"{state['max_running']} tests at once, slots {SLOTS}")
if state["max_running"] < 2:
    problems.append("nothing ran side by side")
if state["counters_shared"] == 0:
    problems.append("no test on the counters shared the GPU")
# (GPUs, cores): one H100 machine of 16 cores, two H200 of 32, eight GPUs on 16 cores, CI's 2 cores with and
# without a GPU
for gpus, cores, want in [(1, 16, 3), (2, 32, 6), (8, 16, 3), (0, 2, 1), (1, 2, 1)]:
    if default_workers(gpus, cores) != want:
        problems.append(f"{default_workers(gpus, cores)} workers by default on {gpus} GPU(s) and {cores} cores, "
                        f"not {want}")
if problems:
    sys.exit("gpu_share: " + "; ".join(sorted(set(problems))))
print(f"gpu_share: {state['done']} tests, at most {state['max_running']} at once and {state['max_gib']:.1f} of "
      f"{share.memory:.1f} GiB reserved; alone tests alone; the tests on the counters one at a time, "
      f"{state['counters_shared']} of them beside others; no deadlock; --workers by default 3 per GPU")
