#!/usr/bin/env bash
# A real one-node Slurm on this machine (root, Debian: slurm-wlm and munge; no systemd, no cgroups), then a class
# graded through it: tools/grade.py --class CLASS --slurm --submit, the array and its merge job waited for, and
# the merged gradebook compared with EXPECTED (the same class graded with --class, the same seed and options).
# One array task (the last) is cancelled before it runs: its student must come back as a grader-error row.
#
#   tests/grading/slurm_ci.sh CLASS OUT EXPECTED_GRADEBOOK CANCELLED_STUDENT [grade.py options...]
set -euo pipefail
class=$1 out=$2 expected=$3 cancelled=$4; shift 4
root=$(cd "$(dirname "$0")/../.." && pwd)
host=$(hostname -s)

# MUNGE: a key, the daemon as its own user.
install -d -o munge -g munge -m 0700 /etc/munge /var/lib/munge /var/log/munge
install -d -o munge -g munge -m 0755 /run/munge
[ -s /etc/munge/munge.key ] || { dd if=/dev/urandom bs=1 count=1024 of=/etc/munge/munge.key 2> /dev/null; }
chown munge:munge /etc/munge/munge.key && chmod 0400 /etc/munge/munge.key
pgrep -x munged > /dev/null || runuser -u munge -- /usr/sbin/munged
munge -n | unmunge > /dev/null || { echo "munge does not work"; exit 1; }

# Slurm: one node, this machine's CPUs, no cgroups (proctrack/linuxproc, task/none), state under /var/spool.
cpus=$(nproc)
memory=$(( $(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 - 512 ))
install -d -m 0755 /etc/slurm /var/spool/slurmctld /var/spool/slurmd /var/log/slurm
cat > /etc/slurm/slurm.conf <<CONF
ClusterName=ci
SlurmctldHost=$host
SlurmUser=root
AuthType=auth/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
NodeName=$host CPUs=$cpus RealMemory=$memory State=UNKNOWN
PartitionName=ci Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
pkill -x slurmctld || true; pkill -x slurmd || true; sleep 1
/usr/sbin/slurmctld -c   # a clean start: no jobs of an earlier run
/usr/sbin/slurmd
for _ in $(seq 60); do sinfo -h -o %T 2> /dev/null | grep -qx idle && break; sleep 1; done
sinfo -h -o %T | grep -qx idle || { sinfo; tail -20 /var/log/slurm/slurmctld.log /var/log/slurm/slurmd.log; exit 1; }
echo "slurm: one node ($host, $cpus CPUs) up: $(sinfo -h -o '%P %a %D %T')"

# The class through it: grade.py --slurm --submit. Each array task takes every CPU, so the tasks run one after
# the other, and the cancelled student's (the last) is still pending when it is cancelled.
rm -rf "$out"
python3 "$root/tools/grade.py" --class "$class" --out "$out" --slurm --submit --slurm-gpus 0 --slurm-cpus "$cpus" \
    "$@" > "$out.submit.log"
array=$(grep -o "array job [0-9]*" "$out.submit.log" | awk '{print $3}')
merge=$(grep -o "merge job [0-9]*" "$out.submit.log" | awk '{print $3}')
index=$(awk -F'\t' -v s="$cancelled" '$2 == s {print NR - 1}' "$out/slurm/submissions.tsv")
[ -n "$array" ] && [ -n "$merge" ] && [ -n "$index" ] || { cat "$out.submit.log"; echo "not submitted"; exit 1; }
scancel "${array}_$index"
start=$SECONDS
while squeue -h -j "$array,$merge" 2> /dev/null | grep -q .; do
    [ $((SECONDS - start)) -lt 3000 ] || { squeue; echo "the jobs did not end within 50 minutes"; exit 1; }
    sleep 5
done
echo "slurm: array $array and merge $merge ended in $((SECONDS - start)) s"
grep -q "grader-error" "$out/$cancelled/grade.json" ||
    { echo "the cancelled array task's student is not a grader-error row"; exit 1; }
# Every other row as --class graded it: the same points, flags and seed.
python3 - "$expected" "$out/gradebook.csv" "$cancelled" <<'PY'
import csv, sys
expected = {r["student"]: r for r in csv.DictReader(open(sys.argv[1]))}
got = {r["student"]: r for r in csv.DictReader(open(sys.argv[2]))}
if set(expected) != set(got):
    sys.exit(f"students differ: {sorted(set(expected) ^ set(got))}")
bad = [s for s in got if s != sys.argv[3] and got[s] != expected[s]]
if bad:
    sys.exit("rows differ from the --class gradebook: " + ", ".join(bad))
print(f"slurm: {len(got)} rows, each as --class graded it, {sys.argv[3]} a grader error")
PY
