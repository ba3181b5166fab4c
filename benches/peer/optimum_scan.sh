#!/usr/bin/env bash
# The 120 certified optima at BP(1, 10^1000, alpha) of the edge work (issue 21): SITA and
# TAGS, three metrics, alpha in {0.8, 1, 1.2, 1.5}, (hosts, load) in {(4, 2), (5, 2.5),
# (6, 3), (4, 3.5), (6, 5)}, 12 digits. One line per case: wall seconds, the case, the
# record's digits, the value's and the cutoffs' digits, "edge" where the note says the
# minimum may lie at a stability edge, and the value ("ERR" for an exit other than 0:
# exit 2 is a TAGS load at or above rho*(F, h)).
#
#   bash benches/peer/optimum_scan.sh [BINARY] > scan.txt
#
# Each run is capped at TIMEOUT seconds (default 200). Two scans of two binaries compare
# line by line after the first column (`paste`/`diff`): the tables of
# benches/peer/proven_cases_after.md were made so.
set -u
BIN=${1:-target/release/taskassign}
TIMEOUT=${TIMEOUT:-200}
for pol in sita tags; do
  for met in waiting response slowdown; do
    for a in 0.8 1 1.2 1.5; do
      for hl in "4 2" "5 2.5" "6 3" "4 3.5" "6 5"; do
        set -- $hl
        s0=$(date +%s.%N)
        out=$(timeout "$TIMEOUT" "$BIN" optimize --policy $pol --metric $met \
          --dist "bp:k=1,p=1e1000,alpha=$a" --hosts $1 --load $2 --digits 12 \
          --format json 2>/dev/null)
        t=$(python3 -c "import time; print(round(time.time() - $s0, 1))")
        echo "$t $pol $met $a $1 $2 $(echo "$out" | python3 -c "
import json, sys
try:
    d = json.load(sys.stdin)
    f = d['field_digits']
    edge = 'edge' if 'stability edge' in d['notes'][0] else ''
    print('digits', d['digits'], 'value', f['value'], 'cut', f['cutoffs'], edge, d['value'])
except Exception:
    print('ERR')
")"
      done
    done
  done
done
