#!/usr/bin/env python3
"""Redundancy scheduling with cancel-on-complete in SimPy: the general-framework peer of
`taskassign redundancy simulate` (issue 12, "Speed").

The model, written as a researcher would write it in SimPy, independently of src/redundancy:
K servers with rates mu_s; job classes c with a set S_c of servers and Poisson rate lambda_c.
Every job sends a copy to each server of its set; a server serves one copy at a time,
non-preemptively; when any copy completes, the job leaves and its other copies are removed
at once (the servers serving them are interrupted and pick again). Copies are i.i.d.
exponential(mu_s). A free server picks by Pi1-Pi2: Pi1 = LRF (classes with the smallest
|S_c| first), MRF (largest first) or none; Pi2 = FCFS (the oldest job among them) or ROS (a
uniformly random one); jobs in service at other servers are eligible.

Each server is a SimPy process; an idle server waits on an event that an arrival of its set
triggers; a server serving a copy waits on `env.timeout(service)` and is cancelled by
`Process.interrupt()`. Measurement as taskassign: jobs numbered in arrival order, the first
`--warmup` discarded, the next `--jobs` measured, the run ends when every measured job has
left; per-class and overall mean response over independent replications, with 95 %
half-widths (Student t over replications).

Without --compare: prints the peer's means and its jobs per second (replications x (jobs +
warm-up) over the wall time of the simulation, set-up included). With --compare: alternates
the peer with `target/release/taskassign redundancy simulate ... --threads 1` (`--rounds`
times each; taskassign runs `--ours-scale` times as many jobs so its wall time is
measurable; jobs per second normalises the counts, process start-up included for
taskassign), prints both means, the exact FCFS product form (`redundancy exact`), both
jobs/s and the ratio of the medians.

    python3 -m venv /tmp/simpy-venv && /tmp/simpy-venv/bin/pip install simpy
    /tmp/simpy-venv/bin/python benches/peer/redundancy_simpy.py --policy fcfs --compare
"""

import argparse
import json
import math
import random
import statistics
import subprocess
import sys
import time

import simpy

# The W-model preset of src/redundancy/classes.rs: servers 1, 2 (rates 1); classes {1}, {2},
# {1,2}; the rates used by benches/peer/redundancy_peer.sh.
W_MODEL = [(1,), (2,), (1, 2)]
W_LAMBDAS = [0.4, 0.4, 0.8]
POLICIES = ["fcfs", "ros", "lrf-fcfs", "mrf-fcfs", "lrf-ros", "mrf-ros"]
# Two-sided 97.5 % Student t quantiles by degrees of freedom (df > 30: normal).
T975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306,
        9: 2.262, 10: 2.228, 15: 2.131, 20: 2.086, 30: 2.042}


def t975(df):
    keys = sorted(k for k in T975 if k <= df)
    return T975[keys[-1]] if df <= 30 else 1.96


class Job:
    __slots__ = ("id", "cls", "arrival", "done", "serving", "pos")

    def __init__(self, jid, cls, arrival):
        self.id = jid
        self.cls = cls
        self.arrival = arrival
        self.done = False
        self.serving = []  # server processes serving a copy of this job
        self.pos = -1  # place in its class's bag (ROS)


