"""The cost of the planning-shell sandbox: one command run under Landlock
(``planmode._core.run_sandboxed``) against the same command run plainly by AgentScope's own
``LocalBackend.exec_shell``, and against AgentScope's ``BubblewrapBackend`` (the backend of its
``BubblewrapWorkspace``) when ``bwrap`` can start here. All in one process, same event loop.

Run with ``.venv/bin/python benchmarks/bench_sandbox.py`` after ``make venv`` (a release
build). Prints ms/command (median of rounds) for each and the ratios.
"""

from __future__ import annotations

import asyncio
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from functools import partial

from agentscope.tool import LocalBackend

from planmode._core import run_sandboxed, sandbox_support

COMMANDS = ["true", "ls -la /usr/bin | wc -l", "python3 -c 'print(1)'"]
PER_ROUND = 20
ROUNDS = 5


async def timed(run_one: Callable[[], Awaitable[object]]) -> float:
    """Median milliseconds per command over ROUNDS rounds of PER_ROUND commands."""
    per_round = []
    for _ in range(ROUNDS):
        start = time.perf_counter()
        for _ in range(PER_ROUND):
            await run_one()
        per_round.append((time.perf_counter() - start) * 1000 / PER_ROUND)
    return statistics.median(per_round)


async def bubblewrap_runner(tmp: str) -> Callable[[list[str]], Awaitable[object]] | None:
    """AgentScope's BubblewrapBackend, if bwrap exists and can create its namespaces here."""
    if shutil.which("bwrap") is None:
        return None
    from agentscope.workspace._bubblewrap._bubblewrap_backend import BubblewrapBackend

    backend = BubblewrapBackend(host_workdir=f"{tmp}/work", host_tmpdir=f"{tmp}/tmp", share_net=False)
    probe = await backend.exec_shell(["/bin/sh", "-c", "true"], timeout=30)
    if probe.exit_code != 0:
        print(f"BubblewrapBackend cannot start here: {probe.stderr.decode(errors='replace').strip()}")
        return None
    return lambda argv: backend.exec_shell(argv, timeout=30)


async def main() -> None:
    abi, reason = sandbox_support()
    if abi is None:
        sys.exit(f"the sandbox is unavailable here: {reason}")
    print(f"{reason}; {PER_ROUND} commands x {ROUNDS} rounds each, median ms/command")
    local = LocalBackend()
    with tempfile.TemporaryDirectory() as tmp:
        bwrap = await bubblewrap_runner(tmp)
        if bwrap is None and shutil.which("bwrap") is None:
            print("bwrap is not installed (apt-get install bubblewrap): no BubblewrapBackend column")
        print(f"{'command':28} {'plain':>8} {'landlock':>9} {'ratio':>6}"
              + (f" {'bwrap':>8} {'bwrap/landlock':>15}" if bwrap else ""))
        for command in COMMANDS:
            argv = ["/bin/sh", "-c", command]
            plain = await timed(partial(local.exec_shell, argv, timeout=30))
            landlock = await timed(partial(run_sandboxed, argv, timeout=30))
            line = f"{command:28} {plain:8.2f} {landlock:9.2f} {landlock / plain:6.2f}"
            if bwrap:
                wrapped = await timed(partial(bwrap, argv))
                line += f" {wrapped:8.2f} {wrapped / landlock:15.2f}"
            print(line)


if __name__ == "__main__":
    asyncio.run(main())
