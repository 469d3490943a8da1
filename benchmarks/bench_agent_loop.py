"""What a user pays per turn: a real AgentScope Agent, stock vs with planmode, same scripted work.

Two measurements, both with AgentScope's real ``Agent`` and planmode's offline ``ScriptedChatModel``:

1. **Agent loop.** One reply of 200 mixed tool calls (AgentScope's Read, Write, Edit and Glob on
   real files, and the four Task tools), under BYPASS. *Stock*: AgentScope's own tools and engine.
   *planmode*: planmode's Task tools and plan tools, ``plan.middleware()`` and
   ``PermissionMiddleware()``, in the build phase of an approved plan (the setup reply is not
   timed). Paired runs (alternating order), CPU time of the reply: per-call µs of each, planmode's
   overhead in µs and %, and the context and state bytes at the end (``model_dump_json``).
2. **Plan notes over a long build.** ``--steps`` (1,000) model turns, each one ``todo_write`` that
   advances one item of a 10-item list, in the build phase. *Plain*: a todo tool that echoes the
   list (what a stock agent would use); *planmode*: ``todo_write`` with the plan-mode notes. Prints
   the context bytes and AgentScope's token estimate (``ChatModelBase.count_tokens``) at the end,
   and the bytes the plan-mode notes add.

Run: ``python benchmarks/bench_agent_loop.py`` (release build). ``--section loop|notes`` runs one.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from agentscope.agent import Agent, ReActConfig
from agentscope.message import HintBlock, TextBlock, UserMsg
from agentscope.permission import PermissionBehavior, PermissionContext, PermissionDecision, PermissionMode
from agentscope.state import AgentState
from agentscope.tool import (
    Edit,
    Glob,
    Read,
    TaskCreate,
    TaskGet,
    TaskList,
    TaskUpdate,
    ToolBase,
    ToolChunk,
    Toolkit,
    Write,
)

from planmode.agentscope import PermissionMiddleware, PlanMode, ScriptedChatModel, call_tool, say
from planmode.agentscope._plan._texts import HINT_SOURCE, todo_summary

PLAN = "# Plan\n\n## Goal\nShip it.\n\n## Steps\n1. Write the code\n2. Test it\n3. Release\n"


def mixed_calls(root: Path, n: int) -> list[Any]:
    """``n`` scripted tool calls, cycling through file and task work."""
    steps: list[Any] = []
    for i in range(n):
        f = str(root / f"f{i % 7}.txt")
        k = i % 10
        if k == 0:
            steps.append(call_tool("Write", {"file_path": f, "content": f"line {i}\n"}))
        elif k == 1:
            steps.append(call_tool("Read", {"file_path": f}))
        elif k == 2:
            steps.append(call_tool("Edit", {"file_path": f, "old_string": "line", "new_string": "row"}))
        elif k == 3:
            steps.append(call_tool("Glob", {"pattern": "*.txt", "path": str(root)}))
        elif k in (4, 5):
            steps.append(call_tool("TaskCreate", {"subject": f"task {i}", "description": f"do thing {i}"}))
        elif k == 6:
            steps.append(call_tool("TaskUpdate", {"task_id": str(i // 10 * 2 + 1), "status": "in_progress"}))
        elif k == 7:
            steps.append(call_tool("TaskList", {}))
        elif k == 8:
            steps.append(call_tool("TaskGet", {"task_id": str(i // 10 * 2 + 1)}))
        else:
            steps.append(call_tool("TaskUpdate", {"task_id": str(i // 10 * 2 + 1), "status": "completed"}))
    return steps


def file_tools() -> list[ToolBase]:
    return [Read(), Write(), Edit(), Glob()]


def stock_agent(root: Path, script: list[Any]) -> Agent:
    state = AgentState()
    state.permission_context.mode = PermissionMode.BYPASS
    return Agent(name="dev", system_prompt="You are a careful engineer.", model=ScriptedChatModel(script),
                 toolkit=Toolkit(tools=[*file_tools(), TaskCreate(), TaskGet(), TaskList(), TaskUpdate()]),
                 state=state, react_config=ReActConfig(max_iters=len(script) + 5))


async def planmode_agent(root: Path, script: list[Any]) -> Agent:
    """An agent with planmode's tools and middlewares, past an approved plan (the approval reply
    runs here, untimed)."""
    plan = PlanMode(workspace_dir=root, auto_approve_in_bypass=True)
    setup = [call_tool("plan_enter", {}), call_tool("plan_write", {"content": PLAN}), call_tool("plan_exit", {}),
             say("approved")]
    state = AgentState()
    state.permission_context.mode = PermissionMode.BYPASS
    agent = Agent(name="dev", system_prompt="You are a careful engineer.", model=ScriptedChatModel(setup),
                  toolkit=Toolkit(tools=[*file_tools(), *plan.tools()]),  # plan.tools() has the Task tools
                  middlewares=[plan.middleware(), PermissionMiddleware()],
                  state=state, react_config=ReActConfig(max_iters=len(script) + 5))
    await agent.reply(UserMsg(name="user", content="plan it"))
    assert agent.state.middle_context["planmode"]["phase"] == "building", "the setup plan was not approved"
    agent.model.extend(script)  # type: ignore[attr-defined]
    return agent


async def timed_reply(agent: Agent) -> float:
    start = time.process_time()
    await agent.reply(UserMsg(name="user", content="go"))
    return time.process_time() - start


def context_bytes(agent: Agent) -> int:
    return sum(len(msg.model_dump_json()) for msg in agent.state.context)


def state_bytes(agent: Agent) -> int:
    return len(agent.state.model_dump_json())


async def loop_section(calls: int, rounds: int) -> None:
    """The agent-loop table (see the module doc)."""
    stock_times: list[float] = []
    ours_times: list[float] = []
    sizes: dict[str, tuple[int, int]] = {}
    for r in range(rounds):
        with tempfile.TemporaryDirectory() as a, tempfile.TemporaryDirectory() as b:
            stock = stock_agent(Path(a), [*mixed_calls(Path(a), calls), say("done")])
            ours = await planmode_agent(Path(b), [*mixed_calls(Path(b), calls), say("done")])
            pair = [(stock, stock_times), (ours, ours_times)]
            for agent, times in pair if r % 2 == 0 else reversed(pair):
                times.append(await timed_reply(agent))
            sizes = {"stock": (context_bytes(stock), state_bytes(stock)), "planmode": (context_bytes(ours), state_bytes(ours))}
    diffs = [o - s for o, s in zip(ours_times, stock_times, strict=True)]
    stock_us = statistics.median(stock_times) / calls * 1e6
    ours_us = statistics.median(ours_times) / calls * 1e6
    overhead = statistics.median(diffs) / calls * 1e6
    print(f"agent loop: {calls} mixed tool calls per reply, {rounds} paired runs (median CPU time)")
    print(f"{'':<10} {'µs per call':>12} {'context bytes':>14} {'state bytes':>12}")
    print(f"{'stock':<10} {stock_us:>12,.0f} {sizes['stock'][0]:>14,} {sizes['stock'][1]:>12,}")
    print(f"{'planmode':<10} {ours_us:>12,.0f} {sizes['planmode'][0]:>14,} {sizes['planmode'][1]:>12,}")
    print(f"planmode overhead per call: {overhead:+,.0f} µs ({overhead / stock_us:+.1%})")


class PlainTodo(ToolBase):
    """A stock-style todo tool: echoes the list, keeps nothing."""

    name = "todo_write"
    description = "Replace the whole todo list."
    input_schema = {"type": "object", "properties": {"todos": {"type": "array"}}, "required": ["todos"]}
    is_concurrency_safe = True
    is_read_only = True

    async def check_permissions(self, tool_input: dict[str, Any], context: PermissionContext) -> PermissionDecision:
        return PermissionDecision(behavior=PermissionBehavior.ALLOW, message="a todo list changes nothing")

    async def call(self, todos: list[dict[str, Any]]) -> ToolChunk:
        return ToolChunk(content=[TextBlock(text=todo_summary(todos))])


def roomy(agent: Agent) -> Agent:
    """No compression during the build: the notes' footprint is what is measured."""
    agent.model.context_size = 10**9
    return agent


