"""Tasks, test outcomes, and how the tests of one task combine into its verdict."""
import re
from dataclasses import asdict, dataclass, field

PASSED, FAILED, NOT_GRADED = "passed", "failed", "not graded"
RANK = {PASSED: 0, NOT_GRADED: 1, FAILED: 2}

# A graded Meson test is named after its task: "TODO(03.2) reduce_shared_modulo"; a chapter's lesson test after
# the consecutive tasks it judges, "TODO(03.2-03.4) lesson" (one Nsight Compute session for all of them).
TASK_TEST = re.compile(r"^TODO\((\d\d)\.(\d+)(?:-\1\.(\d+))?\)\s*(?P<what>.*)$")
# The lesson suite's tests ("TODO(03.2-03.4) lesson": Nsight Compute counters) are graded as one line per chapter,
# "03.lesson", so that an instructor can keep or drop them (grade.py --no-lesson).
LESSON = "lesson"
LESSON_NAME = "lesson: what each kernel's structure is for, measured with Nsight Compute"
# A chapter's performance task ("TODO(04.6) performance": its final kernel timed by Nsight Compute) is graded as
# "04.performance", its points piecewise linear in the fraction of copy bandwidth (grading.toml [performance]).
PERFORMANCE = "performance"
PERFORMANCE_NAME = "performance: the final kernel's bandwidth as a fraction of the GPU's copy bandwidth"


# A chapter's race test, "TODO(04.1-04.3) racecheck and synccheck", judges each of its tasks apart, by that task's
# own cases ("TODO(04.2) racecheck and synccheck"); its first case ("TODO(04) ...": one session of each tool over
# all of their small cases) is no task's.
RACE = "racecheck and synccheck"


def judged_per_task(test_name):
    m = TASK_TEST.match(test_name)
    return bool(m) and m.group("what").strip() == RACE


def tasks_of(test_name):
    """The tasks a graded test judges: ["03.2"] for "TODO(03.2) large", ["03.2", "03.3", "03.4"] for
    "TODO(03.2-03.4) lesson"."""
    m = TASK_TEST.match(test_name)
    return [f"{m.group(1)}.{k}" for k in range(int(m.group(2)), int(m.group(3) or m.group(2)) + 1)]


@dataclass
class Outcome:
    """The verdict of one Meson test (one run of a test program)."""
    test: str
    status: str
    reason: str = ""
    seconds: float = 0.0
    measure: dict = None  # a performance test's measurement, as the checks reported it
    by_task: dict = None  # judged_per_task: {task id: (status, reason)}, one verdict per task of the test


@dataclass
class Task:
    task: str          # "03.2"
    chapter: str       # "03_interleaved"
    name: str
    status: str = PASSED
    reason: str = ""
    tests: list = field(default_factory=list)
    measure: dict = None  # a performance task's measurement

    def add(self, outcome):
        """A task passes only if every one of its tests passes; a failure outranks a test not graded."""
        self.tests.append(outcome)
        if outcome.measure is not None:
            self.measure = outcome.measure
        if RANK[outcome.status] > RANK[self.status]:
            self.status, self.reason = outcome.status, outcome.reason

    def fail_all(self, reason):
        """The whole task fails for a reason found before any test ran (compile error, forbidden library)."""
        self.status, self.reason = FAILED, reason

    def as_dict(self):
        d = asdict(self)
        d["tests"] = [asdict(t) for t in self.tests]
        return d


def task_lines_of(test_name):
    """The graded lines a test decides: each of its tasks when it judges them apart (a chapter's race test), else
    its one line ("04.2", "03.lesson", "04.performance")."""
    return tasks_of(test_name) if judged_per_task(test_name) else [task_id_of(test_name)]


def task_outcomes(test_name, outcome):
    """[(task line, Outcome)] of one test's outcome: with by_task, each task's own verdict; else the outcome
    (a time-out, a test not run) for every line the test decides."""
    by_task = outcome.by_task or {}
    return [(line, Outcome(outcome.test, *by_task[line], outcome.seconds) if line in by_task else outcome)
            for line in task_lines_of(test_name)]


def task_id_of(test_name):
    """"03.2" for "TODO(03.2) ...", "03.lesson" for every lesson test of chapter 03, "04.performance" for
    "TODO(04.6) performance"."""
    m = TASK_TEST.match(test_name)
    what = m.group("what").strip()
    line = LESSON if what.startswith(LESSON) else PERFORMANCE if what == PERFORMANCE else m.group(2)
    return f"{m.group(1)}.{line}"


def task_sort_key(task_id):
    chapter, number = task_id.split(".")
    return int(chapter), {LESSON: 1000, PERFORMANCE: 1001}.get(number) or int(number)
