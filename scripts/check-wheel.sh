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

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for v in $versions; do
    if ! python=$(find_python "$v"); then
        echo "check-wheel: no Python $v found (looked for python$v on PATH, in ${PYENV_ROOT:-$HOME/.pyenv}/versions/$v*, /usr/bin, /usr/local/bin)" >&2
        exit 1
    fi
    echo "check-wheel: Python $v at $python: fresh venv, pip install $(basename "$wheel")[agentscope]"
    "$python" -m venv "$work/venv$v"
    "$work/venv$v/bin/python" -m pip install -q --disable-pip-version-check "$wheel[agentscope]"
    cd "$work"
    "$work/venv$v/bin/planmode" --version
    "$work/venv$v/bin/python" -c "import planmode, planmode.agentscope, sys; print('imported', planmode.__file__)"
    echo "check-wheel: Python $v: examples/task_graph.py"
    "$work/venv$v/bin/python" "$root/examples/task_graph.py" > "$work/task_graph.out"
    tail -n 3 "$work/task_graph.out"
    echo "check-wheel: Python $v: examples/plan_mode_agent.py --yes"
    "$work/venv$v/bin/python" "$root/examples/plan_mode_agent.py" --yes > "$work/plan_mode_agent.out"
    tail -n 3 "$work/plan_mode_agent.out"
    cd "$root"
done
echo "check-wheel: the wheel installs and runs both examples on Python $versions"
