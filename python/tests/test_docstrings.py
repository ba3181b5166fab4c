"""Every docstring example runs and prints what it says (the examples are the API's
documentation; each shows a call with the command line's names)."""

import doctest

import pytest

import taskassign
import taskassign._numbers
import taskassign.jsq
import taskassign.redundancy


@pytest.mark.parametrize(
    "module",
    [taskassign, taskassign._numbers, taskassign.jsq, taskassign.redundancy],
    ids=lambda m: m.__name__,
)
def test_docstring_examples(module):
    result = doctest.testmod(module, globs={**vars(module)}, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
    assert result.attempted > 0


def test_every_public_function_has_an_example():
    for f in [taskassign.eval, taskassign.optimize, taskassign.threshold, taskassign.quantity,
              taskassign.check, taskassign.jsq.fixed_point, taskassign.jsq.exact,
              taskassign.redundancy.exact, taskassign.design, taskassign.simulate,
              taskassign.tables, taskassign.sweep, taskassign.merge, taskassign.read_sweep,
              taskassign.to_pandas, taskassign.CheckReport.to_pandas, taskassign.jsq.fluid,
              taskassign.jsq.simulate, taskassign.redundancy.simulate,
              taskassign.redundancy.stability]:
        assert ">>> " in (f.__doc__ or ""), f.__name__
