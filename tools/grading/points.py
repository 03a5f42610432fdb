"""The points of each task: grading.toml at the course's root (defaults: one point per task, lesson suite on)."""
import re
import tomllib
from pathlib import Path

from .model import LESSON, PERFORMANCE

COURSE_ROOT = Path(__file__).resolve().parent.parent.parent
TASK_ID = re.compile(r"^\d\d\.(\d+|" + LESSON + "|" + PERFORMANCE + r")$")
# A performance task without thresholds in grading.toml: no points at or below half the copy bandwidth, all at 90%.
DEFAULT_THRESHOLDS = (0.5, 0.9)


class Scheme:
    """Points per task id, with per-chapter totals spread over a chapter's tasks in proportion."""

    def __init__(self, lesson=True, default_points=1, tasks=None, chapters=None, performance=None,
                 performance_tasks=True):
        self.lesson, self.default, self.tasks, self.chapters = lesson, default_points, tasks or {}, chapters or {}
        self.performance, self.performance_tasks = performance or {}, performance_tasks

    def score(self, task_id, measure):
        """The share of a performance task's points that its measured fraction of copy bandwidth earns: 0 at or
        below the chapter's lowest threshold, 1 at or above its full one, linear between."""
        low, full = self.performance.get(task_id.split(".")[0], DEFAULT_THRESHOLDS)
        return min(1.0, max(0.0, (measure["fraction"] - low) / (full - low)))

    def points(self, task_ids, chapter_of):
        """{task id: points} for these tasks (every task of the course, or the selected ones)."""
        weight = {t: self.tasks.get(t, self.default) for t in task_ids}
        out = {}
        for t in task_ids:
            total = self.chapters.get(chapter_of(t))
            if total is None:
                out[t] = weight[t]
            else:
                share = sum(weight[u] for u in task_ids if chapter_of(u) == chapter_of(t))
                out[t] = round(total * weight[t] / share, 4) if share else 0
        return out


def load(path=None, chapters=()):
    """The scheme of grading.toml (the course's own by default); SystemExit naming the key on a bad file."""
    path = Path(path) if path else COURSE_ROOT / "grading.toml"
    if not path.exists():
        return Scheme()
    try:
        data = tomllib.loads(path.read_text())
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise SystemExit(f"grade: {path}: {e}")

    def number(key, value):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
            raise SystemExit(f"grade: {path}: {key} must be a number of points >= 0, not {value!r}")
        return value

    unknown = set(data) - {"lesson", "performance_tasks", "default_points", "tasks", "chapters", "performance"}
    if unknown:
        raise SystemExit(f"grade: {path}: unknown key(s) {', '.join(sorted(unknown))} "
                         "(lesson, performance_tasks, default_points, [tasks], [chapters], [performance])")
    for switch in ("lesson", "performance_tasks"):
        if not isinstance(data.get(switch, True), bool):
            raise SystemExit(f"grade: {path}: {switch} must be true or false")
    tasks = {k: number(f"[tasks] {k}", v) for k, v in data.get("tasks", {}).items()}
    bad = [k for k in tasks if not TASK_ID.match(k)]
    if bad:
        raise SystemExit(f"grade: {path}: [tasks] takes task ids such as \"04.6\" or \"03.lesson\", not {', '.join(bad)}")
    by_chapter = {k: number(f"[chapters] {k}", v) for k, v in data.get("chapters", {}).items()}
    if chapters and set(by_chapter) - set(chapters):
        raise SystemExit(f"grade: {path}: [chapters] takes chapters among {', '.join(chapters)}, not "
                         + ", ".join(sorted(set(by_chapter) - set(chapters))))
    thresholds = {}
    for key, value in data.get("performance", {}).items():
        if not (re.fullmatch(r"\d\d", key) and isinstance(value, list) and len(value) == 2 and
                all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value) and
                0 <= value[0] < value[1]):
            raise SystemExit(f"grade: {path}: [performance] takes a chapter number and [lowest, full] fractions of "
                             f"copy bandwidth, 0 <= lowest < full, such as \"04\" = [0.6, 0.9]; not {key} = {value!r}")
        thresholds[key] = tuple(value)
    return Scheme(data.get("lesson", True), number("default_points", data.get("default_points", 1)), tasks, by_chapter,
                  thresholds, data.get("performance_tasks", True))
