# taskassign: common commands. `make test` is the project's test command (CI runs it
# through .ci/run on a fresh Debian machine).

CARGO ?= cargo
# Root (CI) installs packages directly; anyone else goes through sudo.
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
RUN := $(CARGO) run --release --quiet --

.PHONY: all deps venv python test-python check test test-fuzz test-coverage test-slurm test-latex test-browser demo lint bench

all: test

# python3-venv (Debian splits ensurepip out of python3) lets `make venv` create .venv/ for the
# Python package's tests and notebooks (`make test-python`, run by `make test`).
# m4 is needed by the GMP/MPFR build of gmp-mpfr-sys (rug's backend). python3 with mpmath
# is the independent half of tests/digit_audit.rs (the SITA/TAGS formulas of
# benches/peer/optimize_peer.py in mpmath); without it that half is skipped, so install it.
# GNU parallel runs the packed shards of examples/slurm/sweep.sbatch (tests/sweep.rs);
# xmllint (libxml2-utils) validates check's JUnit XML against tests/junit/JUnit.xsd.
deps:
	@command -v xmllint >/dev/null || ($(SUDO) apt-get update && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y libxml2-utils)
	@command -v parallel >/dev/null || ($(SUDO) apt-get update && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y parallel)
	@command -v m4 >/dev/null || ($(SUDO) apt-get update && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y m4)
	@python3 -c 'import mpmath' 2>/dev/null || ($(SUDO) apt-get update && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y python3-mpmath)
	@python3 -c 'import ensurepip, venv' 2>/dev/null || ($(SUDO) apt-get update && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y python3-venv)

# The project's Python virtual environment (.venv/ at the repository root): the packages of
# requirements-dev.txt from PyPI (python-flint and mpmath as independent oracles, SciPy for the
# exact-chain peer). Recreated when requirements-dev.txt is newer than the last install.
VENV := $(CURDIR)/.venv
venv: $(VENV)/.installed
$(VENV)/.installed: requirements-dev.txt
	@test -x $(VENV)/bin/python || python3 -m venv $(VENV)
	$(VENV)/bin/python -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt
	@touch $@

# The Python package (issue 23): python/ is a PyO3 crate of its own, outside the root
# workspace. maturin (from requirements-dev.txt) builds the abi3 wheel into
# target/wheels, reusing the root's target/ for the crate and its dependencies, and pip
# installs it into .venv/, so that `.venv/bin/python -c 'import taskassign'` works.
# test-python runs pytest over python/tests, which compares every function with the
# command line's JSON (hence the binary) and executes the notebooks of examples/notebooks
# (nbclient and an ipykernel from requirements-dev.txt).
WHEELS := $(CURDIR)/target/wheels
python: venv
	rm -f $(WHEELS)/taskassign-*.whl
	cd python && CARGO_TARGET_DIR=$(CURDIR)/target $(VENV)/bin/maturin build --release --quiet \
	  --interpreter $(VENV)/bin/python --out $(WHEELS)
	$(VENV)/bin/python -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps $(WHEELS)/taskassign-*.whl

test-python: python
	$(CARGO) build --release --quiet --bin taskassign
	TASKASSIGN=$(CURDIR)/target/release/taskassign $(VENV)/bin/python -m pytest -q python/tests

# Release: the MPFR-heavy tests are much faster optimised. Then the Python package
# (issue 23): the wheel built, pytest over python/tests and the notebooks of
# examples/notebooks executed (test-python: 109 s wall on the loaded 2-core machine with
# target/ warm, pytest 94 s of it; a cold target/ adds the crate's compile for the wheel,
# 657 s measured). Every step runs; the first failing exit status is kept.
test: deps venv
	@status=0; \
	$(CARGO) test --release --all-targets --no-fail-fast || status=$$?; \
	$(CARGO) test --release --doc || { s=$$?; [ $$status -ne 0 ] || status=$$s; }; \
	$(MAKE) --no-print-directory test-python || { s=$$?; [ $$status -ne 0 ] || status=$$s; }; \
	exit $$status

