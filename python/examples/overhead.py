"""The overhead of a Python call against the same work in Rust (issue 23), side by side in one
session: criterion's `answer/` benchmarks of benches/eval.rs (the library calls the command
and the extension make: `eval_certified`, `threshold_certified`, the spec parsed once outside
the timed loop) and `timeit` of the same calls through `taskassign` (spec parsing, the JSON
record, the Python Record, the GIL released and the waiting loop, `progress=` default).

Run from the repository root, after `make python`:

    .venv/bin/python python/examples/overhead.py

It runs the Python timings, then `nice cargo bench --bench eval` on the matching benchmarks,
then the Python timings again, and prints one line per call: criterion's median estimate,
Python's median per call (of both Python rounds), their difference and ratio.
"""

import os
import re
import statistics
import subprocess
import sys
import timeit

import taskassign

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# (criterion id, the Python call with the same arguments). answer/: the library call with
# the spec parsed once outside the loop (its laws built once); call/: the spec parsed and
# the JSON record written inside the loop, as one command or one Python call does.
CASES = [
    ("answer/certified/bp/sita/d30",
     lambda: taskassign.eval("sita", "bp:k=1,p=1e1000,alpha=1", 4, load=2,
                             cutoffs="1e250,1e500,1e750", digits=30)),
    ("answer/certified/weibull/tags/d30",
     lambda: taskassign.eval("tags", "weibull:shape=0.5,scale=1", 4, load=2,
                             cutoffs="0.08,0.5,1.9", digits=30)),
    ("answer/threshold/exp/h2/d30",
     lambda: taskassign.threshold("exp:rate=1", 2, digits=30)),
    ("answer/threshold/bp/h2/d30",
     lambda: taskassign.threshold("bp:k=1,p=1e10,alpha=1", 2, digits=30)),
]
CASES += [("call/eval/bp/sita/d30", CASES[0][1]), ("call/eval/weibull/tags/d30", CASES[1][1]),
          ("call/threshold/exp/h2/d30", CASES[2][1]), ("call/threshold/bp/h2/d30", CASES[3][1])]

UNITS = {"ns": 1e-9, "µs": 1e-6, "us": 1e-6, "ms": 1e-3, "s": 1.0}


def python_round():
    """Median seconds per call of each case: 7 repeats of as many calls as fill ~0.2 s."""
    out = {}
    for name, f in CASES:
        if name.startswith("call/"):  # the same Python call as its answer/ case
            out[name] = out["answer/" + name.split("/", 1)[1].replace("eval/", "certified/")]
            continue
        f()  # warm (the first call imports mpmath's pieces, builds caches)
        t = timeit.Timer(f)
        n, _ = t.autorange()
        out[name] = statistics.median(x / n for x in t.repeat(repeat=7, number=n))
    return out


def criterion():
    """criterion's middle estimate (seconds) of each case."""
    pattern = "^(" + "|".join(re.escape(n) for n, _ in CASES) + ")$"
    p = subprocess.run(
        ["nice", "cargo", "bench", "--bench", "eval", "--", pattern],
        cwd=ROOT, capture_output=True, text=True,
    )
    if p.returncode != 0:
        sys.exit(f"cargo bench failed:\n{p.stderr[-2000:]}")
    found = {}
    for m in re.finditer(r"((?:answer|call)/\S+)\s+time:\s+\[\S+ \S+ (\S+) (\S+) \S+ \S+\]", p.stdout):
        found[m.group(1)] = float(m.group(2)) * UNITS[m.group(3)]
    return found


def main():
    py1 = python_round()
    rust = criterion()
    py2 = python_round()
    print(f"{'benchmark':36} {'Rust (criterion)':>17} {'Python (timeit)':>22} {'overhead':>10} {'ratio':>6}")
    for name, _ in CASES:
        r = rust.get(name)
        a, b = py1[name], py2[name]
        py = min(a, b)
        if r is None:
            print(f"{name:36} {'(no criterion line)':>17} {a * 1e6:9.1f} / {b * 1e6:9.1f} us")
            continue
        print(f"{name:36} {r * 1e6:14.1f} us {a * 1e6:9.1f} / {b * 1e6:9.1f} us"
              f" {(py - r) * 1e6:7.1f} us {py / r:6.3f}")


if __name__ == "__main__":
    main()
