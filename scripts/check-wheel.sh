#!/usr/bin/env bash
# Installs the wheel from DIST into a fresh venv of each Python in PLANMODE_WHEEL_PYTHONS (default
# "3.12 3.13", i.e. not the 3.11 the project is developed on) and runs both examples there, from outside
# the checkout so that only the installed wheel is imported. Fails when an interpreter cannot be found,
# saying where it looked. Usage: check-wheel.sh [DIST]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dist=$(cd "${1:-dist}" && pwd)
wheel=$(ls "$dist"/planmode-*-abi3-*.whl)
versions=${PLANMODE_WHEEL_PYTHONS:-3.12 3.13}

# find_python V: the first working interpreter of version V: pythonV on PATH, pyenv's, Debian's.
find_python() {
    local v=$1 candidate
    for candidate in "$(command -v "python$v" 2>/dev/null || true)" \
                     "${PYENV_ROOT:-$HOME/.pyenv}"/versions/"$v"*/bin/"python$v" \
                     "/usr/bin/python$v" "/usr/local/bin/python$v"; do
        [ -n "$candidate" ] && [ -x "$candidate" ] || continue
        if "$candidate" -c "import sys, venv, ssl; sys.exit(sys.version_info[:2] != tuple(map(int, '$v'.split('.'))))" 2>/dev/null; then
            echo "$candidate"
            return 0
        fi
    done
    return 1
}

# check_one V: a fresh venv of Python V, the wheel with its agentscope extra, both examples.
check_one() {
    local v=$1 python venv
    if ! python=$(find_python "$v"); then
        echo "check-wheel: no Python $v found (looked for python$v on PATH, in ${PYENV_ROOT:-$HOME/.pyenv}/versions/$v*, /usr/bin, /usr/local/bin)"
        return 1
    fi
    venv="$work/venv$v"
    echo "check-wheel: Python $v at $python: fresh venv, pip install $(basename "$wheel")[agentscope]"
    "$python" -m venv "$venv"
    "$venv/bin/python" -m pip install -q --disable-pip-version-check "$wheel[agentscope]"
    cd "$work"  # outside the checkout: only the installed wheel can be imported
    "$venv/bin/planmode" --version
    "$venv/bin/python" -c "import planmode.agentscope, sys; assert '/site-packages/' in planmode.__file__, planmode.__file__; print('imported', planmode.__file__)"
    echo "check-wheel: Python $v: examples/task_graph.py"
    "$venv/bin/python" "$root/examples/task_graph.py" > "$work/task_graph$v.out"
    tail -n 2 "$work/task_graph$v.out"
    echo "check-wheel: Python $v: examples/plan_mode_agent.py --yes"
    "$venv/bin/python" "$root/examples/plan_mode_agent.py" --yes > "$work/plan_mode_agent$v.out"
    grep -q "outcome=exited_with_plan phase=building" "$work/plan_mode_agent$v.out"
    tail -n 1 "$work/plan_mode_agent$v.out"
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The versions run side by side (the time goes into downloading packages); each has its own log.
pids=()
for v in $versions; do
    (set -euo pipefail; check_one "$v") > "$work/check$v.log" 2>&1 &
    pids+=("$!")
done
failed=0
i=0
for v in $versions; do
    if ! wait "${pids[$i]}"; then failed=1; fi
    sed "s/^/[$v] /" "$work/check$v.log"
    i=$((i + 1))
done
if [ "$failed" -ne 0 ]; then
    echo "check-wheel: FAILED (see above)" >&2
    exit 1
fi
echo "check-wheel: the wheel installs and runs both examples on Python $versions"
