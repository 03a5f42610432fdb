"""The grade of one student in every format an instructor or an LMS takes, and the class gradebook.

Points per task as grading.toml sets them (points.py). The maximum counts every task of the course (or of the
selected chapters), graded or not, so it is the same on every machine; a task not graded scores 0 and is
listed apart, per chapter and in the total.
"""
import csv
import hashlib
import html
import json
import re
import shlex
from xml.sax.saxutils import quoteattr

from . import points as scheme_file
from .model import FAILED, NOT_GRADED, PASSED


def number(x):
    """A number of points as people write it, to the hundredth: 3, 2.5 (and 3 for 3.0004, not 3.0)."""
    x = round(x, 2)
    return int(x) if float(x).is_integer() else x


def earned(task, worth, scheme):
    """The points a task earned: all of them when it passed; a performance task's share of them by its
    measurement (grading.toml's [performance] thresholds)."""
    if task.status != PASSED:
        return 0
    return worth * scheme.score(task.task, task.measure) if task.measure else worth


def summarize(tasks, chapters, worth, scheme=None):
    """{chapter: {"points", "max_points", "not_graded", "failed"}} in chapter order, and the totals.
    worth: {task id: its points}."""
    scheme = scheme or scheme_file.Scheme()
    empty = lambda: {"points": 0, "max_points": 0, "not_graded": 0, "failed": 0}  # noqa: E731
    per = {ch: empty() for ch in chapters}
    for t in tasks:
        c = per.setdefault(t.chapter, empty())
        c["max_points"] += worth[t.task]
        c["points"] += earned(t, worth[t.task], scheme)
        c["not_graded"] += t.status == NOT_GRADED
        c["failed"] += t.status == FAILED
    for c in per.values():
        c["points"], c["max_points"] = number(c["points"]), number(c["max_points"])
    total = {k: number(sum(c[k] for c in per.values())) for k in ("points", "max_points", "not_graded", "failed")}
    return per, total


def grade_record(student, tasks, chapters, reproduce=None, scheme=None, **extra):
    scheme = scheme or scheme_file.load()
    chapter_of = {t.task: t.chapter for t in tasks}
    worth = scheme.points(list(chapter_of), chapter_of.get)
    per, total = summarize(tasks, chapters, worth, scheme)
    rows = []
    for t in tasks:
        row = t.as_dict()
        row["max_points"] = number(worth[t.task])
        row["points"] = number(earned(t, worth[t.task], scheme))
        if reproduce and t.status == FAILED:  # the one command that grades a failed task again with the same inputs
            row["reproduce"] = f"{reproduce} --task {t.task}"
        rows.append(row)
    return {"student": student, **total, "chapters": per, "tasks": rows, **extra}


def printable(text):
    """A student id for a log line: control characters (a newline in a file name) shown as '?'."""
    return re.sub(r"[\x00-\x1f\x7f]", "?", text)


def folder_name(student):
    """A folder name for a student's reports that no name can turn into a path elsewhere ('..', '/', ...)."""
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", student).strip(".") or "_"
    if safe != student:
        safe += "-" + hashlib.sha256(student.encode("utf-8", "surrogateescape")).hexdigest()[:8]
    return safe


def spreadsheet_cell(text):
    """A cell no spreadsheet runs as a formula (=, +, -, @ first) and that stays on one line."""
    text = printable(str(text))
    return "'" + text if text[:1] in ("=", "+", "-", "@") else text


def reproduce_command(path, student, seed, options):
    """`python3 tools/grade.py --submission ... --seed ...`: the same inputs again (a task adds --task NN.k)."""
    extra = (" --worktree" if options.worktree else "") + \
        (" --uncommitted worktree" if options.uncommitted == "worktree" else "") + \
        (f" --gpu-arch {shlex.quote(options.gpu_arch)}" if options.gpu_arch != "native" else "")
    return (f"python3 tools/grade.py --submission {shlex.quote(str(path))} --student {shlex.quote(student)} "
            f"--seed {seed}{extra}")


