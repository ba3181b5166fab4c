"""quantity, check, errors and threads."""

import json

import mpmath
import pytest

import taskassign
from conftest import ROOT, cli, cli_error, cli_json


def test_quantity_against_the_commands():
    # opt(sita).value through the claims engine is the optimum `optimize` prints (two
    # routes to one number: the claim language's registry and the command's handler).
    q = taskassign.quantity(
        "opt(sita).value", dist="bp:k=1,p=1e10,alpha=1", hosts=2, load="0.5", digits=20
    )
    ref = cli_json(
        "optimize", "--policy", "sita", "--dist", "bp:k=1,p=1e10,alpha=1", "--hosts", "2",
        "--load", "0.5", "--digits", "20",
    )
    assert isinstance(q, taskassign.Certified) and q.text == ref["value"]


def test_quantity_ratio_in_mpmath():
    # The ratio of two optima against the two command-line records divided in mpmath at 50
    # digits: agreement to the 20 certified digits (one unit of the 20th digit, relative).
    q = taskassign.quantity(
        "opt(tags).value / opt(sita).value",
        dist="bp:k=1,p=1e10,alpha=1", hosts=2, load=0.5, digits=20,
    )
    args = ["--dist", "bp:k=1,p=1e10,alpha=1", "--hosts", "2", "--load", "0.5", "--digits", "25"]
    tags = cli_json("optimize", "--policy", "tags", *args)["value"]
    sita = cli_json("optimize", "--policy", "sita", *args)["value"]
    with mpmath.workdps(50):
        r = mpmath.mpf(tags) / mpmath.mpf(sita)
        assert q.digits == 20
        assert abs(q.mpf / r - 1) <= mpmath.mpf(10) ** -19


def test_quantity_bad_expression_is_input_error():
    with pytest.raises(taskassign.InputError):
        taskassign.quantity("opt(tags).valu", dist="exp:rate=1", hosts=2, load=0.5)


CLAIM = '''
id = "python-test"
statement = "SITA's optimal cutoff for bp(1, 1e10, 1) on two hosts at load 0.5 is sqrt(kp) = 1e5."
reading = "The README's example of optimize, as a claim."

[source]
paper = "README"
seed = "none"
words = "cutoff sqrt(kp) = 1e5"

[setup]
dist = "bp:k=1,p=1e10,alpha=1"
hosts = "2"
load = "0.5"
digits = 20

[[check]]
name = "cutoff"
quantity = "opt(sita).cutoff[1]"
relation = "=="
bound = "1e5"
rel_tolerance = "1e-15"
'''


def test_check_a_claim_written_as_a_string(tmp_path):
    # The same claim as a file through the command line: the same verdicts.
    f = tmp_path / "c.toml"
    f.write_text(CLAIM)
    code, out, err = cli("check", str(f), "--format", "json")
    assert code == 0, err
    rep = taskassign.check(CLAIM)
    assert rep.exit_status == 0 and rep.passed
    want = json.loads(out)
    got = rep.to_dict()
    assert [c["verdict"] for c in got["claims"]] == [c["verdict"] for c in want["claims"]]
    assert got["summary"] == want["summary"]


def test_check_a_folder_like_the_command_line():
    folder = str(ROOT / "proofs-check" / "hbv10")
    code, out, err = cli("check", folder, "--format", "json")
    rep = taskassign.check(folder)
    assert rep.exit_status == code
    want = json.loads(out)
    got = rep.to_dict()
    assert [(c["id"], c["verdict"]) for c in got["claims"]] == [
        (c["id"], c["verdict"]) for c in want["claims"]
    ]


def test_malformed_claim_is_input_error():
    with pytest.raises(taskassign.InputError) as e:
        taskassign.check('id = "x"\n[setup]\nhosts = "two"\n')
    assert isinstance(e.value, ValueError) and isinstance(e.value, taskassign.Error)


