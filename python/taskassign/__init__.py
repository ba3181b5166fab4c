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

Every computing function also takes ``progress=``: ``None`` (default) a tqdm bar when tqdm
is installed and the work lasts more than a second, ``False`` nothing, ``True`` a bar (or a
line on stderr every few seconds without tqdm), or a callable ``progress(task, done,
total, note)`` called on the calling thread (see ``taskassign._progress``). The numbers do
not depend on it.
"""

from __future__ import annotations

import os
from decimal import Decimal
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple, Union

from . import _progress, _taskassign
from ._errors import Error, InputError, NumericalError
from ._numbers import Certified, Enclosed, Record, Simulated, frame, to_pandas

__all__ = [
    "eval",
    "optimize",
    "threshold",
    "quantity",
    "check",
    "design",
    "simulate",
    "tables",
    "sweep",
    "merge",
    "read_sweep",
    "to_pandas",
    "jsq",
    "redundancy",
    "Certified",
    "Enclosed",
    "Simulated",
    "Record",
    "CheckReport",
    "CommandReport",
    "TablesReport",
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
            return _mpf_text(x)
    except ImportError:  # pragma: no cover - mpmath is a dependency
        pass
    raise InputError(f"{what}: expected a number or a decimal string, got {x!r}")


def _mpf_text(x: Any) -> str:
    """An ``mpmath.mpf`` as the shortest decimal that reads back to the same binary number at
    the number's own precision (the bits of its mantissa, at least a double's 53), as
    ``repr`` does for a float: the precision comes from the argument, never from mpmath's
    global ``mp.dps``."""
    from mpmath import libmp

    sign, man, exp, bc = x._mpf_
    if not man:
        return "0" if x == 0 else str(x)  # inf and nan: the parser says what is wrong
    bits = max(bc, 53)
    lo, hi = 1, int(bits * 0.30103) + 2  # hi digits always read back (log10 2 < 0.30103)
    while lo < hi:
        mid = (lo + hi) // 2
        if libmp.from_str(libmp.to_str(x._mpf_, mid), bits, libmp.round_nearest) == x._mpf_:
            hi = mid
        else:
            lo = mid + 1
    return libmp.to_str(x._mpf_, lo)


def _opt_dec(x: Any, what: str) -> Optional[str]:
    return None if x is None else _dec(x, what)


def _list(xs: Union[str, Iterable[Any], None], what: str) -> str:
    """A list argument as the command line's comma-separated text."""
    if xs is None:
        return ""
    if isinstance(xs, str):
        return xs
    return ",".join(_dec(x, what) for x in xs)


def _argv(words: Sequence[str], opts: Dict[str, Any], repeat: Sequence[str] = ()) -> List[str]:
    """A command line: ``words`` then ``--name value`` for each option given (``None``
    and ``False`` leave it out, ``True`` is a bare flag, a list is comma-separated, or one
    ``--name`` per element for the options in ``repeat``; ``_`` is written ``-`` and
    ``lambda_`` is ``--lambda``)."""
    argv = list(words)
    for name, v in opts.items():
        if v is None or v is False:
            continue
        flag = "--" + name.rstrip("_").replace("_", "-")
        if v is True:
            argv.append(flag)
        elif name in repeat:
            for x in [v] if isinstance(v, str) else v:
                argv += [flag, str(x)]
        elif isinstance(v, (list, tuple)):
            argv += [flag, _list(v, name)]
        elif isinstance(v, int) and not isinstance(v, bool):
            argv += [flag, str(v)]
        else:
            argv += [flag, _dec(v, name)]
    return argv


def _command(argv: List[str], threads: Optional[int] = None) -> Tuple[str, int]:
    """Runs ``taskassign ARGV`` in this process (the command line's parser and handler,
    the GIL released, Ctrl-C honoured): its stdout and exit status."""
    return _taskassign.command(argv, None if threads is None else int(threads))