class Redundancy:
    def __init__(self, env, rates, sets, lambdas, policy, jobs, warmup, rng):
        self.env = env
        self.rates = rates
        self.sets = [tuple(s - 1 for s in S) for S in sets]
        self.lambdas = lambdas
        self.total = sum(lambdas)
        self.rng = rng
        self.jobs, self.warmup = jobs, warmup
        pi1, _, pi2 = policy.rpartition("-")
        self.ros = pi2 == "ros"
        k = len(rates)
        # Per server: its classes grouped into ranks, best first.
        self.ranks = []
        for s in range(k):
            mine = [c for c, S in enumerate(self.sets) if s in S]
            if pi1 == "lrf":
                keys = sorted({len(self.sets[c]) for c in mine})
            elif pi1 == "mrf":
                keys = sorted({len(self.sets[c]) for c in mine}, reverse=True)
            else:
                keys = [None]
            self.ranks.append([[c for c in mine if key is None or len(self.sets[c]) == key]
                               for key in keys])
        # Per class: the jobs present, oldest first (FCFS: an insertion-ordered dict) and a
        # bag for uniform choice (ROS: a list with swap-remove).
        self.fifo = [dict() for _ in sets]
        self.bag = [[] for _ in sets]
        self.wake = [None] * k  # the event an idle server waits on
        self.current = [None] * k  # the job each server serves
        self.resp = [[] for _ in sets]
        self.left = jobs  # measured jobs still in the system
        self.finished = env.event()
        self.procs = [env.process(self.server(s)) for s in range(k)]
        env.process(self.arrivals())

    def arrivals(self):
        env, rng = self.env, self.rng
        cum = []
        acc = 0.0
        for lam in self.lambdas:
            acc += lam / self.total
            cum.append(acc)
        for jid in range(self.warmup + self.jobs):
            yield env.timeout(rng.expovariate(self.total))
            u = rng.random()
            c = next((i for i, p in enumerate(cum) if u < p), len(cum) - 1)
            job = Job(jid, c, env.now)
            self.fifo[c][jid] = job
            job.pos = len(self.bag[c])
            self.bag[c].append(job)
            for s in self.sets[c]:
                w = self.wake[s]
                if w is not None and not w.triggered:
                    w.succeed()

    def pick(self, s):
        for rank in self.ranks[s]:
            if self.ros:
                n = sum(len(self.bag[c]) for c in rank)
                if n == 0:
                    continue
                i = self.rng.randrange(n)
                for c in rank:
                    if i < len(self.bag[c]):
                        return self.bag[c][i]
                    i -= len(self.bag[c])
            else:
                best = None
                for c in rank:
                    if self.fifo[c]:
                        j = next(iter(self.fifo[c].values()))
                        if best is None or j.id < best.id:
                            best = j
                if best is not None:
                    return best
        return None

    def leave(self, job):
        job.done = True
        c = job.cls
        del self.fifo[c][job.id]
        bag = self.bag[c]
        last = bag.pop()
        if last is not job:
            bag[job.pos] = last
            last.pos = job.pos
        if job.id >= self.warmup:
            self.resp[c].append(self.env.now - job.arrival)
            self.left -= 1
            if self.left == 0:
                self.finished.succeed()

    def server(self, s):
        env, rng, mu = self.env, self.rng, self.rates[s]
        me = None
        while True:
            job = self.pick(s)
            if job is None:
                self.wake[s] = env.event()
                yield self.wake[s]
                self.wake[s] = None
                continue
            if me is None:
                me = self.procs[s]
            job.serving.append(me)
            self.current[s] = job
            try:
                yield env.timeout(rng.expovariate(mu))
            except simpy.Interrupt:
                self.current[s] = None
                continue  # another copy completed: this one is removed
            self.current[s] = None
            job.serving.remove(me)
            self.leave(job)
            for p in job.serving:
                p.interrupt()
            job.serving.clear()


def run_once(rates, sets, lambdas, policy, jobs, warmup, seed, model_class=None):
    """One replication of `model_class` (this file's Redundancy unless another peer passes its
    own model with the same constructor, `jobs`, `resp` and `finished`)."""
    env = simpy.Environment()
    model = (model_class or Redundancy)(env, rates, sets, lambdas, policy, jobs, warmup,
                                        random.Random(seed))
    env.run(until=model.finished)
    per_class = [statistics.fmean(r) if r else float("nan") for r in model.resp]
    n = sum(len(r) for r in model.resp)
    overall = sum(sum(r) for r in model.resp) / n
    return overall, per_class


def summarise(values):
    m = statistics.fmean(values)
    if len(values) < 2:
        return m, float("nan")
    return m, t975(len(values) - 1) * statistics.stdev(values) / math.sqrt(len(values))


def peer(args, model_class=None):
    t0 = time.perf_counter()
    runs = [run_once(args.rates, args.sets, args.lambdas, args.policy, args.jobs, args.warmup,
                     args.seed * 1000 + r, model_class) for r in range(args.replications)]
    wall = time.perf_counter() - t0
    overall = summarise([o for o, _ in runs])
    classes = [summarise([pc[c] for _, pc in runs]) for c in range(len(args.sets))]
    jps = args.replications * (args.jobs + args.warmup) / wall
    return overall, classes, jps


