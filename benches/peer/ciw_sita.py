#!/usr/bin/env python3
"""Peer benchmark: the SITA system of benches/sim.rs modelled in Ciw.

Two FCFS hosts, Poisson arrivals at total load rho = lambda E[X], Bounded Pareto sizes
BP(k, p, alpha), SITA cutoff s: host 1 serves the sizes in [k, s], host 2 those in (s, p].
A Poisson stream split by size is two independent Poisson streams (thinning), so the Ciw
model is two nodes, each with its own arrival rate lambda * P(size in its interval) and
the BP law conditioned on that interval as service time. This is the cheapest faithful
model Ciw offers (no dispatcher node, no routing events), i.e. the comparison is generous
to Ciw.

Prints the mean waiting per host and overall (after discarding the first --warmup-fraction
of customers by arrival date), the Pollaczek-Khinchine values, the wall time and jobs per
second. With --compare it also runs `target/release/taskassign simulate` on the same system
with the same total job count (2 replications of jobs/2, no warm-up, --threads threads,
default one), as a
subprocess (process start-up and the MPFR set-up included), alternating the two --repeat
times, and prints the median times and their ratio; then the same for taskassign at
--rate-factor times the job count, which gives its sustained rate. Run (from the
repository root, after `cargo build --release`) as:

    python3 benches/peer/ciw_sita.py --jobs 200000 --compare

Needs `pip install ciw` (tested with Ciw 3.2.7).
"""

import argparse
import json
import random
import statistics
import subprocess
import time

import ciw


class ConditionalBP(ciw.dists.Distribution):
    """BP(k, p, alpha) conditioned on (a, b], sampled by inversion."""

    def __init__(self, k, p, alpha, a, b):
        self.k, self.p, self.alpha = k, p, alpha
        self.norm = 1.0 - (k / p) ** alpha
        self.fa = self.cdf(a)
        self.fb = self.cdf(b)

    def cdf(self, x):
        if x <= self.k:
            return 0.0
        if x >= self.p:
            return 1.0
        return (1.0 - (self.k / x) ** self.alpha) / self.norm

    def sample(self, t=None, ind=None):
        u = self.fa + random.random() * (self.fb - self.fa)
        return min(self.k * (1.0 - u * self.norm) ** (-1.0 / self.alpha), self.p)


def bp_partial_moment(j, k, p, alpha, a, b):
    """E[X^j ; a < X <= b] for BP(k, p, alpha), j != alpha."""
    a, b = max(a, k), min(b, p)
    if a >= b:
        return 0.0
    norm = 1.0 - (k / p) ** alpha
    return alpha * k**alpha / norm * (b ** (j - alpha) - a ** (j - alpha)) / (j - alpha)


BIN = "target/release/taskassign"


def run_ciw(a):
    """One Ciw run; returns (seconds, customers, per-host waits, overall wait)."""
    k, p, al, s = a.k, a.p, a.alpha, a.cutoff
    mean = bp_partial_moment(1, k, p, al, 0.0, p)
    lam = a.load / mean
    probs = [bp_partial_moment(0, k, p, al, 0.0, s), bp_partial_moment(0, k, p, al, s, p)]
    bounds = [(k, s), (s, p)]
    network = ciw.create_network(
        arrival_distributions=[ciw.dists.Exponential(rate=lam * q) for q in probs],
        service_distributions=[ConditionalBP(k, p, al, lo, hi) for lo, hi in bounds],
        number_of_servers=[1, 1],
        routing=[[0.0, 0.0], [0.0, 0.0]],
    )
    ciw.seed(a.seed)
    random.seed(a.seed)
    t0 = time.perf_counter()
    sim = ciw.Simulation(network)
    sim.simulate_until_max_customers(a.jobs, method="Finish")
    elapsed = time.perf_counter() - t0
    recs = sorted(sim.get_all_records(), key=lambda r: r.arrival_date)
    kept = recs[int(a.warmup_fraction * len(recs)):]
    per = {1: [], 2: []}
    for r in kept:
        per[r.node].append(r.waiting_time)
    overall = sum(sum(v) for v in per.values()) / max(1, len(kept))
    waits = [sum(per[i]) / max(1, len(per[i])) for i in (1, 2)]
    return elapsed, len(recs), waits, overall


