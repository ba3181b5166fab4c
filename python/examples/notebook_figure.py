"""Executes one notebook of examples/notebooks (nbclient, as `make test-python` does) and saves
the figure it draws as a PNG: the picture the closing note of issue 23 links.

    .venv/bin/python python/examples/notebook_figure.py \
        examples/notebooks/tags-sita-factor-two.ipynb python/examples/tags-sita-factor-two.png

The notebook is run from the repository root; its first image/png output is written (the
notebook file itself is left unchanged, without outputs).
"""

import base64
import pathlib
import sys
import time

import nbclient
import nbformat

ROOT = pathlib.Path(__file__).resolve().parents[2]


def main(src: str, dst: str) -> None:
    nb = nbformat.read(src, as_version=4)
    t = time.perf_counter()
    nbclient.NotebookClient(
        nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(ROOT)}}
    ).execute()
    elapsed = time.perf_counter() - t
    for cell in nb.cells:
        for out in cell.get("outputs", []) if cell.cell_type == "code" else []:
            png = out.get("data", {}).get("image/png")
            if png:
                data = base64.b64decode(png)
                pathlib.Path(dst).write_bytes(data)
                print(f"{src}: executed in {elapsed:.1f} s; figure -> {dst} ({len(data)} bytes)")
                return
    sys.exit(f"{src}: no figure drawn")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
