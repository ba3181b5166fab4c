"""JSQ(d(N)) load balancing on N queues or server pools (``taskassign jsq``).

The arrival rate ``lambda_`` is per server (lambda(N)/N); ``buffer`` is the buffer b of a
queue or the capacity B of a pool (default ``"inf"``); ``d`` is a number, ``"inf"`` or a
formula in N (``"log(N)"``), rounded up and capped at N.
"""

from __future__ import annotations

from typing import Optional, Sequence, Union

from . import _progress, _taskassign
from . import _argv, _dec, _json_command, _list  # type: ignore[attr-defined]
from ._numbers import Record

__all__ = ["fixed_point", "fluid", "exact", "simulate"]

Num = Union[str, int, float]


def fixed_point(
    model: str,
    lambda_: Num,
    *,
    buffer: Union[int, str] = "inf",
    d: Union[int, str] = "inf",
    digits: int = _taskassign.DEFAULT_DIGITS,
    rigorous: bool = False,
    progress: _progress.Progress = None,
) -> Record:
    """Certified fixed point of the N -> infinity limit (``taskassign jsq fixed-point``):
    fixed d (power-of-d mean field) or d = inf / a growing formula (JSQ's fluid limit);
    occupancy, mean tasks, mean sojourn, blocking. ``rigorous``: proven digits (every
    number an :class:`Enclosed`; power-of-d queues and pools without a buffer, any model
    with a finite buffer, and JSQ's own without one).

    >>> r = fixed_point("queues", 0.9, d=2, digits=12)
    >>> r.digits
    12
    """
    with _progress.using(progress):
        js, keys = _taskassign.jsq_fixed_point(
            model, _dec(lambda_, "lambda_"), str(buffer), str(d), int(digits), bool(rigorous)
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
    progress: _progress.Progress = None,
) -> Record:
    """Exact stationary values of the finite-N Markov chain (``taskassign jsq exact``):
    ``servers`` N (small), ``sampling`` of the d servers (without or with replacement).

    >>> r = exact("queues", 0.9, servers=3, d=2, digits=12)
    >>> r.servers
    3
    """
    with _progress.using(progress):
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


def fluid(
    model: str,
    lambda_: Num,
    *,
    times: Union[str, Sequence[Num]],
    buffer: Union[int, str] = "inf",
    d: Union[int, str] = "inf",
    init: Union[str, Sequence[Num]] = "",
    digits: Optional[int] = None,
    progress: _progress.Progress = None,
) -> Record:
    """Fluid (mean-field) trajectory from a start occupancy ``init`` at the output
    ``times`` (``taskassign jsq fluid``), integrated in f64 twice at two tolerances: each
    value shows only the digits both agree on (at most ``digits``, 1 to 15).
    ``occupancy[k]`` lists q_1, q_2, ... at ``times[k]``.

    >>> r = fluid("queues", 0.9, d=2, times=[0, 1, 5])
    >>> r.occupancy[1][0].text
    '5.09052640e-1'
    """
    with _progress.using(progress):
        return _json_command(
            _argv(
                ["jsq", "fluid"],
                {
                    "model": model,
                    "lambda_": lambda_,
                    "buffer": str(buffer),
                    "d": str(d),
                    "init": _list(init, "init"),
                    "times": _list(times, "times"),
                    "digits": None if digits is None else int(digits),
                },
            )
        )


def simulate(
    model: str,
    lambda_: Optional[Num] = None,
    *,
    servers: Union[int, str],
    d: Union[int, str],
    halfin_whitt: Optional[Num] = None,
    sampling: str = "without",
    buffer: Union[int, str] = "inf",
    time: Optional[Num] = None,
    warmup: Optional[Num] = None,
    start: str = "fixed-point",
    replications: int = 10,
    seed: int = 1,
    threads: Optional[int] = None,
    no_limit: bool = False,
    progress: _progress.Progress = None,
) -> Record:
    """Simulate JSQ(d) on N = ``servers`` queues or pools (``taskassign jsq simulate``):
    occupancy, mean tasks, blocking and the distance to the fixed point, each a
    :class:`Simulated` value with ``.half_width``. Give ``lambda_`` (per server) or
    ``halfin_whitt`` beta. ``time``: measured time per replication (default: the command
    line's rule); ``start``: empty, fixed-point or ``"q1,q2,..."``. Ctrl-C stops the run.

    >>> r = simulate("queues", 0.9, servers=10, d=2, time=1000)
    >>> r.mean_tasks.text, r.mean_tasks.half_width.text
    ('2.72730e0', '1.67e-1')
    """
    with _progress.using(progress):
        return _json_command(
            _argv(
                ["jsq", "simulate"],
                {
                    "model": model,
                    "servers": str(servers),
                    "lambda_": lambda_,
                    "halfin_whitt": halfin_whitt,
                    "d": str(d),
                    "sampling": sampling,
                    "buffer": str(buffer),
                    "time": time,
                    "warmup": warmup,
                    "start": start,
                    "replications": int(replications),
                    "seed": int(seed),
                    "no_limit": bool(no_limit),
                },
            ),
            threads,
        )