def run_taskassign(a, jobs):
    """One `taskassign simulate` run with `jobs` jobs in all; returns (seconds, JSON)."""
    cmd = [BIN, "simulate", "--policy", "sita",
           "--dist", f"bp:k={a.k:g},p={a.p:g},alpha={a.alpha:g}",
           "--hosts", "2", "--load", f"{a.load:g}", "--cutoffs", f"{a.cutoff:g}",
           "--jobs", str(jobs // 2), "--replications", "2", "--warmup", "0",
           "--threads", str(a.threads), "--seed", str(a.seed), "--format", "json"]
    t0 = time.perf_counter()
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return time.perf_counter() - t0, json.loads(out)


def compare(a):
    ciw_t, ta_t, ta_big = [], [], []
    big = a.jobs * a.rate_factor
    for _ in range(a.repeat):
        ciw_t.append(run_ciw(a)[0])
        ta_t.append(run_taskassign(a, a.jobs)[0])
        ta_big.append(run_taskassign(a, big)[0])
    c, t, tb = (statistics.median(x) for x in (ciw_t, ta_t, ta_big))
    print(f"same job count ({a.jobs} jobs, median of {a.repeat}, alternating):")
    print(f"  ciw        {c:.3f} s  = {a.jobs / c:.4g} jobs/s")
    print(f"  taskassign {t:.4f} s  = {a.jobs / t:.4g} jobs/s (process start-up included)")
    print(f"  ratio      {c / t:.0f}x")
    print(f"sustained rate (taskassign with {big} jobs, {a.threads} thread(s)):")
    print(f"  taskassign {tb:.3f} s  = {big / tb:.4g} jobs/s")
    print(f"  ratio of rates {(big / tb) / (a.jobs / c):.0f}x")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=200_000, help="customers simulated in all")
    ap.add_argument("--load", type=float, default=0.5, help="total load rho = lambda E[X]")
    ap.add_argument("--k", type=float, default=1.0)
    ap.add_argument("--p", type=float, default=1e6)
    ap.add_argument("--alpha", type=float, default=1.1)
    ap.add_argument("--cutoff", type=float, default=100.0)
    ap.add_argument("--warmup-fraction", type=float, default=0.1)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--compare", action="store_true",
                    help="time taskassign side by side (alternating runs)")
    ap.add_argument("--repeat", type=int, default=3, help="alternating runs per side")
    ap.add_argument("--rate-factor", type=int, default=100,
                    help="taskassign's sustained-rate run uses this many times --jobs")
    ap.add_argument("--threads", type=int, default=1,
                    help="taskassign threads (its 2 replications run in parallel with 2)")
    a = ap.parse_args()

    if a.compare:
        compare(a)
        return
    k, p, al, s = a.k, a.p, a.alpha, a.cutoff
    mean = bp_partial_moment(1, k, p, al, 0.0, p)
    lam = a.load / mean
    probs = [bp_partial_moment(0, k, p, al, 0.0, s), bp_partial_moment(0, k, p, al, s, p)]
    bounds = [(k, s), (s, p)]
    # Pollaczek-Khinchine per host: W_i = lambda M2_i / (2 (1 - lambda M1_i)).
    pk = []
    for lo, hi in bounds:
        m1 = bp_partial_moment(1, k, p, al, lo if lo > k else 0.0, hi)
        m2 = bp_partial_moment(2, k, p, al, lo if lo > k else 0.0, hi)
        pk.append(lam * m2 / (2.0 * (1.0 - lam * m1)))
    elapsed, n, waits, overall = run_ciw(a)
    print(f"ciw {ciw.__version__}: {n} customers in {elapsed:.3f} s = {n / elapsed:.4g} jobs/s")
    for i in (1, 2):
        print(f"host {i}: simulated waiting {waits[i - 1]:.5g}, Pollaczek-Khinchine {pk[i - 1]:.5g}")
    exact = sum(q * w for q, w in zip(probs, pk))
    print(f"overall: simulated waiting {overall:.5g}, SITA formula {exact:.5g}")


if __name__ == "__main__":
    main()
