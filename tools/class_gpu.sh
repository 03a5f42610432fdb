#!/usr/bin/env bash
# Your checks of one chapter on the class's GPU cluster (Slurm), from a login node that shares your home folder
# with the GPU nodes; the same per-task lines as `meson test` on your own machine:
#
#   tools/class_gpu.sh 03_interleaved                      # one GPU, the cluster's default partition
#   tools/class_gpu.sh 03_interleaved --partition=gpu      # any srun option after the chapter
#
# The job rebuilds what changed in your `build` folder (./setup.sh made it) and runs the chapter's checks on
# the node. CLASS_GPUS=0 asks for no GPU (a cluster without one: the GPU tasks then SKIP, saying so).
set -euo pipefail
cd "$(dirname "$0")/.."
chapter=${1:-}
[ -n "$chapter" ] && [ -d "$chapter" ] || {
    echo "usage: tools/class_gpu.sh CHAPTER [srun options]; CHAPTER one of: $(ls -d 0?_* | tr '\n' ' ')" >&2; exit 2; }
shift
[ -f build/meson-info/meson-info.json ] || { echo "no configured build folder here: run ./setup.sh first" >&2; exit 2; }
command -v srun > /dev/null || { echo "srun not found: run this on the class cluster's login node" >&2; exit 2; }
gpus=${CLASS_GPUS:-1}
gres=()
[ "$gpus" = 0 ] || gres=(--gres="gpu:$gpus")
exec srun --job-name="checks-$chapter" --ntasks=1 "${gres[@]}" "$@" \
    meson test -C build --suite "$chapter" --print-errorlogs
