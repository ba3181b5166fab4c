"""Numbers that keep their digits, and records of them.

A certified number is the decimal text the command line prints (only the digits two MPFR
precisions agree on); it converts to an ``mpmath.mpf`` holding every one of those digits,
and to a float only when it fits in a double.
"""

from __future__ import annotations

import json
import math
import re
import sys
from typing import Any, Dict, Iterator, List, Optional, Sequence

import mpmath

# Bits per decimal digit, log2(10).
_BITS_PER_DIGIT = math.log2(10)
# Guard bits of .mpf beyond the bits of its decimal digits: with them, the mpf printed
# at the number's digits gives its text back (checked by the tests on 1000 digits).
_GUARD_BITS = 16


def _significant_digits(text: str) -> int:
    """The significant digits of a certified text ``d.ddde±X`` (every digit printed is
    certified, trailing zeros included); 0 for a text that is not a number."""
    mantissa = text.lstrip("+-").split("e")[0].split("E")[0]
    digits = mantissa.replace(".", "")
    if not digits.isdigit():
        return 0
    return len(digits)


class Certified:
    """A certified decimal: ``text`` carries only certified significant digits.

    >>> x = Certified("1.4659412723849928855e0")
    >>> x.digits
    20
    >>> mpmath.nstr(x.mpf, 20)  # x.mpf: an mpmath.mpf holding every digit
    '1.4659412723849928855'
    >>> float(x)
    1.465941272384993
    """

    __slots__ = ("text", "digits")

    def __init__(self, text: str) -> None:
        self.text = text
        self.digits = _significant_digits(text)

    @property
    def prec(self) -> int:
        """Bits of the mpf that holds every digit of ``text``."""
        return max(53, math.ceil(self.digits * _BITS_PER_DIGIT) + _GUARD_BITS)

    @property
    def mpf(self) -> mpmath.mpf:
        """The number as an ``mpmath.mpf`` at a precision holding every certified digit
        (mpmath keeps it; arithmetic rounds to the context's ``mp.prec`` as usual)."""
        if self.digits == 0:
            raise ValueError(f"{self.text!r} is not a number")
        with mpmath.workprec(self.prec):
            return mpmath.mpf(self.text)

    @property
    def _mpf_(self) -> tuple:
        """mpmath's raw tuple: ``mpmath.mpf(x)``, ``mpmath.mpmathify(x)`` and arithmetic
        with mpf values accept a certified number directly."""
        return self.mpf._mpf_

    def __float__(self) -> float:
        """The nearest double; OverflowError (never ``inf``) above the double range."""
        v = self.mpf
        if abs(v) > sys.float_info.max:
            raise OverflowError(
                f"{self.text} is outside the range of a double (use .mpf or .text)"
            )
        return float(v)

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.text!r})"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Certified):
            return type(other) is type(self) and other.text == self.text
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.text)


class Enclosed(Certified):
    """A proven number (``--rigorous``): ``text`` has the digits every point of the
    enclosure ``[lo, hi]`` rounds to; ``lo`` and ``hi`` are its ends, rounded outward.

    ``arb()`` gives the enclosure as a python-flint ``arb`` (if python-flint is installed).
    """

    __slots__ = ("lo", "hi")

    def __init__(self, text: str, lo: Certified, hi: Certified) -> None:
        super().__init__(text)
        self.lo = lo
        self.hi = hi

    def arb(self) -> Any:
        """The enclosure as a ``flint.arb`` ball containing ``[lo, hi]`` (python-flint's
        working precision is raised for the conversion only and restored)."""
        import flint  # optional dependency

        old = flint.ctx.prec
        flint.ctx.prec = max(old, self.lo.prec, self.hi.prec)
        try:
            return flint.arb(self.lo.text).union(flint.arb(self.hi.text))
        finally:
            flint.ctx.prec = old

    def __repr__(self) -> str:
        return f"Enclosed({self.text!r}, lo={self.lo.text!r}, hi={self.hi.text!r})"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Enclosed):
            return (other.text, other.lo, other.hi) == (self.text, self.lo, self.hi)
        return NotImplemented

    __hash__ = Certified.__hash__


class Simulated(Certified):
    """A simulated value: ``text`` the estimate, ``half_width`` its 95 % half-width,
    ``warnings`` what the run's diagnostics said."""

    __slots__ = ("half_width", "warnings")

    def __init__(self, text: str, half_width: Certified, warnings: Sequence[str] = ()) -> None:
        super().__init__(text)
        self.half_width = half_width
        self.warnings = list(warnings)

    def __repr__(self) -> str:
        return f"Simulated({self.text!r}, half_width={self.half_width.text!r})"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Simulated):
            return (other.text, other.half_width) == (self.text, self.half_width)
        return NotImplemented

    __hash__ = Certified.__hash__


