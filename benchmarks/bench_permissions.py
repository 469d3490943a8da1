"""Permission decisions per second: AgentScope's PermissionEngine vs planmode's, same workload.

Both engines decide the same random stream of (mode, rules, tool, input) in one process, and every
decision is checked to be identical before timing. The workload:

* contexts with 10, 1,000 or 10,000 random allow / deny / ask rules (10,000: a tenth of the calls): Bash prefix (``git:*``), substring and
  wildcard rules, path globs (``src/**``, ``*.py``, classes), rules of custom tools. Big rule sets
  are mostly specific rules: 0.2 % are tool-level (no content), 90 % of the rest specific patterns
  that rarely match (``tool123:*``, ``dir123/**``), 10 % broad ones (``git:*``, ``*``, ``*.py``).
  Rules go to tools roughly as in real settings: Bash 40 %, Read / Write / Edit 30 %, Glob / Grep
  10 %, custom tools 20 %;
* calls to AgentScope's Bash, Read, Write, Edit, Glob and Grep (80 % of calls, as in coding agents)
  and to custom tools (20 %): read-only, coroutine and plain-function ``match_rule`` (matched by
  the tool itself, in both engines), a safety ASK, a tool deciding ALLOW / DENY itself. (The
  tests' Bash subclass with its own ``match_rule``, a correctness probe that re-matches all Bash
  rules in Python, is left out.)

Rates are decisions per CPU-second of this process, best of several alternating passes.

Rows: the whole stream, then the AgentScope tools and the custom tools on their own. Then the
scaling table: N deny rules for Bash (``toolN:*`` patterns that do not match) with the deciding
rule (``git:*``) first, in the middle or absent, at 10 / 1,000 / 10,000 / 100,000 rules: µs per
decision for each engine and the ratio. Last, the read-only shell classifier's throughput on the
test corpus (``bench_shell.py``, also runnable alone).
Run: ``python benchmarks/bench_permissions.py`` (build the extension in release mode first).
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
sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_shell  # noqa: E402
from agentscope.permission import PermissionEngine as AgentScopeEngine  # noqa: E402
from permission_tools import TOOL_NAMES, LoudBash, all_tools, random_context, random_input  # noqa: E402

from planmode.agentscope import PermissionEngine  # noqa: E402

Stream = list[tuple[int, Any, dict[str, Any]]]

TOOL_LEVEL = 0.002
"""Share of tool-level rules (content None / '')."""

SPECIFIC = 0.9
"""Share of the other rules that are specific (``tool123:*``, ``dir123/**``: they rarely match);
the rest are broad patterns (``git:*``, ``*``, ``src/**``, ``*.py``...)."""

RULE_WEIGHTS = {"Bash": 40, "Read": 10, "Write": 10, "Edit": 10, "Glob": 5, "Grep": 5}
"""Percent of rules per tool name; the custom tools share the remaining 20 %."""

AGENTSCOPE_TOOLS = {"Bash", "Read", "Write", "Edit", "Glob", "Grep"}
CALLS_TO_AGENTSCOPE_TOOLS = 0.8


def rule_weights() -> list[float]:
    custom = [name for name in TOOL_NAMES if name not in RULE_WEIGHTS]
    return [RULE_WEIGHTS.get(name, 20 / len(custom)) for name in TOOL_NAMES]


def is_agentscope_tool(tool: Any) -> bool:
    return type(tool).__module__.startswith("agentscope.")


def make_stream(
    rng: random.Random, n_rules: int, n_contexts: int, n_calls: int, specific: float = SPECIFIC
) -> tuple[list[Any], Stream]:
    """``n_contexts`` random contexts and ``n_calls`` random (context index, tool, input) calls."""
    contexts = [random_context(rng, n_rules, TOOL_LEVEL, rule_weights(), specific) for _ in range(n_contexts)]
    tools = [t for t in all_tools() if not isinstance(t, LoudBash)]
    builtin = [t for t in tools if is_agentscope_tool(t)]
    custom = [t for t in tools if not is_agentscope_tool(t)]
    stream = []
    for _ in range(n_calls):
        tool = rng.choice(builtin if rng.random() < CALLS_TO_AGENTSCOPE_TOOLS else custom)
        stream.append((rng.randrange(n_contexts), tool, random_input(rng, tool)))
    return contexts, stream


async def decide_all(engines: list[Any], stream: Stream) -> list[Any]:
    return [await engines[i].check_permission(tool, tool_input) for i, tool, tool_input in stream]


async def seconds(engines: list[Any], stream: Stream) -> float:
    """CPU time of one pass of ``engines`` over the stream (CPU time, not wall time, so other
    processes on a shared machine do not count)."""
    start = time.process_time()
    for i, tool, tool_input in stream:
        await engines[i].check_permission(tool, tool_input)
    return time.process_time() - start


async def compare(stream: Stream, contexts: list[Any], repeat: int) -> tuple[float, float]:
    """Decisions per second of AgentScope's engine and ours (after checking they agree), best of
    ``repeat`` passes each, the passes alternating so both see the same machine load."""
    theirs = [AgentScopeEngine(c) for c in contexts]
    ours = [PermissionEngine(c) for c in contexts]
    assert await decide_all(ours, stream) == await decide_all(theirs, stream), "decisions differ"
    best = [float("inf"), float("inf")]
    for _ in range(repeat):
        best[0] = min(best[0], await seconds(theirs, stream))
        best[1] = min(best[1], await seconds(ours, stream))
    return len(stream) / best[0], len(stream) / best[1]


async def first_pass(contexts: list[Any], stream: Stream) -> float:
    """Decisions per second of fresh engines on their first pass (compiling every list they meet)."""
    start = time.process_time()
    await decide_all([PermissionEngine(c) for c in contexts], stream)
    return len(stream) / (time.process_time() - start)


SCALES = (10, 1_000, 10_000, 100_000)
PLACES = ("first", "middle", "absent")


def scaling_context(n_rules: int, place: str) -> Any:
    """``n_rules`` Bash deny rules that do not match ``git status``, plus the deciding ``git:*``
    at ``place`` (replacing one of them; ``absent``: none decides, the check falls through)."""
    from agentscope.permission import PermissionBehavior, PermissionContext, PermissionMode, PermissionRule

    rules = [
        PermissionRule(tool_name="Bash", rule_content=f"tool{i}:*", behavior=PermissionBehavior.DENY, source="b")
        for i in range(n_rules)
    ]
    if place != "absent":
        at = 0 if place == "first" else n_rules // 2
        rules[at] = PermissionRule(tool_name="Bash", rule_content="git:*", behavior=PermissionBehavior.DENY, source="b")
    return PermissionContext(mode=PermissionMode.DEFAULT, deny_rules={"Bash": rules})


async def per_decision(engine: Any, tool: Any, tool_input: dict[str, Any], budget: float) -> float:
    """CPU seconds per decision: repeated until ``budget`` seconds are spent (at least 3 times)."""
    count, start = 0, time.process_time()
    while count < 3 or time.process_time() - start < budget:
        await engine.check_permission(tool, tool_input)
        count += 1
    return (time.process_time() - start) / count


async def scaling(budget: float) -> None:
    """The scaling table (see the module doc)."""
    from agentscope.tool import Bash

    tool, tool_input = Bash(), {"command": "git status"}
    print(f"{'rules':>7}  {'deciding rule':<13} {'AgentScope µs':>14} {'planmode µs':>12} {'ratio':>7}")
    for n_rules in SCALES:
        for place in PLACES:
            context = scaling_context(n_rules, place)
            theirs, ours = AgentScopeEngine(context), PermissionEngine(context)
            assert await theirs.check_permission(tool, tool_input) == await ours.check_permission(tool, tool_input)
            best = [float("inf"), float("inf")]
            for _ in range(3):
                best[0] = min(best[0], await per_decision(theirs, tool, tool_input, budget))
                best[1] = min(best[1], await per_decision(ours, tool, tool_input, budget))
            print(f"{n_rules:>7,}  {place:<13} {best[0] * 1e6:>14,.1f} {best[1] * 1e6:>12,.1f} {best[0] / best[1]:>6.1f}x")


async def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--calls", type=int, default=3000, help="decisions in the stream")
    parser.add_argument("--repeat", type=int, default=5, help="timed passes (the best is kept)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--specific", type=float, default=SPECIFIC, help="share of specific (rarely matching) rules")
    parser.add_argument("--budget", type=float, default=0.1, help="CPU seconds per scaling measurement")
    parser.add_argument("--only-scaling", action="store_true", help="print only the scaling table")
    args = parser.parse_args()
    if args.only_scaling:
        await scaling(args.budget)
        return

    print(f"{'rules':>5}  {'calls':<16} {'AgentScope dec/s':>16} {'planmode dec/s':>15} {'ratio':>7}")
    for n_rules in (10, 1_000, 10_000):
        calls = args.calls if n_rules <= 1_000 else max(args.calls // 10, 100)  # AgentScope is slow there
        contexts, stream = make_stream(random.Random(args.seed), n_rules, 5, calls, args.specific)
        groups = {
            "all": stream,
            "AgentScope tools": [c for c in stream if is_agentscope_tool(c[1])],
            "custom tools": [c for c in stream if not is_agentscope_tool(c[1])],
        }
        for label, part in groups.items():
            theirs, ours = await compare(part, contexts, args.repeat)
            print(f"{n_rules:>5}  {label:<16} {theirs:>16,.0f} {ours:>15,.0f} {ours / theirs:>6.1f}x")
        cold = await first_pass(contexts, stream)
        print(f"{n_rules:>5}  {'all, first pass':<16} {'':>16} {cold:>15,.0f}   (rules compiled on first use)")
    print()
    await scaling(args.budget)


if __name__ == "__main__":
    asyncio.run(main())
    if "--only-scaling" not in sys.argv:
        print()
        bench_shell.main()
