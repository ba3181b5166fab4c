"""Shared helpers: the command line to compare with (the binary the package wraps)."""

import json
import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
BINARY = os.environ.get("TASKASSIGN", str(ROOT / "target" / "release" / "taskassign"))


def cli(*args):
    """Runs the command line: (exit status, stdout, stderr)."""
    if not os.path.exists(BINARY):
        pytest.fail(f"no binary at {BINARY}: run `cargo build --release` (make test-python does)")
    p = subprocess.run([BINARY, *args], capture_output=True, text=True, cwd=ROOT)
    return p.returncode, p.stdout, p.stderr


def cli_json(*args):
    """The command's --format json record (it must succeed)."""
    code, out, err = cli(*args, "--format", "json")
    assert code == 0, err
    return json.loads(out)


def cli_error(*args):
    """The command's exit status and one-line message, without the `taskassign: error: `
    (or numerical failure) prefix."""
    code, out, err = cli(*args)
    assert code in (2, 3), (code, out, err)
    line = err.strip()
    assert "\n" not in line
    return code, line.split(": ", 2)[2] if line.startswith("taskassign: numerical") else line.split("error: ", 1)[1]