@pytest.mark.parametrize(
    "call,args",
    [
        (
            lambda: taskassign.eval("tags", "bp:k=1,p=0.5,alpha=1", 2, load=0.5, cutoffs=[3]),
            ["eval", "--policy", "tags", "--dist", "bp:k=1,p=0.5,alpha=1", "--hosts", "2",
             "--load", "0.5", "--cutoffs", "3"],
        ),
        (
            lambda: taskassign.optimize("sita", "pareto:k=1,alpha=-1", 2, load=0.5),
            ["optimize", "--policy", "sita", "--dist", "pareto:k=1,alpha=-1", "--hosts", "2",
             "--load", "0.5"],
        ),
        (
            # A box limit of zero is bad input on both surfaces (before, Python raised it
            # silently to one box).
            lambda: taskassign.optimize("sita", "exp:rate=1", 2, load=0.5, rigorous=True,
                                        max_boxes=0),
            ["optimize", "--policy", "sita", "--dist", "exp:rate=1", "--hosts", "2",
             "--load", "0.5", "--rigorous", "--max-boxes", "0"],
        ),
        (
            lambda: taskassign.redundancy.exact("lrf-fcfs", system="n-model",
                                                lambdas=[0.1, 1.7], max_states=0),
            ["redundancy", "exact", "--system", "n-model", "--lambdas", "0.1,1.7", "--policy",
             "lrf-fcfs", "--max-states", "0"],
        ),
        (
            lambda: taskassign.threshold("exp:rate=1", 0),
            ["threshold", "--dist", "exp:rate=1", "--hosts", "0"],
        ),
        (
            lambda: taskassign.jsq.fixed_point("queues", 1.5, d=2),
            ["jsq", "fixed-point", "--model", "queues", "--lambda", "1.5", "--d", "2"],
        ),
        (
            lambda: taskassign.eval("sita", "exp:rate=1", 2, load=0.5, cutoffs=[1], digits=0),
            ["eval", "--policy", "sita", "--dist", "exp:rate=1", "--hosts", "2", "--load",
             "0.5", "--cutoffs", "1", "--digits", "0"],
        ),
    ],
)
def test_bad_input_raises_input_error_with_the_command_line_message(call, args):
    code, message = cli_error(*args)
    assert code == 2
    with pytest.raises(taskassign.InputError) as e:
        call()
    assert str(e.value) == message
    assert isinstance(e.value, ValueError) and isinstance(e.value, taskassign.Error)
    assert not isinstance(e.value, taskassign.NumericalError)


def test_a_state_limit_too_small_is_a_numerical_error_like_the_command_line():
    # N-model (0.1, 1.7) LRF-FCFS at 12 digits: its pilot boxes hold 157 and 343 states
    # (TASKASSIGN_TRACE_EXACT, 2026-12-07): 300 states fail, exit 3 on the command line,
    # NumericalError in Python, with the same line naming the limit.
    args = ["redundancy", "exact", "--system", "n-model", "--lambdas", "0.1,1.7", "--policy",
            "lrf-fcfs", "--digits", "12", "--max-states", "300"]
    code, message = cli_error(*args)
    assert code == 3 and "300 states" in message and "--max-states" in message
    with pytest.raises(taskassign.NumericalError) as e:
        taskassign.redundancy.exact("lrf-fcfs", system="n-model", lambdas=[0.1, 1.7],
                                    digits=12, max_states=300)
    assert str(e.value) == message


def test_a_negative_box_limit_is_input_error():
    # The command line cannot be given a negative --max-boxes (its parser rejects the sign);
    # Python can: the same rule as for 0, naming the value given.
    with pytest.raises(taskassign.InputError) as e:
        taskassign.optimize("sita", "exp:rate=1", 2, load=0.5, rigorous=True, max_boxes=-3)
    assert str(e.value) == "--max-boxes must be at least 1, got -3"


def test_error_classes():
    assert issubclass(taskassign.InputError, ValueError)
    assert issubclass(taskassign.NumericalError, ArithmeticError)
    assert issubclass(taskassign.InputError, taskassign.Error)
    assert issubclass(taskassign.NumericalError, taskassign.Error)
