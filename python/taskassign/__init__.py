"""taskassign: numerical checks of dispatching theory at any precision, from Python.

The same Rust core as the ``taskassign`` command line (a PyO3 extension, no second
implementation): every function takes the command's options as keyword arguments (the
same names, ``-`` written ``_``; ``lambda_`` for ``--lambda``) with the same defaults, and
returns the command's ``--format json`` record with its certified numbers as
:class:`Certified` objects that keep every digit (``.text``, ``.digits``, ``.mpf``).

>>> import taskassign
>>> r = taskassign.optimize("sita", "bp:k=1,p=1e10,alpha=1", hosts=2, load=0.5, digits=12)
>>> r.cutoffs[0].text                      # sqrt(k p) = 1e5
'1.00000000000e5'

Bad input raises :class:`InputError` (the command's exit status 2), a numerical failure
:class:`NumericalError` (exit 3), both with the command's one-line message. The GIL is
released while the core computes: a thread pool runs several computations in parallel.
"""

from __future__ import annotations

import os
from decimal import Decimal
from typing import Any, Iterable, Optional, Sequence, Union

from . import _taskassign
from ._errors import Error, InputError, NumericalError
from ._numbers import Certified, Enclosed, Record, Simulated

__all__ = [
    "eval",
    "optimize",
    "threshold",
    "quantity",
    "check",
    "jsq",
    "redundancy",
    "Certified",
    "Enclosed",
    "Simulated",
    "Record",
    "CheckReport",
    "Error",
    "InputError",
    "NumericalError",
    "DEFAULT_DIGITS",
]

#: The default ``digits`` of every function (the command line's ``--digits``).
DEFAULT_DIGITS: int = _taskassign.DEFAULT_DIGITS

Num = Union[str, int, float, Decimal, Certified]


def _dec(x: Any, what: str) -> str:
    """A number argument as the decimal text the command line would get: strings pass
    unchanged (``"1e100000"`` stays exact), a float is written as its shortest repr, a
    certified number as its text."""
    if isinstance(x, str):
        return x
    if isinstance(x, bool):
        raise InputError(f"{what}: expected a number, got {x!r}")
    if isinstance(x, Certified):
        return x.text
    if isinstance(x, (int, Decimal)):
        return str(x)
    if isinstance(x, float):
        return repr(x)
    try:
        import mpmath

        if isinstance(x, mpmath.mpf):
            return mpmath.nstr(x, mpmath.mp.dps)
    except ImportError:  # pragma: no cover - mpmath is a dependency
        pass
    raise InputError(f"{what}: expected a number or a decimal string, got {x!r}")


def _opt_dec(x: Any, what: str) -> Optional[str]:
    return None if x is None else _dec(x, what)


def _list(xs: Union[str, Iterable[Any], None], what: str) -> str:
    """A list argument as the command line's comma-separated text."""
    if xs is None:
        return ""
    if isinstance(xs, str):
        return xs
    return ",".join(_dec(x, what) for x in xs)


def eval(  # noqa: A001 - the command's name
    policy: str,
    dist: str,
    hosts: Union[int, str],
    *,
    load: Optional[Num] = None,
    load_per_host: Optional[Num] = None,
    lambda_: Optional[Num] = None,
    cutoffs: Union[str, Sequence[Num], None] = "",
    metric: str = "waiting",
    digits: int = DEFAULT_DIGITS,
    rigorous: bool = False,
) -> Record:
    """Evaluate SITA, TAGS or Random with given cutoffs (``taskassign eval``).

    Give exactly one of ``load`` (total offered load rho, 0 < rho < hosts),
    ``load_per_host`` (rho = u*hosts) or ``lambda_`` (the arrival rate). ``cutoffs``: the
    h-1 interior cutoffs, a list or ``"s1,s2"``. ``metric``: waiting, response or
    slowdown. ``rigorous``: proven digits (every number an :class:`Enclosed`).

    Returns the record of ``taskassign eval --format json``: policy, dist, hosts, lambda,
    load, metric, cutoffs, host_loads, value, queueing, wasted, stable, digits, ...

    >>> r = eval("tags", "bp:k=1,p=1e10,alpha=1", hosts=2, load=0.5, cutoffs=[1000])
    >>> r.value.digits, r.stable
    (30, True)
    """
    js, keys = _taskassign.eval(
        policy,
        dist,
        str(hosts),
        _opt_dec(load, "load"),
        _opt_dec(load_per_host, "load_per_host"),
        _opt_dec(lambda_, "lambda_"),
        _list(cutoffs, "cutoffs"),
        metric,
        int(digits),
        bool(rigorous),
    )
    return Record(js, keys)