def _json_command(argv: List[str], threads: Optional[int] = None) -> Record:
    out, _ = _command(argv + ["--format", "json"], threads)
    return Record.inferred(out)


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
    progress: _progress.Progress = None,
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
    with _progress.using(progress):
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
    progress: _progress.Progress = None,
) -> Record:
    """Optimal cutoffs (``taskassign optimize``): sita, tags (minimise the metric), sita-e
    (equal loads), tags-minmax (smallest largest mean queue length).

    Load and metric as in :func:`eval`. ``rigorous`` proves a lower bound of the minimum
    over every cutoff vector (``value_lo``) by interval branch and bound, evaluating at
    most ``max_boxes`` boxes (at least 1; a smaller limit raises :class:`InputError`),
    though its first cover (the convex basin and the 2(h − 1) slabs around it) is always
    evaluated; tags-minmax's bound is the least host queue at the certified optimum (each
    host's queue falls in its lower cutoff and grows in its upper one), with no box.

    Returns the record of ``taskassign optimize --format json`` (eval's keys plus
    ``idle_hosts``).

    >>> r = optimize("sita", "bp:k=1,p=1e10,alpha=1", hosts=2, load=0.5, digits=12)
    >>> r.cutoffs[0].text
    '1.00000000000e5'
    """
    with _progress.using(progress):
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
    progress: _progress.Progress = None,
) -> Record:
    """The TAGS stability threshold rho*(F, h) (``taskassign threshold``): the largest
    total load for which stable cutoffs exist, and the greedy cutoffs at it. ``hosts`` may
    be ``"inf"`` (the limit h -> infinity).

    Returns the record of ``taskassign threshold --format json``: dist, hosts,
    threshold_load, cutoffs, digits.

    >>> threshold("exp:rate=1", hosts=2).threshold_load.text
    '1.46594127238499288550295368217e0'
    """
    with _progress.using(progress):
        js, keys = _taskassign.threshold(dist, str(hosts), int(digits), bool(rigorous))
        return Record(js, keys)


