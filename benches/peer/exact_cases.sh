#!/usr/bin/env bash
# The exact-chain reference cases (JSQ(d) finite N, redundancy non-FCFS chains): one run of
# each through the binary, with its states, certified digits, wall seconds and peak memory
# (GNU time's maximum resident set). Makes the before/after table of the exact chains.
#
#   bash benches/peer/exact_cases.sh [BINARY] > table.md
#
# Each run is capped at TIMEOUT seconds (default 60) so that the table can be made on a
# shared machine; a capped run shows "timeout". DIGITS (default 12) is asked of both
# commands where they take --digits (older binaries' `jsq exact` has none: the digits
# column then counts the significant digits of mean_tasks as printed).
set -u
BIN=${1:-target/release/taskassign}
TIMEOUT=${TIMEOUT:-60}
DIGITS=${DIGITS:-12}
ONLY=${ONLY:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

jsq_has_digits=no
"$BIN" jsq exact --help 2>/dev/null | grep -q -- '--digits' && jsq_has_digits=yes

# name|arguments
cases=(
  "jsq N=2 d=2 l=0.95|jsq exact --model queues --servers 2 --d 2 --lambda 0.95"
  "jsq N=3 d=2 l=0.9|jsq exact --model queues --servers 3 --d 2 --lambda 0.9"
  "jsq N=3 d=3 l=0.95|jsq exact --model queues --servers 3 --d 3 --lambda 0.95"
  "jsq N=4 d=2 l=0.9|jsq exact --model queues --servers 4 --d 2 --lambda 0.9"
  "jsq N=4 d=4 l=0.95|jsq exact --model queues --servers 4 --d 4 --lambda 0.95"
  "jsq N=5 d=1 l=0.5|jsq exact --model queues --servers 5 --d 1 --lambda 0.5"
  "jsq N=5 d=1 l=0.9|jsq exact --model queues --servers 5 --d 1 --lambda 0.9"
  "jsq N=5 d=2 l=0.5|jsq exact --model queues --servers 5 --d 2 --lambda 0.5"
  "jsq N=5 d=2 l=0.9|jsq exact --model queues --servers 5 --d 2 --lambda 0.9"
  "jsq N=5 d=2 l=0.9 with|jsq exact --model queues --servers 5 --d 2 --lambda 0.9 --sampling with"
  "jsq N=5 d=2 l=0.95|jsq exact --model queues --servers 5 --d 2 --lambda 0.95"
  "jsq N=5 d=5 l=0.9|jsq exact --model queues --servers 5 --d 5 --lambda 0.9"
  "jsq N=5 d=5 l=0.95|jsq exact --model queues --servers 5 --d 5 --lambda 0.95"
  "jsq N=5 d=5 l=0.95 with|jsq exact --model queues --servers 5 --d 5 --lambda 0.95 --sampling with"
  "jsq N=5 d=2 l=0.95 b=10|jsq exact --model queues --servers 5 --d 2 --lambda 0.95 --buffer 10"
  "jsq pools N=5 d=2 l=3 B=8|jsq exact --model pools --servers 5 --d 2 --lambda 3 --buffer 8"
)
for p in ros lrf-fcfs mrf-fcfs lrf-ros mrf-ros; do
  cases+=(
    "N-model (0.1,1.7) $p|redundancy exact --system n-model --lambdas 0.1,1.7 --policy $p"
    "W-model (0.5,0.5,0.6) $p|redundancy exact --system w-model --lambdas 0.5,0.5,0.6 --policy $p"
    "W-model (0.6,0.6,0.6) $p|redundancy exact --system w-model --lambdas 0.6,0.6,0.6 --policy $p"
    "nested-3 load 0.9 $p|redundancy exact --servers 3 --class 1:0.4 --class 2:0.4 --class 1+2:0.6 --class 3:0.5 --class 1+2+3:0.8 --policy $p"
  )
done

echo "| case | states | digits | seconds | peak MB | method |"
echo "|---|---:|---:|---:|---:|---|"
for c in "${cases[@]}"; do
  name=${c%%|*}
  args=${c#*|}
  if [ -n "$ONLY" ] && ! echo "$name" | grep -q -- "$ONLY"; then continue; fi
  extra=""
  case "$args" in
    redundancy*) extra="--digits $DIGITS" ;;
    jsq*) [ "$jsq_has_digits" = yes ] && extra="--digits $DIGITS" ;;
  esac
  # shellcheck disable=SC2086
  /usr/bin/time -v -o "$tmp/time" timeout "$TIMEOUT" "$BIN" $args $extra --format json >"$tmp/out" 2>"$tmp/err"
  status=$?
  secs=$(awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,a,":"); s=0; for(i=1;i<=n;i++) s=s*60+a[i]; printf "%.1f", s}' "$tmp/time")
  mb=$(awk -F': ' '/Maximum resident set size/ {printf "%.0f", $2/1024}' "$tmp/time")
  if [ "$status" = 124 ]; then
    echo "| $name | | | >$TIMEOUT (timeout) | $mb | |"
    continue
  fi
  if [ "$status" != 0 ]; then
    msg=$(head -c 160 "$tmp/err" | tr '\n|' '  ')
    echo "| $name | | exit $status | $secs | $mb | $msg |"
    continue
  fi
  python3 - "$tmp/out" "$name" "$secs" "$mb" <<'PY'
import json, re, sys
r = json.load(open(sys.argv[1]))
name, secs, mb = sys.argv[2:5]
def sig(s):
    m = re.match(r"-?(\d)(?:\.(\d+))?e", s)
    return 1 + len(m.group(2) or "") if m else 0
digits = r.get("digits")
if digits is None:
    digits = sig(r.get("mean_tasks", ""))
states = r.get("states")
method = r.get("method", "")
if states is None:
    m = re.search(r"\((\d+) states", method)
    states = m.group(1) if m else ""
method = re.sub(r"\s*\(.*", "", method)[:60]
print(f"| {name} | {states} | {digits} | {secs} | {mb} | {method} |")
PY
done
