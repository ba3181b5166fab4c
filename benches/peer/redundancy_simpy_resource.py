#!/usr/bin/env python3
"""Redundancy scheduling with cancel-on-complete in SimPy, written the way SimPy's
documentation teaches a queue: the second general-framework peer of `taskassign redundancy
simulate` (issue 12, "Speed"), beside the hand-scheduled `redundancy_simpy.py`.

The model (independently of src/redundancy): the W-model, servers 1, 2 at rate 1; job classes
{1}, {2}, {1,2} with Poisson rates lambda (default 0.4, 0.4, 0.8). Every job sends a copy to
each server of its set; a server serves one copy at a time, non-preemptively; copies are
i.i.d. exponential(mu_s); when any copy completes, the job leaves and its other copies are
removed at once.

How it is written: one `simpy.Resource` (capacity 1) per server, or a
`simpy.PriorityResource` for LRF-FCFS / MRF-FCFS with priority = the class's rank at that
server (LRF: the classes of the smallest |S_c| rank 0; MRF: the largest), so that requests of
one priority are served in request order, i.e. FCFS by arrival. An arrival process starts a
process per job; the job starts one child process per copy,

    with server.request(priority=rank) as req:
        yield req
        yield env.timeout(service)

and waits for the first of them (`env.any_of`); it then interrupts the others: a copy still
waiting withdraws its request by leaving the `with` block, a copy in service releases its
server, which SimPy hands to the next request in its queue. FCFS: a free server takes the
oldest copy queued at it, jobs in service at the other server included, as taskassign's
non-preemptive FCFS does.

ROS (and LRF-ROS, MRF-ROS) has no natural Resource form: a Resource's queue is served in
request order (or by priority then request order); a uniformly random choice among the waiting
copies needs a hand-written scheduler, which is what `redundancy_simpy.py` is. Asked for a ROS
policy, this script says so and exits 2.

Measurement as `redundancy_simpy.py` and taskassign: jobs numbered in arrival order, the first
`--warmup` (default jobs/10) discarded, the next `--jobs` measured, the run ends when every
measured job has left; per-class and overall mean response over independent replications with
95 % half-widths (Student t over replications). Jobs per second = replications x (jobs +
warm-up) over the wall time of the simulation (set-up included).

Without --compare: the peer's means and jobs/s; with --exact also the exact values of
`taskassign redundancy exact` (the product form for FCFS; the truncated chain for LRF/MRF,
about a minute) and, for FCFS, the closed form 1/(sum mu - sum lambda) of the fully redundant
class, each with its distance in half-widths. With --compare: alternates, `--rounds` times,
this peer, the hand-scheduled `redundancy_simpy.py` (skip it with --no-handwritten) and
`target/release/taskassign redundancy simulate ... --threads 1` (`--ours-scale` times the jobs,
process start-up included), and prints each one's median jobs/s and the ratios of the medians.

    python3 -m venv /tmp/simpy-venv && /tmp/simpy-venv/bin/pip install simpy
    /tmp/simpy-venv/bin/python benches/peer/redundancy_simpy_resource.py --policy fcfs \\
        --compare --jobs 20000 --replications 4 --rounds 5
"""

import argparse
import json
import os
import statistics
import subprocess
import sys

import simpy

# The shared parts (system, Student t summary, the taskassign runs) and the hand-scheduled
# peer come from redundancy_simpy.py, beside this file.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import redundancy_simpy as hand  # noqa: E402

POLICIES = ["fcfs", "lrf-fcfs", "mrf-fcfs"]
ROS_POLICIES = ["ros", "lrf-ros", "mrf-ros"]


def ranks(sets, policy):
    """rank[s][c]: the priority of class c's copies at server s (lower is served first)."""
    pi1 = policy.rpartition("-")[0]
    out = []
    for s in range(1 + max(max(S) for S in sets)):
        sizes = sorted({len(S) for S in sets if s in S}, reverse=(pi1 == "mrf"))
        out.append({c: (sizes.index(len(S)) if pi1 else 0)
                    for c, S in enumerate(sets) if s in S})
    return out


