#!/usr/bin/env python3
"""Feasibility of a Foster-Lyapunov certificate for the compact redundancy chain under a
class priority (issue 26, item 2; src/redundancy/ctmc.rs, "No proven truncation bound").

The chain (src/redundancy/ctmc.rs, ClassChain) is re-implemented here on its state
(class counts n, busy-server configuration sigma).  The candidate is

    V(n, sigma) = n^T P n + sum_c g_c(sigma) n_c        (P >= 0 entrywise, g >= 0),

a full quadratic plus a linear term that depends on the configuration: under a
non-preemptive priority a server can serve a lower-ranked class while a higher one waits,
and only a term that sees sigma can charge that.  A bounded correction h(sigma) changes the
drift by a constant only, so it cannot help the coefficients below.

The drift QV is affine in n on each cell (sigma, cat), cat_c = min(n_c, T): an FCFS
transition's target configuration depends on which classes are present only, a ROS pick's
probabilities on n_c through 1/n_c in [0, 1/T] for a class with n_c >= T ("big").  On every
cell the coefficient of every big n_j must be <= -1 (P scaled); then QV <= -1 outside any
truncation that leaves every state of small total inside.  The LP finds (P, g) from f64
rows (ROS: 1/n_c at the ends 0 and 1/T); the certificate is then rounded to rationals and
checked in exact arithmetic (fractions.Fraction), ROS's pick probabilities enclosed in
rational intervals (a product of factors 1/n_c in [0, 1/T] and (n_c - G)/n_c in
[1 - G/T, 1]; for the class whose job has just completed, whose count is then only known
to be >= T - 1, in [0, 1/(T - 1)] and [1 - G/(T - 1), 1]), every cell of every configuration the chain reaches with every count
category consistent with it (a superset of the reachable cells).

Found with the completed class's interval fixed (2026-12-04; the script's output): the
W-model at (1/2, 1/2, 3/5) under all four priority policies (ROS at T = 8, levels 10.5 and
11.1 jobs instead of 9.0 and 9.4), the N-model at (1/10, 17/10) under LRF-FCFS and MRF-FCFS
(T = 2), LRF-ROS only from T = 12 (level 56.3) and MRF-ROS only from T = 16 (58.6): at
T = 8 both are infeasible now, their earlier certificates at T = 8 rested on the bug.

The re-implemented chain was checked against ClassChain (2026-12-03: class_chain_values
at a fixed cap against a SciPy spsolve of this chain blocked alike): the W-model at
(0.5, 0.5, 0.6) under LRF-FCFS (cap 12) and MRF-ROS (cap 12) and the N-model at (0.1, 1.7)
under MRF-ROS (cap 20) have the same number of states (1247, 1533, 611) and the same mean
numbers per class to 4e-12.

Run: /work/main/.venv/bin/python scripts/redundancy_lyapunov.py [-v] [--selftest]
(-v prints each certificate, or the heaviest rows of a Farkas combination; --selftest
checks that the exact check rejects mutants of a certificate it accepts, and that the
N-model's MRF-ROS verdicts at T = 8 and 16 are those of the completed class's interval.)
"""
import itertools
import sys
from fractions import Fraction as Fr

import numpy as np
from scipy.optimize import linprog

SYSTEMS = {
    "w-model": ([0b01, 0b10, 0b11], 2),
    "n-model": ([0b01, 0b11], 2),
    "nested-3": ([0b001, 0b010, 0b011, 0b100, 0b111], 3),
}


def popcount(x):
    return bin(x).count("1")


