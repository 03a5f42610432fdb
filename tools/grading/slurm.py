"""A class on a Slurm cluster: one array task per submission, each on one GPU, then one merge step.

The scheduler does the scheduling: `--array` runs the submissions, `--gres=gpu:1` gives each its own GPU,
`--dependency=afterany` starts the merge once every array task has ended (failed ones included). The merge
gives a submission whose array task left no grade.json (it failed, ran out of time or was cancelled) a row of
its own, a grader error, so that no student goes missing from the gradebook.
"""
import shlex
import subprocess
from pathlib import Path

ARRAY = """#!/bin/bash
# One array task per submission (listed in submissions.tsv): grade it on one GPU, in a trusted tree of its own.
#SBATCH --job-name=grade-cuda-course
#SBATCH --array=0-{last}
{gres}#SBATCH --cpus-per-task={cpus}
#SBATCH --time={time}
#SBATCH --output={logs}/%A_%a.log
{extra}set -euo pipefail
line=$(sed -n "$((SLURM_ARRAY_TASK_ID + 1))p" {tsv})
submission=${{line%%$'\\t'*}}
student=${{line#*$'\\t'}}
exec python3 {grade} --submission "$submission" --student "$student" --out {out} {options}
"""

MERGE = """#!/bin/bash
# After every array task has ended (afterany: failed ones too): gradebook.csv, summary.html and the leaderboard
# from the grade.json files.
#SBATCH --job-name=grade-cuda-course-merge
#SBATCH --time=00:10:00
#SBATCH --output={logs}/merge-%j.log
{extra}set -euo pipefail
exec python3 {grade} --merge {out}{merge_options}
"""

SUBMIT = """#!/bin/bash
# Submits the array, then the merge with a dependency on it.
set -euo pipefail
cd "$(dirname "$0")"
array=$(sbatch --parsable grade-array.sbatch)
array=${{array%%;*}}
merge=$(sbatch --parsable --dependency=afterany:$array merge.sbatch)
echo "submitted: array job $array ({count} tasks), merge job ${{merge%%;*}} after it"
"""


def write_jobs(entries, out_root, grade_script, options):
    """Writes out_root/slurm/{submissions.tsv, grade-array.sbatch, merge.sbatch, submit.sh}; returns the folder."""
    folder = out_root / "slurm"
    (folder / "logs").mkdir(parents=True, exist_ok=True)
    tsv = folder / "submissions.tsv"
    tsv.write_text("".join(f"{Path(p).resolve()}\t{s}\n" for p, s in entries))
    passed = ["--gpu-arch", options.gpu_arch, "--chapter-timeout", str(options.chapter_timeout),
              "--build-timeout", str(options.build_timeout)] + (["--jobs", str(options.jobs)] if options.jobs else [])
    passed += ["--seed", str(options.seed), "--uncommitted", options.uncommitted]
    if options.worktree:
        passed.append("--worktree")
    if options.no_lesson:
        passed.append("--no-lesson")
    if options.no_performance:
        passed.append("--no-performance")
    if options.partial:
        passed.append("--partial")
    extra = "".join(f"#SBATCH {o}\n" for o in options.slurm_option)
    q = shlex.quote
    fields = dict(logs=q(str(folder / "logs")), extra=extra, grade=q(str(grade_script)), out=q(str(out_root)))
    (folder / "grade-array.sbatch").write_text(ARRAY.format(
        last=len(entries) - 1, cpus=options.slurm_cpus, time=options.slurm_time, tsv=q(str(tsv)),
        gres=f"#SBATCH --gres=gpu:{options.slurm_gpus}\n" if options.slurm_gpus else "",
        options=" ".join(q(o) for o in passed), **fields))
    (folder / "merge.sbatch").write_text(MERGE.format(
        merge_options=" --leaderboard-names" if options.leaderboard_names else "", **fields))
    (folder / "submit.sh").write_text(SUBMIT.format(count=len(entries)))
    for name in ("grade-array.sbatch", "merge.sbatch", "submit.sh"):
        (folder / name).chmod(0o755)
    return folder


def submit(folder):
    return subprocess.run(["bash", str(folder / "submit.sh")], check=True, capture_output=True, text=True).stdout
