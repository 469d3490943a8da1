#!/usr/bin/env bash
# Makes sure the project's virtualenv exists and runs a Python planmode supports (>= 3.11).
# A venv that is missing, broken or built with an older Python is (re)created, saying so: make never
# silently reuses a venv that cannot work. Usage: venv-python.sh PYTHON VENV
set -euo pipefail
python=${1:-python3}
venv=${2:-.venv}
minimum="3.11"

version_of() { "$1" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null; }
new_enough() { "$1" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; }

if [ -x "$venv/bin/python" ] && new_enough "$venv/bin/python"; then
    exit 0
fi
if ! command -v "$python" >/dev/null 2>&1; then
    echo "make: $python not found: planmode needs Python >= $minimum (run: make PYTHON=python3.12 ...)" >&2
    exit 1
fi
if ! new_enough "$python"; then
    echo "make: $python is Python $(version_of "$python"), planmode needs >= $minimum (run: make PYTHON=python3.12 ...)" >&2
    exit 1
fi
if [ -e "$venv" ]; then
    found=$(version_of "$venv/bin/python" || true)
    if [ -n "$found" ]; then found="Python $found"; else found="a Python that no longer runs"; fi
    echo "make: $venv was built with $found; planmode needs >= $minimum: recreating it with $python ($(version_of "$python"))"
    rm -rf "$venv"
else
    echo "make: creating $venv with $python ($(version_of "$python"))"
fi
"$python" -m venv "$venv"
"$venv/bin/python" -m pip install -q --upgrade pip
