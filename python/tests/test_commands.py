"""The wrappers that run the command line's own handler in process (design, simulate, jsq
fluid/simulate, redundancy simulate/stability, tables, sweep/merge) against the binary's
JSON for the same arguments: the same record, key for key and digit for digit. The
simulations are seeded: the same (seed, point, replication) streams give the same digits
in any process and on any number of threads (README, "Simulation")."""

import json
import math

import pytest

import taskassign
from taskassign import jsq, redundancy

from conftest import ROOT, cli, cli_json

# The wall-clock keys of the simulators' records differ from run to run (README, "Sweeps":
# a sweep leaves them out for the same reason); everything else must be identical.
CLOCK = {"events_per_second", "seconds", "jobs_per_second", "seconds_per_run"}


def same(got, want):
    g = {k: v for k, v in got.items() if k not in CLOCK}
    w = {k: v for k, v in want.items() if k not in CLOCK}
    assert g == w


CASES = [
    (
        lambda: taskassign.design("exp:rate=1", 3, target_waiting=0.1),
        "design --dist exp:rate=1 --load 3 --target-waiting 0.1",
    ),
    (
        lambda: taskassign.design(
            "bp:k=1,p=1e10,alpha=1.5", "1.5", target_slowdown=2, policy="tags", digits=30
        ),
        "design --dist bp:k=1,p=1e10,alpha=1.5 --load 1.5 --target-slowdown 2 --policy tags --digits 30",
    ),
    (
        lambda: taskassign.simulate(
            "sita", "exp:rate=1", 2, load=1, cutoffs=[1], jobs=20000, replications=4
        ),
        "simulate --policy sita --dist exp:rate=1 --hosts 2 --load 1 --cutoffs 1 --jobs 20000 --replications 4",
    ),
    (
        lambda: taskassign.simulate(
            "jsq", "weibull:shape=0.5,scale=1", 3, load_per_host=0.6, jobs="2e4",
            replications=3, seed=7, threads=1,
        ),
        "simulate --policy jsq --dist weibull:shape=0.5,scale=1 --hosts 3 --load-per-host 0.6 --jobs 2e4 --replications 3 --seed 7",
    ),
    (
        lambda: jsq.fluid("queues", 0.9, d=2, times=[0, 1, 5]),
        "jsq fluid --model queues --lambda 0.9 --d 2 --times 0,1,5",
    ),
    (
        lambda: jsq.fluid("pools", 2.5, d="inf", buffer=4, times="0,2", init=[0.5, 0.2], digits=6),
        "jsq fluid --model pools --lambda 2.5 --d inf --buffer 4 --times 0,2 --init 0.5,0.2 --digits 6",
    ),
    (
        lambda: jsq.simulate("queues", 0.9, servers=10, d=2, time=1000),
        "jsq simulate --model queues --servers 10 --lambda 0.9 --d 2 --time 1000",
    ),
    (
        lambda: jsq.simulate(
            "queues", servers=20, halfin_whitt=0.5, d="log(N)", time=200, replications=4,
            threads=1,
        ),
        "jsq simulate --model queues --servers 20 --halfin-whitt 0.5 --d log(N) --time 200 --replications 4",
    ),
    (
        lambda: redundancy.simulate(
            "fcfs", system="w-model", lambdas=[0.3, 0.3, 0.6], jobs=20000, replications=4
        ),
        "redundancy simulate --system w-model --lambdas 0.3,0.3,0.6 --policy fcfs --jobs 20000 --replications 4",
    ),
    (
        lambda: redundancy.simulate(
            "ros", servers=2, classes=["1:0.3", "1+2:0.5"], dist="hyperexp:p=0.5,rate1=2,rate2=0.5",
            jobs=20000, replications=3,
        ),
        "redundancy simulate --servers 2 --class 1:0.3 --class 1+2:0.5 --policy ros --dist hyperexp:p=0.5,rate1=2,rate2=0.5 --jobs 20000 --replications 3",
    ),
    (
        lambda: redundancy.stability("fcfs", system="w-model", lambdas=[0.3, 0.3, 0.6]),
        "redundancy stability --system w-model --lambdas 0.3,0.3,0.6 --policy fcfs",
    ),
    (
        lambda: redundancy.stability("lrf-fcfs", servers=2, classes=["1:0.3", "1+2:0.5"]),
        "redundancy stability --servers 2 --class 1:0.3 --class 1+2:0.5 --policy lrf-fcfs",
    ),
]


@pytest.mark.parametrize("call,line", CASES, ids=[" ".join(c[1].split()[:3]) + str(i) for i, c in enumerate(CASES)])
def test_same_record_as_the_command_line(call, line):
    # Expected: the binary's own JSON (a separate process, parsed by clap).
    rec = call()
    same(rec.to_dict(), cli_json(*line.split()))