class Chain:
    """The compact chain of ctmc.rs (non-preemptive, mu = 1 per server)."""

    def __init__(self, sets, k, lam, policy, order, T):
        self.sets, self.k, self.lam, self.order, self.T = sets, k, lam, order, T
        self.nc = len(sets)
        sign = 1 if policy == "lrf" else -1
        self.rank = [sign * popcount(m) for m in sets]
        self.compat = [
            sorted([c for c in range(self.nc) if sets[c] >> s & 1], key=lambda c: self.rank[c])
            for s in range(k)
        ]

    @staticmethod
    def pack(server, gclass):
        mp, srv, gc = {}, [], []
        for g in server:
            if g == 0:
                srv.append(0)
                continue
            if g not in mp:
                mp[g] = len(mp) + 1
                gc.append(gclass[g])
            srv.append(mp[g])
        return (tuple(srv), tuple(gc))

    def pick(self, s, counts, server, gclass, p, out, lower=None):
        """Server s (free) picks; p and the outcomes' weights are intervals (lo, hi).
        `lower[c]`, when given, says that class c's count is only known to be >= lower[c]
        (a big class); otherwise counts[c] is exact."""
        present = [c for c in self.compat[s] if counts[c] > 0]
        if not present:
            out.append((server, gclass, p))
            return
        c = present[0]
        ex = [g for g, cc in gclass.items() if cc == c]
        if self.order == "fcfs":
            server, gclass = list(server), dict(gclass)
            if ex:
                server[s] = ex[0]
            else:
                g = max(list(gclass) + [0]) + 1
                gclass[g] = c
                server[s] = g
            out.append((tuple(server), gclass, p))
            return
        n = counts[c]
        G = len(ex)
        L = (lower or {}).get(c)
        big = L is not None
        if big:  # n >= L: 1/n in [0, 1/L]; (n - G)/n in [1 - G/L, 1]
            join = (Fr(0), Fr(1, L))
            wait = (max(Fr(0), 1 - Fr(G, L)), Fr(1))
        else:
            join = (Fr(1, n), Fr(1, n))
            wait = (Fr(n - G, n), Fr(n - G, n))
        for g in ex:
            sr = list(server)
            sr[s] = g
            out.append((tuple(sr), dict(gclass), (p[0] * join[0], p[1] * join[1])))
        if big or n - G > 0:
            sr, gc = list(server), dict(gclass)
            g = max(list(gc) + [0]) + 1
            gc[g] = c
            sr[s] = g
            out.append((tuple(sr), gc, (p[0] * wait[0], p[1] * wait[1])))

    def transitions(self, counts, sigma):
        """(class, +1/-1, rate interval, target configuration) of every transition."""
        srv, gcl = sigma
        gclass = {i + 1: c for i, c in enumerate(gcl)}
        res = []
        for c in range(self.nc):
            server, gc = list(srv), dict(gclass)
            joiners = [s for s in range(self.k) if self.sets[c] >> s & 1 and server[s] == 0]
            if joiners:
                g = max(list(gc) + [0]) + 1
                gc[g] = c
                for s in joiners:
                    server[s] = g
            lam = self.lam[c]
            res.append((c, +1, (lam, lam), self.pack(server, gc)))
        for g, c in gclass.items():
            servers = [s for s in range(self.k) if srv[s] == g]
            rate = Fr(len(servers))
            n = list(counts)
            n[c] -= 1
            # A class at the cell's category T has any count >= T; after this completion
            # class c's is only known to be >= T - 1 (taking it as exactly T - 1, as this
            # script did until 2026-12-04, is right only at n_c = T).
            lower = {d: (self.T - 1 if d == c else self.T)
                     for d in range(self.nc) if counts[d] >= self.T}
            server, gc = list(srv), dict(gclass)
            del gc[g]
            for s in servers:
                server[s] = 0
            cur = [(tuple(server), gc, (Fr(1), Fr(1)))]
            for s in servers:
                nxt = []
                for a, b, p in cur:
                    self.pick(s, n, a, b, p, nxt, lower)
                cur = nxt
            for a, b, p in cur:
                res.append((c, -1, (rate * p[0], rate * p[1]), self.pack(a, b)))
        return res


