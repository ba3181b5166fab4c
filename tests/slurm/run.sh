#!/usr/bin/env bash
# make test-slurm: a sweep on the real engines (issue 13).
#
# 1. Slurm: a one-node cluster (scripts/local-slurm.sh), a 4-task job array of a sweep
#    (examples/slurm/sweep.sbatch), one task scancelled while it runs, only the shards that
#    `merge --grid` finds missing resubmitted, and the merged JSONL and CSV compared byte
#    for byte with an unsharded run of the same grid; then the line `sweep --plan --pack 2`
#    prints (its --time, its %K throttle, 2 shards a task through GNU parallel) run as
#    printed, and the same comparison.
# 2. GNU parallel: the same 4 shards with --joblog, one SIGKILLed while it writes, its last
#    line then torn in half (what a kill inside the write leaves), the same parallel line
#    rerun with --resume-failed (only that shard reruns, with --resume), and the same
#    byte-for-byte comparison.
# Missing work is found from the shard files (merge), never from exit codes or sacct
# (shared/notes/slurm-local.md). Every wait is bounded by TEST_SLURM_TIMEOUT seconds.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
ROOT=$PWD
TIMEOUT=${TEST_SLURM_TIMEOUT:-300}
SHARDS=4

say() { echo "test-slurm: $*"; }
fail() { echo "test-slurm: FAIL: $*" >&2; exit 1; }
wait_until() {
    local what=$1; shift
    local end=$((SECONDS + TIMEOUT))
    until "$@"; do
        [ $SECONDS -lt $end ] || fail "timed out after ${TIMEOUT}s waiting for $what"
        sleep 0.05
    done
}
lines() { if [ -f "$1" ]; then wc -l < "$1"; else echo 0; fi; }

BIN=${TASKASSIGN:-$ROOT/target/release/taskassign}
[ -x "$BIN" ] || cargo build --release --quiet --bin taskassign
export TASKASSIGN=$BIN

# The cluster is stopped at the end if this script started it (KEEP_SLURM=1 keeps it).
was_up=no
scontrol ping 2>/dev/null | grep -q UP && was_up=yes
WORK=$(mktemp -d /tmp/taskassign-test-slurm.XXXXXX)
cleanup() {
    rm -rf "$WORK"
    if [ "$was_up" = no ] && [ "${KEEP_SLURM:-0}" != 1 ]; then scripts/local-slurm.sh stop; fi
}
trap cleanup EXIT
scripts/local-slurm.sh start
GRID=$WORK/grid.toml
# 32 simulations of about 0.2 s each (2 x 10^6 jobs): long enough to kill a shard mid-run.
cat > "$GRID" <<'EOF'
command = "simulate"
[options]
policy = "tags"
dist = "bp:k=1,p=1e4,alpha={alpha}"
hosts = 2
load = "{load}"
cutoffs = "{s}"
jobs = "1e6"
replications = 2
threads = 1
[grid]
alpha = ["1", "1.25", "1.5", "2"]
load = ["0.3", "0.5", "0.6", "0.7"]
s = ["30", "60"]
EOF

say "reference: the unsharded sweep"
"$BIN" sweep "$GRID" --out "$WORK/ref" --threads 2 >/dev/null 2>&1
"$BIN" merge "$WORK/ref" --grid "$GRID" --out "$WORK/ref.jsonl" >/dev/null
[ "$(lines "$WORK/ref.jsonl")" = 32 ] || fail "the reference has $(lines "$WORK/ref.jsonl") lines, not 32"

# ---- Slurm --------------------------------------------------------------------------
OUT=$WORK/slurm
mkdir -p "$OUT/logs"
job=$(sbatch --parsable --array=0-$((SHARDS - 1)) --output="$OUT/logs/%A_%a.log" \
    examples/slurm/sweep.sbatch "$GRID" "$OUT" "$SHARDS")