def system_flags(args):
    flags = ["--rates", ",".join(str(r) for r in args.rates)]
    for S, lam in zip(args.sets, args.lambdas):
        flags += ["--class", "+".join(str(s) for s in S) + ":" + repr(lam)]
    return flags


def ours(args, jobs, warmup):
    cmd = [args.taskassign, "redundancy", "simulate", *system_flags(args), "--policy",
           args.policy, "--dist", "exp:rate=1", "--copies", "iid", "--jobs", str(jobs),
           "--warmup", str(warmup), "--replications", str(args.replications), "--threads",
           "1", "--seed", str(args.seed), "--format", "json"]
    t0 = time.perf_counter()
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    wall = time.perf_counter() - t0
    j = json.loads(out)
    return (float(j["mean_response"]), float(j["mean_response_half_width"])), \
        args.replications * (jobs + warmup) / wall


def exact(args):
    cmd = [args.taskassign, "redundancy", "exact", *system_flags(args), "--policy", args.policy,
           "--format", "json"]
    try:
        out = subprocess.run(cmd, check=True, capture_output=True, text=True,
                             timeout=600).stdout
    except (subprocess.SubprocessError, OSError):
        return None
    j = json.loads(out)
    return float(j["mean_response"]), j.get("method", "?")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--policy", default="fcfs", choices=POLICIES)
    ap.add_argument("--lambdas", default=",".join(map(str, W_LAMBDAS)),
                    help="W-model arrival rates of {1}, {2}, {1,2}")
    ap.add_argument("--jobs", type=int, default=20000)
    ap.add_argument("--warmup", type=int, default=None, help="default jobs/10")
    ap.add_argument("--replications", type=int, default=4)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--compare", action="store_true")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--ours-scale", type=int, default=100,
                    help="taskassign runs this many times the peer's jobs")
    ap.add_argument("--taskassign", default="target/release/taskassign")
    ap.add_argument("--no-exact", action="store_true",
                    help="skip `redundancy exact` (the chains of policies other than FCFS take "
                         "about a minute on the W-model)")
    args = ap.parse_args()
    args.lambdas = [float(x) for x in args.lambdas.split(",")]
    if len(args.lambdas) != 3 or any(not (x > 0) for x in args.lambdas):
        sys.exit("--lambdas: three positive rates for {1}, {2}, {1,2}")
    if args.jobs < 1 or args.replications < 1 or args.rounds < 1:
        sys.exit("--jobs, --replications, --rounds: at least 1")
    args.warmup = args.jobs // 10 if args.warmup is None else args.warmup
    args.rates = [1.0, 1.0]
    args.sets = W_MODEL
    name = f"W-model lambdas={args.lambdas} policy={args.policy} exp iid copies"
    if not args.compare:
        (m, h), classes, jps = peer(args)
        print(f"SimPy {simpy.__version__}: {name}, jobs={args.jobs} warmup={args.warmup} "
              f"R={args.replications}")
        print(f"mean_response {m:.5f} +- {h:.5f}")
        for S, (cm, ch) in zip(args.sets, classes):
            print(f"  class {'+'.join(map(str, S))}: {cm:.5f} +- {ch:.5f}")
        print(f"jobs_per_second {jps:.4g}")
        return
    ex = None if args.no_exact else exact(args)
    pj, oj = [], []
    for r in range(args.rounds):
        (pm, ph), _, p = peer(args)
        (om, oh), o = ours(args, args.jobs * args.ours_scale, args.warmup * args.ours_scale)
        pj.append(p)
        oj.append(o)
        print(f"round {r + 1}: simpy {pm:.5f} +- {ph:.5f} ({p:.4g} jobs/s)   "
              f"taskassign {om:.5f} +- {oh:.5f} ({o:.4g} jobs/s)   ratio {o / p:.4g}",
              flush=True)
    print(f"{name}; peer jobs={args.jobs}, taskassign jobs={args.jobs * args.ours_scale}, "
          f"warm-up jobs/10, R={args.replications}, {args.rounds} alternating rounds")
    if ex is not None:
        print(f"exact ({ex[1]}): mean_response {ex[0]:.6f}")
    mp, mo = statistics.median(pj), statistics.median(oj)
    print(f"median jobs/s: simpy {mp:.4g}, taskassign {mo:.4g}, ratio {mo / mp:.4g}")


if __name__ == "__main__":
    main()