def configurations(ch, cap):
    """The configurations the chain reaches with at most `cap` jobs."""
    z = (tuple([0] * ch.nc), (tuple([0] * ch.k), ()))
    seen, todo = {z}, [z]
    while todo:
        n, sg = todo.pop()
        # exact probabilities for the exploration: T above every count
        for c, d, r, sg2 in ch.transitions(n, sg):
            if r[1] == 0:
                continue
            n2 = list(n)
            n2[c] += d
            n2 = tuple(n2)
            if sum(n2) <= cap and (n2, sg2) not in seen:
                seen.add((n2, sg2))
                todo.append((n2, sg2))
    return sorted({sg for _, sg in seen})


def cells(ch, sigmas):
    """Every (counts representative, sigma) with a big class, consistent with sigma."""
    out = []
    for sg in sigmas:
        srv, gcl = sg
        groups = [gcl.count(c) for c in range(ch.nc)]
        for cat in itertools.product(range(ch.T + 1), repeat=ch.nc):
            if ch.T not in cat:
                continue
            if any(cat[c] < groups[c] for c in range(ch.nc)):
                continue
            idle_bad = any(
                srv[s] == 0 and any(cat[c] > 0 for c in ch.compat[s]) for s in range(ch.k)
            )
            if idle_bad:
                continue
            out.append((cat, sg))
    return out


def rows(ch, cellset, sigmas, end):
    """Coefficient rows: for each cell and big j, sum over transitions of
    rate * (2 (P delta)_j + g_j(sigma') - g_j(sigma)), as a dict var -> rate.  `end`
    picks the interval end of each rate (0: lo, 1: hi) for the LP."""
    nc = ch.nc
    out = []
    for cat, sg in cellset:
        tr = ch.transitions(cat, sg)
        for j in range(nc):
            if cat[j] != ch.T:
                continue
            terms = []  # (rate interval, {var: coef})
            for c, d, r, sg2 in tr:
                coef = {("P", min(j, c), max(j, c)): 2 * d}
                coef[("g", sg2, j)] = coef.get(("g", sg2, j), 0) + 1
                coef[("g", sg, j)] = coef.get(("g", sg, j), 0) - 1
                terms.append((r, coef))
            out.append(((cat, sg, j), terms))
    return out


def solve(ch, rowset, sigmas):
    nc = ch.nc
    var = {}
    for i in range(nc):
        for j in range(i, nc):
            var[("P", i, j)] = len(var)
    for sg in sigmas:
        for c in range(nc):
            var[("g", sg, c)] = len(var)
    A = []
    for _, terms in rowset:
        # the LP sees both ends of every interval rate (a superset of rows for FCFS: equal)
        ends = [0] if ch.order == "fcfs" else [0, 1]
        for e in ends:
            row = np.zeros(len(var))
            for r, coef in terms:
                for v, a in coef.items():
                    if a:
                        row[var[v]] += float(r[e]) * a
            A.append(row)
    A = np.array(A)
    b = -np.full(len(A), 1.25)  # a margin over -1 for the rational rounding
    cobj = np.array([1.0 if k[0] == "P" else 1e-3 for k in var])
    res = linprog(cobj, A_ub=A, b_ub=b, bounds=[(0, None)] * len(var), method="highs")
    return res, var, A


def verify(ch, rowset, cert):
    """Exact check: every coefficient's upper bound (each rate at the interval end that
    maximises its term) is <= -1.  Returns the largest coefficient bound."""
    worst = None
    for key, terms in rowset:
        tot = Fr(0)
        for r, coef in terms:
            a = sum((cert[v] * x for v, x in coef.items() if x), Fr(0))
            tot += max(r[0] * a, r[1] * a)
        if worst is None or tot > worst[0]:
            worst = (tot, key)
    return worst


