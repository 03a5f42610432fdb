#!/usr/bin/env python3
"""Grade a build of the course: one point per task (a Meson test named "TODO(NN.k) ...").

    python3 tools/grade.py build                 # runs `meson test -C build`, then grades
    python3 tools/grade.py build --no-run        # grades the last run's build/meson-logs/testlog.json
    python3 tools/grade.py 03_interleaved/build  # one chapter built alone

Prints a table per chapter (passed / total, points) and writes build/grade.json and build/grade.junit.xml
for an LMS. A task whose test was skipped (no usable GPU here) is reported as "not graded", never as passed.
"""
import argparse
import json
import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path
from xml.sax.saxutils import escape

TASK = re.compile(r"TODO\((\d\d)\.(\d+)\)\s*(.*)")


def grade(testlog):
    """One entry per task; a task with several tests (e.g. a `large` one) passes only if all of them pass."""
    tasks = {}
    for row in map(json.loads, testlog.read_text().splitlines()):
        m = TASK.search(row["name"])
        if not m:
            continue
        status = {"OK": "passed", "SKIP": "not graded"}.get(row["result"], "failed")
        reason = ""
        if status == "not graded":
            reason = next((l for l in row["stdout"].splitlines() if l.startswith("SKIP")), "skipped")
        elif status == "failed":
            first = next((l for l in row["stdout"].splitlines() if "TODO(" in l and "ERROR" in l), "")
            reason = first.split("ERROR: ", 1)[-1] if first else f"test result {row['result']}"
        key = (m.group(1), int(m.group(2)))
        task = tasks.setdefault(key, {"task": f"{m.group(1)}.{m.group(2)}", "name": m.group(3).strip(),
                                      "status": "passed", "reason": "", "tests": []})
        task["tests"].append({"test": row["name"], "status": status})
        rank = {"passed": 0, "not graded": 1, "failed": 2}
        if rank[status] > rank[task["status"]]:
            task["status"], task["reason"] = status, reason
    return [tasks[k] for k in sorted(tasks)]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("build", type=Path)
    ap.add_argument("--no-run", action="store_true", help="grade the existing testlog.json")
    args = ap.parse_args()
    testlog = args.build / "meson-logs" / "testlog.json"
    if not args.no_run:
        testlog.unlink(missing_ok=True)  # a build that fails must not be graded from an old log
        subprocess.run(["meson", "test", "-C", str(args.build)], stdout=subprocess.DEVNULL)
    if not testlog.exists():
        sys.exit(f"grade: {testlog} not found (run meson test first)")
    tasks = grade(testlog)
    if not tasks:
        sys.exit("grade: no TODO task tests in this build")

    chapters = defaultdict(list)
    for t in tasks:
        chapters[t["task"].split(".")[0]].append(t)
    print(f"{'chapter':<8} {'passed':>6} {'failed':>6} {'not graded':>10} {'points':>8}")
    for ch, ts in chapters.items():
        c = lambda s: sum(t["status"] == s for t in ts)
        print(f"{ch:<8} {c('passed'):>6} {c('failed'):>6} {c('not graded'):>10} {c('passed'):>4}/{len(ts):<3}")
    for t in tasks:
        if t["status"] != "passed":
            print(f"  TODO({t['task']}) {t['name']}: {t['status']}" + (f" - {t['reason']}" if t["reason"] else ""))
    passed = sum(t["status"] == "passed" for t in tasks)
    ungraded = sum(t["status"] == "not graded" for t in tasks)
    print(f"total: {passed}/{len(tasks)} points" + (f"; {ungraded} task(s) not graded on this machine" if ungraded else ""))

    (args.build / "grade.json").write_text(json.dumps(
        {"points": passed, "max_points": len(tasks), "not_graded": ungraded,
         "chapters": {ch: {"points": sum(t["status"] == "passed" for t in ts), "max_points": len(ts)}
                      for ch, ts in chapters.items()},
         "tasks": tasks}, indent=2) + "\n")
    with open(args.build / "grade.junit.xml", "w") as f:
        f.write(f'<?xml version="1.0" encoding="UTF-8"?>\n<testsuites tests="{len(tasks)}">\n')
        for ch, ts in chapters.items():
            fails = sum(t["status"] == "failed" for t in ts)
            skips = sum(t["status"] == "not graded" for t in ts)
            f.write(f'  <testsuite name="chapter {ch}" tests="{len(ts)}" failures="{fails}" skipped="{skips}">\n')
            for t in ts:
                f.write(f'    <testcase classname="chapter {ch}" name="TODO({t["task"]}) {escape(t["name"])}">')
                if t["status"] == "failed":
                    f.write(f'<failure message="{escape(t["reason"], {chr(34): "&quot;"})}"/>')
                elif t["status"] == "not graded":
                    f.write(f'<skipped message="{escape(t["reason"], {chr(34): "&quot;"})}"/>')
                f.write("</testcase>\n")
            f.write("  </testsuite>\n")
        f.write("</testsuites>\n")
    print(f"reports: {args.build / 'grade.json'}, {args.build / 'grade.junit.xml'}")


if __name__ == "__main__":
    main()
