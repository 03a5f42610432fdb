#!/usr/bin/env python3
"""The course's vocabulary, checked: every GPU chapter is built from the same files under the same names.

    python3 tools/lint_chapters.py [CHAPTER_DIR ...]     # default: every NN_* chapter of this repository

A GPU chapter (its meson.build sets topic = '<topic>' and not host_only) must have:
  files      <topic>.hpp (the declarations and the task statements), <topic>_given.cuh, <topic>_launch.cu,
             <topic>_progression.hpp, <topic>_runner.cpp, starter/ and solution/<topic>_student.cu[h],
             checks.cpp, demo.cpp, bench.cpp, README.md
  steps      each progression table in <topic>_progression.hpp is `<Topic>[Part]Step <topic>[_part]_progression[]`,
             its type declared there as `using <Topic>[Part]Step = course::Step<...>`; no course::Step<...>
             is spelled anywhere else
  workspace  a type that keeps a launcher's state between calls is named <Topic>Workspace
  launches   a host launch (<<<...>>>) sits only in a *_launch.cu file, in <topic>_race_demo.cu or in a
             pitfalls/ program; in the student's file only where meson.build declares why
             (student_launches = '...': chapter 05's device-side launches, 07.3's recursion over tile levels)
Exits 1 with one line per breach (file:line: rule: what), 0 when every chapter keeps the rules.
"""
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def camel(topic):
    return "".join(part.capitalize() for part in topic.split("_"))


def meson_var(text, name):
    m = re.search(rf"^{name}\s*=\s*'([^']*)'", text, re.M)
    return m.group(1) if m else None


def code_lines(path):
    """(line number, text without // comments and string literals) of a C++/CUDA file."""
    for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
        line = re.sub(r'"(?:\\.|[^"\\])*"', '""', line)
        yield number, line.split("//", 1)[0]


def lint(chapter):
    problems = []
    build = chapter / "meson.build"
    if not build.exists():
        return [f"{chapter}: no meson.build"]
    text = build.read_text()
    topic = meson_var(text, "topic")
    if topic is None:
        return [f"{build}: names: no topic = '...'"]
    if re.search(r"^host_only\s*=\s*true", text, re.M):
        return []
    Topic = camel(topic)

    def bad(path, line, rule, what):
        where = path.relative_to(chapter.parent) if path.is_relative_to(chapter.parent) else path
        problems.append(f"{where}{':' + str(line) if line else ''}: {rule}: {what}")

    required = [f"{topic}.hpp", f"{topic}_given.cuh", f"{topic}_launch.cu", f"{topic}_progression.hpp",
                f"{topic}_runner.cpp", "checks.cpp", "demo.cpp", "bench.cpp", "README.md"]
    for name in required:
        if not (chapter / name).exists():
            bad(chapter / name, 0, "files", f"missing (a GPU chapter has {', '.join(required)})")
    students = {v: [p for p in (chapter / v).glob(f"{topic}_student.cu*")] for v in ("starter", "solution")}
    for variant, found in students.items():
        if not found:
            bad(chapter / variant, 0, "files", f"no {variant}/{topic}_student.cu or .cuh")

    sources = sorted(p for p in chapter.rglob("*") if p.suffix in (".hpp", ".cuh", ".cu", ".cpp")
                     and "subprojects" not in p.parts)
    progression = chapter / f"{topic}_progression.hpp"
    step_type = re.compile(rf"^{Topic}(?:[A-Z][a-z]*)*Step$")
    table_name = re.compile(rf"^{topic}(?:_[a-z]+)*_progression$")
    aliases = set()
    for path in sources:
        for number, line in code_lines(path):
            m = re.search(r"using\s+(\w+)\s*=\s*course::Step<", line)
            if m:
                if path != progression:
                    bad(path, number, "steps", f"the Step type {m.group(1)} is declared outside {progression.name}")
                elif not step_type.match(m.group(1)):
                    bad(path, number, "steps", f"the Step type {m.group(1)} is not named {Topic}[Part]Step")
                aliases.add(m.group(1))
            elif "course::Step<" in line:
                bad(path, number, "steps", f"course::Step<...> spelled out: use the chapter's {Topic}...Step")
            m = re.search(r"\b(\w+)\s+(\w+)\[\]\s*=", line)
            if m and path == progression and m.group(1).endswith("Step"):
                if not table_name.match(m.group(2)):
                    bad(path, number, "steps", f"the table {m.group(2)} is not named {topic}[_part]_progression")
                if m.group(1) not in aliases:
                    bad(path, number, "steps", f"the table {m.group(2)} is of {m.group(1)}, not a Step type "
                                               f"declared in {progression.name}")
            m = re.search(r"\b(?:struct|class)\s+(\w*(?:Workspace|Scratch))\b", line)
            if m and m.group(1) != f"{Topic}Workspace":
                bad(path, number, "workspace", f"{m.group(1)}: a launcher's state between calls is {Topic}Workspace")
    if progression.exists() and not any(table_name.match(m) for m in
                                         re.findall(r"(\w+)\[\]\s*=", progression.read_text())):
        bad(progression, 0, "steps", f"no table named {topic}_progression")

    student_launches = meson_var(text, "student_launches")
    student_files = {p for found in students.values() for p in found}
    for path in sources:
        allowed = (path.name.endswith("_launch.cu") or path.name == f"{topic}_race_demo.cu"
                   or path.parent.name == "pitfalls" or (path in student_files and student_launches))
        if allowed:
            continue
        for number, line in code_lines(path):
            if "<<<" in line:
                where = ("the student's file (declare why in meson.build: student_launches = '...')"
                         if path in student_files else path.name)
                bad(path, number, "launches", f"a launch in {where}; launches live in *_launch.cu")
    return problems


def main():
    chapters = [Path(a).resolve() for a in sys.argv[1:]] or sorted(p for p in ROOT.glob("[0-9][0-9]_*") if p.is_dir())
    problems = [line for chapter in chapters for line in lint(chapter)]
    if problems:
        print("\n".join(problems))
        sys.exit(f"lint_chapters: {len(problems)} breach(es) of the course's rules (tools/lint_chapters.py)")
    print(f"lint_chapters: {len(chapters)} chapters keep the course's rules (files, steps, workspace, launches)")


if __name__ == "__main__":
    main()