say "submitted array job $job (shards 0-$((SHARDS - 1)))"
victim=1
vfile=$OUT/shard-00000$victim-of-00000$SHARDS.jsonl
task_running() { [ "$(squeue -h -j "${job}_$victim" -o %T 2>/dev/null)" = RUNNING ]; }
# Two lines written: the resumed shard must keep some points and recompute the rest.
has_lines() { [ "$(lines "$vfile")" -ge 2 ]; }
wait_until "task $victim to run" task_running
wait_until "task $victim to write two lines" has_lines
scancel "${job}_$victim"
at_cancel=$(lines "$vfile")
say "scancel ${job}_$victim after $at_cancel of 8 points"
[ "$at_cancel" -lt 8 ] || fail "task $victim had finished before scancel"
array_done() { [ -z "$(squeue -h -j "$job" -o %i 2>/dev/null)" ]; }
wait_until "array $job to finish" array_done
set +e
report=$("$BIN" merge "$OUT" --grid "$GRID" --out "$WORK/slurm.jsonl")
rc=$?
ids=$("$BIN" merge "$OUT" --grid "$GRID" --out "$WORK/slurm.jsonl" --format shards)
set -e
echo "$report" | sed 's/^/    /'
[ "$rc" = 1 ] || fail "merge --grid exited $rc with points missing (expected 1)"
[ "$ids" = "$victim" ] || fail "merge names shards '$ids' to rerun, expected '$victim'"
job2=$(sbatch --parsable --array="$ids" --output="$OUT/logs/%A_%a.log" \
    examples/slurm/sweep.sbatch "$GRID" "$OUT" "$SHARDS")
say "resubmitted --array=$ids as job $job2"
job=$job2
wait_until "array $job2 to finish" array_done
grep -h 'already_done' "$OUT/logs/${job2}_$victim.log" | sed 's/^/    resumed: /' || true
"$BIN" merge "$OUT" --grid "$GRID" --out "$WORK/slurm.jsonl" >/dev/null \
    || fail "merge still finds points missing after the resubmission"
cmp "$WORK/ref.jsonl" "$WORK/slurm.jsonl" || fail "Slurm JSONL differs from the unsharded run"
cmp "$WORK/ref.csv" "$WORK/slurm.csv" || fail "Slurm CSV differs from the unsharded run"
say "Slurm: merged JSONL and CSV byte-identical to the unsharded run ($(lines "$WORK/slurm.jsonl") points)"

# ---- Slurm, packed: the plan's own line -----------------------------------------------
# `sweep --plan --pack 2` prints an sbatch line with --time from its calibration, a %K
# throttle and 2 shards per task through GNU parallel (--cpus-per-task=2); it is run as
# printed, and its merge must again equal the unsharded run.
OUT=$WORK/packed
line=$("$BIN" sweep "$GRID" --plan --calibrate 2 --shards "$SHARDS" --pack 2 --out "$OUT" \
    | sed -n 's/^slurm  *//p')
case $line in
    *"--array=0-1%100 --time="*"--cpus-per-task=2 "*" $SHARDS 2") ;;
    *) fail "the packed plan's line is not what the plan promises: $line" ;;
esac
say "packed: $line"
job=$(eval "$line" | sed -n 's/^Submitted batch job //p')
[ -n "$job" ] || fail "the packed plan's line submitted nothing"
wait_until "packed array $job to finish" array_done
"$BIN" merge "$OUT" --grid "$GRID" --out "$WORK/packed.jsonl" >/dev/null \
    || fail "merge finds points missing after the packed array"
cmp "$WORK/ref.jsonl" "$WORK/packed.jsonl" || fail "packed JSONL differs from the unsharded run"
cmp "$WORK/ref.csv" "$WORK/packed.csv" || fail "packed CSV differs from the unsharded run"
say "Slurm packed 2 shards a task: merged JSONL and CSV byte-identical to the unsharded run"

