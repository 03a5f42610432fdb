#!/usr/bin/env python3
"""Places each chapter's fastest kernel, and CUB, on the roofline of the GPU the benchmarks ran on.

    python3 tools/plot_roofline.py docs/results            # writes docs/results/roofline.png, prints a table

From the benchmark CSVs of one run (NN_name.csv, as tools/plot_results.py copies them): for the first table of
each chapter (its largest n), the fastest course kernel and the reference call. Every primitive here does one
operation per element (an add, or one bin increment), so its arithmetic intensity is n / bytes moved (0.25 for a
reduction of ints, 0.125 for a scan of ints counting the read and the write, 1 for a histogram of bytes), and
its rate is n / time. The memory roof is the same run's device-to-device copy; the compute roof is the GPU's
32-bit integer rate, SMs x INT32 lanes per SM x the SM clock the run recorded (defaults: the H100's 132 SMs
and 64 INT32 lanes per SM, NVIDIA's Hopper whitepaper). Needs matplotlib.
"""
import argparse
import csv
import re
from pathlib import Path


def best_rows(path):
    """(fastest course kernel, reference) rows of the first table of a chapter's CSV."""
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    first = [r for r in rows if r["title"] == rows[0]["title"]]
    kernels = [r for r in first if r["is_reference"] != "1"]
    refs = [r for r in first if r["is_reference"] == "1"]
    return min(kernels, key=lambda r: float(r["median_ms"])), (refs[0] if refs else None)


def point(row):
    n, seconds = float(row["n"]), float(row["median_ms"]) * 1e-3
    return n / float(row["bytes"]), n / seconds


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("results", type=Path, help="the folder of the benchmark CSVs (docs/results)")
    ap.add_argument("--sms", type=int, default=132)
    ap.add_argument("--int32-lanes", type=int, default=64, help="32-bit integer lanes per SM")
    args = ap.parse_args()

    chapters = []
    for csv_path in sorted(args.results.glob("0[2-7]_*.csv")):
        if "sweep" in csv_path.name or "launch" in csv_path.name:
            continue
        best, ref = best_rows(csv_path)
        chapters.append((csv_path.stem, best, ref))
    conditions = chapters[0][1]["conditions"]
    clock_mhz = float(re.search(r"SM (\d+) MHz", conditions).group(1))
    compute = args.sms * args.int32_lanes * clock_mhz * 1e6
    copy_bytes = max(float(best["copy_gbps"]) for _, best, _ in chapters) * 1e9

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 5))
    xs = [2 ** (e / 4) for e in range(-16, 41)]
    ax.plot(xs, [min(compute, copy_bytes * x) for x in xs], color="black", linewidth=1.5,
            label=f"roof: copy {copy_bytes / 1e9:.0f} GB/s, INT32 {compute / 1e12:.1f} Tops/s")
    print("| chapter | kernel | intensity (ops/byte) | Gops/s | share of the roof | reference Gops/s |")
    print("|---|---|---|---|---|---|")
    for i, (chapter, best, ref) in enumerate(chapters):
        x, y = point(best)
        color = f"C{i}"
        ax.scatter([x], [y], color=color, zorder=3, label=f"{chapter}: {best['kernel']}")
        cells = [chapter, f"`{best['kernel']}`", f"{x:.3g}", f"{y / 1e9:.0f}",
                 f"{100 * y / min(compute, copy_bytes * x):.0f}%", ""]
        if ref:
            rx, ry = point(ref)
            ax.scatter([rx], [ry], color=color, marker="x", zorder=3)
            cells[-1] = f"{ry / 1e9:.0f}"
        print("| " + " | ".join(cells) + " |")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("arithmetic intensity (operations per byte moved)")
    ax.set_ylabel("operations per second")
    ax.set_title(f"{conditions.split(';')[0]}: each chapter's fastest kernel (dots) and CUB (crosses)", fontsize=9)
    ax.legend(fontsize=7, loc="lower right")
    ax.grid(True, which="major", alpha=0.3)
    fig.tight_layout()
    fig.savefig(args.results / "roofline.png", dpi=110)
    print(f"\nwrote {args.results / 'roofline.png'}")


if __name__ == "__main__":
    main()
