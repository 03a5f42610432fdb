"""The class leaderboard of the performance tasks ("NN.performance"): per chapter, the students ranked by their
final kernel's bandwidth as a fraction of the copy bandwidth of the GPU that measured it, with the copy bandwidth
(100%) and CUB on the same GPU as reference lines. leaderboard.csv for a spreadsheet, leaderboard.html (one file,
an SVG bar chart and a table per chapter) to show the class.

Students appear under a pseudonym unless the instructor opts in to names (grade.py --leaderboard-names): two words
and hex digits of an HMAC-SHA256 of the student id, keyed with the class's secret (leaderboard.key beside the two
files, made on first use; never hand it out), so that a student keeps one pseudonym from run to run and no student
can work out whose another one is.
"""
import csv
import hashlib
import hmac
import html
import secrets
import statistics
from collections import Counter, defaultdict

from .model import PASSED, PERFORMANCE
from .reports import printable, spreadsheet_cell

# 32 words each, so that one byte of the HMAC picks each word evenly.
ADJECTIVES = ("amber", "brave", "calm", "clever", "coral", "crisp", "dapper", "eager", "fancy", "gentle", "golden",
              "happy", "jolly", "keen", "lively", "lucky", "mellow", "merry", "nimble", "noble", "plucky", "quick",
              "quiet", "rapid", "silver", "snappy", "steady", "sunny", "swift", "tidy", "witty", "zesty")
ANIMALS = ("badger", "beaver", "bison", "cobra", "crane", "dingo", "eagle", "falcon", "ferret", "gecko", "heron",
           "ibis", "jackal", "koala", "lemur", "lynx", "marmot", "moose", "newt", "ocelot", "otter", "panda",
           "puffin", "quail", "raven", "salmon", "stoat", "tapir", "toucan", "walrus", "weasel", "yak")
COPY, CUB = "copy bandwidth", "CUB, median"  # the reference lines
CUB_COLOURS = ("#c2410c", "#7c3aed", "#0f766e")  # one per GPU that measured a chapter
TIMING = ("A kernel's time is Nsight Compute's (gpu__time_duration, with the caches flushed and the clocks at base "
          "before each kernel), the median of its runs; its bandwidth is a fraction of the copy bandwidth of the same "
          "GPU, measured in the same run.")
STYLE = ("body{font-family:sans-serif;max-width:1040px;margin:1em auto;color:#222}table{border-collapse:collapse}"
         "td,th{border:1px solid #bbb;padding:2px 8px}td.n{text-align:right}svg text{font-size:12px}")


def class_key(path):
    """The class's secret (32 random bytes in hex, readable by its owner only): made on first use, then reused."""
    if not path.exists():
        path.touch(mode=0o600)
        path.write_text(secrets.token_hex(32) + "\n")
    return bytes.fromhex(path.read_text().strip())


def pseudonyms(students, key):
    """{student id: "swift-otter-3f"}, unique within the class: names that collide take one more hex digit each
    until they differ."""
    digests = {s: hmac.new(key, s.encode("utf-8", "surrogateescape"), hashlib.sha256).digest() for s in students}
    names, left, digits = {}, set(digests), 2
    while left:
        tried = {s: f"{ADJECTIVES[digests[s][0] % 32]}-{ANIMALS[digests[s][1] % 32]}-{digests[s][2:].hex()[:digits]}"
                 for s in left}
        taken = Counter(tried.values())
        names.update({s: name for s, name in tried.items() if taken[name] == 1})
        left -= set(names)
        digits += 1
    return names


def measured(row):
    """Whether a performance row ranks: it passed with a measurement (a failed one may carry one too)."""
    return row["status"] == PASSED and bool(row.get("measure"))


def gpu_of(record, row):
    """The GPU that measured a row: its measurement's, else the one the student's record names."""
    return (row.get("measure") or {}).get("gpu") or record.get("gpu_name") or "unknown GPU"


def standings(records, chapter, alias):
    """(ranked, unranked) [(record, performance row)] of one chapter: the measured ones by fraction, highest
    first, ties by pseudonym; then those whose performance task failed or was not graded, by pseudonym."""
    rows = sorted(((r, t) for r in records for t in r["tasks"]
                   if t["chapter"] == chapter and t["task"].endswith("." + PERFORMANCE)),
                  key=lambda rt: alias[rt[0]["student"]])
    return (sorted(((r, t) for r, t in rows if measured(t)), key=lambda rt: -rt[1]["measure"]["fraction"]),
            [(r, t) for r, t in rows if not measured(t)])


