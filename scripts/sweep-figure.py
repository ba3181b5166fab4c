#!/usr/bin/env python3
"""The README's sweep figure from a merged CSV (taskassign merge ... --out M.jsonl writes M.csv).

    scripts/sweep-figure.py MERGED.csv OUT.svg [--p 1e10] [--h 2]

For the worked example (examples/sweeps/tags-sita.toml): at one p and one host count, the
ratio of the optimal mean waiting times, TAGS over SITA, against the load per host, one
curve per alpha. A point where TAGS has no stable cutoffs (the merged line is an error of
class "input") ends its curve; the curve is drawn only where both policies have a value.
Python's standard library only (no matplotlib), a plain SVG.
"""
import argparse
import csv
import math
import sys
from collections import defaultdict

W, H, L, R, T, B = 720, 440, 70, 150, 40, 55  # size and margins (pixels)
COLOURS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
           "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"]


def main(argv):
    ap = argparse.ArgumentParser(description="The README's sweep figure from a merged CSV.")
    ap.add_argument("csv", help="the merged CSV (taskassign merge)")
    ap.add_argument("svg", help="the figure to write")
    ap.add_argument("--p", default="1e10", help="the value of the grid variable p (default 1e10)")
    ap.add_argument("--h", default="2", help="the value of the grid variable h (default 2)")
    a = ap.parse_args(argv[1:])
    p, h, args = a.p, a.h, [a.csv, a.svg]
    value = defaultdict(dict)  # (alpha) -> {(policy, rho): E[W]}
    with open(args[0], newline="") as f:
        for row in csv.DictReader(f):
            if row["p"] != p or row["h"] != h or row["status"] != "ok":
                continue
            value[row["alpha"]][(row["policy"], row["rho"])] = float(row["result.value"])
    curves = {}
    for a, v in value.items():
        pts = []
        for (pol, rho), w in v.items():
            if pol == "tags" and ("sita", rho) in v and v[("sita", rho)] > 0:
                pts.append((float(rho), w / v[("sita", rho)]))
        if pts:
            curves[a] = sorted(pts)
    if not curves:
        sys.exit(f"no points with p={p}, h={h} in {args[0]}")
    ys = [math.log10(y) for c in curves.values() for _, y in c]
    y0, y1 = math.floor(min(ys)), math.ceil(max(ys))
    if y0 == y1:
        y1 = y0 + 1
    sx = lambda x: L + x * (W - L - R)
    sy = lambda y: T + (y1 - math.log10(y)) / (y1 - y0) * (H - T - B)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" '
           f'font-family="sans-serif" font-size="12">',
           f'<rect width="{W}" height="{H}" fill="white"/>',
           f'<text x="{W / 2}" y="22" text-anchor="middle" font-size="14">Optimal TAGS / optimal SITA, '
           f'mean waiting time (BP k=1, p={p}, h={h})</text>']
    for i in range(11):
        x = i / 10
        out.append(f'<line x1="{sx(x)}" y1="{H - B}" x2="{sx(x)}" y2="{H - B + 5}" stroke="black"/>'
                   f'<text x="{sx(x)}" y="{H - B + 18}" text-anchor="middle">{x:.1f}</text>')
    for e in range(y0, y1 + 1):
        y = sy(10.0 ** e)
        out.append(f'<line x1="{L}" y1="{y}" x2="{W - R}" y2="{y}" stroke="#ddd"/>'
                   f'<text x="{L - 6}" y="{y + 4}" text-anchor="end">1e{e}</text>')
    out.append(f'<line x1="{L}" y1="{sy(1)}" x2="{W - R}" y2="{sy(1)}" stroke="black" stroke-dasharray="4,3"/>')
    out.append(f'<rect x="{L}" y="{T}" width="{W - L - R}" height="{H - T - B}" fill="none" stroke="black"/>')
    out.append(f'<text x="{(L + W - R) / 2}" y="{H - 15}" text-anchor="middle">load per host ρ</text>')
    out.append(f'<text x="18" y="{(T + H - B) / 2}" text-anchor="middle" '
               f'transform="rotate(-90 18 {(T + H - B) / 2})">E[W] TAGS / E[W] SITA (log scale)</text>')
    for i, a in enumerate(sorted(curves, key=float)):
        c = COLOURS[i % len(COLOURS)]
        pts = " ".join(f"{sx(x):.1f},{sy(y):.1f}" for x, y in curves[a])
        out.append(f'<polyline points="{pts}" fill="none" stroke="{c}" stroke-width="1.6"/>')
        ly = T + 14 + 18 * i
        out.append(f'<line x1="{W - R + 12}" y1="{ly - 4}" x2="{W - R + 32}" y2="{ly - 4}" stroke="{c}" stroke-width="2"/>'
                   f'<text x="{W - R + 38}" y="{ly}">α = {a}</text>')
    out.append("</svg>")
    with open(args[1], "w") as f:
        f.write("\n".join(out) + "\n")
    print(f"{args[1]}: {len(curves)} curves, {sum(len(c) for c in curves.values())} points")


if __name__ == "__main__":
    main(sys.argv)