# The long property and audit tiers (issue 14): FUZZ_CASES generated command lines (3000 by
# default; counts by outcome class on stderr) and AUDIT_CASES digit-audit cases.
FUZZ_CASES ?= 3000
AUDIT_CASES ?= 200
test-fuzz: deps
	FUZZ_CASES=$(FUZZ_CASES) $(CARGO) test --release --test fuzz -- --ignored --nocapture fuzz_long
	AUDIT_CASES=$(AUDIT_CASES) $(CARGO) test --release --test digit_audit -- --nocapture

# The full coverage tier: every simulator's 95 % interval against exact values at the
# command-line defaults, COVERAGE_K seeds per case (200 by default); prints the README's
# coverage table. The short tier (three cases, 20 seeds) runs in `make test`.
COVERAGE_K ?= 200
test-coverage: deps
	COVERAGE_K=$(COVERAGE_K) $(CARGO) test --release --test coverage -- --ignored --nocapture coverage_full

# Sweeps on the real engines (issue 13): a one-node Slurm cluster started on this machine
# (scripts/local-slurm.sh: installs slurm-wlm, munge and parallel from Debian if missing,
# needs root) runs a job array of a sweep with one task scancelled and only the missing
# shard resubmitted; GNU parallel runs the same shards with one SIGKILLed mid-write and
# rerun with --resume-failed. Both merged results must equal an unsharded run byte for
# byte. About 15 s once installed (plus ~15 s of apt-get on a bare machine).
test-slurm: deps
	$(CARGO) build --release --quiet --bin taskassign
	$(SUDO) env TASKASSIGN=$(CURDIR)/target/release/taskassign timeout 900 bash tests/slurm/run.sh

# Every generated table through a real LaTeX engine (issue 15): installs Debian's texlive
# (latex-base, latex-recommended for booktabs, science for siunitx) if pdflatex or siunitx
# is missing, then compiles data/claims/*.tex and the 2-D test claim's tables; any LaTeX
# error or overfull \hbox fails. About 25 s once installed (plus ~1 min of apt-get).
TEX_PACKAGES := texlive-latex-base texlive-latex-recommended texlive-science
test-latex: deps
	@(command -v pdflatex >/dev/null && command -v kpsewhich >/dev/null && kpsewhich siunitx.sty >/dev/null) || \
	  ($(SUDO) apt-get update && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $(TEX_PACKAGES))
	$(CARGO) test --release --test latex_tables -- --ignored --nocapture

# The HTML report in a real browser (issue 15): installs Debian's chromium if missing,
# runs `check --format html` on every shipped claim, loads the page from disk headless and
# fails unless every figure rendered; saves a screenshot at $(SCREENSHOT).
# About 4.5 min on the loaded 2-core machine (the full check; chromium itself ~10 s), plus
# ~30 s of apt-get on a bare one.
SCREENSHOT ?= /tmp/report.png
test-browser: deps
	@command -v chromium >/dev/null || ($(SUDO) apt-get update && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium)
	$(CARGO) build --release --quiet --bin taskassign
	TASKASSIGN=$(CURDIR)/target/release/taskassign SCREENSHOT=$(SCREENSHOT) timeout 900 bash tests/browser/run.sh

# The README's first command: every claim in proofs-check/, judged (exit 1 if one fails).
check: deps
	$(RUN) check

# A short demonstration: thresholds and one evaluation.
demo: deps
	$(RUN) threshold --dist exp:rate=1 --hosts 2
	$(RUN) threshold --dist uniform:a=0,b=1 --hosts 2
	$(RUN) threshold --dist pareto:k=1,alpha=2 --hosts 3
	$(RUN) threshold --dist bp:k=1,p=1e10,alpha=1 --hosts 10
	$(RUN) eval --policy tags --dist bp:k=1,p=1e10,alpha=1 --hosts 2 --load 0.5 --cutoffs 1000

lint:
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --all-targets -- -D warnings

bench: deps
	$(CARGO) bench --bench eval
	$(CARGO) bench --bench optimize
	$(CARGO) bench --bench sim
	$(CARGO) bench --bench jsq
	$(CARGO) bench --bench redundancy