# ---- GNU parallel -------------------------------------------------------------------
OUT=$WORK/parallel
mkdir -p "$OUT"
victim=2
vfile=$OUT/shard-00000$victim-of-00000$SHARDS.jsonl
# Each job records its pid (for the kill) and execs the sweep shard. A script rather than
# `sh -c '…'`: parallel joins its command words with spaces, so quotes inside one are lost.
cat > "$WORK/shard.sh" <<'SH'
#!/bin/sh
# usage: shard.sh BIN GRID OUT INDEX COUNT
echo $$ > "$3/pid-$4"
exec "$1" sweep "$2" --shard "$4/$5" --out "$3" --resume --threads 1 >> "$3/summary-$4"
SH
chmod +x "$WORK/shard.sh"
par() {
    parallel -j2 --joblog "$OUT/joblog" "$@" \
        "$WORK/shard.sh" "$BIN" "$GRID" "$OUT" {} "$SHARDS" ::: $(seq 0 $((SHARDS - 1)))
}
( rc=0; par >/dev/null 2>&1 || rc=$?; echo "$rc" > "$OUT/rc1" ) &
has_pid() { [ -s "$OUT/pid-$victim" ]; }
wait_until "shard $victim to start" has_pid
wait_until "shard $victim to write two lines" has_lines
pid=$(cat "$OUT/pid-$victim")
[ "$(readlink -f /proc/$pid/exe)" = "$(readlink -f "$BIN")" ] || fail "pid $pid is not the shard"
kill -KILL "$pid"
at_kill=$(lines "$vfile")
say "SIGKILL shard $victim (pid $pid) after $at_kill of 8 points"
[ "$at_kill" -lt 8 ] || fail "shard $victim had finished before the kill"
first_done() { [ -s "$OUT/rc1" ]; }
wait_until "the first parallel run" first_done
[ "$(cat "$OUT/rc1")" = 1 ] || fail "parallel exited $(cat "$OUT/rc1"), expected 1 (one job killed)"
signal=$(awk -F'\t' -v s=$((victim + 1)) 'NR > 1 && $1 == s {print $8}' "$OUT/joblog")
[ "$signal" = 9 ] || fail "the joblog says signal '$signal' for shard $victim, expected 9"
# What a kill inside the write leaves: the last line cut in half, without its newline.
python3 - "$vfile" <<'PY' 2>/dev/null || perl -e 'open F,"+<",$ARGV[0];local $/;$t=<F>;$t=~s/\n$//;$i=rindex($t,"\n")+1;truncate F,$i+int((length($t)-$i)/2);' "$vfile"
import sys
p = sys.argv[1]
t = open(p, "rb").read().rstrip(b"\n")
i = t.rfind(b"\n") + 1
open(p, "wb").write(t[: i + (len(t) - i) // 2])
PY
say "tore the last line of shard $victim: $(tail -c 40 "$vfile" | tr -d '\n')…"
par --resume-failed >/dev/null 2>&1 || fail "parallel --resume-failed did not complete"
summary=$OUT/summary-$victim
grep -E '^(already_done|computed|discarded_bytes)' "$summary" | sed 's/^/    resumed: /'
torn=$(awk '$1 == "discarded_bytes" {print $2}' "$summary")
[ -n "$torn" ] && [ "$torn" -gt 0 ] || fail "the resumed shard $victim discarded no torn line"
reruns=$(awk -F'\t' 'NR > 1' "$OUT/joblog" | wc -l)
[ "$reruns" = $((SHARDS + 1)) ] || fail "the joblog has $reruns jobs, expected $SHARDS + 1 rerun"
"$BIN" merge "$OUT" --grid "$GRID" --out "$WORK/parallel.jsonl" | sed 's/^/    /'
cmp "$WORK/ref.jsonl" "$WORK/parallel.jsonl" || fail "parallel JSONL differs from the unsharded run"
cmp "$WORK/ref.csv" "$WORK/parallel.csv" || fail "parallel CSV differs from the unsharded run"
say "parallel: merged JSONL and CSV byte-identical to the unsharded run ($(lines "$WORK/parallel.jsonl") points)"

say "3 passed, 0 failed"
