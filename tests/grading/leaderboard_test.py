#!/usr/bin/env python3
"""tools/grading/leaderboard.py without a GPU, on a synthetic class: 13 students over the five chapters with a
performance task, some failed or not graded, one chapter measured on two GPUs.
  1. per chapter, the measured students ranked by fraction (highest first, ties by pseudonym), the failed and not
     graded ones after them with no fraction; reference rows at the copy bandwidth (100%) and at CUB's median, per
     GPU, which the page names; chapters with no performance task left out;
  2. pseudonyms: the same in a second run with the same leaderboard.key, others with a new key, unique in a class
     of 3000; no student id in the default CSV or page, every id with names=True;
  3. an id that is markup (<script>) or a formula (=HYPERLINK) is escaped on the page and neutralised in the CSV;
  4. grade.py --merge writes the leaderboard beside gradebook.csv, --leaderboard-names shows the ids, and a Slurm
     merge job is given the flag.
Exits 1 with what went otherwise."""
import csv
import html
import json
import random
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
from grading import leaderboard  # noqa: E402
from grading.reports import folder_name, number  # noqa: E402
from grading.workspace import load_manifest  # noqa: E402

H100, A100 = "NVIDIA H100 80GB HBM3", "NVIDIA A100-SXM4-40GB"
COPY_GBPS = {H100: 2900.0, A100: 1350.0}
# chapter: (the task its performance row measures, the kernel, CUB's fraction of copy)
MEASURED = {"02_neighbored": ("02.5", "reduce_neighbored", 0.93),
            "03_interleaved": ("03.5", "reduce_interleaved", 0.93),
            "04_unroll_warp": ("04.6", "reduce_vectorized", 0.95),
            "06_atomic_histogram": ("06.4", "histogram", 0.71),
            "07_scan": ("07.5", "scan_decoupled", 0.88)}
EVIL = ["<script>alert(1)</script>", '=HYPERLINK("http://evil.example/","x")']


def record(student, results, gpus=None):
    """A grade.json record as reports.grade_record() writes it, with a performance row per chapter of results (a
    fraction of copy, measured on an H100 unless gpus names another, or the status of a task that was not) and one
    task that is not a performance one."""
    tasks = [{"task": "02.1", "chapter": "02_neighbored", "name": "reduce_neighbored", "status": "passed",
              "reason": "", "points": 1, "max_points": 1}]
    for chapter, result in results.items():
        task, kernel, cub = MEASURED[chapter]
        row = {"task": chapter[:2] + ".performance", "chapter": chapter, "name": "performance", "max_points": 4}
        if isinstance(result, float):
            gpu = (gpus or {}).get(chapter, H100)
            cub += (sum(map(ord, student)) % 5 - 2) / 100  # CUB's runs vary a little from one student to the next
            row.update(status="passed", reason="", points=number(4 * min(result, 1.0)), measure={
                "task": task, "kernel": kernel, "n": 1 << 28, "runs": 5, "fraction": result, "cub_fraction": cub,
                "kernel_gbps": result * COPY_GBPS[gpu], "copy_gbps": COPY_GBPS[gpu], "gpu": gpu,
                "calls_ms": [0.74, 0.75, 0.75, 0.76, 0.77]})
        else:
            row.update(status=result, points=0,
                       reason="TODO(04.6): reduce_vectorized: wrong sum" if result == "failed" else "no GPU")
        tasks.append(row)
    return {"student": student, "points": sum(t["points"] for t in tasks),
            "max_points": sum(t["max_points"] for t in tasks), "not_graded": 0, "failed": 0, "chapters": {},
            "tasks": tasks, "flags": [], "gpu_name": H100}


def synthetic_class():
    """13 students; fractions from a seeded generator; two who failed or were not graded (one failed after its
    kernel was measured); a tie in 04; 07 partly measured on an A100 (regraded on another node)."""
    draw = random.Random(7)
    students = [f"u2024-{name}" for name in ("alice-liddell", "bob-cratchit", "carol-danvers", "dorian-gray",
                                             "emma-woodhouse", "fanny-price", "gus-fring", "holly-golightly",
                                             "ishmael", "jane-eyre", "kay-scarpetta", "lisbeth-salander",
                                             "mina-harker")]
    records = []
    for i, student in enumerate(students):
        results = {chapter: round(draw.uniform(0.35, 1.04), 3) for chapter in MEASURED}
        if i == 3:
            results["04_unroll_warp"] = "failed"
        if i == 8:
            results.update({"06_atomic_histogram": "not graded", "07_scan": "failed"})
        if i in (5, 6):
            results["04_unroll_warp"] = 0.9
        records.append(record(student, results, {"07_scan": A100} if i >= 10 else None))
    failed, passed = (next(t for t in records[i]["tasks"] if t["task"] == "04.performance") for i in (3, 0))
    failed["measure"] = dict(passed["measure"], fraction=0.99)  # measured, then a wrong result: not ranked
    return records


