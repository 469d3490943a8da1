"""Plan mode's cost, side by side with plain AgentScope, in one process.

1. Permission check per tool call: AgentScope's engine alone vs the same agent with the
   plan-mode gate in front (building phase, and planning phase).
2. Loading + validating stored plan-mode state (50 revisions of 8 KiB): the Rust PlanBook vs
   the pure-Python equivalent (json round trip + sha256 of every revision).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import tempfile
import time
from pathlib import Path
from typing import Any

from agentscope.agent import Agent
from agentscope.message import ToolCallBlock
from agentscope.middleware import MiddlewareBase
from agentscope.tool import Toolkit

from planmode._core import PlanBook
from planmode.agentscope import PlanMode, ScriptedChatModel, enter_plan_mode
from planmode.agentscope.demo_tools import ReadFile


def per_call(fn: Any, n: int, repeats: int = 5) -> float:
    """Microseconds per call of an async function (best of ``repeats`` runs of ``n`` calls)."""
    async def loop() -> float:
        start = time.perf_counter()
        for _ in range(n):
            await fn()
        return (time.perf_counter() - start) / n * 1e6
    return min(asyncio.run(loop()) for _ in range(repeats))


class NoOp(MiddlewareBase):
    """A middleware that only delegates: what any permission middleware costs in AgentScope."""

    async def on_check_permission(self, agent: Any, input_kwargs: dict[str, Any], next_handler: Any) -> Any:
        return await next_handler(**input_kwargs)


def bench_gate(root: Path, n: int = 2000) -> None:
    tool = ReadFile(root)
    call = ToolCallBlock(id="c1", name="read_file", input="{}")
    plain = Agent(name="a", system_prompt="s", model=ScriptedChatModel(), toolkit=Toolkit(tools=[tool]))
    noop = Agent(name="n", system_prompt="s", model=ScriptedChatModel(), toolkit=Toolkit(tools=[tool]),
                 middlewares=[NoOp()])
    plan = PlanMode(workspace_dir=root)
    gated = Agent(name="b", system_prompt="s", model=ScriptedChatModel(),
                  toolkit=Toolkit(tools=[tool, *plan.tools()]), middlewares=[plan.middleware()])
    base = per_call(lambda: plain._check_permission(call, tool, {}), n)
    empty = per_call(lambda: noop._check_permission(call, tool, {}), n)
    building = per_call(lambda: gated._check_permission(call, tool, {}), n)
    enter_plan_mode(gated)
    planning = per_call(lambda: gated._check_permission(call, tool, {}), n)
    print(f"permission check per tool call (n={n}):")
    print(f"  AgentScope engine only        {base:8.1f} us")
    print(f"  + a no-op middleware          {empty:8.1f} us   ratio {empty / base:5.2f}x")
    print(f"  + plan-mode gate, building    {building:8.1f} us   ratio {building / base:5.2f}x")
    print(f"  + plan-mode gate, planning    {planning:8.1f} us   ratio {planning / base:5.2f}x")


def bench_state(n: int = 100) -> None:
    book = PlanBook(max_revisions_kept=50)
    book.enter()
    for i in range(50):
        book.write(f"# Plan {i}\n" + "step text line\n" * 560)  # ~8 KiB each
    stored = book.to_state()

    def rust() -> None:
        PlanBook(stored, max_revisions_kept=50).to_state()

    def python() -> None:
        copy = json.loads(json.dumps(stored))
        for r in copy["revisions"]:
            assert hashlib.sha256(r["content"].encode()).hexdigest() == r["sha256"]

    def timed(fn: Any, repeats: int = 3) -> float:
        best = float("inf")
        for _ in range(repeats):
            start = time.perf_counter()
            for _ in range(n):
                fn()
            best = min(best, (time.perf_counter() - start) / n * 1e3)
        return best

    r, p = timed(rust), timed(python)
    size = len(json.dumps(stored)) / 1024
    print(f"load+validate+store plan state ({size:.0f} KiB, 50 revisions, n={n}):")
    print(f"  pure Python (json + hashlib)  {p:8.3f} ms")
    print(f"  Rust PlanBook                 {r:8.3f} ms   ratio {p / r:5.2f}x faster" if r < p else
          f"  Rust PlanBook                 {r:8.3f} ms   ratio {r / p:5.2f}x slower")


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as tmp:
        bench_gate(Path(tmp))
    bench_state()
