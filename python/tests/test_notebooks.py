"""The notebooks of examples/notebooks, executed top to bottom (nbclient, the venv's own
Python 3 kernel): any error fails the test, and each must run in under two minutes (the
issue's budget; they take well under it on an idle machine)."""

import pathlib
import time

import pytest

from conftest import ROOT

NOTEBOOKS = sorted((ROOT / "examples" / "notebooks").glob("*.ipynb"))
BUDGET = 120.0


def test_there_are_notebooks():
    assert len(NOTEBOOKS) >= 5


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs(path: pathlib.Path):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    nb = nbformat.read(path, as_version=4)
    # Committed without outputs (they are regenerated here, not stored).
    assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code")
    client = nbclient.NotebookClient(
        nb, timeout=BUDGET, kernel_name="python3", resources={"metadata": {"path": str(ROOT)}}
    )
    t = time.perf_counter()
    client.execute()  # raises CellExecutionError on the first failing cell
    elapsed = time.perf_counter() - t
    assert elapsed < BUDGET, f"{path.name} took {elapsed:.1f} s"
    # A figure was drawn where the notebook draws one.
    pngs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs
            if "image/png" in o.get("data", {})]
    assert pngs, f"{path.name} drew no figure"
