#!/usr/bin/env bash
# The redundancy exact reference cases at --digits 12, side by side: for each case the OLD
# binary then the NEW one, under /usr/bin/time -v with TASKASSIGN_TRACE_EXACT=1 (user s,
# peak MB, GMRES iterations summed over every solve of the run from the trace), with the
# states, digits, truncation bound and mean_number of the JSON output. Outputs are kept in
# OUT (default /tmp/redw) as side-BINNAME-CASE.{json,err} for comparison.
#   bash benches/peer/redundancy_bounds_side_by_side.sh OLD_BINARY NEW_BINARY
OLD=$1; NEW=$2; OUT=${OUT:-/tmp/redw}
mkdir -p "$OUT"
for c in w:mrf-ros w:mrf-fcfs w:lrf-fcfs w:lrf-ros w:ros n:mrf-ros n:ros; do
  sys=${c%%:*}; p=${c#*:}
  if [ "$sys" = w ]; then args="redundancy exact --system w-model --lambdas 0.5,0.5,0.6 --policy $p --digits 12 --format json"; else args="redundancy exact --system n-model --lambdas 0.1,1.7 --policy $p --digits 12 --format json"; fi
  for b in "$OLD" "$NEW"; do
    out=$OUT/side-$(basename $b)-$sys-$p
    TASKASSIGN_TRACE_EXACT=1 /usr/bin/time -v $b $args > $out.json 2> $out.err
    u=$(grep "User time" $out.err | awk '{print $NF}'); m=$(grep "Maximum resident" $out.err | awk '{print int($NF/1024)}')
    st=$(python3 -c "import json,re;d=json.load(open('$out.json'));m=re.search(r'\(([0-9][0-9 ]*) states',d['method']);print('states='+(m.group(1).replace(' ','') if m else '?'), 'digits='+str(d.get('digits')), 'bound='+str(d.get('truncation_bound')), 'mean='+str(d.get('mean_number')))" 2>/dev/null)
    its=$(grep 'gmres n' $out.err | awk '{s+=$5} END {print s}')
    echo "$sys $p $(basename $b) user=$u MB=$m its=$its $st $(date +%T) load=$(cut -d' ' -f1 /proc/loadavg)"
  done
done
