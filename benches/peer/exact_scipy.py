#!/usr/bin/env python3
"""Independent reference values for the exact chains of `taskassign jsq exact` and
`taskassign redundancy exact`, and their speed: each chain is written here from the model's
definition (README, ARCHITECTURE.md "Load balancing"; src/redundancy/policy.rs's reading of
[ARV22]), enumerated by breadth-first search, and solved by SciPy's sparse direct solver
(SuperLU with COLAMD ordering) on the balance equations with the empty state's probability
fixed and its equation dropped, then normalised. Nothing here is translated from the Rust
code: the join probabilities of JSQ(d) are counted over every sample of d servers, and the
redundancy chain keeps its jobs as in-service groups and waiting counts.

    .venv/bin/python benches/peer/exact_scipy.py jsq --servers 3 --d 2 --lambda 0.7 --trunc 30,16
    .venv/bin/python benches/peer/exact_scipy.py redundancy --class 1:0.5 --class 1+2:0.6 \
        --servers 2 --policy lrf-ros --cap 120
    .venv/bin/python benches/peer/exact_scipy.py cases     # the reference table

Truncation. JSQ without a buffer keeps the shortest queue <= L and the longest minus the
shortest <= S (`--trunc L,S`); a redundancy chain blocks arrivals at `--cap` jobs. Each run
prints the values at the truncation asked and at a smaller one (L, S and the cap cut by
`--step`), so that the change says how far the truncation is from mattering.
"""
import argparse
import itertools
import json
import math
import resource
import sys
import time
from collections import deque

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla


def solve_stationary(rows, cols, vals, n):
    """pi Q = 0, sum pi = 1 by SuperLU. State 0 (the empty state, where the search starts)
    gets pi_0 = 1: its balance equation is dropped (it is implied by the others) and the
    remaining n - 1 equations in n - 1 unknowns are solved, then pi is normalised. The
    textbook alternative, one equation replaced by the normalisation row of ones, puts a
    dense row into the matrix and SuperLU's factors fill in from it: on N = 3, d = 2,
    lambda = 0.7 at the box (45, 30) (22816 states) that took 21.6 s against 2.8 s this way
    for the same value to 1.2e-13 (2026-12-03), so the peer is measured the fast way."""
    q = sp.csr_matrix((vals, (rows, cols)), shape=(n, n))
    out = np.asarray(q.sum(axis=1)).ravel()
    a = (q - sp.diags(out)).T.tocsc()
    b = -np.asarray(a[1:, 0].todense()).ravel()
    x = spla.spsolve(a[1:, 1:].tocsc(), b, permc_spec="COLAMD")
    pi = np.concatenate([[1.0], np.atleast_1d(x)])
    pi = np.maximum(pi, 0.0)
    return pi / pi.sum()


def explore(start, step):
    """Breadth-first enumeration: states, and the transitions as COO lists."""
    index = {start: 0}
    states = [start]
    rows, cols, vals = [], [], []
    queue = deque([start])
    while queue:
        s = queue.popleft()
        i = index[s]
        for t, r in step(s):
            if r <= 0.0 or t == s:
                continue
            j = index.get(t)
            if j is None:
                j = len(states)
                index[t] = j
                states.append(t)
                queue.append(t)
            rows.append(i)
            cols.append(j)
            vals.append(r)
    return states, rows, cols, vals


# ---------------------------------------------------------------- JSQ(d) on N servers


def join_distribution(n, d, with_replacement):
    """For a sorted vector, P(the task joins the server of rank i): every sample of d
    servers (ordered tuples with replacement, subsets without) counted, the sample's
    shortest server chosen; among equal lengths the tie is split evenly, so only the
    probability of each *length* matters and rank ties are resolved by the caller."""
    if with_replacement:
        samples = list(itertools.product(range(n), repeat=d))
    else:
        samples = list(itertools.combinations(range(n), d))
    return samples


def jsq_chain(n, d, lam, kind, buffer, trunc, with_replacement):
    samples = join_distribution(n, d, with_replacement)
    total = float(len(samples))
    cache = {}

    def join_probs(x):
        # probability that the joined server has length v, by value
        key = x
        if key in cache:
            return cache[key]
        probs = {}
        for smp in samples:
            v = min(x[i] for i in smp)
            probs[v] = probs.get(v, 0.0) + 1.0 / total
        cache[key] = probs
        return probs

    def allowed(y):
        if trunc is None:
            return True
        lo_max, spread = trunc
        return y[0] <= lo_max and y[-1] - y[0] <= spread

    def step(x):
        out = []
        for v, p in join_probs(x).items():
            if buffer is not None and v >= buffer:
                continue  # the chosen server is full: the task is discarded
            y = list(x)
            # the last server of length v gets the task (the vector stays sorted)
            k = max(i for i in range(n) if x[i] == v)
            y[k] += 1
            y = tuple(y)
            if allowed(y):
                out.append((y, lam * n * p))
        for v in sorted(set(x)):
            if v == 0:
                continue
            c = sum(1 for u in x if u == v)
            rate = c * (1.0 if kind == "queues" else float(v))
            y = list(x)
            k = min(i for i in range(n) if x[i] == v)
            y[k] -= 1
            y = tuple(y)
            if allowed(y):
                out.append((y, rate))
        return out

    return explore(tuple([0] * n), step)


