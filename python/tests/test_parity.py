"""Every function on the README's examples against the command line's JSON for the same
arguments: the same record, key for key and digit for digit (the package and the binary
call the same library functions; a difference is a wrapping bug)."""

import mpmath
import pytest

import taskassign
from taskassign import jsq, redundancy

from conftest import cli_json

# (Python call, the README's command line). Source: README.md, sections `eval`,
# `optimize`, `threshold`, "Proven digits", "Load balancing", "Redundancy scheduling".
CASES = [
    (
        lambda: taskassign.eval("tags", "bp:k=1,p=1e10,alpha=1", 2, load=0.5, cutoffs=[1000]),
        "eval --policy tags --dist bp:k=1,p=1e10,alpha=1 --hosts 2 --load 0.5 --cutoffs 1000",
    ),
    (
        lambda: taskassign.eval(
            "sita", "bp:k=1,p=1e100000,alpha=1", 2, load="0.5", cutoffs="1e50000", digits=50
        ),
        "eval --policy sita --dist bp:k=1,p=1e100000,alpha=1 --hosts 2 --load 0.5 --cutoffs 1e50000 --digits 50",
    ),
    (
        lambda: taskassign.eval(
            "random", "uniform:a=1,b=2", 4, load_per_host=0.7, metric="slowdown"
        ),
        "eval --policy random --dist uniform:a=1,b=2 --hosts 4 --load-per-host 0.7 --metric slowdown",
    ),
    (
        lambda: taskassign.optimize("sita", "bp:k=1,p=1e10,alpha=1", hosts=2, load=0.5),
        "optimize --policy sita --dist bp:k=1,p=1e10,alpha=1 --hosts 2 --load 0.5",
    ),
    (
        lambda: taskassign.optimize("sita-e", "weibull:shape=0.5,scale=1", 4, load_per_host=0.7),
        "optimize --policy sita-e --dist weibull:shape=0.5,scale=1 --hosts 4 --load-per-host 0.7",
    ),
    (
        lambda: taskassign.optimize("tags-minmax", "exp:rate=1", 3, load=0.8, digits=50),
        "optimize --policy tags-minmax --dist exp:rate=1 --hosts 3 --load 0.8 --digits 50",
    ),
    (
        lambda: taskassign.threshold("exp:rate=1", 2),
        "threshold --dist exp:rate=1 --hosts 2",
    ),
    (
        lambda: taskassign.threshold("pareto:k=1,alpha=2", "inf"),
        "threshold --dist pareto:k=1,alpha=2 --hosts inf",
    ),
    (
        lambda: taskassign.threshold("bp:k=1,p=1e1000,alpha=0.5", 10, digits=60),
        "threshold --dist bp:k=1,p=1e1000,alpha=0.5 --hosts 10 --digits 60",
    ),
    (
        lambda: taskassign.eval(
            "tags", "bp:k=1,p=1e1000,alpha=1.5", 3, load=0.6, cutoffs=[3, 30], digits=50,
            rigorous=True,
        ),
        "eval --policy tags --dist bp:k=1,p=1e1000,alpha=1.5 --hosts 3 --load 0.6 --cutoffs 3,30 --digits 50 --rigorous",
    ),
    (
        lambda: taskassign.threshold("exp:rate=1", "inf", rigorous=True),
        "threshold --dist exp:rate=1 --hosts inf --rigorous",
    ),
    (
        lambda: jsq.fixed_point("queues", 0.9, d=2, digits=12),
        "jsq fixed-point --model queues --lambda 0.9 --d 2 --digits 12",
    ),
    (
        lambda: jsq.fixed_point("pools", 2.5, d=2, buffer=4),
        "jsq fixed-point --model pools --lambda 2.5 --d 2 --buffer 4",
    ),
    (
        lambda: jsq.fixed_point("pools", 3.5, d=2, buffer=6, digits=30, rigorous=True),
        "jsq fixed-point --model pools --lambda 3.5 --d 2 --buffer 6 --digits 30 --rigorous",
    ),
    (
        lambda: jsq.fixed_point("pools", 2.5, d=2, digits=20, rigorous=True),
        "jsq fixed-point --model pools --lambda 2.5 --d 2 --digits 20 --rigorous",
    ),
    (
        lambda: jsq.exact("queues", 0.9, servers=3, d=2, digits=12),
        "jsq exact --model queues --servers 3 --lambda 0.9 --d 2 --digits 12",
    ),
    (
        lambda: jsq.exact("queues", 0.9, servers=5, d=1),
        "jsq exact --model queues --servers 5 --lambda 0.9 --d 1",
    ),
    (
        lambda: redundancy.exact("fcfs", system="w-model", lambdas=[0.3, 0.3, 0.6], digits=10),
        "redundancy exact --system w-model --lambdas 0.3,0.3,0.6 --policy fcfs --digits 10",
    ),
    (
        lambda: redundancy.exact(
            "fcfs", system="w-model", lambdas=[0.3, 0.3, 0.6], digits=25, rigorous=True
        ),
        "redundancy exact --system w-model --lambdas 0.3,0.3,0.6 --policy fcfs --digits 25 --rigorous",
    ),
    (
        lambda: redundancy.exact(
            "lrf-fcfs", servers=2, classes=["1:0.3", "1+2:0.5"], digits=4
        ),
        "redundancy exact --servers 2 --class 1:0.3 --class 1+2:0.5 --policy lrf-fcfs --digits 4",
    ),
    (
        lambda: redundancy.exact(
            "lrf-fcfs", system="n-model", lambdas=[0.1, 1.7], digits=12, max_states=20000
        ),
        "redundancy exact --system n-model --lambdas 0.1,1.7 --policy lrf-fcfs --digits 12 --max-states 20000",
    ),
]