def quantity(
    expr: str,
    *,
    dist: Optional[str] = None,
    hosts: Union[int, str, None] = None,
    load: Optional[Num] = None,
    digits: Optional[int] = None,
    progress: _progress.Progress = None,
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
    with _progress.using(progress):
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

    def to_pandas(self) -> Any:
        """One row per check: the claim's ``id``, ``paper`` and ``claim_verdict``, the
        check's ``name``, ``quantity``, ``relation``, ``verdict``, ``expect``,
        ``as_expected``, ``margin``, ``rel_margin`` (decimal text, every digit, with
        ``margin_float`` beside) and ``worst_point`` (pandas optional).

        >>> df = check("proofs-check/hbv10").to_pandas()            # doctest: +SKIP
        >>> sorted(set(df["verdict"]))                                # doctest: +SKIP
        ['PASS']
        """
        rows = []
        for c in self.to_dict()["claims"]:
            for k in c.get("checks", []):
                rows.append(
                    {
                        "id": c.get("id"),
                        "paper": c.get("paper"),
                        "claim_verdict": c.get("verdict"),
                        "name": k.get("name"),
                        "quantity": k.get("quantity"),
                        "relation": k.get("relation"),
                        "verdict": k.get("verdict"),
                        "expect": k.get("expect"),
                        "as_expected": k.get("as_expected"),
                        "margin": k.get("margin"),
                        "rel_margin": k.get("rel_margin"),
                        "worst_point": k.get("worst_point"),
                    }
                )
        return frame(rows)


def check(
    path_or_claim_text: Union[str, "os.PathLike[str]", Sequence[Union[str, "os.PathLike[str]"]]] = "proofs-check",
    *,
    strict: bool = False,
    progress: _progress.Progress = None,
) -> CheckReport:
    """Run claim files and judge them (``taskassign check``): a folder (searched for
    ``*.toml``), a file, a list of them, or one claim file written as a string.

    A malformed claim raises :class:`InputError` with the command's message.

    >>> rep = check("proofs-check/hbv10")            # doctest: +SKIP
    >>> rep.summary["fail"], rep.passed               # doctest: +SKIP
    (0, True)
    """
    with _progress.using(progress):
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


def design(
    dist: str,
    load: Num,
    *,
    target_waiting: Optional[Num] = None,
    target_slowdown: Optional[Num] = None,
    policy: str = "both",
    max_hosts: int = 32,
    digits: int = 20,
    progress: _progress.Progress = None,
) -> Record:
    """The fewest hosts, and their optimal cutoffs, that meet a mean waiting (or slowdown)
    target for SITA and for TAGS (``taskassign design``; [BD21]).

    Give one of ``target_waiting`` and ``target_slowdown``; ``policy``: sita, tags or both.
    Returns the record of ``taskassign design --format json``: ``designs``, one record per
    policy (its ``hosts``, ``cutoffs``, ``value``, ...).

    >>> r = design("exp:rate=1", 3, target_waiting=0.1, policy="sita", digits=12)
    >>> r.designs[0].hosts
    19
    """
    with _progress.using(progress):
        return _json_command(
            _argv(
                ["design"],
                {
                    "dist": dist,
                    "load": load,
                    "target_waiting": target_waiting,
                    "target_slowdown": target_slowdown,
                    "policy": policy,
                    "max_hosts": int(max_hosts),
                    "digits": int(digits),
                },
            )
        )


def simulate(
    policy: str,
    dist: str,
    hosts: Union[int, str],
    *,
    load: Optional[Num] = None,
    load_per_host: Optional[Num] = None,
    lambda_: Optional[Num] = None,
    cutoffs: Union[str, Sequence[Num], None] = "",
    jobs: Union[int, str, None] = None,
    warmup: Union[int, str, None] = None,
    replications: int = 10,
    seed: int = 1,
    threads: Optional[int] = None,
    no_limit: bool = False,
    point: int = 0,
    interarrival: Optional[str] = None,
    progress: _progress.Progress = None,
) -> Record:
    """Simulate h FCFS hosts under sita, tags, random, rr, lwl or jsq (``taskassign
    simulate``): mean waiting, response and slowdown with 95 % half-widths, compared with
    the formula.

    Load as in :func:`eval`. ``jobs``: measured jobs per replication (default: the command
    line's rule, 10^6 lengthened for heavy tails); ``warmup``: jobs discarded (default a
    tenth); ``threads``: worker threads, 1 to 1024 (default all cores; the numbers do
    not depend on it). The record's simulated fields (``waiting``, ``host_waiting``, ...)
    are :class:`Simulated` values with ``.half_width``. Ctrl-C stops the run.

    >>> r = simulate("sita", "exp:rate=1", 2, load=1, cutoffs=[1], jobs=20000, replications=4)
    >>> r.waiting.half_width.text, r.analytic_waiting.text
    ('1.15e-1', '1.34940e0')
    """
    with _progress.using(progress):
        return _json_command(
            _argv(
                ["simulate"],
                {
                    "policy": policy,
                    "dist": dist,
                    "hosts": str(hosts),
                    "load": load,
                    "load_per_host": load_per_host,
                    "lambda_": lambda_,
                    "cutoffs": _list(cutoffs, "cutoffs"),
                    "jobs": None if jobs is None else str(jobs),
                    "warmup": None if warmup is None else str(warmup),
                    "replications": int(replications),
                    "seed": int(seed),
                    "no_limit": bool(no_limit),
                    "point": int(point),
                    "interarrival": interarrival,
                },
            ),
            threads,
        )


class CommandReport(Record):
    """The JSON summary of a command that writes files (``sweep``, ``merge``) and its exit
    status (``merge --grid``: 1 while points are missing)."""

    __slots__ = ("exit_status",)

    @classmethod
    def of(cls, out: str, status: int) -> "CommandReport":
        r = cls.inferred(out)
        r.exit_status = status
        return r


def sweep(
    grid: Union[str, "os.PathLike[str]"],
    *,
    out: Union[str, "os.PathLike[str]"],
    shard: str = "0/1",
    resume: bool = False,
    threads: Optional[int] = None,
    progress: _progress.Progress = None,
) -> CommandReport:
    """Run one shard of a parameter sweep (``taskassign sweep GRID --out DIR``): one JSON
    line per point of the grid file, in ``DIR/shard-IIIIII-of-NNNNNN.jsonl``; ``resume``
    skips the points done; ``threads`` points are computed at once (default: the cores;
    the results do not depend on it). Returns the summary (points, computed, failed, file, ...).
    (The command's ``--plan`` prints Slurm lines: use the command line for it.)

    >>> import tempfile, pathlib                                   # doctest: +SKIP
    >>> d = pathlib.Path(tempfile.mkdtemp())                        # doctest: +SKIP
    >>> sweep("examples/sweeps/tags-sita.toml", out=d / "out", shard="0/1000").points  # doctest: +SKIP
    20
    """
    with _progress.using(progress):
        return CommandReport.of(
            *_command(
                _argv(
                    ["sweep", os.fspath(grid)],
                    {
                        "out": os.fspath(out),
                        "shard": shard,
                        "resume": bool(resume),
                        "threads": None if threads is None else int(threads),
                    },
                )
                + ["--format", "json"],
            )
        )


def merge(
    dirs: Union[str, "os.PathLike[str]", Sequence[Union[str, "os.PathLike[str]"]]],
    *,
    out: Union[str, "os.PathLike[str]"],
    csv: Union[str, "os.PathLike[str]", None] = None,
    grid: Union[str, "os.PathLike[str]", None] = None,
    shards: Optional[int] = None,
    progress: _progress.Progress = None,
) -> CommandReport:
    """Merge the shard files of sweeps into one sorted JSONL (``out``) and one CSV (``csv``,
    default ``out`` with the extension .csv) (``taskassign merge``). With ``grid``, the
    missing points are counted and ``exit_status`` is 1 while any is missing.
    ``read_sweep(out)`` loads the result without losing a digit.

    >>> rep = merge("sweep-out", out="sweep-out/merged.jsonl")      # doctest: +SKIP
    >>> rep.csv, rep.missing_shards                                  # doctest: +SKIP
    ('sweep-out/merged.csv', '')
    """
    with _progress.using(progress):
        paths = [dirs] if isinstance(dirs, (str, os.PathLike)) else list(dirs)
        opts = {
            "out": os.fspath(out),
            "csv": None if csv is None else os.fspath(csv),
            "grid": None if grid is None else os.fspath(grid),
            "shards": None if shards is None else int(shards),
        }
        return CommandReport.of(
            *_command(_argv(["merge", *[os.fspath(p) for p in paths]], opts) + ["--format", "json"])
        )


def read_sweep(path: Union[str, "os.PathLike[str]"]) -> Any:
    """A merged sweep as a pandas DataFrame without losing a digit: the merge CSV (give it,
    or the merged JSONL beside it) read with every cell as text, so ``result.value`` keeps
    every certified digit (a plain ``pandas.read_csv`` rounds it to a double and turns
    10^1000 into ``inf``), and beside each column of numbers that all fit a double a
    ``NAME_float`` column for plotting (a column beyond the double range has the merge's
    ``log10_NAME`` column instead).

    >>> df = read_sweep("sweep-out/merged.csv")                      # doctest: +SKIP
    >>> df["result.value"][0], df["result.value_float"][0]           # doctest: +SKIP
    ('2.8952386406698119360996e3', 2895.238640669812)
    """
    import csv as _csv

    p = os.fspath(path)
    if p.endswith(".jsonl"):
        p = p[: -len(".jsonl")] + ".csv"
    with open(p, newline="", encoding="utf-8") as f:
        rows = list(_csv.DictReader(f))
    return frame(rows)


def tables(
    out: Union[str, "os.PathLike[str]"] = "data",
    *,
    claims: Union[str, "os.PathLike[str]", None] = None,
    check: bool = False,
    figures: Union[str, "os.PathLike[str]"] = "data/figures",
    progress: _progress.Progress = None,
) -> "CommandReport":
    """Regenerate the claim tables (CSV, LaTeX, Markdown) and figures into ``out``
    (``taskassign tables``); ``check`` regenerates into a temporary folder and reports a
    difference with ``out`` (``exit_status`` 1). Returns the command's report:
    ``text`` (what it prints) and ``exit_status``.

    >>> tables("/tmp/tables", claims="proofs-check/hbv10").exit_status   # doctest: +SKIP
    0
    """
    with _progress.using(progress):
        opts = {
            "out": os.fspath(out),
            "claims": None if claims is None else os.fspath(claims),
            "check": bool(check),
            "figures": os.fspath(figures),
        }
        text, status = _command(_argv(["tables"], opts))
        return TablesReport(text, status)


class TablesReport:
    """What ``taskassign tables`` printed (``text``) and its exit status (0, or 1 when
    ``check`` found a difference)."""

    __slots__ = ("text", "exit_status")

    def __init__(self, text: str, exit_status: int) -> None:
        self.text = text
        self.exit_status = exit_status

    def __repr__(self) -> str:
        return f"TablesReport(exit_status={self.exit_status}, text={self.text!r})"


from . import jsq, redundancy  # noqa: E402  (they use the helpers above)
