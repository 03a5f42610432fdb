"""One GPU shared by the tests of several submissions at once.

A correctness test only needs its answers checked, not the GPU to itself: tests of different submissions run
side by side, up to `slots` programs (they are CPU-bound under compute-sanitizer) and `memory` GiB of declared
GPU memory. A `large` test declares what it needs (its chapter's large_gpu_memory_gib, in COURSE_GPU_MEMORY_GIB)
and waits until that much is free, so that it never finds too little and skips; every other test counts
SMALL_TEST_GIB. A test on the GPU's counters (the lesson suite, under Nsight Compute) shares the GPU too, but
never with another one: Nsight Compute serializes its sessions through a lock file in $TMPDIR, and each runner's
sandbox has a /tmp of its own (two sessions at once got their runners killed, exit code 137: H100, CUDA 13.0).
A test that needs the GPU alone (a performance task: Nsight Compute's timing) waits for the GPU to empty and
holds it; while one waits, no new test starts, so that it is not starved.

Each place is taken for an owner (one submission's tests): contended() says whether a test of another owner
held a place at any time during the calling thread's last one, so that a failure beside another submission can
be confirmed with the GPU alone (tools/grading/runner.py).

`off` (grade.py --gpu-share off) is the old way: one submission's whole test phase holds the GPU.
"""
import threading
import time
from contextlib import contextmanager

# What a test without a declared need may use: a CUDA context (about 0.5 GiB, more under compute-sanitizer)
# and the small cases' buffers (at most 2^24 + 7 elements).
SMALL_TEST_GIB = 2.0
# Kept free of every reservation: the driver, the display, what a reservation underestimates.
MARGIN_GIB = 6.0


class GpuShare:
    def __init__(self, slots, memory_gib):
        self.slots = max(1, slots)
        self.memory = max(SMALL_TEST_GIB, memory_gib - MARGIN_GIB)
        self._cv = threading.Condition()
        self._running = 0
        self._used = 0.0
        self._alone = False
        self._waiting_alone = 0
        self._profiling = False  # a test on the counters holds a place
        self._active = []  # [owner, contended] of every place held now
        self._local = threading.local()

    @contextmanager
    def use(self, gib=None, alone=False, owner=None, counters=False):
        """Holds a place on the GPU while the block runs (counters: one on the GPU's counters, beside the others
        but never beside another such); yields the seconds it waited for it."""
        gib = min(self.memory, SMALL_TEST_GIB if gib is None else max(gib, SMALL_TEST_GIB))
        start = time.monotonic()
        place = [owner, False]
        self._local.place = place
        with self._cv:
            if alone:
                self._waiting_alone += 1
                self._cv.wait_for(lambda: not self._alone and self._running == 0)
                self._waiting_alone -= 1
                self._alone = True
            else:
                self._cv.wait_for(lambda: not self._alone and not self._waiting_alone and self._running < self.slots
                                  and self._used + gib <= self.memory and not (counters and self._profiling))
                self._running += 1
                self._used += gib
                self._profiling = self._profiling or counters
            for other in self._active:
                if other[0] is not owner:
                    other[1] = place[1] = True
            self._active.append(place)
        try:
            yield time.monotonic() - start
        finally:
            with self._cv:
                self._active = [p for p in self._active if p is not place]
                if alone:
                    self._alone = False
                else:
                    self._running -= 1
                    self._used -= gib
                    self._profiling = self._profiling and not counters
                self._cv.notify_all()

    def contended(self):
        """Whether a test of another owner held a place while this thread's last one was held."""
        place = getattr(self._local, "place", None)
        return bool(place and place[1])
