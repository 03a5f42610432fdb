"""Opens a submission and takes the student's files from it, and nothing else.

A submission is a folder (a copy of the course), a git repository (its committed HEAD is graded; a bare
repository too), or a .tar.gz/.tgz/.tar/.zip archive of either. The course may sit one or two folders down.
"""
import shutil
import subprocess
import tarfile
import zipfile
from pathlib import Path, PurePosixPath

ARCHIVES = (".tar.gz", ".tgz", ".tar", ".zip")
# Never reported as ignored files: build outputs and tool caches.
_NOISE = ("build", ".git", "__pycache__", "grades", "packagecache", "doctest-")


def student_id(path):
    name = Path(path).name
    for ext in ARCHIVES + (".git",):
        if name.endswith(ext):
            return name[: -len(ext)]
    return name


def _safe_members(names):
    for name in names:
        p = PurePosixPath(name)
        if p.is_absolute() or ".." in p.parts:
            raise ValueError(f"unsafe path in archive: {name}")


def _unpack(archive, dest):
    if archive.name.endswith(".zip"):
        with zipfile.ZipFile(archive) as z:
            _safe_members(z.namelist())
            z.extractall(dest)
        return
    with tarfile.open(archive) as tar:
        members = [m for m in tar.getmembers() if m.isfile() or m.isdir()]  # no links, devices or fifos
        _safe_members(m.name for m in members)
        safe = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}  # Python >= 3.11.4
        tar.extractall(dest, members=members, **safe)


def _git_export(repo_args, dest):
    archive = subprocess.run(["git", *repo_args, "archive", "--format=tar", "HEAD"], capture_output=True)
    if archive.returncode != 0:
        return False
    dest.mkdir(parents=True, exist_ok=True)
    tar_path = dest.parent / (dest.name + ".tar")
    tar_path.write_bytes(archive.stdout)
    _unpack(tar_path, dest)
    tar_path.unlink()
    return True


def open_submission(path, scratch):
    """A folder holding the submission's files; returns (folder, how it was read)."""
    path = Path(path).resolve()
    dest = scratch / "submission"
    if dest.exists():
        shutil.rmtree(dest)
    if path.is_file() and path.name.endswith(ARCHIVES):
        dest.mkdir(parents=True)
        _unpack(path, dest)
        return dest, f"archive {path.name}"
    if (path / ".git").exists():
        if _git_export(["-C", str(path)], dest):
            return dest, "git repository (committed HEAD)"
        return path, "git repository without commits (working tree)"
    if (path / "HEAD").is_file() and (path / "objects").is_dir():
        if _git_export(["--git-dir", str(path)], dest):
            return dest, "bare git repository (HEAD)"
    if path.is_dir():
        return path, "folder"
    raise ValueError(f"{path}: not a folder, git repository or {'/'.join(ARCHIVES)} archive")


def find_course_root(folder, manifest, depth=3):
    """The folder (at most `depth` levels down) that holds the chapters' student files."""
    level = [folder]
    for _ in range(depth + 1):
        for d in level:
            if any((d / ch / f).is_file() for ch, files in manifest.items() for f in files):
                return d
        level = [c for d in level for c in sorted(d.iterdir()) if c.is_dir() and not c.is_symlink()
                 and not c.name.startswith(".")]
    return None


def take_student_files(root, manifest):
    """({(chapter, path): bytes} of the manifest's files found, [missing files as 'chapter/path'])."""
    found, missing = {}, []
    for chapter, files in manifest.items():
        for f in files:
            p = root / chapter / f if root else None
            if p is not None and p.is_file() and not p.is_symlink():
                found[(chapter, f)] = p.read_bytes()
            else:
                missing.append(f"{chapter}/{f}")
    return found, missing


def ignored_files(root, pristine_src, manifest, limit=50):
    """Files of the submission outside the manifest that differ from the instructor's tree (not used)."""
    if root is None:
        return []
    owned = {f"{ch}/{f}" for ch, files in manifest.items() for f in files}
    out = []
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root).as_posix()
        if not p.is_file() or p.is_symlink() or rel in owned:
            continue
        if any(part.startswith(_NOISE) for part in p.relative_to(root).parts):
            continue
        theirs = pristine_src / rel
        if not theirs.is_file() or theirs.read_bytes() != p.read_bytes():
            out.append(rel)
            if len(out) == limit:
                out.append("...")
                break
    return out