@pytest.mark.parametrize("call,line", CASES, ids=[c[1].split(" --dist")[0][:40] + str(i) for i, c in enumerate(CASES)])
def test_same_record_as_the_command_line(call, line):
    # Expected: the binary's own JSON (a separate process, parsed by clap); exact equality.
    rec = call()
    assert rec.to_dict() == cli_json(*line.split())


def test_numbers_are_certified_objects():
    # The record's certified fields become number objects carrying the JSON text.
    rec = taskassign.eval("tags", "bp:k=1,p=1e10,alpha=1", 2, load=0.5, cutoffs=[1000])
    d = rec.to_dict()
    assert isinstance(rec.value, taskassign.Certified)
    assert rec.value.text == d["value"]
    assert [c.text for c in rec.host_loads] == d["host_loads"]
    assert rec.policy == "tags" and rec.stable is True and rec.hosts == 2


def test_rigorous_numbers_are_enclosures():
    # --rigorous adds K_lo/K_hi beside K: the number is an Enclosed with lo <= K <= hi.
    rec = taskassign.threshold("exp:rate=1", "inf", rigorous=True)
    d = rec.to_dict()
    t = rec.threshold_load
    assert isinstance(t, taskassign.Enclosed)
    assert (t.lo.text, t.hi.text) == (d["threshold_load_lo"], d["threshold_load_hi"])
    # K is the correct rounding of every point of [K_lo, K_hi] (README, "Proven digits").
    assert t.lo.mpf <= t.hi.mpf
    assert {mpmath.nstr(x, t.digits) for x in (t.lo.mpf, t.hi.mpf)} == {mpmath.nstr(t.mpf, t.digits)}


def test_rigorous_fixed_point_encloses_the_closed_form():
    # The power-of-d fixed point s_i = lambda^(2^i - 1) (d = 2), its mean the sum of the
    # levels, by mpmath at 60 digits (an oracle outside the project): inside the record's
    # enclosure [mean_tasks_lo, mean_tasks_hi], and every listed level inside its own.
    rec = jsq.fixed_point("queues", 0.9, d=2, digits=20, rigorous=True)
    m = rec.mean_tasks
    assert isinstance(m, taskassign.Enclosed) and rec.proven_digits == 20
    with mpmath.workdps(60):
        lam = mpmath.mpf("0.9")
        levels = [lam ** (2**i - 1) for i in range(1, 14)]
        assert m.lo.mpf <= mpmath.fsum(levels) <= m.hi.mpf
        for q, exact in zip(rec.occupancy, levels):
            assert isinstance(q, taskassign.Enclosed)
            assert q.lo.mpf <= exact <= q.hi.mpf
