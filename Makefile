# The two commands a newcomer needs:  make example   and   make test
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python

.PHONY: example test venv venv-python system-deps rust-checks py-checks bench wheel wheel-check

## venv-python: (re)create .venv when it is missing, broken or built with a Python older than 3.11
venv-python:
	@bash scripts/venv-python.sh "$(PYTHON)" "$(VENV)"

## venv: build the Rust core and install planmode with AgentScope (app + Redis) and the test tools
venv: venv-python
	@[ -f $(VENV)/.planmode-built ] || echo "make: first build of planmode's Rust core (release, optimised): this takes a few minutes on 2 cores; later builds are incremental"
	@echo "make: installing planmode into $(VENV) (pip install -e '.[agentscope,service,tui,test]')"
	$(PY) -m pip install -q -e '.[agentscope,service,tui,test]'
	@touch $(VENV)/.planmode-built

## example: run the plan -> approve -> build agent end to end (offline, scripted model, approves unattended)
example: venv
	$(PY) examples/plan_mode_agent.py --yes

## test: every check CI runs (Rust format, lints, unit tests; ruff, mypy --strict, pytest; the stub check)
test: system-deps venv rust-checks py-checks

## system-deps: redis-server and headless Chromium for the HTTP tests (apt-get, only when missing)
system-deps:
	bash scripts/system-deps.sh

rust-checks:
	cargo fmt --check
	PYO3_PYTHON=$(abspath $(PY)) cargo clippy --all-targets -- -D warnings
	PYO3_PYTHON=$(abspath $(PY)) cargo test

py-checks:
	$(PY) -m ruff check .
	$(PY) -m mypy --strict python/planmode devtools
	$(PY) -m pytest -q
	$(PY) -m mypy.stubtest planmode._core

## wheel: the manylinux abi3 wheel (zig links against an old glibc) and the sdist, into dist/
wheel: venv-python
	bash scripts/build-wheel.sh "$(PY)" dist

## wheel-check: install the wheel into fresh venvs of Python 3.12 and 3.13 and run both examples
wheel-check: wheel
	bash scripts/check-wheel.sh dist

## bench: the speed comparisons against AgentScope's pure-Python equivalents
bench: venv
	$(PY) benchmarks/bench_tasks.py
	$(PY) benchmarks/bench_permissions.py
	$(PY) benchmarks/bench_plan.py
	$(PY) benchmarks/bench_admin.py
	$(PY) benchmarks/bench_report.py
