"""Progress of long work: what the ``progress=`` argument of every computing function means.

The Rust core reports progress at its natural steps (a replication of a simulation, an
evaluation of the threshold's root, a host of the cutoff search: ``(task, done, total,
note)``, ``total`` ``None`` when unknown). While a call computes, the waiting thread takes
the GIL every 50 ms (it checks Ctrl-C then) and hands the reports recorded since to the
handler of this module's thread-local, oldest first, on the calling thread; once more when
the work is done. A computation quicker than 50 ms hands over every report it made (up to
256; beyond that the latest of each task).

``progress``:

* ``None`` (the default): a ``tqdm`` bar when tqdm is installed and the work has lasted more
  than a second (quick calls show nothing), else nothing;
* ``False``: nothing (no handler: the core records nothing either);
* ``True``: a tqdm bar at once, or without tqdm one line on stderr every few seconds
  (``taskassign: progress: after 6 s: replications 4/10``);
* a callable: called as ``progress(task, done, total, note)`` on the calling thread; an
  exception it raises stops the work (like Ctrl-C) and is raised from the call.
"""

from __future__ import annotations

import sys
import threading
import time
from contextlib import contextmanager
from typing import Any, Callable, Dict, Iterator, Optional, Tuple, Union

from ._errors import InputError

#: What ``progress=`` accepts.
Progress = Union[None, bool, Callable[[str, int, Optional[int], str], Any]]

_local = threading.local()

#: A default bar appears only for work that lasts longer than this (seconds).
DEFAULT_DELAY = 1.0
#: The interval of the stderr lines of ``progress=True`` without tqdm (seconds).
LINE_INTERVAL = 3.0
#: A tqdm bar is redrawn at most this often (seconds).
BAR_REFRESH = 0.1

_TQDM: Any = None
_TQDM_LOOKED = False


def _tqdm() -> Any:
    """The tqdm class to draw with (the notebook one inside a Jupyter kernel that has
    ipywidgets), or ``None`` when tqdm is not installed; looked up once."""
    global _TQDM, _TQDM_LOOKED
    if not _TQDM_LOOKED:
        _TQDM_LOOKED = True
        try:
            from tqdm.std import tqdm as cls

            if "ipykernel" in sys.modules:
                try:
                    import ipywidgets  # noqa: F401
                    from tqdm.notebook import tqdm as cls  # type: ignore[no-redef]
                except ImportError:
                    pass
            _TQDM = cls
        except ImportError:
            _TQDM = None
    return _TQDM


def _line(tasks: Dict[str, Tuple[int, Optional[int], str]]) -> str:
    """The tasks' last reports as the command line writes them: ``task done/total (note)``
    joined by `` · ``."""
    parts = []
    for task, (done, total, note) in tasks.items():
        count = f"{done}/{total}" if total is not None else f"{done}"
        parts.append(f"{task} {count} ({note})" if note else f"{task} {count}")
    return " · ".join(parts)


class Bar:
    """A tqdm bar per task, shown once the work has lasted ``delay`` seconds."""

    def __init__(self, tqdm: Any, delay: float) -> None:
        self._tqdm = tqdm
        self._delay = delay
        self._start = time.monotonic()
        self._last = 0.0
        self._bars: Dict[str, Any] = {}

    def __call__(self, task: str, done: int, total: Optional[int], note: str) -> None:
        now = time.monotonic()
        if now - self._start < self._delay:
            return
        bar = self._bars.get(task)
        if bar is None:
            bar = self._tqdm(
                total=total, desc=task, position=len(self._bars), leave=False, dynamic_ncols=True
            )
            self._bars[task] = bar
        if bar.total != total:
            bar.total = total
        bar.n = done
        if note:
            bar.set_postfix_str(note, refresh=False)
        if now - self._last >= BAR_REFRESH:
            self._last = now
            bar.refresh()

    def close(self) -> None:
        for bar in self._bars.values():
            bar.close()
        self._bars.clear()


class Lines:
    """One line on stderr every ``interval`` seconds (the first at the first report)."""

    def __init__(self, interval: float = LINE_INTERVAL, stream: Any = None) -> None:
        self._interval = interval
        self._stream = stream
        self._start = time.monotonic()
        self._last: Optional[float] = None
        self._tasks: Dict[str, Tuple[int, Optional[int], str]] = {}

    def __call__(self, task: str, done: int, total: Optional[int], note: str) -> None:
        self._tasks[task] = (done, total, note)
        now = time.monotonic()
        if self._last is None or now - self._last >= self._interval:
            self._last = now
            stream = self._stream if self._stream is not None else sys.stderr
            print(
                f"taskassign: progress: after {now - self._start:.0f} s: {_line(self._tasks)}",
                file=stream,
                flush=True,
            )

    def close(self) -> None:
        pass


def handler(progress: Progress) -> Optional[Callable[..., Any]]:
    """The handler ``progress=`` asks for (module docstring), or ``None``."""
    if progress is None:
        tqdm = _tqdm()
        return None if tqdm is None else Bar(tqdm, DEFAULT_DELAY)
    if progress is False:
        return None
    if progress is True:
        tqdm = _tqdm()
        return Lines() if tqdm is None else Bar(tqdm, 0.0)
    if callable(progress):
        return progress
    raise InputError(
        f"progress: expected None, True, False or a callable progress(task, done, total, note), got {progress!r}"
    )


def _active() -> Optional[Callable[..., Any]]:
    """The calling thread's handler (the Rust core asks for it when a call starts)."""
    return getattr(_local, "handler", None)


@contextmanager
def using(progress: Progress) -> Iterator[None]:
    """Sets the calling thread's handler for the duration of one call. Inside a call that
    has one already, the default (``None``) keeps the outer call's."""
    outer = getattr(_local, "handler", None)
    if progress is None and outer is not None:
        yield
        return
    h = handler(progress)
    _local.handler = h
    try:
        yield
    finally:
        _local.handler = outer
        if isinstance(h, (Bar, Lines)):
            h.close()
