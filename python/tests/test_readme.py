"""Every ```python block of the README runs (the README shows a Python example beside each
command-line example; this keeps them from rotting).

Each block runs in a fresh namespace holding ``taskassign`` (the overview block imports it;
the short blocks under each command assume it), in a temporary directory that links the
repository's ``proofs-check/`` and ``examples/`` (the paths the examples read), so that what a
block writes (``sweep-out/``, ...) stays in the temporary directory."""

import os
import re

import pytest

import taskassign

from conftest import ROOT

README = ROOT / "README.md"


def python_blocks():
    """(heading above, first line number, code) of every ```python block of the README."""
    lines = README.read_text(encoding="utf-8").splitlines()
    blocks, heading, fence, i = [], "", False, 0
    while i < len(lines):
        if lines[i].startswith("#") and not fence:
            heading = lines[i].lstrip("#").strip()
        if lines[i].startswith("```") and lines[i].strip() != "```python":
            fence = not fence  # the other fenced blocks (sh, toml, text): no headings inside
        if lines[i].strip() == "```python":
            start = i + 1
            j = start
            while lines[j].strip() != "```":
                j += 1
            blocks.append((heading, start + 1, "\n".join(lines[start:j])))
            i = j
        i += 1
    return blocks


BLOCKS = python_blocks()


def test_the_readme_has_a_python_block_beside_each_command_section():
    headings = {h for h, _, _ in BLOCKS}
    for section in ["`check`", "`eval`", "`optimize`", "`threshold`", "`quantity`",
                    "`--rigorous`", "`simulate`", "JSQ(d(N))", "Redundancy scheduling",
                    "Merge", "From Python"]:
        # The block sits under the section's heading (Sweeps: under its **Merge.** example,
        # whose heading is "Sweeps").
        wanted = "Sweeps" if section == "Merge" else section
        assert any(wanted in h for h in headings), (section, sorted(headings))


@pytest.mark.parametrize("heading,line,code", BLOCKS, ids=[f"L{b[1]}" for b in BLOCKS])
def test_a_readme_python_block_runs(heading, line, code, tmp_path, monkeypatch):
    for d in ["proofs-check", "examples"]:
        os.symlink(ROOT / d, tmp_path / d)
    monkeypatch.chdir(tmp_path)
    # No block names a path outside the temporary directory (an absolute path or ..).
    assert not re.search(r"""["'](/|\.\./)""", code), f"README line {line}: a path outside"
    compiled = compile(code, f"README.md:{line}", "exec")
    namespace = {"taskassign": taskassign, "__name__": "__readme__"}
    exec(compiled, namespace)
