"""What the performance crates earn: the task core built with and without the `mimalloc`
feature (mimalloc as the global allocator vs the system allocator), same workloads, ratios.

Run: `.venv/bin/python benchmarks/bench_crates.py` (two release builds of `benches/tasks_core.rs`;
PYO3_PYTHON is set to this interpreter). The canonical JSON reader's figure is in bench_tasks.py
(`--only native`: canonical reader vs serde's general reader on the same tasks).
"""

from __future__ import annotations

import os
import subprocess
import sys


def run(features: list[str]) -> dict[str, float]:
    env = {**os.environ, "PYO3_PYTHON": sys.executable, "CARGO_PROFILE_BENCH_LTO": "off"}
    out = subprocess.run(
        ["cargo", "bench", "--quiet", "--bench", "tasks_core", *features],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    ).stdout
    return {name: float(secs) for name, secs in (line.split() for line in out.splitlines() if line.strip())}


def main() -> None:
    system = run(["--no-default-features"])
    mimalloc = run([])
    print(f"{'workload':<18} {'system ms':>10} {'mimalloc ms':>12} {'gain':>6}")
    for name, secs in mimalloc.items():
        print(f"{name:<18} {system[name] * 1e3:>10.1f} {secs * 1e3:>12.1f} {system[name] / secs:>5.2f}x")


if __name__ == "__main__":
    main()
