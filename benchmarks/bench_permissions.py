"""Permission decisions per second: AgentScope's PermissionEngine vs planmode's, same workload.

Both engines decide the same random stream of (mode, rules, tool, input) in one process: contexts
with 10 or 1,000 random allow / deny / ask rules (Bash prefix and wildcard rules, path globs,
tool-level rules, custom tools' rules), tools from AgentScope (Bash, Read, Write, Edit, Glob, Grep)
and custom ones (read-only, coroutine and plain match_rule, safety ASK, own ALLOW/DENY); few rules
are tool-level (most are specific, so most of a big list is scanned). Every
decision is checked to be identical before timing. Run: ``python benchmarks/bench_permissions.py``.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from agentscope.permission import PermissionEngine as AgentScopeEngine  # noqa: E402
from agentscope.tool import Bash  # noqa: E402
from permission_tools import all_tools, random_context, random_input  # noqa: E402

from planmode.agentscope import PermissionEngine  # noqa: E402

Stream = list[tuple[int, Any, dict[str, Any]]]

TOOL_LEVEL = 0.002
"""Share of tool-level rules (content None / ''): large rule sets are mostly specific rules."""


def make_stream(rng: random.Random, n_rules: int, n_contexts: int, n_calls: int) -> tuple[list[Any], Stream]:
    """``n_contexts`` random contexts and ``n_calls`` random (context index, tool, input) calls."""
    contexts = [random_context(rng, n_rules, tool_level=TOOL_LEVEL) for _ in range(n_contexts)]
    tools = all_tools()
    stream = []
    for _ in range(n_calls):
        tool = rng.choice(tools)
        stream.append((rng.randrange(n_contexts), tool, random_input(rng, tool)))
    return contexts, stream


async def decide_all(engines: list[Any], stream: Stream) -> list[Any]:
    return [await engines[i].check_permission(tool, tool_input) for i, tool, tool_input in stream]


async def rate(engines: list[Any], stream: Stream, repeat: int) -> float:
    """Best-of-``repeat`` decisions per second over the stream."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for i, tool, tool_input in stream:
            await engines[i].check_permission(tool, tool_input)
        best = min(best, time.perf_counter() - start)
    return len(stream) / best


async def compare(n_rules: int, stream: Stream, contexts: list[Any], repeat: int) -> tuple[float, float]:
    theirs = [AgentScopeEngine(c) for c in contexts]
    ours = [PermissionEngine(c) for c in contexts]
    assert await decide_all(ours, stream) == await decide_all(theirs, stream), "decisions differ"
    return await rate(theirs, stream, repeat), await rate(ours, stream, repeat)


async def compile_time(contexts: list[Any], stream: Stream) -> float:
    """Seconds for a fresh engine's first pass over the stream (compiling every list it meets)."""
    start = time.perf_counter()
    await decide_all([PermissionEngine(c) for c in contexts], stream)
    return time.perf_counter() - start


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000, help="decisions in the stream")
    parser.add_argument("--repeat", type=int, default=3, help="timed passes (best is kept)")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()

    print(f"{'rules':>6} {'tools':<12} {'AgentScope dec/s':>17} {'planmode dec/s':>15} {'ratio':>7}")
    for n_rules in (10, 1000):
        contexts, stream = make_stream(random.Random(args.seed), n_rules, 5, args.calls)
        groups = {
            "all": stream,
            "without Bash": [c for c in stream if not isinstance(c[1], Bash)],
            "Bash only": [c for c in stream if isinstance(c[1], Bash)],
        }
        for label, part in groups.items():
            theirs, ours = await compare(n_rules, part, contexts, args.repeat)
            print(f"{n_rules:>6} {label:<12} {theirs:>17,.0f} {ours:>15,.0f} {ours / theirs:>6.1f}x")
        cold = await compile_time(contexts, stream)
        print(f"{n_rules:>6} first pass with compilation: {len(stream) / cold:,.0f} dec/s")


if __name__ == "__main__":
    asyncio.run(main())
