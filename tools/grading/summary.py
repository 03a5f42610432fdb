"""The class summary an instructor reads after a --class run (or --merge): summary.html, one file with its plots
inside - the distribution of totals, the pass rate of every task, and each task's most common failure reasons.

The plots need matplotlib (pip install matplotlib); without it the page says so and keeps its tables.
"""
import base64
import html
import io
import re
from collections import Counter

from .model import FAILED, PASSED


def reason_kind(reason):
    """A failure reason without its task prefix and with its numbers blanked, so that the same mistake at other
    sizes counts as one."""
    first = re.sub(r"^TODO\(\d+\.\w+\):\s*", "", reason.splitlines()[0]) if reason else "(no reason)"
    return re.sub(r"-?\d+(\.\d+)?", "#", first)[:160]


def task_table(records):
    """[(task id, name, passed, failed, not graded, [(reason kind, count), ...top 3])] in task order."""
    rows = {}
    for r in records:
        for t in r["tasks"]:
            row = rows.setdefault(t["task"], {"name": t["name"], "counts": Counter(), "reasons": Counter()})
            row["counts"][t["status"]] += 1
            if t["status"] == FAILED:
                row["reasons"][reason_kind(t["reason"])] += 1
    return [(task, row["name"], row["counts"][PASSED], row["counts"][FAILED],
             sum(row["counts"].values()) - row["counts"][PASSED] - row["counts"][FAILED],
             row["reasons"].most_common(3)) for task, row in sorted(rows.items())]


def plots(records, table):
    """{title: PNG bytes}, or a sentence saying why there are none."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        import matplotlib.ticker
    except ImportError:
        return "Plots left out: matplotlib is not installed (pip install matplotlib)."
    out = {}
    fig, ax = plt.subplots(figsize=(7, 3))
    ax.hist([r["points"] for r in records], bins=range(0, int(max(r["max_points"] for r in records)) + 2), align="left")
    ax.set_xlabel("points")
    ax.set_ylabel("submissions")
    ax.yaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))  # a count of students
    out["Totals"] = fig
    fig, ax = plt.subplots(figsize=(max(7, 0.3 * len(table)), 3))
    graded = [(task, p / (p + f)) for task, _, p, f, _, _ in table if p + f]
    ax.bar([t for t, _ in graded], [rate * 100 for _, rate in graded])
    ax.set_ylabel("% passed (of graded)")
    ax.tick_params(axis="x", rotation=90)
    out["Pass rate per task"] = fig
    pngs = {}
    for title, fig in out.items():
        fig.tight_layout()
        buffer = io.BytesIO()
        fig.savefig(buffer, format="png", dpi=100)
        plt.close(fig)
        pngs[title] = buffer.getvalue()
    return pngs


def write_class_summary(records, chapters, path):
    esc = lambda text: html.escape(str(text), quote=False)  # noqa: E731
    table = task_table(records)
    flags = Counter(f.split(":")[0] for r in records for f in r.get("flags", []))
    seeds = sorted({str(r.get("seed")) for r in records})
    commits = sorted({str(r.get("graded_against", "")) for r in records} - {""})
    page = [f"<h1>Class summary: {len(records)} submissions</h1>",
            f"<p>Seed(s): {esc(', '.join(seeds))}. Graded against: {esc(', '.join(commits) or 'unknown')}. "
            f"With a GPU: {esc(', '.join(sorted({str(r.get('gpu')) for r in records})))}"
            + "".join(f" ({esc(name)})" for name in sorted({r.get("gpu_name") or "" for r in records} - {""}))
            + (f". Grader version: {esc(', '.join(versions))}" if (versions := sorted(
                {r.get("grader_version") or "" for r in records} - {""})) else "") + ".</p>",
            "<h2>Chapters</h2><table border=\"1\"><tr><th>chapter</th><th>mean points</th><th>maximum"
            "</th></tr>"]
    for ch in chapters:
        points = [r["chapters"].get(ch, {}).get("points", 0) for r in records]
        maxima = sorted({r["chapters"].get(ch, {}).get("max_points", 0) for r in records})
        page.append(f"<tr><td>{esc(ch)}</td><td>{sum(points) / max(1, len(points)):.2f}</td>"
                    f"<td>{esc(', '.join(map(str, maxima)))}</td></tr>")
    page.append("</table>")
    if flags:
        page.append("<h2>Flags</h2><p>" + esc(", ".join(f"{k}: {v}" for k, v in flags.most_common())) + "</p>")
    drawn = plots(records, table) if records else "No submissions."
    if isinstance(drawn, str):
        page.append(f"<p>{esc(drawn)}</p>")
    else:
        for title, png in drawn.items():
            page.append(f"<h2>{esc(title)}</h2><img alt=\"{esc(title)}\" src=\"data:image/png;base64,"
                        f"{base64.b64encode(png).decode()}\">")
    page.append("<h2>Tasks</h2><table border=\"1\"><tr><th>task</th><th>passed</th><th>failed</th>"
                "<th>not graded</th><th>most common failure reasons (numbers blanked)</th></tr>")
    for task, name, passed, failed, not_graded, reasons in table:
        listed = "<br>".join(f"{count}x {esc(kind)}" for kind, count in reasons)
        page.append(f"<tr><td>TODO({esc(task)}) {esc(name)}</td><td>{passed}</td><td>{failed}</td>"
                    f"<td>{not_graded}</td><td>{listed}</td></tr>")
    page.append("</table>")
    path.write_text("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Class summary</title></head><body>\n"
                    + "\n".join(page) + "\n</body></html>\n")
