"""Redundancy scheduling with cancel-on-complete (``taskassign redundancy``)."""

from __future__ import annotations

from typing import Iterable, Optional, Sequence, Union

from . import _taskassign
from . import _dec  # type: ignore[attr-defined]
from ._numbers import Record

__all__ = ["exact"]


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
) -> Record:
    """Exact mean numbers and response times with exponential i.i.d. copies
    (``taskassign redundancy exact``): FCFS by its product form (certified digits), the
    other policies (ros, lrf-fcfs, mrf-fcfs, lrf-ros, mrf-ros) by truncated Markov chains.

    The system: a preset or TOML file ``system`` with its ``lambdas``, or ``servers`` K (or
    ``rates``) and ``classes`` ``["1:0.3", "1+2:0.5"]`` (the command's ``--class``).

    >>> r = exact("fcfs", system="w-model", lambdas=[0.3, 0.3, 0.6], digits=10)
    >>> r.policy
    'fcfs'
    """
    js, keys = _taskassign.redundancy_exact(
        policy,
        None if servers is None else str(servers),
        _texts(rates, "rates") or [],
        list(classes),
        system,
        _texts(lambdas, "lambdas"),
        bool(preemptive),
        int(digits),
    )
    return Record(js, keys)