def constant_level(ch, cellset, cert):
    """The drift's constant on each cell, bounded exactly: with the big counts at 0,
    sum over transitions of rate * (delta^T P delta + delta.g(sigma') + the small counts'
    terms), each rate at its worse interval end.  Returns the largest (b + 1)/1.25: the
    big classes' total beyond which QV <= -1 on every cell (their coefficients are all
    <= -1.25 by the LP's margin; verify() checks <= -1, so this is read with the margin)."""
    worst = Fr(0)
    for cat, sg in cellset:
        tr = ch.transitions(cat, sg)
        tot = Fr(0)
        for c, d, r, sg2 in tr:
            P = lambda i, j: cert[("P", min(i, j), max(i, j))]
            g = lambda s_, i: cert[("g", s_, i)]
            # delta = d e_c: delta.g(sigma') = d g_c(sigma')
            k = P(c, c) + d * g(sg2, c)
            for i in range(ch.nc):
                if cat[i] != ch.T:
                    k += cat[i] * (2 * d * P(i, c) + g(sg2, i) - g(sg, i))
            tot += max(r[0] * k, r[1] * k)
        worst = max(worst, tot)
    return (worst + 1) / Fr(5, 4)


def farkas(A):
    """y >= 0, sum y = 1, A^T y >= 0: the rows whose positive combination no (P, g) >= 0
    can make negative (Farkas's lemma for A x <= b, x >= 0, b < 0)."""
    m, n = A.shape
    res = linprog(np.zeros(m), A_ub=-A.T, b_ub=np.zeros(n), A_eq=np.ones((1, m)), b_eq=[1.0],
                  bounds=[(0, None)] * m, method="highs")
    return res


