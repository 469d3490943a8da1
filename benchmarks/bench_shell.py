"""Read-only shell classifier: throughput and accuracy on the test corpus, side by side with
AgentScope's own ``Bash.check_read_only`` in the same process.

Run with ``make bench`` (or ``.venv/bin/python benchmarks/bench_shell.py``) after ``make venv``
(a release build). Prints commands/s and µs/command for both, their ratio, and how many corpus
lines each classifies as expected — including the unsafe ones (a line the corpus refuses,
usually a write or a bypass, called read-only).
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from _shell_corpus import CorpusRow, load_corpus  # noqa: E402

from planmode import classify_shell  # noqa: E402

try:
    from agentscope.tool import Bash
except ImportError:  # pragma: no cover - the bench needs the agentscope extra
    sys.exit("bench_shell.py needs AgentScope: make venv installs planmode[agentscope]")

ROUNDS = 20
REPEATS = 7


def best_seconds(*runs: Callable[[], None]) -> list[float]:
    """The fastest of REPEATS timings of each run, interleaved so that load on a shared machine
    hits every run alike."""
    timings: list[list[float]] = [[] for _ in runs]
    for _ in range(REPEATS):
        for run, times in zip(runs, timings, strict=True):
            start = time.perf_counter()
            run()
            times.append(time.perf_counter() - start)
    return [min(times) for times in timings]


def report(name: str, seconds: float, count: int) -> None:
    print(f"  {name:<34} {count / seconds:>12,.0f} commands/s {seconds / count * 1e6:>9.2f} µs/command")


def accuracy(name: str, rows: list[CorpusRow], verdicts: list[bool]) -> None:
    right = sum(v == r.read_only for v, r in zip(verdicts, rows, strict=True))
    unsafe = [r.command for v, r in zip(verdicts, rows, strict=True) if v and not r.read_only]
    refused = sum(not v and r.read_only for v, r in zip(verdicts, rows, strict=True))
    print(f"  {name:<34} {right:>4}/{len(rows)} as expected, {len(unsafe):>3} unsafe (refused line called read-only), "
          f"{refused:>3} read-only refused")
    for command in unsafe[:12]:
        print(f"      unsafe: {command!r}")


def main() -> None:
    rows = load_corpus()
    commands = [r.command for r in rows]
    bash = Bash()

    def ours() -> None:
        for _ in range(ROUNDS):
            for command in commands:
                classify_shell(command)

    async def theirs_async() -> None:
        for _ in range(ROUNDS):
            for command in commands:
                await bash.check_read_only({"command": command})

    def theirs() -> None:
        asyncio.run(theirs_async())

    count = ROUNDS * len(commands)
    print(f"shell classifier on the corpus: {len(commands)} command lines x {ROUNDS} rounds, best of {REPEATS}")
    ours_s, theirs_s = best_seconds(ours, theirs)
    report("planmode.classify_shell", ours_s, count)
    report("agentscope Bash.check_read_only", theirs_s, count)
    print(f"  ratio: planmode is {theirs_s / ours_s:.1f}x the speed of AgentScope's check")

    async def agentscope_verdicts() -> list[bool]:
        return [await bash.check_read_only({"command": c}) for c in commands]

    ours_v = [classify_shell(c).read_only for c in commands]
    theirs_v = asyncio.run(agentscope_verdicts())
    print("accuracy against the corpus's expected verdicts:")
    accuracy("planmode.classify_shell", rows, ours_v)
    accuracy("agentscope Bash.check_read_only", rows, theirs_v)
    accuracy("plan-mode gate (both must agree)", rows, [a and b for a, b in zip(ours_v, theirs_v, strict=True)])


if __name__ == "__main__":
    main()