class WModel:
    def __init__(self, env, rates, sets, lambdas, policy, jobs, warmup, rng):
        self.env, self.rng = env, rng
        self.rates = rates
        self.sets = [tuple(s - 1 for s in S) for S in sets]
        self.lambdas = lambdas
        self.jobs, self.warmup = jobs, warmup
        self.prio = policy != "fcfs"
        self.rank = ranks(self.sets, policy)
        kind = simpy.PriorityResource if self.prio else simpy.Resource
        self.servers = [kind(env, capacity=1) for _ in rates]
        self.resp = [[] for _ in sets]
        self.left = jobs  # measured jobs still in the system
        self.finished = env.event()
        env.process(self.arrivals())

    def arrivals(self):
        env, rng = self.env, self.rng
        total = sum(self.lambdas)
        classes = range(len(self.lambdas))
        for jid in range(self.warmup + self.jobs):
            yield env.timeout(rng.expovariate(total))
            c = rng.choices(classes, weights=self.lambdas)[0]
            env.process(self.job(jid, c))

    def copy(self, s, c):
        server, mu = self.servers[s], self.rates[s]
        try:
            if self.prio:
                req = server.request(priority=self.rank[s][c])
            else:
                req = server.request()
            with req:
                yield req
                yield self.env.timeout(self.rng.expovariate(mu))
        except simpy.Interrupt:
            pass  # another copy completed: leaving `with` withdrew or released this one

    def job(self, jid, c):
        env = self.env
        arrival = env.now
        copies = [env.process(self.copy(s, c)) for s in self.sets[c]]
        yield env.any_of(copies)
        for p in copies:
            if p.is_alive:
                p.interrupt()
        if jid >= self.warmup:
            self.resp[c].append(env.now - arrival)
            self.left -= 1
            if self.left == 0:
                self.finished.succeed()


def peer(args):
    return hand.peer(args, WModel)


def exact_json(args):
    cmd = [args.taskassign, "redundancy", "exact", *hand.system_flags(args), "--policy",
           args.policy, "--format", "json"]
    try:
        out = subprocess.run(cmd, check=True, capture_output=True, text=True,
                             timeout=900).stdout
        return json.loads(out)
    except (subprocess.SubprocessError, OSError, ValueError) as e:
        print(f"redundancy exact failed: {e}", file=sys.stderr)
        return None


def distance(m, h, ref):
    return abs(m - ref) / h if h > 0 else float("inf")


class Parser(argparse.ArgumentParser):
    def error(self, message):
        # Bad input: one line, exit 2 (the house rule), not argparse's usage block.
        print(f"{self.prog}: {message}", file=sys.stderr)
        sys.exit(2)


