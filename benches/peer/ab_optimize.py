#!/usr/bin/env python3
"""Side-by-side timing of two taskassign binaries on `optimize` (an A/B check of a change).

    python3 benches/peer/ab_optimize.py OLD_BINARY NEW_BINARY [--rounds 5] [--repeat 200]

Each round runs every binary once per case, alternating, with `optimize --repeat N` (the
binary's own in-process median per certified optimisation); the table gives the smallest
median over the rounds for each binary and the ratio old/new. Both binaries must print the
same value and cutoffs (checked). The machine is shared: compare ratios, not wall times.
"""
import json
import subprocess
import sys

CASES = [
    # policy, dist, hosts, load, digits
    ("sita", "bp:k=1,p=1e10,alpha=1.5", 2, "0.5", 30),
    ("tags", "bp:k=1,p=1e10,alpha=1.5", 2, "0.5", 30),
    ("sita", "bp:k=1,p=1e10,alpha=0.5", 2, "0.7", 30),
    ("tags", "bp:k=1,p=1e1000,alpha=1", 2, "0.5", 30),
    ("tags", "bp:k=1,p=1e1000,alpha=1.5", 2, "0.5", 30),
    ("tags", "bp:k=1,p=1e10,alpha=1.5", 4, "0.5", 30),
    ("sita", "bp:k=1,p=1e10,alpha=1.5", 16, "0.5", 30),
    ("tags", "bp:k=1,p=1e1000,alpha=1.5", 16, "0.5", 30),
]


def arg(name, default):
    if name in sys.argv:
        return int(sys.argv[sys.argv.index(name) + 1])
    return default


def run(binary, case, repeat):
    pol, dist, h, load, digits = case
    # Large cases repeat less, so that a round stays short.
    n = repeat if h <= 4 else max(1, repeat // 50)
    out = subprocess.run(
        [binary, "optimize", "--policy", pol, "--dist", dist, "--hosts", str(h), "--load", load,
         "--digits", str(digits), "--repeat", str(n), "--format", "json"],
        capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def main():
    bins = [a for a in sys.argv[1:3]]
    if len(bins) != 2:
        sys.exit(__doc__)
    rounds, repeat = arg("--rounds", 5), arg("--repeat", 200)
    print("| policy | dist | h | digits | old s | new s | old/new |")
    print("|---|---|---|---|---|---|---|")
    for case in CASES:
        best = [float("inf"), float("inf")]
        seen = [None, None]
        for _ in range(rounds):
            for i, b in enumerate(bins):
                r = run(b, case, repeat)
                best[i] = min(best[i], float(r["seconds_per_run"]))
                seen[i] = (r["value"], r["cutoffs"])
        if seen[0] != seen[1]:
            print(f"note: {case}: the binaries disagree: {seen[0]} vs {seen[1]}", file=sys.stderr)
        pol, dist, h, _, digits = case
        print(f"| {pol} | {dist} | {h} | {digits} | {best[0]:.3e} | {best[1]:.3e} | "
              f"{best[0] / best[1]:.2f} |")


if __name__ == "__main__":
    main()