def test_simulated_fields_carry_half_widths():
    # Expected: the command's JSON for the same arguments (the field and its _half_width).
    line = "simulate --policy sita --dist exp:rate=1 --hosts 2 --load 1 --cutoffs 1 --jobs 20000 --replications 4"
    want = cli_json(*line.split())
    rec = taskassign.simulate("sita", "exp:rate=1", 2, load=1, cutoffs=[1], jobs=20000, replications=4)
    assert isinstance(rec.waiting, taskassign.Simulated)
    assert (rec.waiting.text, rec.waiting.half_width.text) == (want["waiting"], want["waiting_half_width"])
    assert [(w.text, w.half_width.text) for w in rec.host_waiting] == list(
        zip(want["host_waiting"], want["host_waiting_half_width"])
    )
    assert isinstance(rec.analytic_waiting, taskassign.Certified)
    assert rec.analytic_waiting.text == want["analytic_waiting"]


def test_design_records_are_records():
    want = cli_json(*"design --dist exp:rate=1 --load 3 --target-waiting 0.1".split())
    rec = taskassign.design("exp:rate=1", 3, target_waiting=0.1)
    assert [d.hosts for d in rec.designs] == [d["hosts"] for d in want["designs"]]
    assert [c.text for c in rec.designs[0].cutoffs] == want["designs"][0]["cutoffs"]


def test_bad_input_of_a_command_is_input_error_with_its_message():
    code, _, err = cli("simulate", "--policy", "sita", "--dist", "exp:rate=1", "--hosts", "2",
                       "--load", "3", "--cutoffs", "1")
    assert code == 2
    with pytest.raises(taskassign.InputError) as e:
        taskassign.simulate("sita", "exp:rate=1", 2, load=3, cutoffs=[1])
    assert err.strip() == f"taskassign: error: {e.value}"


CLAIM = (ROOT / "python" / "tests" / "test_api.py").read_text().split("CLAIM = '''")[1].split("'''")[0]


def test_tables_writes_what_the_command_line_writes(tmp_path):
    # The same claim and an empty figure folder through the binary and through Python:
    # the same files, byte for byte, and the same summary text.
    (tmp_path / "claims").mkdir()
    (tmp_path / "claims" / "c.toml").write_text(CLAIM)
    (tmp_path / "figures").mkdir()
    code, out, err = cli("tables", "--out", str(tmp_path / "cli"), "--claims",
                         str(tmp_path / "claims"), "--figures", str(tmp_path / "figures"))
    assert code == 0, err
    rep = taskassign.tables(tmp_path / "py", claims=tmp_path / "claims", figures=tmp_path / "figures")
    assert rep.exit_status == 0
    cli_files = sorted(p.relative_to(tmp_path / "cli") for p in (tmp_path / "cli").rglob("*") if p.is_file())
    py_files = sorted(p.relative_to(tmp_path / "py") for p in (tmp_path / "py").rglob("*") if p.is_file())
    assert cli_files and cli_files == py_files
    # Each file names the command line that made it (its --out folder): the folders
    # written as OUT, the rest byte for byte.
    for f in cli_files:
        a = (tmp_path / "cli" / f).read_bytes().replace(str(tmp_path / "cli").encode(), b"OUT")
        b = (tmp_path / "py" / f).read_bytes().replace(str(tmp_path / "py").encode(), b"OUT")
        assert a == b, f
    assert rep.text.replace(str(tmp_path / "py"), "OUT") == out.replace(str(tmp_path / "cli"), "OUT")


GRID = """command = "optimize"
[options]
policy = "sita"
dist = "bp:k=1,p={p},alpha=1"
hosts = "2"
load = "0.5"
digits = "25"
[grid]
p = ["1e10", "1e1000"]
"""


def _sweep_both(tmp_path):
    grid = tmp_path / "g.toml"
    grid.write_text(GRID)
    code, _, err = cli("sweep", str(grid), "--out", str(tmp_path / "cli"))
    assert code == 0, err
    code, _, err = cli("merge", str(tmp_path / "cli"), "--grid", str(grid), "--out",
                       str(tmp_path / "cli" / "merged.jsonl"))
    assert code == 0, err
    s = taskassign.sweep(grid, out=tmp_path / "py")
    m = taskassign.merge(tmp_path / "py", grid=grid, out=tmp_path / "py" / "merged.jsonl")
    return s, m


def test_sweep_and_merge_write_what_the_command_line_writes(tmp_path):
    s, m = _sweep_both(tmp_path)
    assert (s.points, s.computed, s.failed) == (2, 2, 0)
    assert m.exit_status == 0 and m.missing == 0
    # A shard file holds its lines in the order the points finished (threads); the merged
    # files are sorted: the same lines, and the same bytes.
    shard = "shard-000000-of-000001.jsonl"
    lines = [sorted((tmp_path / d / shard).read_text().splitlines()) for d in ("py", "cli")]
    assert lines[0] == lines[1] and len(lines[0]) == 2
    for name in ["merged.jsonl", "merged.csv"]:
        assert (tmp_path / "py" / name).read_bytes() == (tmp_path / "cli" / name).read_bytes(), name