def flags_of(*, read_as, files, missing, ignored, starter, sandbox_problem, by_name=None, ambiguous=None,
             uncommitted=None, blocked=None, other_version=None, partial=()):
    """Everything odd about a submission, one short token each (the gradebook's `flags` column): unreadable,
    empty, unchanged-starter, missing:<chapters>, matched-by-name, ambiguous:<file names>,
    uncommitted-changes:<what was graded: head or worktree>, compile-error:<chapters>, refused:<chapters> (a
    forbidden library or macro), other-version:<the edition's commit>, ignored-files:<count>, unsandboxed,
    partial:<what the machine lacked> (grade.py --partial). Chapters by number (missing:04,05)."""
    numbers = lambda names: ",".join(sorted({n.split("_")[0] for n in names}))  # noqa: E731
    flags = []
    if read_as.startswith("unreadable"):
        flags.append("unreadable")
    elif not files:
        flags.append("empty")
    elif all(starter.get(key) == content for key, content in files.items()):
        flags.append("unchanged-starter")
    if missing and files:
        flags.append("missing:" + numbers(missing))
    if by_name:
        flags.append("matched-by-name")
    if ambiguous:
        flags.append("ambiguous:" + ",".join(sorted(set(ambiguous))))
    if uncommitted:
        flags.append(f"uncommitted-changes:{uncommitted}")
    failed_builds = [ch for ch, why in (blocked or {}).items() if why.startswith("does not compile")]
    if failed_builds:
        flags.append("compile-error:" + numbers(failed_builds))
    refused = [ch for ch in (blocked or {}) if ch not in failed_builds]  # a forbidden library or macro
    if refused:
        flags.append("refused:" + numbers(refused))
    if other_version:
        flags.append(f"other-version:{other_version}")
    if ignored:
        flags.append(f"ignored-files:{len(ignored)}")
    if sandbox_problem:
        flags.append("unsandboxed")
    if partial:
        flags.append("partial:" + ",".join(partial))
    return flags


def measure_text(task_row):
    """A performance task's line: "reduce_vectorized: 97.3% of copy bandwidth (CUB 95.1%) on <GPU>"."""
    m = task_row["measure"]
    return (f"{printable(m.get('kernel', '?'))}: {100 * m['fraction']:.1f}% of copy bandwidth "
            f"(CUB {100 * m.get('cub_fraction', 0):.1f}%) on {printable(m.get('gpu', '?'))}")


def print_table(record, out=print):
    out(f"{'chapter':<22} {'points':>7} {'failed':>6} {'not graded':>10}")
    for ch, c in record["chapters"].items():
        if c["max_points"] or c["not_graded"]:
            out(f"{ch:<22} {c['points']:>3}/{c['max_points']:<3} {c['failed']:>6} {c['not_graded']:>10}")
    for t in record["tasks"]:
        if t.get("measure"):
            out(f"  TODO({t['task']}) {measure_text(t)}: {t['points']} of {t['max_points']} points")
        elif t["status"] != PASSED:
            out(f"  TODO({t['task']}) {t['name']}: {t['status']}" + (f" - {t['reason']}" if t["reason"] else ""))
    line = f"total: {record['points']}/{record['max_points']} points"
    if record["not_graded"]:
        line += f"; {record['not_graded']} task(s) not graded on this machine (0 points each)"
    out(line)


def write_json(record, path):
    path.write_text(json.dumps(record, indent=2) + "\n")


def write_junit(record, path):
    lines = ['<?xml version="1.0" encoding="UTF-8"?>',
             f'<testsuites name={quoteattr(printable(record["student"]))} tests="{len(record["tasks"])}" '
             f'failures="{record["failed"]}" skipped="{record["not_graded"]}">']
    for ch, c in record["chapters"].items():
        tasks = [t for t in record["tasks"] if t["chapter"] == ch]
        if not tasks:
            continue
        lines.append(f'  <testsuite name="{ch}" tests="{len(tasks)}" failures="{c["failed"]}" '
                     f'skipped="{c["not_graded"]}">')
        for t in tasks:
            seconds = sum(o["seconds"] for o in t["tests"])
            head = (f'    <testcase classname="{ch}" name={quoteattr("TODO(" + t["task"] + ") " + t["name"])} '
                    f'time="{seconds:.2f}"')
            if t["status"] == FAILED:
                lines.append(f'{head}><failure message={quoteattr(t["reason"])}/></testcase>')
            elif t["status"] == NOT_GRADED:
                lines.append(f'{head}><skipped message={quoteattr(t["reason"])}/></testcase>')
            else:
                lines.append(f"{head}/>")
        lines.append("  </testsuite>")
    lines.append("</testsuites>")
    path.write_text("\n".join(lines) + "\n")


