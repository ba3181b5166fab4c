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


def test_the_extension_stub_matches_the_extension():
    # _taskassign.pyi (for editors and type checkers) declares every function of the Rust
    # extension with the parameter names the extension itself reports (its
    # __text_signature__, from the #[pyo3(signature)] of python/src/lib.rs), and nothing more.
    import ast
    import inspect
    import pathlib

    from taskassign import _taskassign

    stub = pathlib.Path(taskassign.__file__).with_name("_taskassign.pyi")
    tree = ast.parse(stub.read_text(encoding="utf-8"))
    declared = {f.name: [a.arg for a in f.args.args] for f in tree.body if isinstance(f, ast.FunctionDef)}
    actual = {n: f for n, f in vars(_taskassign).items() if callable(f) and not n.startswith("_")}
    assert set(declared) == set(actual)
    for name, f in actual.items():
        params = [p for p in inspect.signature(f).parameters if p != "py"]
        assert declared[name] == params, name


def test_every_public_function_is_fully_annotated():
    # The pure-Python half carries its types inline (py.typed, PEP 561): every parameter and
    # the return of every public function is annotated, so editors and help() show them.
    import inspect
    import pathlib

    assert pathlib.Path(taskassign.__file__).with_name("py.typed").exists()
    for module in [taskassign, taskassign.jsq, taskassign.redundancy]:
        for name in module.__all__:
            f = getattr(module, name)
            if not inspect.isfunction(f):
                continue
            sig = inspect.signature(f)
            assert sig.return_annotation is not inspect.Signature.empty, f"{module.__name__}.{name}"
            for p in sig.parameters.values():
                assert p.annotation is not inspect.Parameter.empty, f"{module.__name__}.{name}({p.name})"
