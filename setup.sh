#!/usr/bin/env bash
# From a fresh clone to a configured build in one command:
#
#   ./setup.sh              # then: meson test -C build
#   ./setup.sh -Dgpu_arch=75,90 build-75-90   # other `meson setup` options and folder
#
# Installs what the course needs where it may: the Debian packages (as root, or with sudo when it asks no
# password), Meson through pipx (for root into /usr/local/bin, for anyone else into ~/.local/bin), finds the
# CUDA Toolkit's nvcc (PATH, $CUDA_HOME, /usr/local/cuda*, /opt/cuda) and configures the build with it. What it
# cannot install it names, in one message, and stops.
set -euo pipefail
cd "$(dirname "$0")"
original_path=$PATH
MESON=1.12.1    # tested; 1.4.0 is the oldest that works (older ones give nvcc no -MD)
PACKAGES=(ninja-build doctest-dev cmake pkg-config pipx bubblewrap)

say() { echo "setup: $*"; }
stop() { echo "setup: $*" >&2; exit 1; }

# 1. The Debian packages.
if command -v dpkg > /dev/null; then
    missing=()
    for p in "${PACKAGES[@]}"; do dpkg -s "$p" > /dev/null 2>&1 || missing+=("$p"); done
    if [ ${#missing[@]} -gt 0 ]; then
        if [ "$(id -u)" = 0 ]; then sudo=()
        elif command -v sudo > /dev/null && sudo -n true 2> /dev/null; then sudo=(sudo)
        else stop "these packages are missing: ${missing[*]}. Ask whoever administers this machine to run
    apt-get update && apt-get install -y ${missing[*]}
then run ./setup.sh again."
        fi
        say "installing ${missing[*]}"
        "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
        "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" > /dev/null
    fi
else
    for tool in ninja cmake pkg-config pipx; do
        command -v "$tool" > /dev/null || stop "$tool is missing (not a Debian system: install ninja, doctest, \
CMake, pkg-config and pipx with your package manager, then run ./setup.sh again)"
    done
fi

# 2. Meson 1.4.0 or newer, through pipx unless one is already there.
export PATH="$HOME/.local/bin:$PATH"
meson_ok() {
    command -v meson > /dev/null &&
        python3 -c 'import sys; v = tuple(int(x) for x in sys.argv[1].split(".")[:2]); sys.exit(v < (1, 4))' \
            "$(meson --version)"
}
if ! meson_ok; then
    say "installing Meson $MESON with pipx"
    if [ "$(id -u)" = 0 ]; then  # for every shell of the machine, before Debian's older /usr/bin/meson
        PIPX_HOME=/opt/pipx PIPX_BIN_DIR=/usr/local/bin pipx install --force "meson==$MESON" > /dev/null
        export PATH="/usr/local/bin:$PATH"
    else
        pipx install --force "meson==$MESON" > /dev/null
    fi
    meson_ok || stop "Meson $MESON did not install through pipx (see: pipx install meson==$MESON)"
fi

# 3. The CUDA Toolkit.
if ! command -v nvcc > /dev/null; then
    for dir in "${CUDA_HOME:-}/bin" "${CUDA_PATH:-}/bin" /usr/local/cuda/bin /usr/local/cuda-*/bin /opt/cuda/bin; do
        if [ -x "$dir/nvcc" ]; then export PATH="$dir:$PATH"; break; fi
    done
fi
command -v nvcc > /dev/null || stop "the CUDA Toolkit (nvcc) was not found on PATH, in \$CUDA_HOME or in \
/usr/local/cuda. Install the CUDA Toolkit 12 or newer (https://developer.nvidia.com/cuda-downloads), or put \
its bin folder on PATH, then run ./setup.sh again."
native=()
if ! PATH=$original_path command -v nvcc > /dev/null; then
    # Not on your PATH: the build must call nvcc by its full path, and Meson keeps it in a machine file it
    # finds again by name (~/.local/share/meson/native) whenever it reconfigures.
    machine_files=${XDG_DATA_HOME:-$HOME/.local/share}/meson/native
    mkdir -p "$machine_files"
    printf "[binaries]\ncuda = '%s'\n" "$(command -v nvcc)" > "$machine_files/cuda-course-nvcc.ini"
    native=(--native-file cuda-course-nvcc.ini)
fi

# 4. The build folder (the first argument that is not an option, else build).
folder=build
for arg in "$@"; do case $arg in -*) ;; *) folder=$arg ;; esac; done
options=()
for arg in "$@"; do case $arg in -*) options+=("$arg") ;; esac; done
if [ -f "$folder/meson-info/meson-info.json" ]; then
    meson setup --reconfigure "$folder" "${options[@]}" > "$folder.setup.log" 2>&1 || { cat "$folder.setup.log"; exit 1; }
else
    meson setup "$folder" "${native[@]}" "${options[@]}" > "$folder.setup.log" 2>&1 || { cat "$folder.setup.log"; exit 1; }
fi
rm -f "$folder.setup.log"
say "ready: $(meson --version | sed 's/^/Meson /'), $(nvcc --version | tail -1 | sed 's/^Build //'); $folder configured."
meson_dir=$(dirname "$(command -v meson)")
case ":$original_path:" in
    *":$meson_dir:"*) ;;
    *) say "Meson is in $meson_dir, which your shell's PATH lacks: first run  export PATH=\"$meson_dir:\$PATH\"" ;;
esac
say "next: meson test -C $folder"