def jsq_values(n, d, lam, kind, buffer, trunc, with_replacement):
    t0 = time.perf_counter()
    states, rows, cols, vals = jsq_chain(n, d, lam, kind, buffer, trunc, with_replacement)
    t1 = time.perf_counter()
    pi = solve_stationary(rows, cols, vals, len(states))
    t2 = time.perf_counter()
    x = np.array(states, dtype=float)
    mean = float(pi @ x.sum(axis=1)) / n
    top = int(x.max())
    occ = [float(pi @ (x >= i).sum(axis=1)) / n for i in range(1, top + 1)]
    blocking = 0.0
    if buffer is not None:
        samples = join_distribution(n, d, with_replacement)
        for s, p in zip(states, pi):
            full = sum(1 for smp in samples if all(s[i] >= buffer for i in smp))
            blocking += p * full / len(samples)
    return {
        "mean_tasks": mean,
        "occupancy": occ[:8],
        "blocking": blocking,
        "states": len(states),
        "explore_seconds": t1 - t0,
        "solve_seconds": t2 - t1,
    }


# ------------------------------------------------------------ redundancy, exponential copies


def parse_policy(name):
    pri, _, order = name.partition("-")
    if not order:
        pri, order = "none", pri
    return pri, order


def redundancy_chain(k, classes, mu, policy, cap):
    """State: (waiting counts per class, groups) with groups a sorted tuple of
    (class, server bitmask): the servers of a group serve copies of one job. Arrivals of
    class c start at every idle server of S_c; a group completes at the sum of its servers'
    rates, and its servers, freed, pick in increasing server order: by class rank (LRF the
    fewest servers first, MRF the most, none alike), then FCFS (the oldest job of the
    class: its group if it has one, else the oldest waiting) or ROS (uniform over the jobs,
    those in service elsewhere included). Non-preemptive."""
    pri, order = parse_policy(policy)
    nc = len(classes)
    sets = [s for s, _ in classes]
    lams = [l for _, l in classes]
    size = [bin(s).count("1") for s in sets]
    rank = [size[c] if pri == "lrf" else (-size[c] if pri == "mrf" else 0) for c in range(nc)]

    def busy_mask(groups):
        m = 0
        for _, g in groups:
            m |= g
        return m

    def jobs_of(waiting, groups, c):
        return waiting[c] + sum(1 for cc, _ in groups if cc == c)

    def server_pick(server, waiting, groups):
        """Outcomes (waiting, groups, prob) of a free server's pick."""
        cand = [c for c in range(nc) if (sets[c] >> server) & 1 and jobs_of(waiting, groups, c) > 0]
        if not cand:
            return [(waiting, groups, 1.0)]
        top = min(rank[c] for c in cand)
        level = [c for c in cand if rank[c] == top]
        outs = []
        if order == "fcfs":
            # one class per rank (nested systems): its oldest job
            (c,) = level
            own = [i for i, (cc, _) in enumerate(groups) if cc == c]
            if own:
                i = own[0]
                g = list(groups)
                g[i] = (c, g[i][1] | (1 << server))
                outs.append((waiting, tuple(sorted(g)), 1.0))
            else:
                w = list(waiting)
                w[c] -= 1
                outs.append((tuple(w), tuple(sorted(groups + ((c, 1 << server),))), 1.0))
            return outs
        total = sum(jobs_of(waiting, groups, c) for c in level)
        for c in level:
            for i, (cc, m) in enumerate(groups):
                if cc == c:
                    g = list(groups)
                    g[i] = (c, m | (1 << server))
                    outs.append((waiting, tuple(sorted(g)), 1.0 / total))
            if waiting[c] > 0:
                w = list(waiting)
                w[c] -= 1
                outs.append((tuple(w), tuple(sorted(groups + ((c, 1 << server),))), waiting[c] / total))
        return outs

    def step(state):
        waiting, groups = state
        n_jobs = sum(waiting) + len(groups)
        out = []
        busy = busy_mask(groups)
        if n_jobs < cap:
            for c in range(nc):
                idle = sets[c] & ~busy
                if idle:
                    out.append(((waiting, tuple(sorted(groups + ((c, idle),)))), lams[c]))
                else:
                    w = list(waiting)
                    w[c] += 1
                    out.append(((tuple(w), groups), lams[c]))
        for i, (c, m) in enumerate(groups):
            rate = sum(mu[s] for s in range(k) if (m >> s) & 1)
            rest = groups[:i] + groups[i + 1 :]
            cur = [(waiting, rest, 1.0)]
            for s in range(k):
                if not (m >> s) & 1:
                    continue
                nxt = []
                for w, g, p in cur:
                    for w2, g2, q in server_pick(s, w, g):
                        nxt.append((w2, g2, p * q))
                cur = nxt
            for w, g, p in cur:
                out.append(((w, g), rate * p))
        return out

    return explore((tuple([0] * nc), ()), step)