def _wrap(v: Any) -> Any:
    """A certified field's JSON value as numbers: a string a Certified, a list a list, null
    (an infinite value) None."""
    if isinstance(v, str):
        return Certified(v)
    if isinstance(v, list):
        return [_wrap(x) for x in v]
    return v


def _enclose(v: Any, lo: Any, hi: Any) -> Any:
    if isinstance(v, list) and isinstance(lo, list) and isinstance(hi, list):
        return [_enclose(a, b, c) for a, b, c in zip(v, lo, hi)]
    if isinstance(v, str) and isinstance(lo, str) and isinstance(hi, str):
        return Enclosed(v, Certified(lo), Certified(hi))
    return _wrap(v)


# A number as the command line prints it in a record: `d.ddde±X` (certified digits only),
# or a bare 0.
_NUMBER = re.compile(r"^[+-]?\d(\.\d+)?e[+-]?\d+$|^0$")


def _is_number_text(v: Any) -> bool:
    return isinstance(v, str) and _NUMBER.match(v) is not None


def _infer(raw: Dict[str, Any]) -> Dict[str, Any]:
    """The fields of a record whose number fields are not named: a string in the command
    line's number form (``d.ddde±X``), or a list of them, is a number; a field ``K`` with a
    ``K_half_width`` beside it is a :class:`Simulated` value (lists element by element);
    nested objects become records of their own."""
    fields: Dict[str, Any] = {}
    for k, v in raw.items():
        hw = raw.get(f"{k}_half_width")
        if hw is not None and not k.endswith("_half_width"):
            fields[k] = _simulated(v, hw, raw.get("warnings", ()))
        else:
            fields[k] = _infer_value(v)
    return fields


def _infer_value(v: Any) -> Any:
    if _is_number_text(v):
        return Certified(v)
    if isinstance(v, list):
        return [_infer_value(x) for x in v]
    if isinstance(v, dict):
        return Record.inferred(json.dumps(v))
    return v


def _simulated(v: Any, hw: Any, warnings: Sequence[str]) -> Any:
    if isinstance(v, list) and isinstance(hw, list):
        return [_simulated(a, b, warnings) for a, b in zip(v, hw)]
    if _is_number_text(v) and _is_number_text(hw):
        return Simulated(v, Certified(hw), warnings)
    return _infer_value(v)


def _float_or_none(text: str) -> Optional[float]:
    """A number text as a float when it fits a double (neither inf nor a nonzero that
    underflows to 0); None otherwise."""
    try:
        f = float(text)
    except ValueError:
        return None
    if math.isinf(f) and "inf" not in text.lower():
        return None
    if f == 0.0 and any(c in "123456789" for c in text.lower().split("e")[0]):
        return None
    return f


def _flatten(prefix: str, v: Any, out: Dict[str, Any]) -> None:
    """A record's JSON value flattened as the merge CSV flattens it: ``name``,
    ``name[0]``, ``name.inner``."""
    if isinstance(v, dict):
        for k, x in v.items():
            _flatten(f"{prefix}.{k}" if prefix else k, x, out)
    elif isinstance(v, list):
        for i, x in enumerate(v):
            _flatten(f"{prefix}[{i}]", x, out)
    else:
        out[prefix] = v


def frame(rows: Sequence[Dict[str, Any]]) -> Any:
    """A pandas DataFrame of flat rows whose number cells are decimal strings: every column
    as given (numbers as their decimal text, every digit kept) and, beside each column of
    numbers that all fit a double, ``NAME_float`` (float64, for plotting; a column with a
    number beyond the double range gets none: use its text or mpmath).

    pandas is optional: without it, ImportError says how to install it."""
    try:
        import pandas as pd
    except ImportError as e:  # pragma: no cover - exercised by the tests with pandas hidden
        raise ImportError(
            "to_pandas() and read_sweep() need pandas: pip install pandas"
        ) from e
    df = pd.DataFrame(list(rows))
    out = {}
    for col in df.columns:
        values = df[col].tolist()
        out[col] = df[col]
        texts = [v for v in values if v is not None and v == v and v != ""]
        if not texts or not all(
            _is_number_text(v) or (isinstance(v, str) and _DECIMAL.match(v)) for v in texts
        ):
            continue
        floats = [_float_or_none(v) if isinstance(v, str) and v != "" else None for v in values]
        if any(f is None for f, v in zip(floats, values) if isinstance(v, str) and v != ""):
            continue
        out[f"{col}_float"] = pd.Series(
            [math.nan if f is None else f for f in floats], index=df.index, dtype="float64"
        )
    return pd.DataFrame(out, index=df.index)


# A decimal as a grid variable or input echo may be written: 0.5, 1e10, -3, 2.
_DECIMAL = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")


