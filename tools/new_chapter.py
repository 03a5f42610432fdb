#!/usr/bin/env python3
"""A new GPU chapter with the canonical files (tools/lint_chapters.py; CONTRIBUTING.md, "A GPU chapter").

    python3 tools/new_chapter.py NN_name TOPIC [--course DIR] [--template 02_neighbored]

Copies the template chapter (default 02_neighbored, the smallest GPU chapter: two tasks, one launcher each)
under the new name, its topic and task numbers renamed throughout (file names, code, README; its kernels and
launchers keep their names), and registers it: the top-level meson.build's chapter list,
subprojects/<NN_name>, tools/grading/student_files.json. The result builds, passes the lint and runs the
template's lesson: replace the lesson (the header's task statements, the given code, the kernels, the checks,
the README) and write tests/mutants/<NN_name>.toml before it is taught.
"""
import argparse
import json
import re
import shutil
import sys
from pathlib import Path

from lint_chapters import camel, meson_var

ROOT = Path(__file__).resolve().parent.parent
SKIP = {".wraplock"}


def template_topic(chapter):
    topic = meson_var((chapter / "meson.build").read_text(), "topic")
    if topic is None:
        sys.exit(f"new_chapter: {chapter}/meson.build sets no topic")
    return topic


def rename_text(text, old, new):
    """old/new: (chapter dir, topic, chapter number)."""
    (old_dir, old_topic, old_nn), (new_dir, new_topic, new_nn) = old, new
    text = text.replace(old_dir, new_dir)
    # names, not prose: the topic as a file stem or an identifier's first word, CamelCase before a capital
    text = re.sub(rf"\b{old_topic}(?=_|'|\.(?:hpp|cuh|cu|cpp)\b)", new_topic, text)
    text = re.sub(rf"\b{camel(old_topic)}(?=[A-Z])", camel(new_topic), text)
    text = re.sub(rf"(?<![\d.]){old_nn}\.(\d|lesson)", rf"{new_nn}.\1", text)
    text = re.sub(rf"\b(Chapter|chapter|Task|task)(s?) {old_nn}\b", rf"\1\2 {new_nn}", text)
    return text


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("name", help="the chapter's directory, NN_name (e.g. 08_segmented_scan)")
    ap.add_argument("topic", help="its topic: the stem of its files and programs (e.g. segmented_scan)")
    ap.add_argument("--course", default=str(ROOT), help="the course to add it to (default: this one)")
    ap.add_argument("--template", default="02_neighbored", help="the chapter copied (default 02_neighbored)")
    args = ap.parse_args()
    if not re.fullmatch(r"\d\d_[a-z][a-z0-9_]*", args.name):
        ap.error("the name is NN_words: two digits, an underscore, lower-case words (e.g. 08_segmented_scan)")
    if not re.fullmatch(r"[a-z][a-z0-9]*(_[a-z0-9]+)*", args.topic):
        ap.error("the topic is lower-case words joined by underscores (e.g. segmented_scan)")
    course = Path(args.course).resolve()
    template, target = course / args.template, course / args.name
    if not (template / "meson.build").exists():
        ap.error(f"no chapter {args.template} in {course}")
    if target.exists() or any(p.name[:3] == args.name[:3] for p in course.glob("[0-9][0-9]_*")):
        ap.error(f"{args.name}: a chapter with this name or number exists in {course}")
    old = (args.template, template_topic(template), args.template[:2])
    new = (args.name, args.topic, args.name[:2])

    for path in sorted(template.rglob("*")):
        rel = path.relative_to(template)
        if rel.name in SKIP or (rel.parts[0] == "subprojects" and len(rel.parts) > 2):
            continue
        dest = target / rename_text(str(rel), old, new)
        dest.parent.mkdir(parents=True, exist_ok=True)
        if path.is_symlink():
            dest.symlink_to(path.readlink())
        elif path.is_file():
            dest.write_text(rename_text(path.read_text(), old, new))
            dest.chmod(path.stat().st_mode)
        elif path.is_dir():
            dest.mkdir(exist_ok=True)

    top = course / "meson.build"
    text = top.read_text()
    chapters = re.search(r"chapters = \[\n((?:  '[^']+',\n)+)\]", text)
    names = sorted(re.findall(r"'([^']+)'", chapters.group(1)) + [args.name])
    top.write_text(text.replace(chapters.group(0), "chapters = [\n" + "".join(f"  '{n}',\n" for n in names) + "]"))
    (course / "subprojects" / args.name).symlink_to(Path("..") / args.name)
    manifest_path = course / "tools" / "grading" / "student_files.json"
    manifest = json.loads(manifest_path.read_text())
    manifest[args.name] = [rename_text(f, old, new) for f in manifest[args.template]]
    manifest = {k: manifest[k] for k in ["_comment"] + sorted(k for k in manifest if not k.startswith("_"))}
    manifest_path.write_text(json.dumps(manifest, indent=2) + "\n")

    print(f"{target}: chapter {new[2]} from {args.template}, topic '{args.topic}' (files {args.topic}.hpp, "
          f"{args.topic}_given.cuh, {args.topic}_launch.cu, {args.topic}_progression.hpp, {args.topic}_problem.hpp, "
          f"{args.topic}_runner.cpp, starter/ and solution/{args.topic}_student.cuh, checks.cpp, demo.cpp, bench.cpp, "
          "README.md)")
    print("registered in meson.build, subprojects/ and tools/grading/student_files.json. Next: replace the lesson "
          f"(task statements in {args.topic}.hpp, kernels, checks, README), write tests/mutants/{args.name}.toml, "
          "then run python3 tools/lint_chapters.py")


if __name__ == "__main__":
    main()
