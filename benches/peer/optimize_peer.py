#!/usr/bin/env python3
"""Side-by-side peer for `taskassign optimize`: the same SITA/TAGS formulas for Bounded
Pareto sizes written in mpmath, minimised by golden-section search (h = 2) and nested
golden-section search (h = 3), at the same number of digits.

Run (from the repository root, after `cargo build --release`):

    python3 benches/peer/optimize_peer.py            # timing table + value cross-check
    python3 benches/peer/optimize_peer.py --quick    # one case, fewer repetitions
    python3 benches/peer/optimize_peer.py --certify  # peer also runs twice (as certification)
    python3 benches/peer/optimize_peer.py --values   # 2-host optimal values for the tests

It times the peer in-process and `target/release/taskassign optimize` both in-process
(`--repeat`, the median of 50 certified runs, measured by the binary) and as a subprocess
(process start-up included, which favours the peer), alternating the peer and taskassign
so that machine noise hits both, and prints the median time of each and the ratios. It also checks that
the two optimal values agree to the digits requested: an independent implementation.
"""
import json
import statistics
import subprocess
import sys
import time

import mpmath as mp

BIN = "target/release/taskassign"
GOLDEN_GUARD = 10  # extra decimal digits of working precision in the peer
IN_PROCESS_RUNS = 50  # `optimize --repeat`: certified runs per in-process timing


class BP:
    """Bounded Pareto BP(k, p, alpha) with closed-form partial moments."""

    def __init__(self, k, p, a):
        self.k, self.p, self.a = mp.mpf(k), mp.mpf(p), mp.mpf(a)
        self.norm = 1 - (self.k / self.p) ** self.a

    def m(self, j, lo, hi):
        lo, hi = max(lo, self.k), min(hi, self.p)
        if lo >= hi:
            return mp.mpf(0)
        c = self.a * self.k ** self.a / self.norm
        t = j - self.a
        if t == 0:
            return c * mp.log(hi / lo)
        return c * (hi ** t - lo ** t) / t

    def tail(self, x):
        if x >= self.p:
            return mp.mpf(0)
        return ((self.k / x) ** self.a - (self.k / self.p) ** self.a) / self.norm

    def mean(self):
        return self.m(1, self.k, self.p)


def sita(d, lam, cuts):
    s = [d.k] + cuts + [d.p]
    w = mp.mpf(0)
    for a, b in zip(s, s[1:]):
        rho = lam * d.m(1, a, b)
        if rho >= 1:
            return mp.inf
        w += d.m(0, a, b) * lam * d.m(2, a, b) / (2 * (1 - rho))
    return w


def tags(d, lam, cuts):
    s = [d.k] + cuts + [d.p]
    w = mp.mpf(0)
    for i, (a, b) in enumerate(zip(s, s[1:])):
        last = i == len(s) - 2
        bt = mp.mpf(0) if last else b * d.tail(b)
        rho = lam * (d.m(1, a, b) + bt)
        if rho >= 1:
            return mp.inf
        q = lam * (d.m(2, a, b) + b * bt) / (2 * (1 - rho))
        w += (1 if i == 0 else d.tail(a)) * q
        if not last:
            w += bt
    return w


def golden(f, lo, hi, tol):
    """Minimise f on [lo, hi] (in ln s) to an interval of width tol."""
    g = (mp.sqrt(5) - 1) / 2
    c, e = hi - g * (hi - lo), lo + g * (hi - lo)
    fc, fe = f(c), f(e)
    while hi - lo > tol:
        if fc < fe:
            hi, e, fe = e, c, fc
            c = hi - g * (hi - lo)
            fc = f(c)
        else:
            lo, c, fc = c, e, fe
            e = lo + g * (hi - lo)
            fe = f(e)
    return (c, fc) if fc < fe else (e, fe)


