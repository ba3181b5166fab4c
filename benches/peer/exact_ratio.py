#!/usr/bin/env python3
"""Side-by-side speed of the exact chains: `taskassign jsq exact` / `redundancy exact` at
--digits D against the SciPy peer (exact_scipy.py: the chain written from the model's
definition, SuperLU with COLAMD) on the same case, one after the other in one run.

    .venv/bin/python benches/peer/exact_ratio.py [--bin target/release/taskassign]
        [--digits 12] [--budget 300] [--only SUBSTRING] > ratio.md

For each case the binary runs once (wall seconds, peak memory of the child). The peer has
no truncation bound, so it is run at growing truncations (the JSQ box (L, S) one axis at a
time, the one whose enlargement by 1.25 moves the value more; the redundancy job cap by
1.25) until enlarging it moves the value by less than 10^-D relative and the value agrees
with the binary's printed value to one unit of its last digit. The row quotes the peer's
time for that truncation alone (explore plus SuperLU; the truncations tried on the way are
not charged, which favours the peer)
and the ratio peer / taskassign. A peer that runs out of its budget (seconds summed over its
truncations) or of MAX_STATES gets no ratio, only a lower bound on it (its last truncation's
time: the one that settles costs more).
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time
from decimal import Decimal

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import exact_scipy as peer  # noqa: E402

MAX_STATES = 400_000

# name, taskassign arguments, peer kind and arguments (the same chain)
CASES = [
    ("jsq N=2 d=2 l=0.95", "jsq exact --model queues --servers 2 --d 2 --lambda 0.95",
     ("jsq", dict(servers=2, d=2, lam=0.95))),
    ("jsq N=3 d=2 l=0.9", "jsq exact --model queues --servers 3 --d 2 --lambda 0.9",
     ("jsq", dict(servers=3, d=2, lam=0.9))),
    ("jsq N=3 d=3 l=0.95", "jsq exact --model queues --servers 3 --d 3 --lambda 0.95",
     ("jsq", dict(servers=3, d=3, lam=0.95))),
    ("jsq N=4 d=2 l=0.9", "jsq exact --model queues --servers 4 --d 2 --lambda 0.9",
     ("jsq", dict(servers=4, d=2, lam=0.9))),
    ("jsq N=5 d=2 l=0.5", "jsq exact --model queues --servers 5 --d 2 --lambda 0.5",
     ("jsq", dict(servers=5, d=2, lam=0.5))),
    ("N-model (0.1,1.7) lrf-fcfs", "redundancy exact --system n-model --lambdas 0.1,1.7 --policy lrf-fcfs",
     ("red", dict(servers=2, classes=["1:0.1", "1+2:1.7"], policy="lrf-fcfs"))),
    ("N-model (0.1,1.7) lrf-ros", "redundancy exact --system n-model --lambdas 0.1,1.7 --policy lrf-ros",
     ("red", dict(servers=2, classes=["1:0.1", "1+2:1.7"], policy="lrf-ros"))),
    ("N-model (0.1,1.7) ros", "redundancy exact --system n-model --lambdas 0.1,1.7 --policy ros",
     ("red", dict(servers=2, classes=["1:0.1", "1+2:1.7"], policy="ros"))),
    ("W-model (0.5,0.5,0.6) lrf-fcfs", "redundancy exact --system w-model --lambdas 0.5,0.5,0.6 --policy lrf-fcfs",
     ("red", dict(servers=2, classes=["1:0.5", "2:0.5", "1+2:0.6"], policy="lrf-fcfs"))),
    ("W-model (0.5,0.5,0.6) lrf-ros", "redundancy exact --system w-model --lambdas 0.5,0.5,0.6 --policy lrf-ros",
     ("red", dict(servers=2, classes=["1:0.5", "2:0.5", "1+2:0.6"], policy="lrf-ros"))),
]


def run_binary(binary, args, digits):
    """Wall seconds, peak memory (GNU time's maximum resident set: the child's own, not
    the forking Python's), the printed mean and the states the binary reports."""
    cmd = ["/usr/bin/time", "-f", "%M", binary] + args.split() + ["--digits", str(digits), "--format", "json"]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    mb = int(proc.stderr.strip().splitlines()[-1]) / 1024.0
    if proc.returncode != 0:
        return None, wall, mb, None
    rec = json.loads(proc.stdout)
    key = "mean_tasks" if "mean_tasks" in rec else "mean_number"
    states = rec.get("states")
    if states is None:
        m = re.search(r"\((\d+) states", rec.get("method", ""))
        states = int(m.group(1)) if m else None
    return rec[key], wall, mb, states


def last_unit(text):
    """One unit in the last printed digit of a decimal string such as 1.31935465308e0."""
    d = Decimal(text)
    return float(Decimal(1).scaleb(d.as_tuple().exponent))


def peer_value(kind, kw, size):
    if kind == "jsq":
        lo, spread = size
        r = peer.jsq_values(kw["servers"], kw["d"], kw["lam"], "queues", None, (lo, spread), False)
        return r["mean_tasks"], r["states"]
    k = kw["servers"]
    classes = [peer.parse_class(c, k) for c in kw["classes"]]
    r = peer.redundancy_values(k, classes, [1.0] * k, kw["policy"], size)
    return r["total_number"], r["states"]


def enlargements(kind, size):
    """The truncations one step larger: each JSQ axis by 1.25 on its own, the cap by 1.25."""
    if kind == "jsq":
        return [(size[0] * 5 // 4 + 1, size[1]), (size[0], size[1] * 5 // 4 + 1)]
    return [size * 5 // 4 + 1]


def timed(kind, kw, size):
    t0 = time.perf_counter()
    value, states = peer_value(kind, kw, size)
    return value, states, time.perf_counter() - t0


def run_peer(kind, kw, target, unit, digits, budget):
    """The peer's smallest settled truncation, found greedily. JSQ's box has two axes (the
    shortest queue L, the spread S) that need very different sizes: from the current box
    both one-axis enlargements are solved and the axis whose enlargement moves the value
    more is grown, until neither moves it by 10^-digits and the value agrees with the
    binary's. The redundancy cap is grown until two successive caps agree."""
    tol = 10.0 ** -digits
    size = (12, 6) if kind == "jsq" else 40
    value, states, took = timed(kind, kw, size)
    spent = took
    while True:
        # each enlargement costs at least the current truncation (about twice, for the
        # three-class chains): stop before the budget is passed
        if spent + 2 * took * (2 if kind == "jsq" else 1) > budget:
            return dict(size=size, states=states, seconds=took, value=value, spent=spent, done=False)
        outs = []
        for t in enlargements(kind, size):
            v, n, sec = timed(kind, kw, t)
            spent += sec
            outs.append((abs(v - value), t, v, n, sec))
        moved = max(o[0] for o in outs)
        if moved <= tol * abs(value) and abs(value - target) <= unit:
            return dict(size=size, states=states, seconds=took, value=value, spent=spent, done=True)
        if max(o[3] for o in outs) * 1.25 > MAX_STATES:
            return dict(size=size, states=states, seconds=took, value=value, spent=spent, done=False)
        _, size, value, states, took = max(outs, key=lambda o: o[0])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default="target/release/taskassign")
    ap.add_argument("--digits", type=int, default=12)
    ap.add_argument("--budget", type=float, default=300.0, help="peer seconds per case")
    ap.add_argument("--only", default="")
    a = ap.parse_args()
    print("| case | taskassign states | taskassign s | MB | SciPy truncation | SciPy states | SciPy s | ratio |")
    print("|---|---:|---:|---:|---|---:|---:|---:|")
    for name, args, (kind, kw) in CASES:
        if a.only and a.only not in name:
            continue
        text, wall, mb, states = run_binary(a.bin, args, a.digits)
        if text is None:
            print(f"| {name} | | failed | {mb:.0f} | | | | |")
            continue
        p = run_peer(kind, kw, float(text), last_unit(text), a.digits, a.budget)
        if p["done"]:
            ratio = f"{p['seconds'] / wall:.2g}"
            secs = f"{p['seconds']:.2f}"
        else:
            # the truncation that settles costs at least the last one tried
            ratio = f"> {p['seconds'] / wall:.0f} (not settled)"
            secs = f"> {p['seconds']:.1f} (budget: {p['spent']:.0f} in all)"
        print(f"| {name} | {states} | {wall:.2f} | {mb:.0f} | {p['size']} | {p['states']} | {secs} | {ratio} |")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