def redundancy_values(k, classes, mu, policy, cap):
    t0 = time.perf_counter()
    states, rows, cols, vals = redundancy_chain(k, classes, mu, policy, cap)
    t1 = time.perf_counter()
    pi = solve_stationary(rows, cols, vals, len(states))
    t2 = time.perf_counter()
    nc = len(classes)
    number = [0.0] * nc
    p_full = 0.0
    for (waiting, groups), p in zip(states, pi):
        tot = 0
        for c in range(nc):
            x = waiting[c] + sum(1 for cc, _ in groups if cc == c)
            number[c] += p * x
            tot += x
        if tot == cap:
            p_full += p
    return {
        "number": number,
        "total_number": sum(number),
        "p_full": p_full,
        "states": len(states),
        "explore_seconds": t1 - t0,
        "solve_seconds": t2 - t1,
    }


def parse_class(text, k):
    s, _, r = text.partition(":")
    mask = 0
    for part in s.split("+"):
        mask |= 1 << (int(part) - 1)
    return mask, float(r)


# ------------------------------------------------------------------------- command line


def peak_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def run_jsq(a):
    trunc = None
    if a.buffer is None:
        lo, s = (int(v) for v in a.trunc.split(","))
        trunc = (lo, s)
    res = {"fine": jsq_values(a.servers, a.d, a.lam, a.model, a.buffer, trunc, a.sampling == "with")}
    if trunc is not None and a.step > 0:
        coarse = (trunc[0] - a.step, trunc[1] - max(1, a.step // 4))
        res["coarse"] = jsq_values(a.servers, a.d, a.lam, a.model, a.buffer, coarse, a.sampling == "with")
        res["coarse_truncation"] = coarse
    res["truncation"] = trunc
    res["peak_mb"] = peak_mb()
    return res


def run_redundancy(a):
    k = a.servers
    classes = [parse_class(c, k) for c in a.classes]
    mu = [1.0] * k
    res = {"fine": redundancy_values(k, classes, mu, a.policy, a.cap)}
    if a.step > 0:
        res["coarse"] = redundancy_values(k, classes, mu, a.policy, a.cap - a.step)
    res["cap"] = a.cap
    res["peak_mb"] = peak_mb()
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    j = sub.add_parser("jsq")
    j.add_argument("--servers", type=int, required=True)
    j.add_argument("--d", type=int, required=True)
    j.add_argument("--lambda", dest="lam", type=float, required=True)
    j.add_argument("--model", choices=["queues", "pools"], default="queues")
    j.add_argument("--buffer", type=int)
    j.add_argument("--sampling", choices=["without", "with"], default="without")
    j.add_argument("--trunc", default="40,12", help="L,S: shortest queue <= L, spread <= S")
    j.add_argument("--step", type=int, default=8)
    r = sub.add_parser("redundancy")
    r.add_argument("--servers", type=int, required=True)
    r.add_argument("--class", dest="classes", action="append", required=True)
    r.add_argument("--policy", required=True)
    r.add_argument("--cap", type=int, required=True)
    r.add_argument("--step", type=int, default=20)
    sub.add_parser("cases")
    a = ap.parse_args()
    if a.cmd == "jsq":
        print(json.dumps(run_jsq(a), indent=1))
    elif a.cmd == "redundancy":
        print(json.dumps(run_redundancy(a), indent=1))
    else:
        run_cases()


# The reference cases of tests/jsq_exact.rs and tests/redundancy_exact.rs (their values
# are pasted there with this script named as their source) and of the speed table.
CASES = [
    ("jsq", dict(servers=3, d=2, lam=0.7, model="queues", buffer=None, sampling="without", trunc="40,20", step=8)),
    ("jsq", dict(servers=4, d=2, lam=0.8, model="queues", buffer=None, sampling="with", trunc="50,20", step=8)),
    ("jsq", dict(servers=5, d=5, lam=0.9, model="queues", buffer=None, sampling="without", trunc="120,6", step=16)),
    ("jsq", dict(servers=5, d=2, lam=0.9, model="queues", buffer=10, sampling="without", trunc="0,0", step=0)),
    ("redundancy", dict(servers=2, classes=["1:0.5", "2:0.5", "1+2:0.6"], policy="lrf-ros", cap=200, step=40)),
    ("redundancy", dict(servers=2, classes=["1:0.5", "1+2:0.9"], policy="ros", cap=200, step=40)),
    ("redundancy", dict(servers=2, classes=["1:0.5", "1+2:0.9"], policy="mrf-fcfs", cap=200, step=40)),
    ("redundancy", dict(servers=3, classes=["1:0.3", "2:0.3", "1+2:0.4", "3:0.3", "1+2+3:0.6"], policy="lrf-fcfs", cap=70, step=14)),
]


def run_cases():
    for kind, kw in CASES:
        ns = argparse.Namespace(**kw)
        t0 = time.perf_counter()
        res = run_jsq(ns) if kind == "jsq" else run_redundancy(ns)
        res["seconds"] = time.perf_counter() - t0
        print(json.dumps({"kind": kind, "args": kw, "result": res}))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
