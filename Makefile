# The two commands a newcomer needs:  make example   and   make test
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python

.PHONY: example test venv system-deps rust-checks py-checks bench

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip

## venv: build the Rust core and install planmode with AgentScope (app + Redis) and the test tools
venv: $(PY)
	$(PY) -m pip install -q -e '.[agentscope,service,test]'

## example: run the plan -> approve -> build agent end to end (offline, scripted model, approves unattended)
example: venv
	$(PY) examples/plan_mode_agent.py --yes

## test: every check CI runs (Rust format, lints, unit tests; pytest; the stub check)
test: system-deps venv rust-checks py-checks

## system-deps: redis-server and headless Chromium for the HTTP tests (apt-get, only when missing)
system-deps:
	bash scripts/system-deps.sh

rust-checks:
	cargo fmt --check
	PYO3_PYTHON=$(abspath $(PY)) cargo clippy --all-targets -- -D warnings
	PYO3_PYTHON=$(abspath $(PY)) cargo test

py-checks:
	$(PY) -m pytest -q
	$(PY) -m mypy.stubtest planmode._core

## bench: the speed comparisons against AgentScope's pure-Python equivalents
bench: venv
	$(PY) benchmarks/bench_tasks.py
	$(PY) benchmarks/bench_permissions.py
	$(PY) benchmarks/bench_plan.py
	$(PY) benchmarks/bench_admin.py
	$(PY) benchmarks/bench_report.py