def run(sysname, lam, policy, order, T, quiet=False):
    sets, k = SYSTEMS[sysname]
    lam = [Fr(x) for x in lam]
    ch = Chain(sets, k, lam, policy, order, T)
    sigmas = configurations(Chain(sets, k, lam, policy, order, 10**9), cap=3 * len(sets) + 3)
    cs = cells(ch, sigmas)
    rs = rows(ch, cs, sigmas, 0)
    res, var, A = solve(ch, rs, sigmas)
    if res.status != 0:
        out = dict(status="infeasible" if res.status == 2 else res.message, cells=len(cs),
                   configs=len(sigmas), rows=len(A))
        if res.status == 2:
            f = farkas(A)
            if f.status == 0:
                ends = 1 if ch.order == "fcfs" else 2
                keys = [rs[i // ends][0] for i in range(len(A))]
                out["farkas"] = [(keys[i], f.x[i]) for i in np.flatnonzero(f.x > 1e-9)]
        return out
    cert = {v: Fr(max(res.x[i], 0.0)).limit_denominator(10**6) for v, i in var.items()}
    worst, key = verify(ch, rs, cert)
    return dict(status="certified" if worst <= -1 else f"rounding lost it ({float(worst)})",
                cells=len(cs), configs=len(sigmas), rows=len(A), worst=float(worst),
                cert=cert, nc=ch.nc, level=float(constant_level(ch, cs, cert)))


def show(cert, nc):
    P = [[float(cert[("P", min(i, j), max(i, j))]) for j in range(nc)] for i in range(nc)]
    g = {}
    for v, x in cert.items():
        if v[0] == "g" and x != 0:
            g.setdefault(v[1], [0.0] * nc)[v[2]] = float(x)
    return P, g


CASES = [
    ("w-model", ["1/2", "1/2", "3/5"]),
    ("w-model", ["3/5", "3/5", "3/5"]),
    ("n-model", ["1/10", "17/10"]),
    ("nested-3", ["2/5", "2/5", "3/5", "1/2", "4/5"]),
]

def selftest():
    """The exact check rejects mutants of a certificate it accepts (the W-model at
    (1/2, 1/2, 3/5) under LRF-FCFS): g = 0, and each entry of P or g lowered to 0 in turn
    (those the LP did not already leave at 0); at least one such single mutant must fail,
    and g = 0 must (the full quadratic alone cannot work: module docs of ctmc.rs)."""
    sets, k = SYSTEMS["w-model"]
    lam = [Fr(1, 2), Fr(1, 2), Fr(3, 5)]
    ch = Chain(sets, k, lam, "lrf", "fcfs", 2)
    sigmas = configurations(Chain(sets, k, lam, "lrf", "fcfs", 10**9), cap=12)
    cs = cells(ch, sigmas)
    rs = rows(ch, cs, sigmas, 0)
    res, var, _ = solve(ch, rs, sigmas)
    cert = {v: Fr(max(res.x[i], 0.0)).limit_denominator(10**6) for v, i in var.items()}
    assert verify(ch, rs, cert)[0] <= -1, "the certificate itself"
    no_g = {v: (x if v[0] == "P" else Fr(0)) for v, x in cert.items()}
    assert verify(ch, rs, no_g)[0] > -1, "g = 0 accepted"
    failed = 0
    for v, x in cert.items():
        if x > 0:
            m = dict(cert)
            m[v] = Fr(0)
            failed += verify(ch, rs, m)[0] > -1
    assert failed > 0, "no single mutant rejected"
    print(f"selftest: the certificate passes, g = 0 fails, {failed} of "
          f"{sum(1 for x in cert.values() if x > 0)} single-entry mutants fail")
    # The completed class's ROS interval (n_c - 1 >= T - 1, not = T - 1): with it the
    # N-model at (1/10, 17/10) under MRF-ROS has no certificate at T = 8 and has one at
    # T = 16; taking the count as exactly T - 1 (the bug fixed 2026-12-04) certifies T = 8.
    assert run("n-model", ["1/10", "17/10"], "mrf", "ros", 8)["status"] == "infeasible"
    assert run("n-model", ["1/10", "17/10"], "mrf", "ros", 16)["status"] == "certified"
    print("selftest: N-model MRF-ROS infeasible at T = 8, certified at T = 16")


if __name__ == "__main__":
    if "--selftest" in sys.argv:
        selftest()
        sys.exit(0)
    verbose = "-v" in sys.argv
    for sysname, lam in CASES:
        for policy in ["lrf", "mrf"]:
            for order in ["fcfs", "ros"]:
                # ROS: the pick probabilities' intervals narrow as T grows; T is raised
                # until a certificate is found (the N-model at (0.1, 1.7) needs T = 12
                # under LRF-ROS and 16 under MRF-ROS since the completed class's interval
                # was fixed on 2026-12-04; before, T = 8 passed for both).
                Ts = [2] if order == "fcfs" else [8, 12, 16]
                if sysname == "nested-3" and order == "ros":
                    Ts = [3]
                for T in Ts:
                    r = run(sysname, lam, policy, order, T)
                    if r["status"] == "certified":
                        break
                line = f"{sysname} ({', '.join(lam)}) {policy}-{order} T={T}: {r['status']}; " \
                       f"{r['configs']} configurations, {r['cells']} cells, {r['rows']} LP rows"
                if "worst" in r:
                    line += f"; largest coefficient bound {r['worst']:.4f}; QV <= -1 once the" \
                            f" big classes hold >= {r['level']:.1f} jobs"
                if "farkas" in r:
                    line += f"; Farkas combination of {len(r['farkas'])} cell rows"
                print(line, flush=True)
                if verbose and "farkas" in r:
                    for key, y in sorted(r["farkas"], key=lambda t: -t[1])[:12]:
                        print(f"  y={y:.4f} cell counts {key[0]} config {key[1]} coefficient of n_{key[2] + 1}")
                if verbose and "cert" in r:
                    P, g = show(r["cert"], r["nc"])
                    print("  P =", [[round(x, 4) for x in row] for row in P])
                    for sg, v in g.items():
                        print("  g", sg, [round(x, 4) for x in v])
