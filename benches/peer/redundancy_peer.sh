#!/usr/bin/env bash
# Side-by-side jobs per second of `taskassign redundancy simulate` (one thread) and the
# independent C event simulator ../shared/peers/redundancy_sim.c, on the same system, policy,
# law, jobs and replications, alternating in one run, REPS times each. The peer is built in
# /tmp (never in the repository). Prints one line per case: the median jobs/s of each and
# their ratio (ours / peer). Jobs counted: replications x (jobs + warm-up) for both.
#
# usage: [LAWS_SET=all] [POLICIES="fcfs lrf-fcfs"] [COPIES=iid|identical] \
#        benches/peer/redundancy_peer.sh [JOBS] [REPLICATIONS] [REPS]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
JOBS=${1:-1000000}
R=${2:-4}
REPS=${3:-3}
WARM=$((JOBS / 10))
PEER_SRC=${PEER_SRC:-../shared/peers/redundancy_sim.c}
PEER=/tmp/redundancy_sim_peer
gcc -O2 -o "$PEER" "$PEER_SRC" -lm
cargo build --release --quiet
OURS=target/release/taskassign
now() { date +%s.%N; }
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# name | our system flags | peer system flags
SYSTEMS=(
  "w-model|--system w-model --lambdas 0.4,0.4,0.8|-s 1,1 -c 1:0.4 -c 2:0.4 -c 1,2:0.8"
  "nested-4|--system nested-4 --lambdas 0.1,0.4,1.2|-s 1,1,1,1 -c 1:0.1 -c 2:0.1 -c 3:0.1 -c 4:0.1 -c 1,2:0.4 -c 3,4:0.4 -c 1,2,3,4:1.2"
)
read -r -a POLICIES <<<"${POLICIES:-fcfs ros lrf-fcfs mrf-fcfs lrf-ros mrf-ros}"
# our law | peer law; LAWS_SET=all adds Erlang-4, lognormal SCV 4 and Weibull shape 0.5 (mean 1)
LAWS=("exp:rate=1|exp" "hyperexp:mean=1,scv=10|hyperexp:scv=10")
if [[ "${LAWS_SET:-}" == all ]]; then
  LAWS+=("erlang:k=4,rate=4|erlang:k=4" "lognormal:mean=1,scv=4|lognormal:scv=4" "weibull:shape=0.5,mean=1|weibull:shape=0.5")
fi
COPIES=${COPIES:-iid}
total=$((R * (JOBS + WARM)))
printf "%-9s %-9s %-24s %14s %14s %8s\n" system policy law ours_jobs_s peer_jobs_s ratio
for s in "${SYSTEMS[@]}"; do
  IFS='|' read -r sname sours speer <<<"$s"
  for p in "${POLICIES[@]}"; do
    P=$(echo "$p" | tr a-z A-Z)
    for l in "${LAWS[@]}"; do
      IFS='|' read -r lours lpeer <<<"$l"
      o=(); q=()
      for _ in $(seq "$REPS"); do
        t0=$(now); $OURS redundancy simulate $sours --policy "$p" --dist "$lours" --jobs "$JOBS" \
          --warmup "$WARM" --replications "$R" --copies "$COPIES" --threads 1 >/dev/null; t1=$(now)
        o+=("$(echo "$total / ($t1 - $t0)" | bc -l)")
        t0=$(now); "$PEER" $speer -p "$P" -y "$COPIES" -d "$lpeer" -n "$JOBS" -w "$WARM" -r "$R" >/dev/null; t1=$(now)
        q+=("$(echo "$total / ($t1 - $t0)" | bc -l)")
      done
      mo=$(printf "%s\n" "${o[@]}" | median); mq=$(printf "%s\n" "${q[@]}" | median)
      printf "%-9s %-9s %-24s %14.3e %14.3e %8.2f\n" "$sname" "$p" "$lours" "$mo" "$mq" "$(echo "$mo / $mq" | bc -l)"
    done
  done
done
