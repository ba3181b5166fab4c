# Type stubs of the Rust extension taskassign._taskassign (python/src/lib.rs). Each function
# returns the command's JSON record as text and the names of its certified-number fields;
# taskassign/__init__.py wraps them into Records.
from typing import Dict, List, Optional, Tuple

DEFAULT_DIGITS: int
DEFAULT_MAX_BOXES: int
DEFAULT_MAX_STATES: int
DEFAULT_REDUNDANCY_MAX_STATES: int

def eval(
    policy: str, dist: str, hosts: str, load: Optional[str], load_per_host: Optional[str],
    lambda_: Optional[str], cutoffs: str, metric: str, digits: int, rigorous: bool,
) -> Tuple[str, List[str]]: ...
def optimize(
    policy: str, dist: str, hosts: str, load: Optional[str], load_per_host: Optional[str],
    lambda_: Optional[str], metric: str, digits: int, rigorous: bool, max_boxes: int,
) -> Tuple[str, List[str]]: ...
def threshold(dist: str, hosts: str, digits: int, rigorous: bool) -> Tuple[str, List[str]]: ...
def quantity(expr: str, setup: Dict[str, str], digits: Optional[int]) -> str: ...
def jsq_fixed_point(
    model: str, lambda_: str, buffer: str, d: str, digits: int, rigorous: bool
) -> Tuple[str, List[str]]: ...
def jsq_exact(
    model: str, lambda_: str, servers: int, d: str, buffer: str, sampling: str, digits: int,
    max_states: int,
) -> Tuple[str, List[str]]: ...
def redundancy_exact(
    policy: str, servers: Optional[str], rates: List[str], classes: List[str],
    system: Optional[str], lambdas: Optional[List[str]], preemptive: bool, digits: int,
    max_states: int, rigorous: bool,
) -> Tuple[str, List[str]]: ...
def check(paths: List[str], text: Optional[str], strict: bool) -> Tuple[str, int]: ...
def command(args: List[str], threads: Optional[int] = None) -> Tuple[str, int]:
    """`taskassign ARGS...` in this process (the command line's parser and handler): its
    stdout and exit status (design, simulate, jsq fluid/simulate, redundancy
    simulate/stability, tables, sweep, merge go through it)."""
    ...
