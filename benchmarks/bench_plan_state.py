"""Plan state size and ``plan_write`` time at 10 / 1,000 / 10,000 revisions, bounded (the defaults) next
to unbounded (every revision's text and record kept, as before bounding), in one process.

One ``plan_write`` through the real tool: load the state from ``middle_context``, record the revision,
write the plan file, store the state back (what every plan_write costs on every node; with AgentScope's
app the stored state is also what is rewritten to Redis). DONT_ASK refusals are mixed in (one per ten
revisions) to show that they fold.

Then one model turn's plan-mode work (the gate's note: load the book, read phase, todos, banner) at
1,000 revisions through a real Agent's middleware, with the in-memory view (an unchanged state is
a peek) next to a full reload (the view dropped before each turn: what every turn cost before).

    .venv/bin/python benchmarks/bench_plan_state.py
"""

from __future__ import annotations

import asyncio
import gc
import json
import tempfile
import time
from pathlib import Path
from typing import Any

from agentscope.agent import Agent
from agentscope.state import AgentState
from agentscope.tool import Toolkit

from planmode._core import PlanBook
from planmode.agentscope import PlanMode, ScriptedChatModel, enter_plan_mode
from planmode.agentscope._plan import _state, _view

COUNTS = (10, 1_000, 10_000)
PLAN = "# Plan\n\n## Goal\nShip the fix.\n\n## Steps\n" + "".join(f"{i}. Step {i} of the plan\n" for i in range(1, 9))
UNBOUNDED = {"max_revisions_kept": 100_000, "max_revision_records": 100_000, "max_audit_entries": 1_000_000}


def grow(state: AgentState, count: int, bounds: dict[str, int]) -> None:
    """Writes ``count`` revisions straight through the core (fast set-up), with a refusal every 10."""
    book = _state.load(state, **bounds)
    for i in range(count):
        book.write(f"{PLAN}\nrevision {i}\n")
        if i % 10 == 0:  # a model retrying plan_exit under DONT_ASK: three refusals in a row
            for _ in range(3):
                book.record_exit_refused("DONT_ASK: no human available to approve the plan")
    _state.save(state, book)


def write_time_us(plan: PlanMode, state: AgentState, repeats: int = 30) -> float:
    """Median microseconds of one plan_write tool call (load, record, write the file, store)."""
    tool = next(t for t in plan.tools() if t.name == "plan_write")

    async def once(i: int) -> float:
        start = time.perf_counter()
        chunk = await tool.call(state, content=f"{PLAN}\nmeasured {i}\n")
        assert chunk.state.value == "success", chunk  # a refusal would time the error path
        return (time.perf_counter() - start) * 1e6

    gc.disable()
    try:
        times = sorted(asyncio.run(once(i)) for i in range(repeats))
    finally:
        gc.enable()
    return times[len(times) // 2]


def state_time_us(state: AgentState, bounds: dict[str, int], repeats: int = 30) -> float:
    """Median microseconds of the state part alone: load the book, record a revision, store it."""
    times = []
    for i in range(repeats):
        start = time.perf_counter()
        book = _state.load(state, **bounds)
        book.write(f"{PLAN}\nstate-only {i}\n")
        _state.save(state, book)
        times.append((time.perf_counter() - start) * 1e6)
    return sorted(times)[len(times) // 2]


def measure(count: int, bounds: dict[str, int]) -> tuple[int, float, float, dict[str, Any]]:
    """State bytes, plan_write µs, state-only µs and the trimmed counts after ``count`` revisions."""
    with tempfile.TemporaryDirectory() as root:
        plan = PlanMode(workspace_dir=root, **bounds)
        state = AgentState()
        enter_plan_mode(state)
        plan.files.bind(state, "bench", assign=True)
        plan.note_gated(state)  # the tool is driven directly, as the gate does once it serves the agent
        grow(state, count, bounds)
        size = len(json.dumps(state.middle_context[_state.STATE_KEY]))
        micros = write_time_us(plan, state)
        state_micros = state_time_us(state, bounds)
        return size, micros, state_micros, PlanBook(state.middle_context[_state.STATE_KEY], **bounds).trimmed


def turn_time_us(count: int, bounds: dict[str, int], reload: bool, repeats: int = 200) -> float:
    """Median microseconds of one model turn's plan-mode note (``on_reasoning``'s state part) after
    ``count`` revisions; ``reload`` drops the view before each turn (the cost without it)."""
    with tempfile.TemporaryDirectory() as root:
        plan = PlanMode(workspace_dir=root, **bounds)
        state, gate = AgentState(), plan.middleware()
        agent = Agent(name="bench", system_prompt="bench", model=ScriptedChatModel([]),
                      toolkit=Toolkit(tools=plan.tools()), middlewares=[gate], state=state)
        enter_plan_mode(state)
        plan.files.bind(state, "bench", assign=True)
        grow(state, count, bounds)
        times = []
        for _ in range(repeats):
            if reload:
                _view._VIEWS.clear()
            start = time.perf_counter()
            gate._note(agent)
            times.append((time.perf_counter() - start) * 1e6)
        return sorted(times)[len(times) // 2]


def main() -> None:
    """Prints one row per revision count: bounded and unbounded side by side, and their ratios."""
    defaults = {"max_revisions_kept": 20, "max_revision_records": 200, "max_audit_entries": 200}
    print("plan_write = the whole tool call (includes the fsync'd atomic file write); state = load, record, store")
    print(f"{'revisions':>10} {'bounded KB':>11} {'unbounded KB':>13} {'size x':>7} {'plan_write µs':>14} "
          f"{'unbounded':>10} {'state µs':>9} {'unbounded':>10} {'state x':>8}  trimmed (bounded)")  # fmt: skip
    for count in COUNTS:
        size, micros, smicros, trimmed = measure(count, defaults)
        usize, umicros, usmicros, _ = measure(count, UNBOUNDED)
        print(f"{count:>10,} {size / 1024:>11.1f} {usize / 1024:>13.1f} {usize / size:>7.1f} {micros:>14.0f} "
              f"{umicros:>10.0f} {smicros:>9.0f} {usmicros:>10.0f} {usmicros / smicros:>8.1f}  {trimmed}")  # fmt: skip
    print(f"(defaults: {defaults}; plan text {len(PLAN)} bytes; Path: {Path(__file__).name})")
    print("\none model turn's plan-mode note at 1,000 revisions (median µs): view (unchanged state) vs full reload")
    for label, bounds in (("bounded", defaults), ("unbounded", UNBOUNDED)):
        viewed, reloaded = turn_time_us(1_000, bounds, False), turn_time_us(1_000, bounds, True)
        print(f"{label:>10}: view {viewed:>8.1f} µs   reload {reloaded:>8.1f} µs   reload/view {reloaded / viewed:>6.1f}x")


if __name__ == "__main__":
    main()