def rows_of(folder):
    return list(csv.DictReader(open(folder / "leaderboard.csv", newline="")))


def main():
    problems = []

    def expect(what, ok, detail=""):
        if not ok:
            problems.append(f"{what}{': ' + str(detail) if detail else ''}")

    chapters = list(load_manifest())
    records = synthetic_class()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        one, again, other, named = (tmp / name for name in ("one", "again", "other", "named"))
        for folder in (one, other, named):
            folder.mkdir()
        leaderboard.write_leaderboard(records, chapters, one)
        rows, page = rows_of(one), (one / "leaderboard.html").read_text()

        # 1. ranking, failed ones last, reference lines
        expect("1. chapters with a performance task, in order", list(dict.fromkeys(r["chapter"] for r in rows))
               == list(MEASURED), [r["chapter"] for r in rows])
        for chapter in MEASURED:
            mine = [r for r in rows if r["chapter"] == chapter and r["rank"] != "reference"]
            ranked = [r for r in mine if r["rank"]]
            fractions = sorted((t["measure"]["fraction"] for rec in records for t in rec["tasks"]
                                if t["chapter"] == chapter and t["status"] == "passed" and "measure" in t),
                               reverse=True)
            expect(f"1. {chapter}: ranks 1..n", [r["rank"] for r in ranked] == [str(i + 1) for i in range(len(ranked))])
            expect(f"1. {chapter}: highest fraction first", [r["percent_of_copy"] for r in ranked]
                   == [f"{100 * f:.1f}" for f in fractions], [r["percent_of_copy"] for r in ranked])
            ties = [(r["percent_of_copy"], r["student"]) for r in ranked]
            expect(f"1. {chapter}: ties by pseudonym", ties == sorted(ties, key=lambda p: (-float(p[0]), p[1])), ties)
            unranked = mine[len(ranked):]
            expect(f"1. {chapter}: the unmeasured last, with their status and no fraction",
                   all(not r["rank"] and r["status"] in ("failed", "not graded") and not r["percent_of_copy"]
                       for r in unranked) and len(ranked) + len(unranked) == len(records), unranked)
        tied = [record(f"tied-{i}", {"02_neighbored": 0.8}) for i in range(8)]
        leaderboard.write_leaderboard(tied, chapters, other)
        order = [r["student"] for r in rows_of(other) if r["rank"] not in ("", "reference")]
        expect("1. eight students tied: by pseudonym", order == sorted(order) and len(order) == 8, order)
        expect("1. 04: the failed student last", [r["status"] for r in rows if r["chapter"] == "04_unroll_warp"][-1]
               == "failed")
        for chapter in MEASURED:
            for gpu in (H100, A100) if chapter == "07_scan" else (H100,):
                cubs = [t["measure"]["cub_fraction"] for rec in records for t in rec["tasks"]
                        if t["chapter"] == chapter and t.get("measure") and t["measure"]["gpu"] == gpu]
                refs = {r["student"]: r["percent_of_copy"] for r in rows
                        if r["chapter"] == chapter and r["rank"] == "reference" and r["gpu"] == gpu}
                expect(f"1. {chapter} on {gpu}: copy at 100%, CUB at the median of its runs", refs ==
                       {leaderboard.COPY: "100.0", leaderboard.CUB: f"{100 * statistics.median(cubs):.1f}"}, refs)
        cubs = {(r["chapter"], r["gpu"]): r["percent_of_copy"] for r in rows if r["student"] == leaderboard.CUB}
        expect("1. CUB's lines: one per GPU of the chapter", len(cubs) == len(MEASURED) + 1, cubs)
        expect("1. the page: CUB's lines labelled", f"CUB, median: {cubs['04_unroll_warp', H100]}%" in page
               and f"CUB on {A100}, median: {cubs['07_scan', A100]}%" in page)
        expect("1. the page: 07 measured on two GPUs", f"Measured on 2 GPUs: {A100}, {H100}." in page)
        expect("1. the page names both GPUs", f"Measured on {A100}, {H100}; fractions compare" in page)
        expect("1. the page: a section and a chart per chapter with a performance task",
               page.count("<h2") == page.count("<svg") == len(MEASURED))

        # 2. pseudonyms
        students = [r["student"] for r in records]
        aliases = {r["student"] for r in rows if r["rank"] != "reference"}
        expect("2. a readable pseudonym each", len(aliases) == len(records) and all(
            re.fullmatch(r"[a-z]+-[a-z]+-[0-9a-f]{2,}", a) for a in aliases), aliases)
        written = (one / "leaderboard.csv").read_text() + page
        expect("2. no student id in the default CSV or page", not [s for s in students if s in written])
        expect("2. the key readable by its owner only", (one / "leaderboard.key").stat().st_mode & 0o077 == 0)
        key = (one / "leaderboard.key").read_text()
        leaderboard.write_leaderboard(records, chapters, one)
        expect("2. the same pseudonyms with the same key", rows_of(one) == rows and
               (one / "leaderboard.key").read_text() == key)
        leaderboard.write_leaderboard(records, chapters, other)  # other's key, made for the tied class above
        expect("2. other pseudonyms with a new key", not aliases & {r["student"] for r in rows_of(other)})
        crowd = leaderboard.pseudonyms([f"s{i}" for i in range(3000)], b"k" * 32)
        expect("2. unique in a class of 3000, collisions resolved with more hex digits",
               len(set(crowd.values())) == 3000 and any(len(a.rsplit("-", 1)[1]) > 2 for a in crowd.values()))

        # 2, 3. names=True, and ids that are markup or formulas
        evil = records + [record(s, {"04_unroll_warp": 0.5, "07_scan": "failed"}) for s in EVIL]
        leaderboard.write_leaderboard(evil, chapters, named, names=True)
        named_rows, named_page = rows_of(named), (named / "leaderboard.html").read_text()
        expect("2. every id with names=True", all(s in {r["student"] for r in named_rows} and html.escape(s) in
                                                  named_page for s in students))
        expect("3. <script> escaped on the page", "<script>" not in named_page
               and "&lt;script&gt;alert(1)&lt;/script&gt;" in named_page)
        expect("3. =HYPERLINK neutralised in the CSV", "'" + EVIL[1] in {r["student"] for r in named_rows}
               and not [c for r in named_rows for c in r.values() if c[:1] in "=+-@" and c],
               [r["student"] for r in named_rows])
        leaderboard.write_leaderboard(evil, chapters, named)
        expect("3. no markup or formula id in the default CSV or page", not [
            s for s in EVIL for text in ((named / "leaderboard.csv").read_text(), (named / "leaderboard.html")
                                         .read_text()) if s in text or html.escape(s) in text])

        # 4. grade.py --merge and --slurm
        for rec in records:
            (again / folder_name(rec["student"])).mkdir(parents=True)
            (again / folder_name(rec["student"]) / "grade.json").write_text(json.dumps(rec))
        for flags in ([], ["--leaderboard-names"]):
            run = subprocess.run([sys.executable, str(ROOT / "tools/grade.py"), "--merge", str(again), *flags],
                                 capture_output=True, text=True)
            shown = {r["student"] for r in rows_of(again)} if (again / "leaderboard.csv").exists() else set()
            if not flags:  # each student's report names the pseudonym the leaderboard shows
                report = (again / folder_name(students[0]) / "report.md").read_text()
                expect("4. a student's report gives their pseudonym", any(
                    f"you appear as {name}." in report for name in shown), report[:300])
            expect(f"4. grade.py --merge {' '.join(flags)}: the leaderboard beside gradebook.csv, path printed",
                   run.returncode == 0 and f"leaderboard: {again / 'leaderboard.html'}" in run.stdout
                   and (again / "gradebook.csv").exists() and bool(set(students) & shown) == bool(flags),
                   run.stdout + run.stderr)
        (tmp / "class" / "alice").mkdir(parents=True)
        run = subprocess.run([sys.executable, str(ROOT / "tools/grade.py"), "--class", str(tmp / "class"), "--out",
                              str(tmp / "slurm"), "--slurm", "--seed", "1", "--leaderboard-names"],
                             capture_output=True, text=True)
        merge = tmp / "slurm" / "slurm" / "merge.sbatch"
        expect("4. the Slurm merge job gets --leaderboard-names", run.returncode == 0 and merge.exists()
               and merge.read_text().rstrip().endswith("--leaderboard-names"), run.stdout + run.stderr)
    if problems:
        sys.exit("leaderboard_test:\n  " + "\n  ".join(problems))
    print(f"leaderboard_test: {len(records)} students over {len(MEASURED)} chapters ranked by fraction of copy, the "
          "failed and not graded last, copy and CUB's median per GPU as reference rows; pseudonyms stable with one "
          "key, others with another, unique among 3000; no id unless names=True; <script> escaped, =HYPERLINK "
          "neutralised; grade.py --merge writes it and the Slurm merge job gets --leaderboard-names")


if __name__ == "__main__":
    main()
