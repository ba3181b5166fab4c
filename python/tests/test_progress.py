"""progress=: the core's progress reports reach Python on the calling thread (a callable, a
tqdm bar, or lines on stderr), and the numbers do not depend on it."""

import threading
import time

import pytest

import taskassign
from taskassign import _progress


class Recorder:
    """A progress callable that keeps every call and the thread it came on."""

    def __init__(self):
        self.calls = []
        self.threads = set()

    def __call__(self, task, done, total, note):
        self.calls.append((task, done, total, note))
        self.threads.add(threading.get_ident())

    def of(self, task):
        return [c for c in self.calls if c[0] == task]


def strictly_increasing(xs):
    return all(a < b for a, b in zip(xs, xs[1:]))


SIM = dict(load=1, cutoffs=[1], jobs=20000, replications=6)


@pytest.mark.parametrize("threads", [1, 2])
def test_a_simulation_reports_each_replication_in_order(threads):
    rec = Recorder()
    r = taskassign.simulate("sita", "exp:rate=1", 2, **SIM, threads=threads, progress=rec)
    reps = rec.of("replications")
    # One report per replication (the core reports each as it finishes, counted under one
    # lock): done = 1..6 of total 6, the number of replications asked for.
    assert [c[1] for c in reps] == list(range(1, 7))
    assert {c[2] for c in reps} == {6}
    # On the calling thread (the waiting loop hands them over with the GIL).
    assert rec.threads == {threading.get_ident()}
    # The same numbers without progress (and with any thread count).
    quiet = taskassign.simulate("sita", "exp:rate=1", 2, **SIM, threads=1, progress=False)
    assert r.to_dict() == quiet.to_dict()


def test_a_threshold_reports_its_root_evaluations():
    rec = Recorder()
    r = taskassign.threshold("exp:rate=1", hosts=3, digits=20, progress=rec)
    calls = rec.of("threshold root, evaluation")
    # The outer root's evaluations, counted 1, 2, 3, ... (the count is unknown in advance:
    # total None) at each working precision; the certified answer runs the root at two
    # precisions and compares them (the note names the precision: "λ = ... at 99 bits").
    runs = {}
    for _, done, total, note in calls:
        assert total is None
        runs.setdefault(note.rsplit(" at ", 1)[1], []).append(done)
    assert len(runs) >= 2, runs.keys()
    for bits, done in runs.items():
        assert done == list(range(1, len(done) + 1)) and len(done) >= 2, (bits, done)
    assert r.to_dict() == taskassign.threshold("exp:rate=1", hosts=3, digits=20, progress=False).to_dict()


def test_an_optimisation_reports_its_cutoff_search():
    rec = Recorder()
    r = taskassign.optimize("sita", "bp:k=1,p=1e10,alpha=1", hosts=4, load=2, digits=12, progress=rec)
    search = rec.of("cutoff search, host")
    # The dynamic programme over the cutoffs (a layer per host and one for the start)
    # reports host m = 1, ..., h = 4 of 4 at each search it runs (one per precision and
    # refinement): the counts are 1, 2, 3, 4 over and over, in order.
    done = [c[1] for c in search]
    assert done and len(done) % 4 == 0 and done == [1, 2, 3, 4] * (len(done) // 4), done
    assert {c[2] for c in search} == {4}
    quiet = taskassign.optimize("sita", "bp:k=1,p=1e10,alpha=1", hosts=4, load=2, digits=12, progress=False)
    assert r.to_dict() == quiet.to_dict()


class FakeTqdm:
    """Stands in for tqdm: records what a bar was given."""

    made = []

    def __init__(self, total=None, desc=None, **kw):
        self.total, self.desc, self.n, self.postfix, self.closed = total, desc, 0, "", False
        self.refreshed = 0
        FakeTqdm.made.append(self)

    def set_postfix_str(self, s, refresh=True):
        self.postfix = s

    def refresh(self):
        self.refreshed += 1

    def close(self):
        self.closed = True


@pytest.fixture
def fake_tqdm(monkeypatch):
    FakeTqdm.made = []
    monkeypatch.setattr(_progress, "_tqdm", lambda: FakeTqdm)
    return FakeTqdm


def test_progress_false_calls_nothing(fake_tqdm, monkeypatch, capsys):
    seen = []
    monkeypatch.setattr(_progress.Lines, "__call__", lambda self, *a: seen.append(a))
    monkeypatch.setattr(_progress.Bar, "__call__", lambda self, *a: seen.append(a))
    monkeypatch.setattr(_progress, "DEFAULT_DELAY", 0.0)
    taskassign.simulate("sita", "exp:rate=1", 2, **SIM, progress=False)
    assert seen == [] and fake_tqdm.made == []
    assert capsys.readouterr().err == ""
    # The same run with the default does reach the (patched) bar: the test can fail.
    taskassign.simulate("sita", "exp:rate=1", 2, **SIM)
    assert len(seen) >= 6


def test_progress_true_draws_a_tqdm_bar(fake_tqdm):
    taskassign.simulate("sita", "exp:rate=1", 2, **SIM, progress=True)
    bars = {b.desc: b for b in fake_tqdm.made}
    assert bars["replications"].n == 6 and bars["replications"].total == 6
    assert all(b.closed for b in fake_tqdm.made)


def test_the_default_bar_waits_a_second(fake_tqdm):
    # A quick call (well under a second) shows nothing with the default.
    t = time.monotonic()
    taskassign.simulate("sita", "exp:rate=1", 2, **SIM)
    if time.monotonic() - t < _progress.DEFAULT_DELAY:
        assert fake_tqdm.made == []


def test_progress_true_without_tqdm_writes_lines_on_stderr(monkeypatch, capsys):
    monkeypatch.setattr(_progress, "_tqdm", lambda: None)
    taskassign.simulate("sita", "exp:rate=1", 2, **SIM, progress=True)
    err = capsys.readouterr().err.strip().splitlines()
    # The first report gives a line at once; the next only after LINE_INTERVAL (3 s).
    assert err and err[0].startswith("taskassign: progress: after 0 s: replications 1/6"), err


def test_an_exception_in_the_callable_stops_the_work():
    class Stop(Exception):
        pass

    def stop(task, done, total, note):
        raise Stop(task)

    t = time.monotonic()
    with pytest.raises(Stop):
        # A long run (200 replications of 10^7 jobs: minutes) stopped at its first report.
        taskassign.simulate("sita", "exp:rate=1", 2, load=1, cutoffs=[1], jobs=10**7,
                            replications=200, threads=2, progress=stop)
    assert time.monotonic() - t < 15
    # And the next call works.
    assert taskassign.threshold("exp:rate=1", hosts=2, digits=12, progress=False).digits == 12


def test_a_bad_progress_argument_is_input_error():
    with pytest.raises(taskassign.InputError, match="progress: expected"):
        taskassign.threshold("exp:rate=1", hosts=2, progress="yes")


def test_every_computing_function_takes_progress():
    import inspect

    for f in [taskassign.eval, taskassign.optimize, taskassign.threshold, taskassign.quantity,
              taskassign.check, taskassign.design, taskassign.simulate, taskassign.tables,
              taskassign.sweep, taskassign.merge, taskassign.jsq.fixed_point,
              taskassign.jsq.exact, taskassign.jsq.fluid, taskassign.jsq.simulate,
              taskassign.redundancy.exact, taskassign.redundancy.simulate,
              taskassign.redundancy.stability]:
        p = inspect.signature(f).parameters.get("progress")
        assert p is not None and p.default is None and p.kind == p.KEYWORD_ONLY, f.__qualname__