def references(ranked):
    """[(what, fraction of copy, GB/s, GPU)]: per GPU that measured the chapter, the copy bandwidth and CUB's
    median over the runs that measured a student's kernel."""
    by_gpu = defaultdict(list)
    for r, t in ranked:
        by_gpu[gpu_of(r, t)].append(t["measure"])
    lines = []
    for gpu, measures in sorted(by_gpu.items()):
        lines.append((COPY, 1.0, statistics.median(m["copy_gbps"] for m in measures), gpu))
        lines.append((CUB, statistics.median(m["cub_fraction"] for m in measures),
                      statistics.median(m["cub_fraction"] * m["copy_gbps"] for m in measures), gpu))
    return lines


def percent(fraction):
    return f"{100 * fraction:.1f}"


def bar_chart(ranked, lines, label):
    """An SVG: a bar per ranked student; a vertical line at the copy bandwidth and one at CUB's median per GPU
    (a colour each), labelled in rows of their own above the bars so that no two labels overlap; the bars' values
    drawn over the lines."""
    gpus = {gpu for *_, gpu in lines}
    marks = [("copy bandwidth: 100%", 1.0, "#222")] + [
        (f"CUB{'' if len(gpus) == 1 else ' on ' + gpu}, median: {percent(f)}%", f, CUB_COLOURS[i % len(CUB_COLOURS)])
        for i, (_, f, _, gpu) in enumerate(line for line in lines if line[0] == CUB)]
    left, width, row, top = 230, 640, 22, 18 * len(marks) + 6
    bottom = top + row * len(ranked) + 8
    scale = max(1.1, *(t["measure"]["fraction"] for _, t in ranked))
    step = next(s * 10 ** e for e in range(-1, 9) for s in (1, 2, 5) if scale / (s * 10 ** e) <= 12)
    x = lambda f: left + width * f / scale  # noqa: E731
    halo = 'paint-order="stroke" stroke="#fff" stroke-width="4"'
    svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{left + width + 90}" height="{bottom + 40}" '
           'role="img" aria-label="bar chart: percent of copy bandwidth per student">']
    for i in range(int(scale / step + 1e-9) + 1):
        svg.append(f'<line x1="{x(i * step):.1f}" x2="{x(i * step):.1f}" y1="{top}" y2="{bottom}" stroke="#e4e4e4"/>'
                   f'<text x="{x(i * step):.1f}" y="{bottom + 14}" text-anchor="middle" fill="#555">'
                   f'{100 * i * step:.0f}%</text>')
    svg.append(f'<text x="{left + width / 2}" y="{bottom + 32}" text-anchor="middle" fill="#555">'
               "% of the copy bandwidth of the GPU that measured it</text>")
    values = []
    for i, (r, t) in enumerate(ranked):
        y, m, name = top + 4 + i * row, t["measure"], label(r["student"])
        svg.append(f'<g><title>{html.escape(name)}: {percent(m["fraction"])}% of copy, {m["kernel_gbps"]:.0f} GB/s, '
                   f'{html.escape(m.get("kernel", ""))} on {html.escape(gpu_of(r, t))}</title>'
                   f'<text x="{left - 8}" y="{y + 12}" text-anchor="end">'
                   f'{html.escape(name if len(name) <= 32 else name[:31] + "…")}</text>'
                   f'<rect x="{left}" y="{y}" width="{x(m["fraction"]) - left:.1f}" height="15" fill="#4a78b0"/></g>')
        values.append(f'<text x="{x(m["fraction"]) + 5:.1f}" y="{y + 12}" {halo}>{percent(m["fraction"])}%</text>')
    for i, (text, f, colour) in enumerate(marks):
        anchor, shift = ("end", -4) if x(f) > left + width / 2 else ("start", 4)
        svg.append(f'<line x1="{x(f):.1f}" x2="{x(f):.1f}" y1="{18 * i + 8}" y2="{bottom}" stroke="{colour}" '
                   f'stroke-width="2" stroke-dasharray="6 3"/>')
        values.append(f'<text x="{x(f) + shift:.1f}" y="{18 * i + 16}" text-anchor="{anchor}" fill="{colour}" '
                      f'{halo}>{html.escape(text)}</text>')
    return "\n".join(svg + values) + "\n</svg>"


