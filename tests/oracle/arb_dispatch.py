"""An independent rigorous oracle for tests/rigorous.rs: the job-size laws' tails and
partial moments, and the SITA, TAGS and Random formulas of ARCHITECTURE.md ("The model"),
written again here in Arb ball arithmetic (python-flint), which proves every ball it
returns. Nothing is shared with the Rust code: the decimals are parsed by Arb, the moments
come from closed forms through Arb's incomplete gamma and erfc, and the policies from the
model's formulas.

Reads one JSON object on stdin: {"prec": bits, "queries": [...]}, each query one of
  {"kind": "tail", "dist": spec, "x": decimal}
  {"kind": "moment", "dist": spec, "j": j, "a": decimal or "bottom", "b": decimal or "inf"}
  {"kind": "eval", "dist": spec, "policy": "sita"|"tags"|"random", "hosts": h,
   "load": rho (total), "cutoffs": [decimals], "metric": "waiting"|"response"|"slowdown"}
and writes one JSON list: per query a ball as [lo, hi] decimal strings (a moment/tail), or
for "eval" an object of such balls (value, queueing, wasted, host_loads[], host_waiting[]).
[lo, hi] = [m − r, m + r]·10^e from Arb's mid_rad_10exp, which contains the ball.
"""

import json
import sys

from flint import arb, ctx


def dec(s):
    return arb(str(s))


def parse_spec(spec):
    fam, rest = spec.split(":", 1)
    kv = dict(p.split("=", 1) for p in rest.split(",") if p)
    return fam, kv


class Law:
    """F̄ and M_j(a, b) = E[X^j; a < X <= b] of one law, in Arb."""

    def __init__(self, spec):
        fam, kv = parse_spec(spec)
        self.fam = fam
        self.kv = kv
        if fam == "bp":
            self.k, self.p, self.alpha = dec(kv["k"]), dec(kv["p"]), dec(kv["alpha"])
            self.lower, self.upper = self.k, self.p
        elif fam == "pareto":
            self.k, self.alpha = dec(kv["k"]), dec(kv["alpha"])
            self.lower, self.upper = self.k, None
        elif fam == "exp":
            self.rate = dec(kv["rate"])
            self.lower, self.upper = arb(0), None
        elif fam == "uniform":
            self.a, self.b = dec(kv["a"]), dec(kv["b"])
            self.lower, self.upper = self.a, self.b
        elif fam == "hyperexp":
            self.p, self.r1, self.r2 = dec(kv["p"]), dec(kv["rate1"]), dec(kv["rate2"])
            self.lower, self.upper = arb(0), None
        elif fam == "erlang":
            self.kk, self.rate = int(kv["k"]), dec(kv["rate"])
            self.lower, self.upper = arb(0), None
        elif fam == "weibull":
            self.shape, self.scale = dec(kv["shape"]), dec(kv["scale"])
            self.lower, self.upper = arb(0), None
        elif fam == "lognormal":
            self.mu, self.sigma = dec(kv["mu"]), dec(kv["sigma"])
            self.lower, self.upper = arb(0), None
        else:
            raise ValueError("no oracle for " + fam)

    def clip(self, a, b):
        """(a, b] ∩ support; a None means the bottom, b None +∞. Returns (a, b) or None."""
        lo = self.lower if a is None else max_arb(a, self.lower)
        if b is None:
            hi = self.upper
        elif self.upper is None:
            hi = b
        else:
            hi = min_arb(b, self.upper)
        if hi is not None and not (lo < hi):
            return None
        return lo, hi

    def tail(self, x):
        f = self.fam
        if f in ("bp", "pareto"):
            if x <= self.k:
                return arb(1)
            if f == "pareto":
                return (self.k / x) ** self.alpha
            return (x ** -self.alpha - self.p ** -self.alpha) / (
                self.k ** -self.alpha - self.p ** -self.alpha
            )
        if f == "exp":
            return (-self.rate * x).exp()
        if f == "uniform":
            return (self.b - x) / (self.b - self.a)
        if f == "hyperexp":
            return self.p * (-self.r1 * x).exp() + (1 - self.p) * (-self.r2 * x).exp()
        if f == "erlang":
            y = self.rate * x
            s, t = arb(0), arb(1)
            for m in range(self.kk):
                if m > 0:
                    t = t * y / m
                s += t
            return (-y).exp() * s
        if f == "weibull":
            return (-((x / self.scale) ** self.shape)).exp()
        if f == "lognormal":
            z = (x.log() - self.mu) / self.sigma
            return (z / arb(2).sqrt()).erfc() / 2

    def moment(self, j, a, b):
        c = self.clip(a, b)
        if c is None:
            return arb(0)
        a, b = c
        f = self.fam
        if f in ("bp", "pareto"):
            t = j - self.alpha
            if f == "bp":
                norm = 1 - (self.k / self.p) ** self.alpha
            else:
                norm = arb(1)
            coef = self.alpha * self.k ** self.alpha / norm
            if b is None:
                return coef * (-(a ** t) / t)
            if float(self.kv["alpha"]) == j:
                # α = j exactly (a decimal that is an integer): the logarithmic case.
                return coef * (b / a).log()
            return coef * (b ** t - a ** t) / t
        if f == "uniform":
            if j == -1:
                return (b / a).log() / (self.b - self.a)
            return (b ** (j + 1) - a ** (j + 1)) / ((j + 1) * (self.b - self.a))
        if f == "exp":
            return gamma_diff(arb(j + 1), self.rate * a, up(self.rate, b)) / self.rate ** j
        if f == "hyperexp":
            m1 = gamma_diff(arb(j + 1), self.r1 * a, up(self.r1, b)) / self.r1 ** j
            m2 = gamma_diff(arb(j + 1), self.r2 * a, up(self.r2, b)) / self.r2 ** j
            return self.p * m1 + (1 - self.p) * m2
        if f == "erlang":
            g = gamma_diff(arb(self.kk + j), self.rate * a, up(self.rate, b))
            return g / self.rate ** j / arb(self.kk).gamma()
        if f == "weibull":
            ya = (a / self.scale) ** self.shape
            yb = None if b is None else (b / self.scale) ** self.shape
            return self.scale ** j * gamma_diff(1 + arb(j) / self.shape, ya, yb)
        if f == "lognormal":
            s2 = self.sigma ** 2

            def phi(x):
                if x is None:
                    return arb(1)
                z = (x.log() - self.mu - j * s2) / self.sigma
                return (-z / arb(2).sqrt()).erfc() / 2

            lo = arb(0) if a == 0 else phi(a)
            return (j * self.mu + j * j * s2 / 2).exp() * (phi(b) - lo)

    def mean(self):
        return self.moment(1, None, None)