def write_gradescope(record, path):
    """Gradescope's autograder results.json: a task not graded scores 0 of its points, says why, and has no
    status (Gradescope knows only passed and failed)."""
    tests = []
    for t in record["tasks"]:
        graded = t["status"] != NOT_GRADED
        test = {"name": f"TODO({t['task']}) {t['name']}" + ("" if graded else " (not graded)"), "number": t["task"],
                "score": t["points"], "max_score": t["max_points"],
                "output": t["reason"] if graded else f"not graded: {t['reason']}"}
        if graded:
            test["status"] = "passed" if t["status"] == PASSED else "failed"
        tests.append(test)
    notes = ["flags: " + ", ".join(record["flags"])] if record.get("flags") else []
    if record.get("ignored_files"):
        notes.append("ignored (not the student's files): " + ", ".join(record["ignored_files"]))
    if record.get("missing_files"):
        notes.append("not in the submission, graded as the unmodified starter: " + ", ".join(record["missing_files"]))
    path.write_text(json.dumps({"score": record["points"], "max_score": record["max_points"],
                                "output": "\n".join(notes), "tests": tests,
                                "execution_time": round(record.get("seconds", 0))}, indent=2) + "\n")


def write_gradebook(records, chapters, path):
    """One row per student: points per chapter and the chapter's maximum, total, maximum, tasks not graded, the
    seed, flags, what graded it (the course commit or working tree, the GPU, the grader's version)."""
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["student", *(c for ch in chapters for c in (ch, ch + " max")), "total", "max", "not_graded",
                    "seed", "flags", "graded_against", "gpu_name", "grader_version"])
        for r in sorted(records, key=lambda r: r["student"]):
            w.writerow([spreadsheet_cell(r["student"]),
                        *(r["chapters"].get(ch, {}).get(k, 0) for ch in chapters for k in ("points", "max_points")),
                        r["points"], r["max_points"], r["not_graded"], r.get("seed", ""),
                        spreadsheet_cell("; ".join(r.get("flags", []))),
                        *(spreadsheet_cell(r.get(k, "")) for k in ("graded_against", "gpu_name", "grader_version"))])



def student_report(record):
    """The report a student reads: [(kind, text)] lines, kind one of title, line, heading, row, code. Each task
    that failed shows its first failure and the command that runs its checks again, with the same inputs, in
    the student's own build of the course."""
    seed = record.get("seed")
    out = [("title", f"Grade of {printable(record['student'])}"),
           ("line", f"{record['points']} of {record['max_points']} points; tasks not graded: {record['not_graded']}."
                    + (f" Inputs drawn with seed {seed}." if seed is not None else "")),
           ("line", "Flags: " + (", ".join(record.get("flags", [])) or "none") + ".")]
    if record.get("missing_files"):
        out.append(("line", "Not in your submission, so graded as the unchanged starter: "
                            + ", ".join(record["missing_files"]) + "."))
    if record.get("ignored_files"):
        out.append(("line", "In your submission but not yours to change, so not used: "
                            + ", ".join(record["ignored_files"]) + "."))
    if record.get("grader_error"):
        out.append(("line", f"The grader itself failed: {record['grader_error']}"))
    if record.get("leaderboard_name"):
        out.append(("line", f"On the class's performance leaderboard you appear as {record['leaderboard_name']}."))
    out.append(("heading", "Chapters"))
    for chapter, c in record["chapters"].items():
        out.append(("row", f"{chapter}: {c['points']} of {c['max_points']}"
                           + (f", {c['not_graded']} not graded" if c["not_graded"] else "")))
    out.append(("heading", "Tasks"))
    for t in record["tasks"]:
        out.append(("row", f"TODO({t['task']}) {t['name']}: {t['status']}"
                           + (f" ({t['points']} of {t['max_points']} points)" if "max_points" in t else "")))
        if t.get("measure"):
            out.append(("line", measure_text(t) + ", timed by Nsight Compute on the grading GPU"))
        if t["status"] == PASSED:
            continue
        out.append(("line", t["reason"] or "(no reason recorded)"))
        if t["status"] == FAILED:
            failed = [x["test"] for x in t.get("tests", []) if x.get("status") == FAILED] or [t["name"]]
            prefix = f"COURSE_SEED={seed} " if seed is not None else ""
            lesson = t["task"].endswith(".lesson")
            out.append(("line", f"The task's README section: {t['chapter']}/README.md, "
                                + ("its lesson tests" if lesson else f"task {t['task']}")
                                + ". Run its checks again, with the same inputs:"))
            out.append(("code", f"{prefix}meson test -C build {shlex.quote(t['chapter'] + ':' + failed[0])} "
                                "--print-errorlogs"))
    return out


