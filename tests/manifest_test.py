#!/usr/bin/env python3
"""The progression table is the manifest: what each reader of it says about a chapter must agree.

    python3 tests/manifest_test.py BUILD      # a configured and built course (either variant; no GPU needed)

For every GPU chapter (its meson.build's topic, not host_only), read from the programs themselves:
  - the demo and the bench print the same progression (`--list --json`), and `--list` the same names;
  - every step's task is one of the chapter's graded tasks (Meson's TODO(NN.k) tests) or "given";
  - the steps flagged `large` are the tasks of Meson's large_tasks, those with a `lesson` metric its
    lesson_tasks, the one flagged `timed` (the chapter's last step, if any) its performance_task, whose case the
    checks register; every lesson
    metric is judged in checks.cpp and printed by tools/profile.sh;
  - the tasks with a race case in the checks ("TODO(NN.k) racecheck and synccheck") are those of the chapter's
    race test (Meson's race_tasks);
  - every mutant (tests/mutants/NN_name.toml) names a graded task and a student file of the chapter;
  - tools/profile.sh profiles the chapter through its demo, <topic>_demo;
  - tools/grading/student_files.json takes the chapter's student file, starter/<topic>_student.cu[h].
Exits 1 with one line per disagreement.
"""
import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
from grading.model import TASK_TEST, judged_per_task, tasks_of  # noqa: E402
from lint_chapters import meson_var  # noqa: E402


def listed(program, *args):
    out = subprocess.run([str(program), "--list", *args], capture_output=True, text=True, timeout=60)
    if out.returncode != 0:
        raise RuntimeError(f"{program.name} --list {' '.join(args)}: exit {out.returncode}: {out.stderr.strip()}")
    return out.stdout


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    build = Path(sys.argv[1]).resolve()
    tests = json.loads((build / "meson-info" / "intro-tests.json").read_text())
    profile = (ROOT / "tools" / "profile.sh").read_text()
    dram = re.search(r"^dram=(\S+)", profile, re.M).group(1)  # the DRAM metrics several chapters print
    manifest = json.loads((ROOT / "tools" / "grading" / "student_files.json").read_text())
    problems, checked = [], []
    for chapter in sorted(p for p in ROOT.glob("[0-9][0-9]_*") if (p / "meson.build").exists()):
        text = (chapter / "meson.build").read_text()
        topic = meson_var(text, "topic")
        if re.search(r"^host_only\s*=\s*true", text, re.M):
            continue
        name, nn = chapter.name, chapter.name[:2]

        def bad(what):
            problems.append(f"{name}: {what}")

        bin_dir = build / "subprojects" / name / "bin"
        try:
            demo = json.loads(listed(bin_dir / f"{topic}_demo", "--json"))
            bench = json.loads(listed(bin_dir / f"{topic}_bench", "--json"))
            names = listed(bin_dir / f"{topic}_demo").split()
        except (RuntimeError, OSError, json.JSONDecodeError) as e:
            bad(f"the progression could not be read: {e}")
            continue
        steps = demo["steps"]
        if steps != bench["steps"]:
            bad(f"the demo and the bench print different progressions: {[s['name'] for s in steps]} against "
                f"{[s['name'] for s in bench['steps']]}")
        if names != [s["name"] for s in steps]:
            bad(f"--list prints {names}, --list --json {[s['name'] for s in steps]}")
        graded, by_test = set(), {"large": set(), "lesson": set(), "performance": set()}
        for t in tests:
            m = TASK_TEST.match(t["name"]) if any(s.split(":")[0] == name for s in t["suite"]) else None
            if m and m.group(1) == nn:
                kind = re.match(r"(large|lesson|performance)\b", m.group("what"))
                for task in tasks_of(t["name"]):
                    graded.add(task)
                    if kind:
                        by_test[kind.group(1)].add(task)
        for s in steps:
            if s["task"] not in graded | {"given"}:
                bad(f"step {s['name']} names task {s['task']}, which is not graded (Meson's tasks: {sorted(graded)})")
        flagged = {"large": {s["task"] for s in steps if s["large"]}, "lesson": {s["task"] for s in steps if s["lesson"]},
                   "performance": {s["task"] for s in steps if s["timed"]}}
        for kind in ("large", "lesson", "performance"):
            if flagged[kind] != by_test[kind]:
                bad(f"the steps flagged {kind} are of tasks {sorted(flagged[kind])}, Meson's "
                    f"{'performance_task' if kind == 'performance' else kind + '_tasks'} {sorted(by_test[kind])}")
        if any(s["timed"] for s in steps[:-1]):
            bad("a step other than the last is flagged timed: the performance task times the chapter's final kernel")
        cases = subprocess.run([str(bin_dir / f"{topic}_checks"), "--list-test-cases"], capture_output=True, text=True,
                               timeout=60).stdout
        race_cases = set(re.findall(rf"^TODO\(({nn}\.\d+)\) racecheck and synccheck$", cases, re.M))
        race_tests = {task for t in tests if judged_per_task(t["name"]) and t["name"].startswith(f"TODO({nn}.")
                      and any(s.split(":")[0] == name for s in t["suite"]) for task in tasks_of(t["name"])}
        if race_cases != race_tests:
            bad(f"the checks have race cases of {sorted(race_cases)}, Meson's race_tasks {sorted(race_tests)}")
        for task in flagged["performance"]:
            if f"TODO({task}) performance: {steps[-1]['name']} " not in cases:
                bad(f"the checks have no case 'TODO({task}) performance: {steps[-1]['name']} ...' for the timed step")
        checks = (chapter / "checks.cpp").read_text()
        profiled = re.search(rf"^{nn}_\*\).*?;;", profile, re.M | re.S)
        profiled = profiled.group(0).replace("$dram", dram) if profiled else ""
        for s in steps:
            for metric in filter(None, s["lesson"].split(",")):
                if f'"{metric}"' not in checks:
                    bad(f"step {s['name']}'s lesson metric {metric} is not in checks.cpp")
                if metric not in profiled:
                    bad(f"tools/profile.sh does not print step {s['name']}'s lesson metric {metric}")
        mutants = ROOT / "tests" / "mutants" / f"{name}.toml"
        student = manifest.get(name, [])
        if not any(re.fullmatch(rf"starter/{topic}_student\.cuh?", f) for f in student):
            bad(f"tools/grading/student_files.json takes {student}, not starter/{topic}_student.cu[h]")
        if mutants.exists():
            for m in tomllib.loads(mutants.read_text()).get("mutant", []):
                if m["task"] not in graded:
                    bad(f"mutant {m['id']} names task {m['task']}, which is not graded")
                if not m["file"].startswith(f"{name}/"):
                    bad(f"mutant {m['id']} edits {m['file']}, outside the chapter")
        else:
            bad(f"no mutants ({mutants.relative_to(ROOT)})")
        if not re.search(rf"^{nn}_\*\) demo={topic}_demo\b", profile, re.M):
            bad(f"tools/profile.sh does not profile it through {topic}_demo")
        checked.append(f"{nn} ({len(steps)} steps)")
    if problems:
        sys.exit("manifest_test:\n  " + "\n  ".join(problems))
    print("manifest_test: the demo, the bench, Meson's tasks, the mutants, tools/profile.sh and the grader's "
          "manifest agree for chapters " + ", ".join(checked))


if __name__ == "__main__":
    main()