def up(r, b):
    return None if b is None else r * b


def gamma_diff(s, ya, yb):
    """∫_ya^yb y^(s−1) e^(−y) dy = Γ(s, ya) − Γ(s, yb) (yb None: +∞)."""
    hi = arb(0) if yb is None else yb.gamma_upper(s)
    return ya.gamma_upper(s) - hi


def max_arb(x, y):
    return x if x > y else y


def min_arb(x, y):
    return x if x < y else y


def ends(x, digits):
    m, r, e = x.mid_rad_10exp(digits)
    return ["%de%d" % (m - r, e), "%de%d" % (m + r, e)]


def evaluate(q):
    """The model's formulas (ARCHITECTURE.md): SITA, TAGS (hosts >= 2 by the Poisson
    approximation) and Random, with the metric's weights."""
    law = Law(q["dist"])
    h = int(q["hosts"])
    rho = dec(q["load"])
    lam = rho / law.mean()
    metric = q["metric"]
    jw = -1 if metric == "slowdown" else 0
    cuts = [None] + [dec(c) for c in q["cutoffs"]] + [None]
    loads, waits = [], []
    queueing, wasted = arb(0), arb(0)
    if q["policy"] == "random":
        lh = lam / h
        r = lh * law.mean()
        w = lh * law.moment(2, None, None) / (2 * (1 - r))
        loads, waits = [r] * h, [w] * h
        queueing = w * (law.moment(-1, None, None) if metric == "slowdown" else 1)
    else:
        for i in range(1, h + 1):
            a, b = cuts[i - 1], cuts[i]
            m1, m2 = law.moment(1, a, b), law.moment(2, a, b)
            if q["policy"] == "sita":
                n1, n2 = m1, m2
                weight = law.moment(jw, a, b)
            else:
                if b is not None:
                    tb = law.tail(b)
                    n1, n2 = m1 + b * tb, m2 + b * b * tb
                    wasted += b * law.moment(jw, b, None)
                else:
                    n1, n2 = m1, m2
                weight = law.moment(jw, a, None)
            r = lam * n1
            w = lam * n2 / (2 * (1 - r))
            loads.append(r)
            waits.append(w)
            queueing += weight * w
    value = queueing + wasted
    if metric == "response":
        value += law.mean()
    return {
        "value": value,
        "queueing": queueing,
        "wasted": wasted,
        "host_loads": loads,
        "host_waiting": waits,
        "lambda": lam,
    }


def main():
    req = json.load(sys.stdin)
    ctx.prec = int(req["prec"])
    digits = int(req["prec"] * 0.30103) + 10
    out = []
    for q in req["queries"]:
        if q["kind"] == "tail":
            out.append(ends(Law(q["dist"]).tail(dec(q["x"])), digits))
        elif q["kind"] == "moment":
            a = None if q["a"] == "bottom" else dec(q["a"])
            b = None if q["b"] == "inf" else dec(q["b"])
            out.append(ends(Law(q["dist"]).moment(int(q["j"]), a, b), digits))
        elif q["kind"] == "eval":
            r = evaluate(q)
            out.append(
                {
                    k: [ends(x, digits) for x in v] if isinstance(v, list) else ends(v, digits)
                    for k, v in r.items()
                }
            )
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
