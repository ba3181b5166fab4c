#!/usr/bin/env bash
# MRF's chains before and after the share groups of the coarse correction (issue 26), side by
# side: for each case the OLD binary then the NEW one, under /usr/bin/time -v (user s, wall,
# max RSS) with TASKASSIGN_TRACE_EXACT=1, whose trace gives the GMRES iterations (summed over
# every solve of the run, and those of the last, printed, truncation's solve).
#   bash benches/peer/redundancy_groups_side_by_side.sh OLD_BINARY NEW_BINARY
OLD=$1; NEW=$2; TIMEOUT=${TIMEOUT:-300}
cases=(
 "W mrf-fcfs|--system w-model --lambdas 0.5,0.5,0.6 --policy mrf-fcfs"
 "W mrf-ros|--system w-model --lambdas 0.5,0.5,0.6 --policy mrf-ros"
 "N mrf-ros|--system n-model --lambdas 0.1,1.7 --policy mrf-ros"
 "N mrf-fcfs|--system n-model --lambdas 0.1,1.7 --policy mrf-fcfs"
 "W lrf-fcfs|--system w-model --lambdas 0.5,0.5,0.6 --policy lrf-fcfs"
 "W ros|--system w-model --lambdas 0.5,0.5,0.6 --policy ros"
)
echo "start $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "| case | binary | states | digits | user s | wall s | max RSS MB | GMRES its (all / last solve) | mean_number |"
echo "|---|---|---:|---:|---:|---:|---:|---|---|"
for c in "${cases[@]}"; do
  name=${c%%|*}; args=${c#*|}
  for b in $OLD $NEW; do
    out=$( { TASKASSIGN_TRACE_EXACT=1 /usr/bin/time -v timeout "$TIMEOUT" nice $b redundancy exact $args --digits 12 --format json; } 2>&1 )
    user=$(echo "$out" | grep "User time" | awk '{print $NF}')
    wall=$(echo "$out" | grep "Elapsed (wall" | awk '{print $NF}')
    rss=$(echo "$out" | grep "Maximum resident" | awk '{printf "%.0f", $NF/1024}')
    its=$(echo "$out" | grep -o "gmres n [0-9]* iterations [0-9]*" | awk '{s+=$5; if ($3!=last) {l=0; last=$3}; l+=$5} END {print s " / " l}')
    mn=$(echo "$out" | grep -o '"mean_number":"[^"]*"' | tail -1 | cut -d'"' -f4)
    st=$(echo "$out" | grep -o '([0-9]* states' | head -1 | tr -dc 0-9)
    dg=$(echo "$out" | grep -o '"digits":[0-9]*' | head -1 | cut -d: -f2)
    echo "| $name | $(basename $b) | $st | $dg | $user | $wall | $rss | $its | $mn |"
  done
done
echo "end $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"