def main():
    ap = Parser(description=__doc__.splitlines()[0])
    ap.add_argument("--policy", default="fcfs", choices=POLICIES + ROS_POLICIES)
    ap.add_argument("--lambdas", default=",".join(map(str, hand.W_LAMBDAS)),
                    help="W-model arrival rates of {1}, {2}, {1,2}")
    ap.add_argument("--jobs", type=int, default=20000)
    ap.add_argument("--warmup", type=int, default=None, help="default jobs/10")
    ap.add_argument("--replications", type=int, default=4)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--exact", action="store_true",
                    help="without --compare: also print `redundancy exact` and the distances")
    ap.add_argument("--compare", action="store_true")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--ours-scale", type=int, default=100,
                    help="taskassign runs this many times the peer's jobs")
    ap.add_argument("--no-handwritten", action="store_true",
                    help="with --compare: leave out the hand-scheduled redundancy_simpy.py")
    ap.add_argument("--taskassign", default="target/release/taskassign")
    args = ap.parse_args()
    if args.policy in ROS_POLICIES:
        print(f"--policy {args.policy}: ROS has no natural simpy.Resource form (a Resource "
              "serves its queue in request or priority order); use redundancy_simpy.py",
              file=sys.stderr)
        sys.exit(2)
    try:
        args.lambdas = [float(x) for x in args.lambdas.split(",")]
    except ValueError:
        ap.error("--lambdas: three positive rates for {1}, {2}, {1,2}")
    if len(args.lambdas) != 3 or any(not (0 < x < float("inf")) for x in args.lambdas):
        ap.error("--lambdas: three positive rates for {1}, {2}, {1,2}")
    if args.jobs < 1 or args.replications < 1 or args.rounds < 1 or args.ours_scale < 1:
        ap.error("--jobs, --replications, --rounds, --ours-scale: at least 1")
    args.warmup = args.jobs // 10 if args.warmup is None else args.warmup
    if args.warmup < 0:
        ap.error("--warmup: at least 0")
    args.rates = [1.0, 1.0]
    args.sets = hand.W_MODEL
    name = f"W-model lambdas={args.lambdas} policy={args.policy} exp iid copies"
    res = "PriorityResource" if args.policy != "fcfs" else "Resource"
    if not args.compare:
        (m, h), classes, jps = peer(args)
        print(f"SimPy {simpy.__version__} ({res} per server): {name}, jobs={args.jobs} "
              f"warmup={args.warmup} R={args.replications}")
        ex = exact_json(args) if args.exact else None
        line = f"mean_response {m:.5f} +- {h:.5f}"
        if ex is not None:
            ref = float(ex["mean_response"])
            line += f"   exact {ref:.5f} ({ex['method']}): {distance(m, h, ref):.2f} hw"
        print(line)
        for k, (S, (cm, ch)) in enumerate(zip(args.sets, classes)):
            line = f"  class {'+'.join(map(str, S))}: {cm:.5f} +- {ch:.5f}"
            if ex is not None:
                ref = float(ex["classes"][k]["mean_response"])
                line += f"   exact {ref:.5f}: {distance(cm, ch, ref):.2f} hw"
            if ex is not None and args.policy == "fcfs" and len(S) == len(args.rates):
                # Fully redundant class under FCFS: exponential response, rate sum mu - sum
                # lambda (Gardner et al. 2016).
                ref = 1 / (sum(args.rates) - sum(args.lambdas))
                line += f"   1/(sum mu - sum lambda) {ref:.5f}: {distance(cm, ch, ref):.2f} hw"
            print(line)
        print(f"jobs_per_second {jps:.4g}")
        if args.exact and ex is None:
            sys.exit(3)  # the exact values were asked for and could not be had
        return
    ex = exact_json(args) if args.exact else None
    rj, hj, oj = [], [], []
    for r in range(args.rounds):
        (rm, rh), _, p = peer(args)
        rj.append(p)
        line = f"round {r + 1}: resource {rm:.5f} +- {rh:.5f} ({p:.4g} jobs/s)"
        if not args.no_handwritten:
            (hm, hh), _, q = hand.peer(args)
            hj.append(q)
            line += f"   hand {hm:.5f} +- {hh:.5f} ({q:.4g} jobs/s)"
        (om, oh), o = hand.ours(args, args.jobs * args.ours_scale,
                                args.warmup * args.ours_scale)
        oj.append(o)
        line += f"   taskassign {om:.5f} +- {oh:.5f} ({o:.4g} jobs/s)   ratio {o / p:.4g}"
        if hj:
            line += f" / {o / hj[-1]:.4g}"
        print(line, flush=True)
    print(f"{name}; peers jobs={args.jobs}, taskassign jobs={args.jobs * args.ours_scale}, "
          f"warm-up jobs/10, R={args.replications}, {args.rounds} alternating rounds")
    if ex is not None:
        print(f"exact ({ex['method']}): mean_response {float(ex['mean_response']):.6f}")
    mr, mo = statistics.median(rj), statistics.median(oj)
    ratios = sorted(o / p for o, p in zip(oj, rj))
    print(f"median jobs/s: simpy-resource {mr:.4g}, taskassign {mo:.4g}, ratio {mo / mr:.4g} "
          f"(rounds {ratios[0]:.4g} to {ratios[-1]:.4g})")
    if hj:
        mh = statistics.median(hj)
        hr = sorted(o / q for o, q in zip(oj, hj))
        print(f"median jobs/s: simpy-hand {mh:.4g}, ratio taskassign/hand {mo / mh:.4g} "
              f"(rounds {hr[0]:.4g} to {hr[-1]:.4g}); resource/hand {mr / mh:.4g}")


if __name__ == "__main__":
    main()