def optimize(
    policy: str,
    dist: str,
    hosts: Union[int, str],
    *,
    load: Optional[Num] = None,
    load_per_host: Optional[Num] = None,
    lambda_: Optional[Num] = None,
    metric: str = "waiting",
    digits: int = DEFAULT_DIGITS,
    rigorous: bool = False,
    max_boxes: int = _taskassign.DEFAULT_MAX_BOXES,
) -> Record:
    """Optimal cutoffs (``taskassign optimize``): sita, tags (minimise the metric), sita-e
    (equal loads), tags-minmax (smallest largest mean queue length).

    Load and metric as in :func:`eval`. ``rigorous`` proves a lower bound of the minimum
    over every cutoff vector (``value_lo``) by interval branch and bound, evaluating at
    most ``max_boxes`` boxes.

    Returns the record of ``taskassign optimize --format json`` (eval's keys plus
    ``idle_hosts``).

    >>> r = optimize("sita", "bp:k=1,p=1e10,alpha=1", hosts=2, load=0.5, digits=12)
    >>> r.cutoffs[0].text
    '1.00000000000e5'
    """
    js, keys = _taskassign.optimize(
        policy,
        dist,
        str(hosts),
        _opt_dec(load, "load"),
        _opt_dec(load_per_host, "load_per_host"),
        _opt_dec(lambda_, "lambda_"),
        metric,
        int(digits),
        bool(rigorous),
        int(max_boxes),
    )
    return Record(js, keys)


def threshold(
    dist: str,
    hosts: Union[int, str],
    *,
    digits: int = DEFAULT_DIGITS,
    rigorous: bool = False,
) -> Record:
    """The TAGS stability threshold rho*(F, h) (``taskassign threshold``): the largest
    total load for which stable cutoffs exist, and the greedy cutoffs at it. ``hosts`` may
    be ``"inf"`` (the limit h -> infinity).

    Returns the record of ``taskassign threshold --format json``: dist, hosts,
    threshold_load, cutoffs, digits.

    >>> threshold("exp:rate=1", hosts=2).threshold_load.text
    '1.46594127238499288550295368217e0'
    """
    js, keys = _taskassign.threshold(dist, str(hosts), int(digits), bool(rigorous))
    return Record(js, keys)


def quantity(
    expr: str,
    *,
    dist: Optional[str] = None,
    hosts: Union[int, str, None] = None,
    load: Optional[Num] = None,
    digits: Optional[int] = None,
    **setup: Any,
) -> Certified:
    """A quantity of the claim language at one point, through the claims engine (as a
    claim's check or a sweep's ``quantity =`` evaluates it).

    ``dist``, ``hosts``, ``load`` and any other keyword are the ``[setup]`` keys of a claim
    file (``model="jsq"``, ``load_per_host=...``: ``_`` is written as in the claim file);
    ``digits`` the claim's digits (default that of claim files, 20).

    Returns a :class:`Certified` number, or a :class:`Simulated` one (with
    ``.half_width``) when the quantity rests on a simulation.

    >>> q = quantity("opt(tags).value / opt(sita).value", dist="exp:rate=1", hosts=2, load=0.5,
    ...              digits=12)
    >>> q.digits
    12
    """
    import json

    values = {"dist": dist, "hosts": hosts, "load": load, **setup}
    table = {k: _dec(v, k) for k, v in values.items() if v is not None}
    js = _taskassign.quantity(expr, table, None if digits is None else int(digits))
    r = json.loads(js)
    if "half_width" in r:
        return Simulated(r["value"], Certified(r["half_width"]), r.get("warnings", ()))
    return Certified(r["value"])


class CheckReport(Record):
    """The report of :func:`check` (``taskassign check --format json``): ``claims`` (one
    object per claim, its checks and verdict), ``summary``; ``exit_status`` is the
    command's (0 nothing fails, 1 a claim fails, 3 a claim could not be computed) and
    ``passed`` says it is 0."""

    __slots__ = ("exit_status",)

    def __init__(self, json_text: str, exit_status: int) -> None:
        super().__init__(json_text, ())
        self.exit_status = exit_status

    @property
    def passed(self) -> bool:
        return self.exit_status == 0


def check(
    path_or_claim_text: Union[str, "os.PathLike[str]", Sequence[Union[str, "os.PathLike[str]"]]] = "proofs-check",
    *,
    strict: bool = False,
) -> CheckReport:
    """Run claim files and judge them (``taskassign check``): a folder (searched for
    ``*.toml``), a file, a list of them, or one claim file written as a string.

    A malformed claim raises :class:`InputError` with the command's message.

    >>> rep = check("proofs-check/hbv10")            # doctest: +SKIP
    >>> rep.summary["fail"], rep.passed               # doctest: +SKIP
    (0, True)
    """
    if isinstance(path_or_claim_text, str) and not os.path.exists(path_or_claim_text) and (
        "\n" in path_or_claim_text or "=" in path_or_claim_text
    ):
        js, status = _taskassign.check([], path_or_claim_text, bool(strict))
        return CheckReport(js, status)
    if isinstance(path_or_claim_text, (str, os.PathLike)):
        paths = [os.fspath(path_or_claim_text)]
    else:
        paths = [os.fspath(p) for p in path_or_claim_text]
    js, status = _taskassign.check(paths, None, bool(strict))
    return CheckReport(js, status)


from . import jsq, redundancy  # noqa: E402  (they use the helpers above)
