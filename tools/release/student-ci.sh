#!/usr/bin/env bash
# The student edition's CI (tools/release.py puts it at .ci/run): the README's two commands on a fresh machine -
# ./setup.sh (install, find the CUDA Toolkit, configure) and meson test -C build - then the points per chapter.
# It fails while a task fails; on a machine without a GPU the GPU tasks SKIP (not graded) and score 0.
set -euo pipefail
cd "$(dirname "$0")/.."
./setup.sh
export PATH="$HOME/.local/bin:/usr/local/bin:$PATH"  # where setup.sh's pipx puts Meson
status=0
meson test -C build --print-errorlogs || status=$?
python3 tools/grade.py build || true
exit $status