def test_read_sweep_keeps_the_digits_read_csv_loses(tmp_path):
    pd = pytest.importorskip("pandas")
    _sweep_both(tmp_path)
    merged = tmp_path / "py" / "merged.jsonl"
    # Expected: the records of the merged JSONL (the command's own JSON text).
    lines = [json.loads(l) for l in merged.read_text().splitlines()]
    want = {l["key"]: l["result"]["value"] for l in lines}
    p_of = {l["key"]: l["point"]["p"] for l in lines}
    df = taskassign.read_sweep(merged)
    got = dict(zip(df["key"], df["result.value"]))
    assert got == want
    assert all(len(v.split("e")[0].replace(".", "")) == 25 for v in got.values())
    # Plain pandas: the 25-digit value at p = 1e10 rounded to a double (its shortest repr
    # has 16 digits, not the 25 certified), and the one at p = 1e1000 (about 7.2e996, far
    # above the double range 1.8e308) turned into inf.
    plain = pd.read_csv(tmp_path / "py" / "merged.csv")
    lost = dict(zip(plain["key"], plain["result.value"]))
    small = next(k for k in want if p_of[k] == "1e10")
    huge = next(k for k in want if p_of[k] == "1e1000")
    assert isinstance(lost[small], float) and repr(lost[small]) != want[small]
    assert float(want[small]) == lost[small]  # the nearest double: digits lost, not wrong
    assert math.isinf(lost[huge])
    # read_sweep has no float column for a column beyond the double range (the merge's
    # log10_ column is there), and one where every value fits: the cutoff 1e5 / 1e500
    # does not fit either; result.load (0.5) does.
    assert "result.value_float" not in df.columns
    assert "result.log10_value" in df.columns
    assert list(df["result.load_float"]) == [0.5, 0.5]


def test_check_report_to_pandas():
    pytest.importorskip("pandas")
    folder = str(ROOT / "proofs-check" / "hbv10")
    _, out, _ = cli("check", folder, "--format", "json")
    want = json.loads(out)
    df = taskassign.check(folder).to_pandas()
    # One row per check, in the report's order, margins with every digit.
    rows = [(c["id"], k["name"], k["verdict"], k["margin"]) for c in want["claims"] for k in c["checks"]]
    assert list(zip(df["id"], df["name"], df["verdict"], df["margin"])) == rows
    assert list(df["margin_float"]) == [float(r[3]) for r in rows]


def test_simulations_over_a_grid_to_pandas():
    pytest.importorskip("pandas")
    loads = ["0.6", "1"]
    recs = [taskassign.simulate("sita", "exp:rate=1", 2, load=r, cutoffs=[1], jobs=20000,
                                replications=4) for r in loads]
    df = taskassign.to_pandas(recs)
    # Expected: the command's JSON for each load.
    for i, r in enumerate(loads):
        want = cli_json("simulate", "--policy", "sita", "--dist", "exp:rate=1", "--hosts", "2",
                        "--load", r, "--cutoffs", "1", "--jobs", "20000", "--replications", "4")
        assert df["waiting"][i] == want["waiting"]
        assert df["waiting_half_width"][i] == want["waiting_half_width"]
        assert df["host_waiting[1]"][i] == want["host_waiting"][1]
        assert df["waiting_float"][i] == float(want["waiting"])


def test_to_pandas_without_pandas_says_how(monkeypatch):
    import builtins

    real = builtins.__import__

    def no_pandas(name, *a, **k):
        if name == "pandas" or name.startswith("pandas."):
            raise ImportError("No module named 'pandas'")
        return real(name, *a, **k)

    monkeypatch.setattr(builtins, "__import__", no_pandas)
    rec = taskassign.threshold("exp:rate=1", 2, digits=10)
    with pytest.raises(ImportError, match="pip install pandas"):
        rec.to_pandas()


def test_a_jsq_occupancy_vector_to_pandas():
    pytest.importorskip("pandas")
    import mpmath

    r = jsq.fixed_point("queues", 0.9, d=2, digits=12)
    df = r.to_pandas("occupancy")
    # One row per level, the record's text kept digit for digit ...
    assert list(df["occupancy"]) == r.to_dict()["occupancy"]
    assert list(df["index"]) == list(range(len(df)))
    # ... and the float column is the power-of-d closed form q_i = lambda^(2^i - 1)
    # (README, `jsq`), row i-1 holding q_i, to the 12 certified digits (rel. 1e-11).
    for i, x in zip(df["index"], df["occupancy_float"]):
        q = mpmath.mpf("0.9") ** (2 ** (i + 1) - 1)
        assert abs(x - float(q)) <= 1e-11 * float(q), (i, x)
    # A list of lists (the fluid occupancy at each time): one row per entry, index = time.
    f = jsq.fluid("queues", 0.9, d=2, times=[0, 1, 5])
    fd = f.to_pandas("occupancy")
    assert len(fd) == sum(len(v) for v in f.to_dict()["occupancy"])
    assert set(fd["index"]) == {k for k, v in enumerate(f.to_dict()["occupancy"]) if v}
    with pytest.raises(KeyError):
        r.to_pandas("mean_tasks")