def todo_steps(steps: int, items: int = 10) -> list[Any]:
    """``steps`` todo_write calls; each advances one item (the list wraps around)."""
    out = []
    for step in range(steps):
        done = step % items
        todos = [{"content": f"Step {i + 1}: do part {i + 1} of the plan", "status":
                  "completed" if i < done else "in_progress" if i == done else "pending"} for i in range(items)]
        out.append(call_tool("todo_write", {"todos": todos}))
    return out


def note_bytes(agent: Agent) -> int:
    return sum(len(b.hint) for m in agent.state.context if isinstance(m.content, list)
               for b in m.content if isinstance(b, HintBlock) and b.source == HINT_SOURCE and isinstance(b.hint, str))


async def tokens(agent: Agent) -> int:
    return await agent.model.count_tokens(agent.state.context, None)


async def notes_section(steps: int) -> None:
    """The plan-notes table (see the module doc)."""
    with tempfile.TemporaryDirectory() as b:
        plain = Agent(name="dev", system_prompt="You are a careful engineer.",
                      model=ScriptedChatModel([*todo_steps(steps), say("done")]),
                      toolkit=Toolkit(tools=[PlainTodo()]), react_config=ReActConfig(max_iters=steps + 5))
        plain.state.permission_context.mode = PermissionMode.BYPASS
        plain_s = await timed_reply(roomy(plain))
        ours = roomy(await planmode_agent(Path(b), [*todo_steps(steps), say("done")]))
        before = context_bytes(ours), note_bytes(ours), await tokens(ours)
        ours_s = await timed_reply(ours)
        rows = [
            ("plain todo tool", context_bytes(plain), await tokens(plain), 0, plain_s),
            ("planmode", context_bytes(ours) - before[0], await tokens(ours) - before[2],
             note_bytes(ours) - before[1], ours_s),
        ]
    print(f"plan notes: {steps} todo_write turns in the build phase (10-item list); context added by the build")
    print(f"{'':<16} {'context bytes':>14} {'tokens':>9} {'note bytes':>11} {'ms per turn':>12}")
    for label, size, toks, notes, secs in rows:
        print(f"{label:<16} {size:>14,} {toks:>9,} {notes:>11,} {secs / steps * 1e3:>12.2f}")
    print(f"planmode / plain context: {rows[1][1] / rows[0][1]:.2f}x")


async def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--section", choices=["loop", "notes", "all"], default="all")
    parser.add_argument("--calls", type=int, default=200, help="tool calls per reply (agent loop)")
    parser.add_argument("--rounds", type=int, default=7, help="paired runs (agent loop)")
    parser.add_argument("--steps", type=int, default=1000, help="todo_write turns (plan notes)")
    args = parser.parse_args()
    if args.section in ("loop", "all"):
        await loop_section(args.calls, args.rounds)
    if args.section == "all":
        print()
    if args.section in ("notes", "all"):
        await notes_section(args.steps)


if __name__ == "__main__":
    asyncio.run(main())
