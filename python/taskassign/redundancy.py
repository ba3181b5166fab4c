"""Redundancy scheduling with cancel-on-complete (``taskassign redundancy``)."""

from __future__ import annotations

from typing import Iterable, Optional, Sequence, Union

from . import _progress, _taskassign
from . import _argv, _dec, _json_command  # type: ignore[attr-defined]
from ._numbers import Record

__all__ = ["exact", "simulate", "stability"]


def _texts(xs: Union[str, Iterable[object], None], what: str) -> Optional[list]:
    if xs is None:
        return None
    if isinstance(xs, str):
        return [x.strip() for x in xs.split(",") if x.strip()]
    return [_dec(x, what) for x in xs]


def exact(
    policy: str,
    *,
    servers: Union[int, str, None] = None,
    rates: Union[str, Sequence[object], None] = None,
    classes: Sequence[str] = (),
    system: Optional[str] = None,
    lambdas: Union[str, Sequence[object], None] = None,
    preemptive: bool = False,
    digits: int = _taskassign.DEFAULT_DIGITS,
    max_states: int = _taskassign.DEFAULT_REDUNDANCY_MAX_STATES,
    rigorous: bool = False,
    progress: _progress.Progress = None,
) -> Record:
    """Exact mean numbers and response times with exponential i.i.d. copies
    (``taskassign redundancy exact``): FCFS by its product form (certified digits), the
    other policies (ros, lrf-fcfs, mrf-fcfs, lrf-ros, mrf-ros) by truncated Markov chains.
    ``rigorous``: the FCFS product form proven (every number an :class:`Enclosed`); a
    chain raises InputError.

    The system: a preset or TOML file ``system`` with its ``lambdas``, or ``servers`` K (or
    ``rates``) and ``classes`` ``["1:0.3", "1+2:0.5"]`` (the command's ``--class``).
    ``max_states`` caps a chain's truncation (``--max-states``; 2e6 states take about 1 GB);
    when the digits asked need more, the largest truncation (or pair of truncations) within
    it is solved and ``digits`` and ``note`` say what it gave; NumericalError when even that
    gives no digit.

    >>> r = exact("fcfs", system="w-model", lambdas=[0.3, 0.3, 0.6], digits=10)
    >>> r.policy
    'fcfs'
    """
    with _progress.using(progress):
        js, keys = _taskassign.redundancy_exact(
            policy,
            None if servers is None else str(servers),
            _texts(rates, "rates") or [],
            list(classes),
            system,
            _texts(lambdas, "lambdas"),
            bool(preemptive),
            int(digits),
            int(max_states),
            bool(rigorous),
        )
        return Record(js, keys)


def _system(servers, rates, classes, system, lambdas) -> dict:
    """The system options of a redundancy command (``--class`` repeated)."""
    return {
        "servers": None if servers is None else str(servers),
        "rates": _texts(rates, "rates") or None,
        "class": list(classes) or None,
        "system": system,
        "lambdas": _texts(lambdas, "lambdas"),
    }


def simulate(
    policy: str,
    *,
    servers: Union[int, str, None] = None,
    rates: Union[str, Sequence[object], None] = None,
    classes: Sequence[str] = (),
    system: Optional[str] = None,
    lambdas: Union[str, Sequence[object], None] = None,
    preemptive: bool = False,
    dist: str = "exp:rate=1",
    copies: str = "iid",
    jobs: Union[int, str, None] = None,
    warmup: Union[int, str, None] = None,
    replications: int = 10,
    seed: int = 1,
    threads: Optional[int] = None,
    no_limit: bool = False,
    progress: _progress.Progress = None,
) -> Record:
    """Simulate redundancy with any service law of a copy (``taskassign redundancy
    simulate``): mean numbers and response times per class and overall, each a
    :class:`Simulated` value with ``.half_width``. The system as in :func:`exact`;
    ``copies``: iid or identical. Ctrl-C stops the run.

    >>> r = simulate("fcfs", system="w-model", lambdas=[0.3, 0.3, 0.6], jobs=20000,
    ...              replications=4)
    >>> r.classes[0].mean_number.half_width.text
    '1.74e-2'
    """
    with _progress.using(progress):
        opts = {
            "policy": policy,
            **_system(servers, rates, classes, system, lambdas),
            "preemptive": bool(preemptive),
            "dist": dist,
            "copies": copies,
            "jobs": None if jobs is None else str(jobs),
            "warmup": None if warmup is None else str(warmup),
            "replications": int(replications),
            "seed": int(seed),
            "no_limit": bool(no_limit),
        }
        return _json_command(_argv(["redundancy", "simulate"], opts, repeat=["class"]), threads)


def stability(
    policy: str,
    *,
    servers: Union[int, str, None] = None,
    rates: Union[str, Sequence[object], None] = None,
    classes: Sequence[str] = (),
    system: Optional[str] = None,
    lambdas: Union[str, Sequence[object], None] = None,
    preemptive: bool = False,
    dist: str = "exp:rate=1",
    copies: str = "iid",
    simulate: bool = False,
    horizon: int = 400000,
    replications: int = 8,
    seed: int = 1,
    threads: Optional[int] = None,
    progress: _progress.Progress = None,
) -> Record:
    """The stability region of a redundancy system (``taskassign redundancy stability``):
    ``scale_limit``, the largest factor of the arrival rates that keeps it stable (exact
    where a theorem gives it; otherwise estimated by a drift test of ``horizon`` arrivals
    per replication, or always with ``simulate``).

    >>> stability("fcfs", system="w-model", lambdas=[0.3, 0.3, 0.6]).scale_limit.text
    '1.6666666666666666667e0'
    """
    with _progress.using(progress):
        opts = {
            "policy": policy,
            **_system(servers, rates, classes, system, lambdas),
            "preemptive": bool(preemptive),
            "dist": dist,
            "copies": copies,
            "simulate": bool(simulate),
            "horizon": int(horizon),
            "replications": int(replications),
            "seed": int(seed),
        }
        return _json_command(_argv(["redundancy", "stability"], opts, repeat=["class"]), threads)