def to_pandas(records: Sequence["Record"]) -> Any:
    """Records (of one command, e.g. simulations over a grid of loads) as a DataFrame: one
    row per record, its fields flattened as the merge CSV flattens them (``cutoffs[0]``),
    numbers as decimal strings with a ``_float`` column beside each (see :func:`frame`).

    >>> import taskassign
    >>> recs = [taskassign.eval("sita", "exp:rate=1", 2, load=r, cutoffs=[1], digits=12)
    ...         for r in ("0.5", "1")]
    >>> df = taskassign.to_pandas(recs)                     # doctest: +SKIP
    >>> list(df["value"])                                    # doctest: +SKIP
    ['...', '...']
    """
    rows = []
    for r in records:
        flat: Dict[str, Any] = {}
        _flatten("", r.to_dict(), flat)
        rows.append(flat)
    return frame(rows)


class Record:
    """One result: the command line's JSON record, its certified fields as numbers.

    ``rec["value"]`` and ``rec.value`` give a field (a certified field as
    :class:`Certified`, or :class:`Enclosed` when the record proves it); ``to_dict()``
    gives the command's JSON object exactly (every number a decimal string).
    """

    __slots__ = ("_json", "_fields")

    def __init__(self, json_text: str, number_keys: Sequence[str] = ()) -> None:
        raw: Dict[str, Any] = json.loads(json_text)
        numbers = set(number_keys)
        fields: Dict[str, Any] = {}
        for k, v in raw.items():
            if k not in numbers:
                fields[k] = v
            elif f"{k}_lo" in numbers and f"{k}_hi" in numbers:
                fields[k] = _enclose(v, raw.get(f"{k}_lo"), raw.get(f"{k}_hi"))
            else:
                fields[k] = _wrap(v)
        self._json = json_text
        self._fields = fields

    @classmethod
    def inferred(cls, json_text: str) -> "Record":
        """A record of a command whose number fields are recognised by their form (the
        commands run through the command line's own handler: simulate, design, jsq
        fluid/simulate, redundancy simulate/stability, sweep, merge)."""
        r = cls.__new__(cls)
        r._json = json_text
        r._fields = _infer(json.loads(json_text))
        return r

    def to_pandas(self, field: Optional[str] = None) -> Any:
        """The record as a one-row DataFrame (see :func:`to_pandas`; pandas optional), or,
        given the name of one of its list fields (a JSQ ``occupancy`` vector, ``cutoffs``,
        ``host_waiting``, ...), that list as rows: ``index`` (0-based: ``occupancy`` row 0
        is q_1) and the entry, as decimal text with a ``_float`` column beside; a list of
        lists (``jsq.fluid``'s occupancy at each time) gives one row per inner entry with
        ``index`` (the outer position: ``times[index]``) and ``position``.

        >>> import taskassign
        >>> df = taskassign.jsq.fixed_point("queues", 0.9, d=2, digits=12).to_pandas("occupancy")  # doctest: +SKIP
        >>> list(df["occupancy"][:2]), list(df["occupancy_float"][:2])   # doctest: +SKIP
        (['9.00000000000e-1', '7.29000000000e-1'], [0.9, 0.729])
        """
        if field is None:
            return to_pandas([self])
        entries = self.to_dict().get(field)
        if not isinstance(entries, list):
            raise KeyError(f"{field!r} is not a list field of this record")
        rows: List[Dict[str, Any]] = []
        for k, e in enumerate(entries):
            if isinstance(e, list):
                rows += [{"index": k, "position": j, field: x} for j, x in enumerate(e)]
            elif isinstance(e, dict):
                flat: Dict[str, Any] = {"index": k}
                _flatten("", e, flat)
                rows.append(flat)
            else:
                rows.append({"index": k, field: e})
        return frame(rows)

    def to_dict(self) -> Dict[str, Any]:
        """The record as the command prints it with ``--format json`` (a fresh dict)."""
        return json.loads(self._json)

    def to_json(self) -> str:
        """The command's JSON line."""
        return self._json

    def __getitem__(self, key: str) -> Any:
        return self._fields[key]

    def __getattr__(self, key: str) -> Any:
        try:
            return self._fields[key]
        except KeyError:
            raise AttributeError(key) from None

    def __contains__(self, key: object) -> bool:
        return key in self._fields

    def __iter__(self) -> Iterator[str]:
        return iter(self._fields)

    def keys(self) -> List[str]:
        return list(self._fields)

    def get(self, key: str, default: Optional[Any] = None) -> Any:
        return self._fields.get(key, default)

    def __dir__(self) -> List[str]:
        return sorted(set(super().__dir__()) | set(self._fields))

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={v!r}" for k, v in self._fields.items())
        return f"Record({inner})"