def peer_optimum(policy, k, p, alpha, load, h, digits):
    mp.mp.dps = digits + GOLDEN_GUARD
    d = BP(k, p, alpha)
    lam = mp.mpf(load) / d.mean()
    obj = sita if policy == "sita" else tags
    lk, lp = mp.log(d.k), mp.log(d.p)
    # The value is flat at the minimum: a ln-cutoff to 10^-(digits/2 + 2) gives the value
    # to about `digits` digits.
    tol = mp.mpf(10) ** (-(digits // 2 + 2))
    if h == 2:
        x, v = golden(lambda y: obj(d, lam, [mp.exp(y)]), lk, lp, tol)
        return v, [mp.exp(x)]
    if h == 3:
        def inner(y1):
            return golden(lambda y2: obj(d, lam, [mp.exp(y1), mp.exp(y2)]), y1, lp, tol)
        x1, v = golden(lambda y1: inner(y1)[1], lk, lp, tol)
        return v, [mp.exp(x1), mp.exp(inner(x1)[0])]
    raise ValueError("peer handles h = 2 and 3")


def ours(policy, k, p, alpha, load, h, digits, repeat=1):
    args = [BIN, "optimize", "--policy", policy, "--dist", f"bp:k={k},p={p},alpha={alpha}",
            "--hosts", str(h), "--load", load, "--digits", str(digits), "--format", "json"]
    if repeat > 1:
        args += ["--repeat", str(repeat)]
    out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def values():
    """Prints the 2-host optimal values (20 digits) that tests/optimize_cli.rs compares."""
    for (pol, k, p, a, load) in [("sita", "1", "1e10", "1.5", "0.5"), ("tags", "1", "1e10", "1.5", "0.5"),
                                 ("sita", "1", "1e10", "0.5", "0.7"), ("tags", "1", "1e1000", "1", "0.5")]:
        v, cuts = peer_optimum(pol, k, p, a, load, 2, 30)
        print(pol, f"bp:k={k},p={p},alpha={a}", load, mp.nstr(v, 20, min_fixed=1, max_fixed=0), mp.nstr(cuts[0], 15))


def main():
    if "--values" in sys.argv:
        values()
        return
    quick = "--quick" in sys.argv
    cases = [("sita", "1", "1e10", "1.5", "0.5", 2, 30), ("tags", "1", "1e10", "1.5", "0.5", 2, 30),
             ("sita", "1", "1e10", "0.5", "0.7", 2, 30), ("tags", "1", "1e1000", "1", "0.5", 2, 30),
             ("sita", "1", "1e10", "1.5", "0.5", 2, 100), ("tags", "1", "1e1000", "1", "0.5", 2, 100),
             ("sita", "1", "1e10", "1.5", "0.5", 3, 20)]
    reps = 3 if quick else 5
    if "--rounds" in sys.argv:
        reps = int(sys.argv[sys.argv.index("--rounds") + 1])
    certify = "--certify" in sys.argv
    if quick:
        cases = cases[:1]
    print("| policy | dist | h | load | digits | peer s | taskassign s (in process) | ratio | "
          "ratio, best of rounds | taskassign s (with process start-up) | ratio | values agree to |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for (pol, k, p, a, load, h, digits) in cases:
        tp, to, ti = [], [], []
        for _ in range(reps):
            t0 = time.perf_counter()
            pv, _ = peer_optimum(pol, k, p, a, load, h, digits)
            if certify:
                # Equal footing: taskassign certifies by a second run at higher precision.
                peer_optimum(pol, k, p, a, load, h, digits + digits // 4 + 10)
            tp.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            r = ours(pol, k, p, a, load, h, digits)
            to.append(time.perf_counter() - t0)
            # In-process time of one certified run (median of IN_PROCESS_RUNS), measured
            # by the binary itself: the peer is timed in-process too.
            ti.append(float(ours(pol, k, p, a, load, h, digits, IN_PROCESS_RUNS)["seconds_per_run"]))
        mp.mp.dps = digits + GOLDEN_GUARD
        ov = mp.mpf(r["value"])
        agree = -mp.log10(abs(ov - pv) / abs(pv)) if ov != pv else digits
        mp_s, our_s, in_s = statistics.median(tp), statistics.median(to), statistics.median(ti)
        # The machine is shared: the fastest round of each side is the least disturbed one.
        best = min(tp) / min(ti)
        print(f"| {pol} | bp:k={k},p={p},alpha={a} | {h} | {load} | {digits} | {mp_s:.4f} | "
              f"{in_s:.5f} | {mp_s / in_s:.0f}x | {best:.0f}x | {our_s:.4f} | {mp_s / our_s:.0f}x | "
              f"{float(agree):.1f} digits |")


if __name__ == "__main__":
    main()
