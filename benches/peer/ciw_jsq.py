#!/usr/bin/env python3
"""Peer benchmark: JSQ(d) on N single-server FCFS queues modelled in Ciw, side by side with
`taskassign jsq simulate` (issue 11, "Speed and scale").

The Ciw model: Poisson arrivals at rate lambda*N enter a dispatcher node (infinitely many
servers, zero service time) whose router samples d of the N server nodes uniformly without
replacement and sends the customer to one with the fewest customers (in service
included; ties uniformly at random), each server node being one server with unit-rate
exponential service, after which the customer leaves. This is Ciw's JoinShortestQueue
router restricted to a fresh sample of d destinations, with the queue length counted as
the papers count it: Ciw's own JoinShortestQueue compares the customers *waiting*
(number_of_individuals - number_in_service), under which an idle server and a busy one
with an empty queue tie; that is not JSQ as in the papers, so `PowerOfD` counts
number_of_individuals. With --d N every server is sampled: JSQ.

Measured: the mean number of tasks per server by Little's law (lambda times the mean time
at the server nodes of the customers that arrived after the warm-up), Ciw's wall time,
and its rate in events per second, counting the events taskassign counts (one arrival and
one departure per task; Ciw also schedules the dispatcher's zero-length service, which is
not counted, so the comparison is generous to Ciw).

With --compare it also runs `target/release/taskassign jsq simulate` on the same system
(--time, --warmup, 2 replications, one thread) as a subprocess, alternating the two
--repeat times, and prints both means, the median wall times, taskassign's in-process
events_per_second and the ratios. Run from the repository root after
`cargo build --release`:

    pip install ciw && python3 benches/peer/ciw_jsq.py --servers 100 --d 2 --time 200 --compare

Tested with Ciw 3.2.7.
"""

import argparse
import json
import random
import statistics
import subprocess
import time

import ciw


class PowerOfD(ciw.routing.NodeRouting):
    """JSQ(d): d of the destinations sampled without replacement, the one with the fewest
    customers (in service included), ties uniformly at random."""

    def __init__(self, destinations, d):
        self.destinations = destinations
        self.d = d

    def next_node(self, ind):
        sample = random.sample(self.destinations, self.d)
        best = []
        fewest = None
        for i in sample:
            k = self.simulation.nodes[i].number_of_individuals
            if fewest is None or k < fewest:
                best, fewest = [i], k
            elif k == fewest:
                best.append(i)
        return self.simulation.nodes[random.choice(best)]


def run_ciw(n, lam, d, horizon, warmup, seed):
    """One Ciw run; returns (mean tasks per server, tasks measured, wall seconds, events)."""
    ciw.seed(seed)
    random.seed(seed)
    servers = list(range(2, n + 2))
    network = ciw.create_network(
        arrival_distributions=[ciw.dists.Exponential(rate=lam * n)] + [None] * n,
        service_distributions=[ciw.dists.Deterministic(value=0.0)]
        + [ciw.dists.Exponential(rate=1.0) for _ in range(n)],
        number_of_servers=[float("inf")] + [1] * n,
        routing=ciw.routing.NetworkRouting(
            routers=[PowerOfD(servers, d)] + [ciw.routing.Leave() for _ in range(n)]
        ),
    )
    sim = ciw.Simulation(network)
    t0 = time.perf_counter()
    sim.simulate_until_max_time(warmup + horizon)
    wall = time.perf_counter() - t0
    recs = [
        r
        for r in sim.get_all_records()
        if r.node >= 2 and r.arrival_date >= warmup and r.exit_date <= warmup + horizon
    ]
    all_server_recs = [r for r in sim.get_all_records() if r.node >= 2]
    sojourn = statistics.fmean(r.waiting_time + r.service_time for r in recs)
    # Every completed task is one arrival and one departure (the events taskassign counts).
    events = 2 * len(all_server_recs)
    return lam * sojourn, len(recs), wall, events


def run_taskassign(n, lam, d, horizon, warmup, seed):
    """taskassign jsq simulate as a subprocess: (record, wall seconds)."""
    cmd = [
        "target/release/taskassign",
        "jsq",
        "simulate",
        "--model",
        "queues",
        "--servers",
        str(n),
        "--lambda",
        str(lam),
        "--d",
        str(d),
        "--time",
        str(horizon),
        "--warmup",
        str(warmup),
        "--replications",
        "2",
        "--threads",
        "1",
        "--seed",
        str(seed),
        "--format",
        "json",
    ]
    t0 = time.perf_counter()
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out), time.perf_counter() - t0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--servers", type=int, default=100)
    ap.add_argument("--lambda", dest="lam", type=float, default=0.9)
    ap.add_argument("--d", default="2", help="an integer, or N for JSQ")
    ap.add_argument("--time", type=float, default=200.0)
    ap.add_argument("--warmup", type=float, default=20.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--compare", action="store_true")
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    d = a.servers if a.d == "N" else int(a.d)
    if not 1 <= d <= a.servers:
        raise SystemExit("d must be between 1 and N")
    ciw_times, ciw_rates, ciw_means = [], [], []
    ta_times, ta_rates, ta_means = [], [], []
    for k in range(a.repeat if a.compare else 1):
        mean, measured, wall, events = run_ciw(
            a.servers, a.lam, d, a.time, a.warmup, a.seed + k
        )
        ciw_times.append(wall)
        ciw_rates.append(events / wall)
        ciw_means.append(mean)
        print(
            f"ciw        N={a.servers} d={d}: mean tasks/server {mean:.4f} "
            f"({measured} tasks), {wall:.2f} s, {events / wall:.3e} events/s"
        )
        if a.compare:
            rec, twall = run_taskassign(a.servers, a.lam, d, a.time, a.warmup, a.seed + k)
            ta_times.append(twall)
            ta_rates.append(float(rec["events_per_second"]))
            ta_means.append(float(rec["mean_tasks"]))
            print(
                f"taskassign N={a.servers} d={d}: mean tasks/server {rec['mean_tasks']} "
                f"+- {rec['mean_tasks_half_width']}, {twall:.3f} s wall (process), "
                f"{rec['events_per_second']} events/s in process ({rec['events']} events, "
                "2 replications)"
            )
    if a.compare:
        c, t = statistics.median(ciw_rates), statistics.median(ta_rates)
        print(
            f"median events/s: ciw {c:.3e}, taskassign {t:.3e} (in process); "
            f"ratio taskassign/ciw = {t / c:.3g}"
        )
        print(
            f"median wall per run: ciw {statistics.median(ciw_times):.2f} s, "
            f"taskassign {statistics.median(ta_times):.3f} s (2x the simulated time, "
            "process start-up included)"
        )


if __name__ == "__main__":
    main()
