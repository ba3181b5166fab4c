"""JSQ(d(N)) load balancing on N queues or server pools (``taskassign jsq``).

The arrival rate ``lambda_`` is per server (lambda(N)/N); ``buffer`` is the buffer b of a
queue or the capacity B of a pool (default ``"inf"``); ``d`` is a number, ``"inf"`` or a
formula in N (``"log(N)"``), rounded up and capped at N.
"""

from __future__ import annotations

from typing import Union

from . import _taskassign
from . import _dec  # type: ignore[attr-defined]
from ._numbers import Record

__all__ = ["fixed_point", "exact"]

Num = Union[str, int, float]


def fixed_point(
    model: str,
    lambda_: Num,
    *,
    buffer: Union[int, str] = "inf",
    d: Union[int, str] = "inf",
    digits: int = _taskassign.DEFAULT_DIGITS,
) -> Record:
    """Certified fixed point of the N -> infinity limit (``taskassign jsq fixed-point``):
    fixed d (power-of-d mean field) or d = inf / a growing formula (JSQ's fluid limit);
    occupancy, mean tasks, mean sojourn, blocking.

    >>> r = fixed_point("queues", 0.9, d=2, digits=12)
    >>> r.digits
    12
    """
    js, keys = _taskassign.jsq_fixed_point(
        model, _dec(lambda_, "lambda_"), str(buffer), str(d), int(digits)
    )
    return Record(js, keys)


def exact(
    model: str,
    lambda_: Num,
    *,
    servers: int,
    d: Union[int, str],
    buffer: Union[int, str] = "inf",
    sampling: str = "without",
    digits: int = _taskassign.DEFAULT_DIGITS,
    max_states: int = _taskassign.DEFAULT_MAX_STATES,
) -> Record:
    """Exact stationary values of the finite-N Markov chain (``taskassign jsq exact``):
    ``servers`` N (small), ``sampling`` of the d servers (without or with replacement).

    >>> r = exact("queues", 0.9, servers=3, d=2, digits=12)
    >>> r.servers
    3
    """
    js, keys = _taskassign.jsq_exact(
        model,
        _dec(lambda_, "lambda_"),
        int(servers),
        str(d),
        str(buffer),
        sampling,
        int(digits),
        int(max_states),
    )
    return Record(js, keys)
