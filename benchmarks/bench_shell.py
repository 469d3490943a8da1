"""Read-only shell classifier: speed and accuracy, side by side with AgentScope's own
``Bash.check_read_only`` in the same process.

Run with ``.venv/bin/python benchmarks/bench_shell.py`` after ``make venv`` (a release build).
Prints µs/command for both and their ratio on three workloads — the test corpus
(tests/data/shell_corpus.tsv: reads, writes and bypasses), the realistic investigation commands
(tests/data/shell_investigation.txt) and long pipelines — then how many lines each classifies
as expected (unsafe = a line the corpus refuses called read-only) and the share of the
investigation commands each allows.
"""

from __future__ import annotations

import asyncio
import gc
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from _shell_corpus import CorpusRow, load_corpus, load_investigation  # noqa: E402

from planmode import classify_shell  # noqa: E402

try:
    from agentscope.tool import Bash
except ImportError:  # pragma: no cover - the bench needs the agentscope extra
    sys.exit("bench_shell.py needs AgentScope: make venv installs planmode[agentscope]")

ROUNDS = 20
REPEATS = 7
STAGES = ["cat notes.txt", "grep -v '^#'", "sed -n '1,200p'", "cut -d: -f1", "sort", "uniq -c", "sort -rn", "head -20"]


def pipeline(stages: int) -> str:
    """A read-only pipeline of `stages` commands."""
    return " | ".join(STAGES[i % len(STAGES)] for i in range(stages))


def best_seconds(*runs: Callable[[], None]) -> list[float]:
    """The fastest of REPEATS timings of each run, interleaved so that load on a shared machine
    hits every run alike (the collector is off during each timing)."""
    timings: list[list[float]] = [[] for _ in runs]
    for _ in range(REPEATS):
        for run, times in zip(runs, timings, strict=True):
            gc.disable()
            start = time.perf_counter()
            run()
            times.append(time.perf_counter() - start)
            gc.enable()
    return [min(times) for times in timings]


def compare(title: str, commands: list[str], bash: Bash) -> None:
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
    ours_s, theirs_s = best_seconds(ours, theirs)
    print(
        f"  {title:<36} planmode {ours_s / count * 1e6:7.2f} µs   AgentScope {theirs_s / count * 1e6:7.2f} µs"
        f"   planmode is {theirs_s / ours_s:4.1f}x the speed"
    )


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
    investigation = load_investigation()
    bash = Bash()

    print(f"µs per command, best of {REPEATS} x {ROUNDS} rounds:")
    compare(f"test corpus ({len(rows)} lines)", [r.command for r in rows], bash)
    compare(f"investigation ({len(investigation)} lines)", investigation, bash)
    for stages in (5, 10, 20):
        compare(f"pipeline of {stages} commands", [pipeline(stages)] * 20, bash)

    async def agentscope(commands: list[str]) -> list[bool]:
        return [await bash.check_read_only({"command": c}) for c in commands]

    ours_v = [classify_shell(r.command).read_only for r in rows]
    theirs_v = asyncio.run(agentscope([r.command for r in rows]))
    print("accuracy against the test corpus's expected verdicts:")
    accuracy("planmode.classify_shell", rows, ours_v)
    accuracy("agentscope Bash.check_read_only", rows, theirs_v)
    accuracy("plan-mode gate (both must agree)", rows, [a and b for a, b in zip(ours_v, theirs_v, strict=True)])

    ours_i = [classify_shell(c).read_only for c in investigation]
    theirs_i = asyncio.run(agentscope(investigation))
    print(f"investigation commands allowed (all {len(investigation)} are read-only):")
    for name, verdicts in [
        ("planmode.classify_shell", ours_i),
        ("agentscope Bash.check_read_only", theirs_i),
        ("plan-mode gate (both must agree)", [a and b for a, b in zip(ours_i, theirs_i, strict=True)]),
    ]:
        print(f"  {name:<34} {sum(verdicts):>4}/{len(verdicts)} = {sum(verdicts) / len(verdicts):.1%}")


if __name__ == "__main__":
    main()