def table(ranked, unranked, label, several_gpus):
    """The chapter's table: rank, student, % of copy, GB/s, points, status (and the GPU, where the chapter's were
    several); the unmeasured ones last."""
    out = ["<table><tr><th>rank</th><th>student</th><th>% of copy</th><th>GB/s</th><th>points</th><th>status</th>"
           + ("<th>GPU</th>" if several_gpus else "") + "</tr>"]
    rows = [(rank, r, t, t["measure"]) for rank, (r, t) in enumerate(ranked, 1)]
    rows += [("", r, t, None) for r, t in unranked]
    for rank, r, t, m in rows:
        out.append(f'<tr><td class="n">{rank}</td><td>{html.escape(label(r["student"]))}</td>'
                   f'<td class="n">{percent(m["fraction"]) if m else ""}</td>'
                   f'<td class="n">{format(m["kernel_gbps"], ".0f") if m else ""}</td>'
                   f'<td class="n">{t["points"]:g} / {t["max_points"]:g}</td><td>{html.escape(t["status"])}</td>'
                   + (f"<td>{html.escape(gpu_of(r, t)) if m else ''}</td>" if several_gpus else "") + "</tr>")
    return "\n".join(out) + "\n</table>"


def write_leaderboard(records, chapters, out_dir, names=False):
    """out_dir/leaderboard.csv and leaderboard.html for every chapter with a performance task in any record;
    students by pseudonym (key: out_dir/leaderboard.key) unless names. Returns {student: pseudonym}."""
    alias = pseudonyms({r["student"] for r in records}, class_key(out_dir / "leaderboard.key"))
    label = printable if names else alias.get
    rows = [(r, t) for r in records for t in r["tasks"] if t["task"].endswith("." + PERFORMANCE) and measured(t)]
    measured_on = sorted({gpu_of(r, t) for r, t in rows})
    runs = sorted({str(t["measure"].get("runs", "?")) for _, t in rows})
    page = ["<h1>Performance leaderboard</h1>",
            f"<p>Measured on {html.escape(', '.join(measured_on) or 'no GPU')}"
            + ("; fractions compare across GPUs only roughly, and CUB's line is drawn per GPU" if len(measured_on) > 1
               else "") + f". {TIMING} Runs per kernel: {', '.join(runs) or 'none'}. Students are shown "
            + ("by their ids." if names else "by pseudonym.") + "</p>"]
    with open(out_dir / "leaderboard.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["chapter", "rank", "student", "percent_of_copy", "kernel_gbps", "points", "max_points", "status",
                    "gpu"])
        for chapter in chapters:
            ranked, unranked = standings(records, chapter, alias)
            if not ranked and not unranked:
                continue
            lines = references(ranked)
            for what, fraction, gbps, gpu in lines:
                w.writerow([chapter, "reference", what, percent(fraction), f"{gbps:.1f}", "", "", "reference",
                            spreadsheet_cell(gpu)])
            for rank, (r, t) in enumerate(ranked, 1):
                w.writerow([chapter, rank, spreadsheet_cell(label(r["student"])), percent(t["measure"]["fraction"]),
                            f"{t['measure']['kernel_gbps']:.1f}", t["points"], t["max_points"], t["status"],
                            spreadsheet_cell(gpu_of(r, t))])
            for r, t in unranked:
                w.writerow([chapter, "", spreadsheet_cell(label(r["student"])), "", "", t["points"], t["max_points"],
                            t["status"], spreadsheet_cell(r.get("gpu_name") or "")])
            gpus = sorted({gpu for *_, gpu in lines})
            several = f" Measured on {len(gpus)} GPUs: {', '.join(gpus)}." if len(gpus) > 1 else ""
            page.append(f'<h2 id="{html.escape(chapter)}">{html.escape(chapter)}</h2><p>{len(ranked)} measured, '
                        f"{len(unranked)} failed or not graded.{html.escape(several)}</p>")
            page.append(bar_chart(ranked, lines, label) if ranked else "<p>No kernel of this chapter was measured.</p>")
            page.append(table(ranked, unranked, label, len(gpus) > 1))
    (out_dir / "leaderboard.html").write_text(
        f'<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>Performance leaderboard</title><style>{STYLE}'
        "</style></head><body>\n" + "\n".join(page) + "\n</body></html>\n")
    return alias
