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
from planmode.agentscope._plan._team import AppSession, TeamPlanModeMiddleware
from planmode.agentscope.demo_tools import ReadFile


def per_call(variants: dict[str, Any], n: int, repeats: int = 7) -> dict[str, float]:
    """Microseconds per call of each async function: best of ``repeats`` runs of ``n`` calls, the
    variants interleaved run by run so that machine noise hits them alike."""
    async def loop(fn: Any) -> float:
        start = time.perf_counter()
        for _ in range(n):
            await fn()
        return (time.perf_counter() - start) / n * 1e6

    best = dict.fromkeys(variants, float("inf"))
    for _ in range(repeats):
        for name, fn in variants.items():
            best[name] = min(best[name], asyncio.run(loop(fn)))
    return best


class NoOp(MiddlewareBase):
    """A middleware that only delegates: what any permission middleware costs in AgentScope."""

    async def on_check_permission(self, agent: Any, input_kwargs: dict[str, Any], next_handler: Any) -> Any:
        return await next_handler(**input_kwargs)


def bench_gate(root: Path, n: int = 2000) -> None:
    tool = ReadFile(root)
    call = ToolCallBlock(id="c1", name="read_file", input="{}")

    def agent(name: str, middlewares: list[Any], plan: PlanMode | None = None) -> Agent:
        tools = [tool, *(plan.tools() if plan else [])]
        return Agent(name=name, system_prompt="s", model=ScriptedChatModel(), toolkit=Toolkit(tools=tools),
                     middlewares=middlewares)

    plain = agent("a", [])
    noop = agent("n", [NoOp()])
    plan = PlanMode(workspace_dir=root)
    gated = agent("b", [plan.middleware()], plan)
    planning = agent("p", [plan.middleware()], plan)
    enter_plan_mode(planning)
    app_plan = PlanMode(workspace_dir=root, per_agent_paths=True)
    app = agent("s", [TeamPlanModeMiddleware(app_plan, AppSession("u", "a", "s"))], app_plan)
    check = lambda a: (lambda: a._check_permission(call, tool, {}))  # noqa: E731
    t = per_call({"base": check(plain), "noop": check(noop), "building": check(gated), "planning": check(planning),
                  "app": check(app)}, n)
    base = t["base"]
    print(f"permission check per tool call of a read-only tool (n={n}):")
    print(f"  AgentScope engine only                    {base:8.1f} us")
    for key, label in (("noop", "+ a no-op middleware"), ("building", "+ plan-mode gate, building"),
                       ("planning", "+ plan-mode gate, planning"), ("app", "+ app session gate (PlanModeWiring)")):
        print(f"  {label:<40}  {t[key]:8.1f} us   ratio {t[key] / base:5.2f}x   vs no-op {t[key] / t['noop']:5.2f}x")


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
