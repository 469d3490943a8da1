"""What each performance crate earns: the task core (`benches/tasks_core.rs`, no Python) built
with every default feature, then once without each of `mimalloc` (global allocator), `foldhash`
(hasher of the task maps), `smallvec` (inline edge lists) and `compact_str` (inline ids); same
workloads, best of five, and the slowdown each crate's absence causes; then the memory a held
100,000-task chain takes (resident set growth, bytes per task) with and without each crate.

Run: `.venv/bin/python benchmarks/bench_crates.py [--crates compact_str ...]` (release builds
without LTO: all features, then one per crate left out, then all again; PYO3_PYTHON is set to this
interpreter; set CARGO_TARGET_DIR to keep these builds apart from the extension's). The hand-written canonical JSON reader's figure is in bench_tasks.py
(`--only native`: canonical reader vs serde's general reader on the same tasks). hashbrown is not
optional: the id index needs its `Equivalent` lookups (a borrowed key of another type) to look an
id up without building an owned key.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys

CRATES = ["mimalloc", "foldhash", "smallvec", "compact_str"]


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
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--crates", nargs="+", choices=CRATES, default=CRATES, help="only these crates (default: all)")
    crates = parser.parse_args().crates
    full = run([])
    without = {
        crate: run(["--no-default-features", "--features", ",".join(c for c in CRATES if c != crate)])
        for crate in crates
    }
    # The full build again at the end, keeping the better figure: a busy spell of a shared
    # machine during the first run would otherwise make every crate look useless.
    full = {name: min(secs, again) for (name, secs), again in zip(full.items(), run([]).values(), strict=True)}
    header = "".join(f"{'no ' + c:>16}" for c in crates)
    print(f"{'workload':<18} {'all ms':>8}{header}")
    for name, secs in full.items():
        if name.endswith("_bytes"):
            continue
        cells = "".join(f"{without[c][name] * 1e3:>9.1f} {without[c][name] / secs:>5.2f}x" for c in crates)
        print(f"{name:<18} {secs * 1e3:>8.1f}{cells}")
    memory = "rss_chain_100k_bytes"
    per_task = {c: without[c][memory] / 100_000 for c in crates}
    mine = full[memory] / 100_000
    cells = "".join(f"{per_task[c]:>9.0f} {per_task[c] / mine:>5.2f}x" for c in crates)
    print(f"{'B/task chain 100k':<18} {mine:>8.0f}{cells}")


if __name__ == "__main__":
    main()
