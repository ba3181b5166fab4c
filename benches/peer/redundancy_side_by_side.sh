#!/usr/bin/env bash
# The redundancy exact chains the issue-26 targets still miss, side by side: for each case the
# OLD binary then the NEW one, one after the other, under /usr/bin/time (wall / user s, peak MB).
#   bash benches/peer/redundancy_side_by_side.sh OLD_BINARY NEW_BINARY
OLD=$1; NEW=$2
N3="--servers 3 --class 1:0.4 --class 2:0.4 --class 1+2:0.6 --class 3:0.5 --class 1+2+3:0.8"
cases=(
 "W5 mrf-fcfs|--system w-model --lambdas 0.5,0.5,0.6 --policy mrf-fcfs"
 "W5 ros|--system w-model --lambdas 0.5,0.5,0.6 --policy ros"
 "W5 mrf-ros|--system w-model --lambdas 0.5,0.5,0.6 --policy mrf-ros"
 "W5 lrf-fcfs|--system w-model --lambdas 0.5,0.5,0.6 --policy lrf-fcfs"
 "N mrf-fcfs|--system n-model --lambdas 0.1,1.7 --policy mrf-fcfs"
 "N mrf-ros|--system n-model --lambdas 0.1,1.7 --policy mrf-ros"
 "W6 ros|--system w-model --lambdas 0.6,0.6,0.6 --policy ros"
 "W6 lrf-fcfs|--system w-model --lambdas 0.6,0.6,0.6 --policy lrf-fcfs"
 "W6 mrf-ros|--system w-model --lambdas 0.6,0.6,0.6 --policy mrf-ros"
 "N3 ros|$N3 --policy ros"
 "N3 lrf-fcfs|$N3 --policy lrf-fcfs"
)
echo "start $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"
for c in "${cases[@]}"; do
  name=${c%%|*}; args=${c#*|}
  for b in $OLD $NEW; do
    out=$( { /usr/bin/time -f "TIME %e %U %M" timeout 120 nice $b redundancy exact $args --digits 12 --format json; } 2>&1 )
    rc=$?
    t=$(echo "$out" | grep TIME | awk '{printf "%s / %s | %.0f", $2, $3, $4/1024}')
    mn=$(echo "$out" | grep -o '"mean_number":"[^"]*"' | tail -1 | cut -d'"' -f4)
    st=$(echo "$out" | grep -o '([0-9]* states' | head -1 | tr -dc 0-9)
    dg=$(echo "$out" | grep -o '"digits":[0-9]*' | head -1 | cut -d: -f2)
    err=$(echo "$out" | grep -o "would hold about [^,]*" | head -1)
    echo "| $name | $(basename $b) | $st | $dg | $t | $mn | $err |"
  done
done
echo "end $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"
