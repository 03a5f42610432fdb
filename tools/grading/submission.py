"""Opens a submission and takes the student's files from it, and nothing else.

A submission is a folder (a copy of the course), a git repository (its committed HEAD is graded, or its working
tree when the instructor asks; a bare repository too), or a .tar.gz/.tgz/.tar/.zip archive of either. The
course may sit one or two folders down. A folder or archive of the student files alone, without the course's
folders (what most learning platforms collect), is read by file name: each student file's name is unique.
"""
import json
import re
import shutil
import subprocess
import tarfile
import zipfile
from pathlib import Path, PurePosixPath

ARCHIVES = (".tar.gz", ".tgz", ".tar", ".zip")
# Never reported as ignored files: build outputs and tool caches.
_NOISE = ("build", ".git", "__pycache__", "grades", "packagecache", "doctest-", "course-edition.json")


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


# git runs with no configuration but ours: nothing of the submission's (.git/config, hooks, attributes, filters,
# alternates) is ever read as an instruction. Its objects and refs are copied into a fresh repository, and the
# committed files are read as raw blobs (git cat-file), never checked out or archived (both apply filters).
_GIT_ENV = {"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_TERMINAL_PROMPT": "0",
            "GIT_ATTR_NOSYSTEM": "1", "HOME": "/nonexistent", "PATH": "/usr/bin:/bin"}


def _git(git_dir, *args, check=True):
    done = subprocess.run(["git", "--git-dir", str(git_dir), "-c", "core.hooksPath=/dev/null",
                           "-c", "core.fsmonitor=false", *args], capture_output=True, env=_GIT_ENV, timeout=300)
    if check and done.returncode != 0:
        raise ValueError(f"git {args[0]}: {done.stderr.decode(errors='replace').strip()[:300]}")
    return done.stdout


def _copy_git_data(git_dir, fresh):
    """The submission's objects and refs (regular files only: no link, no alternates) into a new bare repo."""
    subprocess.run(["git", "init", "-q", "--bare", str(fresh)], check=True, env=_GIT_ENV, capture_output=True)
    for part in ("objects", "refs"):
        source = git_dir / part
        if not source.is_dir():
            continue
        for item in source.rglob("*"):
            rel = item.relative_to(git_dir)
            if item.is_symlink() or rel.as_posix() == "objects/info/alternates":
                continue
            if item.is_dir():
                (fresh / rel).mkdir(parents=True, exist_ok=True)
            elif item.is_file():
                (fresh / rel).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(item, fresh / rel)
    for name in ("packed-refs", "HEAD"):
        item = git_dir / name
        if item.is_file() and not item.is_symlink():
            shutil.copyfile(item, fresh / name)


def _git_export(git_dir, dest, scratch):
    """The files of HEAD's commit, as committed; False when there is no commit."""
    fresh = scratch / "git-copy.git"
    if fresh.exists():
        shutil.rmtree(fresh)
    _copy_git_data(git_dir, fresh)
    if subprocess.run(["git", "--git-dir", str(fresh), "rev-parse", "--verify", "-q", "HEAD^{commit}"],
                      capture_output=True, env=_GIT_ENV).returncode != 0:
        return False
    listing = _git(fresh, "ls-tree", "-r", "-z", "--full-tree", "HEAD").split(b"\0")
    dest.mkdir(parents=True, exist_ok=True)
    for entry in listing:
        if not entry:
            continue
        meta, _, raw_path = entry.partition(b"\t")
        mode, kind, sha = meta.decode().split()
        path = raw_path.decode("utf-8", "surrogateescape")
        if kind != "blob" or mode not in ("100644", "100755"):
            continue  # links and submodules are not taken
        _safe_members([path])
        target = dest / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(_git(fresh, "cat-file", "blob", sha))
    return True


COMMITTED_HEAD = "git repository (committed HEAD)"


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
    if (path / ".git").is_dir() and not (path / ".git").is_symlink():
        if _git_export(path / ".git", dest, scratch):
            return dest, COMMITTED_HEAD
        return path, "git repository without commits (working tree)"
    if (path / "HEAD").is_file() and (path / "objects").is_dir():
        if _git_export(path, dest, scratch):
            return dest, "bare git repository (HEAD)"
    if path.is_dir():
        return path, "folder"
    raise ValueError(f"{path}: not a folder, git repository or {'/'.join(ARCHIVES)} archive")


def _folders(folder, depth):
    """`folder` and the folders below it, level by level, at most `depth` down: no link, no hidden folder."""
    level = [folder]
    for _ in range(depth + 1):
        yield from level
        level = [c for d in level for c in sorted(d.iterdir()) if c.is_dir() and not c.is_symlink()
                 and not c.name.startswith(".")]


def find_course_root(folder, manifest, depth=3):
    """The folder (at most `depth` levels down) that holds the chapters' student files."""
    return next((d for d in _folders(folder, depth)
                 if any((d / ch / f).is_file() for ch, files in manifest.items() for f in files)), None)


def take_student_files(root, manifest):
    """({(chapter, path): bytes} of the manifest's files found, [missing files as 'chapter/path'])."""
    found, missing = {}, []
    inside = str(root.resolve()) + "/" if root else ""
    for chapter, files in manifest.items():
        for f in files:
            p = root / chapter / f if root else None
            # no link, also not through a linked folder: only a file that really is in the submission
            if p is not None and p.is_file() and not p.is_symlink() and str(p.resolve()).startswith(inside):
                found[(chapter, f)] = p.read_bytes()
            else:
                missing.append(f"{chapter}/{f}")
    return found, missing


def find_by_name(folder, manifest, depth=3):
    """For a submission without the course's folders: ({(chapter, path): bytes} of the student files found by
    name, [missing files as 'chapter/path'], [names found more than once, not taken])."""
    by_name = {}
    for d in _folders(folder, depth):
        for p in sorted(d.iterdir()):
            if p.is_file() and not p.is_symlink():
                by_name.setdefault(p.name, []).append(p)
    found, missing, ambiguous = {}, [], []
    for chapter, files in manifest.items():
        for f in files:
            candidates = by_name.get(PurePosixPath(f).name, [])
            if len(candidates) == 1:
                found[(chapter, f)] = candidates[0].read_bytes()
            else:
                missing.append(f"{chapter}/{f}")
                if candidates:
                    ambiguous.append(PurePosixPath(f).name)
    return found, missing, ambiguous


def working_tree_files(path, manifest):
    """A git folder's student files as its working tree holds them (uncommitted edits included)."""
    return take_student_files(find_course_root(Path(path).resolve(), manifest), manifest)


def edition_commit(root):
    """The commit a student edition was made from (its course-edition.json, tools/release.py), or None."""
    manifest = root / "course-edition.json" if root else None
    if manifest is None or not manifest.is_file() or manifest.is_symlink() or manifest.stat().st_size > (1 << 20):
        return None
    try:
        commit = json.loads(manifest.read_text()).get("commit")
    except (ValueError, UnicodeDecodeError, AttributeError):
        return None
    return commit if isinstance(commit, str) and re.fullmatch(r"[0-9a-f]{40}", commit) else None


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
