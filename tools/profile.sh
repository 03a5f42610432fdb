#!/usr/bin/env bash
# Nsight Compute on one chapter's kernels, printing only the metrics that chapter's lesson is about.
#
#   tools/profile.sh 03_interleaved [build] [KERNEL ...]
#       build: a configured build directory (default ./build); KERNEL: names from the chapter's progression
#       table (`<demo> --list` prints them), to profile only those; default: all of them.
#
# It profiles the chapter's demo (2^24 elements; 2^26 ints or 2^28 bytes where DRAM throughput is the metric,
# so that the input does not fit in the 50-60 MiB L2) - one profiled launch per kernel name - and prints:
#   02  branch efficiency (% of branch targets uniform across the warp) and divergent branch targets
#   03  shared-memory bank conflicts of loads and stores, and warp instructions executed (the modulo's cost)
#   04, 06, 07  achieved DRAM throughput as % of the peak, and the kernel's duration
#   05  the number of device-side launches (counted by the chapter's own status word; ncu itself does not
#       profile the child grids of dynamic parallelism) and the top-level kernels' duration
set -euo pipefail
chapter=${1:?usage: tools/profile.sh NN_chapter [build] [KERNEL ...]}
build=${2:-build}
shift $(( $# < 2 ? $# : 2 ))
kernels=()
for k in "$@"; do kernels+=(--kernel "$k"); done
command -v ncu > /dev/null || { echo "profile.sh: Nsight Compute (ncu) was not found on PATH; it comes with the CUDA Toolkit (e.g. /usr/local/cuda/bin) or as the nsight-compute package" >&2; exit 2; }
dir=$build/subprojects/$chapter/bin
[ -d "$dir" ] || dir=$build/bin  # a chapter built alone
dram=dram__throughput.avg.pct_of_peak_sustained_elapsed,gpu__time_duration.sum
n=2^24
case $chapter in
02_*) demo=neighbored_demo
      metrics=smsp__sass_average_branch_targets_threads_uniform.pct,smsp__sass_branch_targets_threads_divergent.sum,gpu__time_duration.sum ;;
03_*) demo=interleaved_demo
      metrics=l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,smsp__inst_executed.sum,gpu__time_duration.sum ;;
04_*) demo=unroll_warp_demo metrics=$dram n=2^26 ;;
05_*) demo=nested_demo metrics=gpu__time_duration.sum n=2^20 ;;
06_*) demo=histogram_demo metrics=$dram n=2^28 ;;
07_*) demo=scan_demo metrics=$dram n=2^26 ;;
*) echo "profile.sh: no GPU kernels to profile in '$chapter'" >&2; exit 2 ;;
esac
[ -x "$dir/$demo" ] || { echo "profile.sh: $dir/$demo not built (meson setup/compile first)" >&2; exit 2; }
if [ "$chapter" = 05_nested_dynamic ]; then "$dir/$demo" --n "$n" --seed 1 "${kernels[@]}" | grep -i "launch" || true; fi
# --launch-count per kernel name: every distinct kernel once, after the demo's warm-up launch.
ncu --metrics "$metrics" --kernel-id ::regex:.:2 --csv --page raw "$dir/$demo" --n "$n" --seed 1 "${kernels[@]}" 2>/dev/null |
python3 -c '
import csv, sys
metrics = sys.argv[1].split(",")
rows = list(csv.reader(sys.stdin))
start = next((i for i, r in enumerate(rows) if "Kernel Name" in r), None)
if start is None: sys.exit("profile.sh: ncu printed no metrics (is ncu allowed to read the counters here?)")
head, units, data = rows[start], rows[start + 1], [r for r in rows[start + 2:] if len(r) == len(rows[start])]
cols = [head.index(m) for m in metrics if m in head]
name = head.index("Kernel Name")
seen = set()
for r in data:
    k = r[name].split("(")[0]
    if k in seen: continue
    seen.add(k)
    print(k)
    for i in cols: print("    " + head[i].ljust(62) + (r[i] + " " + units[i]).rjust(18))
' "$metrics"