def write_student_report(record, md_path, html_path):
    """report.md and report.html (one file, no outside resource) from student_report(); text from the checks or
    the student's name is escaped in both (a Markdown viewer shows raw HTML otherwise)."""
    md, body, in_item = [], [], False
    for kind, text in student_report(record):
        safe = html.escape(text, quote=False)
        if kind == "title":
            md.append(f"# {safe}\n")
            body.append(f"<h1>{safe}</h1>")
        elif kind == "heading":
            md.append(f"\n## {safe}\n")
            body.append(f"<h2>{safe}</h2>")
            in_item = False
        elif kind == "row":
            md.append(f"- {safe}")
            body.append(f"<p><b>{safe}</b></p>")
            in_item = True
        elif kind == "code":
            md.append("\n" + ("      " if in_item else "    ") + text + "\n")
            body.append(f"<pre>{safe}</pre>")
        else:
            md.append(("  " if in_item else "") + safe)
            body.append(f"<p>{safe}</p>")
    md_path.write_text("\n".join(md) + "\n")
    html_path.write_text("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>" +
                         html.escape(f"Grade of {printable(record['student'])}") + "</title></head><body>\n" +
                         "\n".join(body) + "\n</body></html>\n")


def write_all(record, out_dir):
    """grade.json, grade.junit.xml, results.json (Gradescope), and report.md / report.html for the student."""
    out_dir.mkdir(parents=True, exist_ok=True)
    write_json(record, out_dir / "grade.json")
    write_junit(record, out_dir / "grade.junit.xml")
    write_gradescope(record, out_dir / "results.json")
    write_student_report(record, out_dir / "report.md", out_dir / "report.html")


def merge_gradebook(out_root, chapters):
    """gradebook.csv from every <student>/grade.json under out_root (a Slurm array's last step). A student of
    out_root/slurm/submissions.tsv without one (the array task failed or was cancelled) gets a grader-error row
    with 0 points of the maximum the others were graded against."""
    records = [json.loads(p.read_text()) for p in sorted(out_root.glob("*/grade.json"))]
    listed = out_root / "slurm" / "submissions.tsv"
    if listed.exists():
        graded = {r["student"] for r in records}
        maximum = max((r["max_points"] for r in records), default=0)
        for line in listed.read_text().splitlines():
            path, _, student = line.partition("\t")
            if student and student not in graded:
                error = ("no grade.json: its Slurm array task failed, ran out of time or was cancelled "
                         f"(see {out_root / 'slurm' / 'logs'})")
                records.append({"student": student, "points": 0, "max_points": maximum, "not_graded": 0,
                                "failed": 0, "chapters": {}, "tasks": [], "submission": path,
                                "grader_error": error, "flags": ["grader-error"]})
                write_all(records[-1], out_root / folder_name(student))
    write_gradebook(records, chapters, out_root / "gradebook.csv")
    return records
