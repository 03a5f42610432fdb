#!/usr/bin/env python3
"""Turn the benchmarks' CSV files into one PNG plot and one Markdown page per chapter.

    meson test -C build --benchmark                     # writes build/subprojects/*/NN_name.csv
    python3 tools/plot_results.py build docs/results    # copies the CSVs, writes NN_name.png and NN_name.md

Each plot shows GB/s per kernel (one panel per table of the chapter's benchmark), with the same run's
device-to-device copy bandwidth and the reference call (CUB) as horizontal lines; each Markdown table has the
run's conditions (GPU, clocks at the start and the end, throttling, driver, CUDA, CCCL, date) under it. A size sweep
(NN_name-sweep.csv, written by course::SizeSweep) becomes NN_name-sweep.png and NN_name-sweep.md: GB/s of the
chapter's best kernel and of CUB against n, cold (L2 flushed) and hot, with the run's conditions. Needs matplotlib
(`python3 -m pip install matplotlib` or `apt install python3-matplotlib`).
"""
import csv
import shutil
import sys
from collections import OrderedDict
from pathlib import Path


def read_tables(path):
    tables = OrderedDict()
    with open(path) as f:
        for row in csv.DictReader(f):
            tables.setdefault(row["title"], []).append(row)
    return tables


def markdown(tables):
    out = []
    for title, rows in tables.items():
        r0 = rows[0]
        out.append(f"### {title} (n = {r0['n']})\n")
        out.append("| kernel | median ms | GB/s | % of copy | step | total | vs reference |")
        out.append("|---|---:|---:|---:|---:|---:|---:|")
        for r in rows:
            name = r["kernel"] + (" (reference)" if r["is_reference"] == "1" else "")
            step = f"{float(r['step_speedup']):.2f}x" if r["step_speedup"] else ""
            total = f"{float(r['total_speedup']):.2f}x" if r["total_speedup"] else ""
            ref = f"{float(r['vs_reference']):.2f}x" if r["vs_reference"] else ""
            out.append(f"| {name} | {float(r['median_ms']):.3f} | {float(r['gbps']):.1f} | "
                       f"{float(r['pct_of_copy']):.1f}% | {step} | {total} | {ref} |")
        out.append(f"\nCopy bandwidth {float(r0['copy_gbps']):.1f} GB/s; median of {r0['runs']} runs. "
                   f"{r0['conditions']}\n")
    return "\n".join(out)


def plot(tables, chapter, png):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(len(tables), 1, figsize=(10, 2.2 + 0.45 * max(len(r) for r in tables.values())
                                                      * len(tables)), squeeze=False)
    for ax, (title, rows) in zip(axes[:, 0], tables.items()):
        kernels = [r for r in rows if r["is_reference"] != "1"]
        refs = [r for r in rows if r["is_reference"] == "1"]
        names = [r["kernel"] for r in kernels]
        gbps = [float(r["gbps"]) for r in kernels]
        bars = ax.barh(range(len(names)), gbps, color="#4c72b0")
        ax.set_yticks(range(len(names)), names, fontsize=8)
        ax.invert_yaxis()
        for bar, value in zip(bars, gbps):
            ax.text(bar.get_width(), bar.get_y() + bar.get_height() / 2, f" {value:.0f}", va="center", fontsize=7)
        copy = float(rows[0]["copy_gbps"])
        ax.axvline(copy, color="#55a868", linestyle="--", label=f"device-to-device copy {copy:.0f} GB/s")
        for r in refs:
            ax.axvline(float(r["gbps"]), color="#c44e52", linestyle=":", label=f"{r['kernel']} {float(r['gbps']):.0f} GB/s")
        ax.set_title(f"{title} (n = {rows[0]['n']})", fontsize=9)
        ax.set_xlabel("GB/s", fontsize=8)
        ax.legend(fontsize=7, loc="upper right")
    conditions = tables[next(iter(tables))][0]["conditions"]
    fig.suptitle(f"{chapter} — {conditions.split(';')[0]}, {conditions.rsplit(';', 1)[-1].strip()}", fontsize=10)
    fig.tight_layout()
    fig.savefig(png, dpi=110)
    plt.close(fig)


def plot_sweep(path, png, md):
    """A SizeSweep CSV: one panel per title, GB/s against n (log scale), kernel and CUB, cold and hot."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sweeps = read_tables(path)
    fig, axes = plt.subplots(len(sweeps), 1, figsize=(9, 3.6 * len(sweeps)), squeeze=False)
    lines = []
    for ax, (title, rows) in zip(axes[:, 0], sweeps.items()):
        kernel, reference = rows[0]["kernel"], rows[0]["reference"]
        lines += [f"### {title}: {kernel} against {reference}\n",
                  "| n | cache | kernel ms | reference ms | vs reference |", "|---:|---|---:|---:|---:|"]
        for cache, style in (("cold", "-"), ("hot", "--")):
            part = [r for r in rows if r["cache"] == cache]
            n = [int(r["n"]) for r in part]
            for name, column, color in ((kernel, "kernel_ms", "#4c72b0"), (reference, "reference_ms", "#c44e52")):
                gbps = [float(r["bytes"]) / (float(r[column]) * 1e6) for r in part]
                ax.plot(n, gbps, style, color=color, marker="o", markersize=3, label=f"{name}, {cache}")
        for r in rows:
            lines.append(f"| {r['n']} | {r['cache']} | {float(r['kernel_ms']):.4f} | {float(r['reference_ms']):.4f} | "
                         f"{float(r['vs_reference']):.2f}x |")
        lines.append(f"\ncold: L2 flushed before every timed run; hot: the same call repeated (the input stays in L2 when it fits); either way the GPU time of the call, without the host's launch time. {rows[0]['conditions']}\n")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("n (elements)", fontsize=8)
        ax.set_ylabel("GB/s", fontsize=8)
        ax.set_title(title, fontsize=9)
        ax.legend(fontsize=7)
    fig.suptitle(rows[0]["conditions"].split(";")[0] + " — " + rows[0]["conditions"].rsplit(";", 1)[-1], fontsize=9)
    fig.tight_layout()
    fig.savefig(png, dpi=110)
    plt.close(fig)
    md.write_text(f"# {path.stem}: measured\n\n" + "\n".join(lines) + "\n")


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    build, out = Path(sys.argv[1]), Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    sources = sorted(build.rglob("[0-9][0-9]_*.csv")) if build.is_dir() else []
    if not sources:
        sys.exit(f"plot_results: no chapter CSV under {build} (run `meson test -C {build} --benchmark` first)")
    for src in sources:
        if src.resolve() != (out / src.name).resolve():
            shutil.copy(src, out / src.name)
        header = (out / src.name).read_text().split("\n", 1)[0].split(",")
        if "cache" in header:  # a course::SizeSweep
            plot_sweep(out / src.name, out / f"{src.stem}.png", out / f"{src.stem}.md")
            print(f"{src.stem}: {out / (src.stem + '.png')}, {out / (src.stem + '.md')}")
        elif "is_reference" in header:  # a course::BenchTable
            tables = read_tables(out / src.name)
            (out / f"{src.stem}.md").write_text(f"# {src.stem}: measured\n\n" + markdown(tables))
            plot(tables, src.stem, out / f"{src.stem}.png")
            print(f"{src.stem}: {out / (src.stem + '.png')}, {out / (src.stem + '.md')}")
        # other extra tables (05's launch costs) are copied as they are


if __name__ == "__main__":
    main()
