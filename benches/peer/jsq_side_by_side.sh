#!/usr/bin/env bash
# Two binaries side by side on the JSQ exact cases that miss the issue-26 targets: for each
# case the old binary then the new one, one right after the other, so that both see the same
# machine load. Prints user and wall seconds, peak resident MB (GNU time), states, digits,
# mean_tasks and the truncation bound.
#
#   bash benches/peer/jsq_side_by_side.sh OLD_BINARY NEW_BINARY
#
# Each run is capped at TIMEOUT seconds (default 90); CASES selects cases by a word of their
# names (CASES="d=5"). The issue's cases: N = 5, d in {1, 2, N}, lambda 0.9 and 0.95, with and
# without replacement.
set -u
OLD=$1
NEW=$2
TIMEOUT=${TIMEOUT:-90}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cases=(
  "N=5 d=1 l=0.95|--servers 5 --d 1 --lambda 0.95"
  "N=5 d=5 l=0.9|--servers 5 --d 5 --lambda 0.9"
  "N=5 d=5 l=0.9 with|--servers 5 --d 5 --lambda 0.9 --sampling with"
  "N=5 d=5 l=0.95|--servers 5 --d 5 --lambda 0.95"
  "N=5 d=5 l=0.95 with|--servers 5 --d 5 --lambda 0.95 --sampling with"
  "N=5 d=2 l=0.9|--servers 5 --d 2 --lambda 0.9"
  "N=5 d=2 l=0.9 with|--servers 5 --d 2 --lambda 0.9 --sampling with"
  "N=5 d=2 l=0.95|--servers 5 --d 2 --lambda 0.95"
  "N=5 d=2 l=0.95 with|--servers 5 --d 2 --lambda 0.95 --sampling with"
)
# CASES="a b" runs only the cases whose names contain one of the words (e.g. "d=5").
if [ -n "${CASES:-}" ]; then
  keep=()
  for c in "${cases[@]}"; do
    for w in $CASES; do
      case "${c%%|*}" in *"$w"*) keep+=("$c"); break ;; esac
    done
  done
  cases=("${keep[@]}")
fi
echo "load at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "| case | binary | states | digits | user s | wall s | peak MB | mean_tasks | bound |"
echo "|---|---|---:|---:|---:|---:|---:|---|---|"
for c in "${cases[@]}"; do
  name=${c%%|*}
  args=${c#*|}
  for which in old new; do
    if [ "$which" = old ]; then bin=$OLD; else bin=$NEW; fi
    # shellcheck disable=SC2086
    /usr/bin/time -f "%U %e %M" -o "$tmp/time" timeout "$TIMEOUT" nice "$bin" jsq exact \
      --model queues $args --digits 12 --format json >"$tmp/out" 2>"$tmp/err"
    status=$?
    read -r user wall kb < <(tail -1 "$tmp/time")
    mb=$((kb / 1024))
    if [ "$status" != 0 ]; then
      what="exit $status"
      [ "$status" = 124 ] && what="timeout"
      echo "| $name | $which | | | $user | >$wall ($what) | $mb | | |"
      continue
    fi
    python3 - "$tmp/out" "$name" "$which" "$user" "$wall" "$mb" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
name, which, user, wall, mb = sys.argv[2:7]
print(f"| {name} | {which} | {r['states']} | {r['digits']} | {user} | {wall} | {mb} | {r['mean_tasks']} | {r['truncation_bound']} |")
PY
  done
done
echo "load at end: $(cut -d' ' -f1-3 /proc/loadavg)"
