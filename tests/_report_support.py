"""Generated runs for the report tests and benchmark: real ``PlanBook`` state machines driven through
scripted scenarios, stored in real ``AgentState`` objects, with the tallies each scenario implies."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from agentscope.message import Msg, TextBlock
from agentscope.state import AgentState

from planmode._core import PlanBook
from planmode.agentscope._plan._state import STATE_KEY

ACTORS = ("user:alice", "admin:bob", "api", "policy")
SCENARIOS = ("never", "planning_empty", "planning_plan", "awaiting", "approved", "forced_plan", "forced_empty")


def _at(t: int) -> str:
    return f"2026-03-01T{t // 3600:02d}:{t // 60 % 60:02d}:{t % 60:02d}Z"


@dataclass
class Expected:
    """What a report over the generated runs must say, tallied from the scenarios (not from the states)."""

    outcomes: Counter[str] = field(default_factory=Counter)
    exits: Counter[str] = field(default_factory=Counter)
    revisions: list[int] = field(default_factory=list)
    changes: list[int] = field(default_factory=list)
    latencies: list[int] = field(default_factory=list)
    by_actor: Counter[tuple[str, str]] = field(default_factory=Counter)
    todos: Counter[str] = field(default_factory=Counter)


def _plan(rng: random.Random, n: int) -> str:
    return "# Plan\n\n" + "".join(f"{i}. step {i} {rng.random():.6f}\n" for i in range(1, n + 1))


def _force_exit(book: PlanBook, t: int, expected: Expected, outcome: str) -> None:
    """An admin forces ``book`` out of plan mode 5 s after ``t``, leaving ``outcome``."""
    book.force_exit("admin:ops", at=_at(t + 5))
    expected.outcomes[outcome] += 1
    expected.exits["forced"] += 1


def _run(rng: random.Random, scenario: str, expected: Expected) -> dict[str, Any] | None:
    """Drives one PlanBook through ``scenario``; None for a run that never used plan mode."""
    if scenario == "never":
        expected.outcomes["never_entered"] += 1
        return None
    book = PlanBook()
    book.bind("key", ".planmode/PLAN.md", "/tmp/ws")
    t = rng.randrange(0, 3600)
    book.enter("model", at=_at(t))
    if scenario == "planning_empty":
        expected.outcomes["planning_without_plan"] += 1
    elif scenario == "forced_empty":
        _force_exit(book, t, expected, "exited_without_plan")
    else:
        t += 1
        book.write(_plan(rng, 4), at=_at(t))
        if scenario == "planning_plan":
            expected.outcomes["planning_with_plan"] += 1
        elif scenario == "awaiting":
            book.request_exit("r", "c", at=_at(t + 1))
            expected.outcomes["planning_with_plan"] += 1
        elif scenario == "forced_plan":
            _force_exit(book, t, expected, "exited_with_plan")
        else:
            changes = rng.randrange(0, 3)
            for revision in range(1, changes + 2):
                if revision > 1:
                    t += 3
                    book.write(_plan(rng, 3 + revision), at=_at(t))
                t += 1
                book.request_exit(f"r{revision}", f"c{revision}", at=_at(t))
                wait = rng.randrange(1, 600)
                actor = rng.choice(ACTORS)
                decision = "request_changes" if revision <= changes else "approve"
                t += wait
                book.decide(decision, actor, revision=revision, at=_at(t),
                            feedback="more detail" if decision == "request_changes" else None)
                expected.latencies.append(wait)
                expected.by_actor[(actor.split(":")[0], decision)] += 1
            expected.outcomes["exited_with_plan"] += 1
            expected.exits["approved"] += 1
            expected.revisions.append(changes + 1)
            expected.changes.append(changes)
            book.seed_todos_from_plan()
            todos = book.todos
            done = rng.randrange(0, len(todos) + 1)
            for i, todo in enumerate(todos):
                todo["status"] = "completed" if i < done else ("in_progress" if i == done else "pending")
            book.set_todos(todos)
            expected.todos.update(td["status"] for td in todos)
    return book.to_state()


def generated_states(count: int, seed: int = 7, context_messages: int = 6) -> tuple[list[AgentState], Expected]:
    """``count`` runs cycling through every scenario, each an AgentState with a short conversation."""
    rng = random.Random(seed)
    expected = Expected()
    states = []
    for i in range(count):
        state = AgentState()
        for j in range(context_messages):
            role = "user" if j % 2 == 0 else "assistant"
            state.context.append(Msg(name=role, role=role, content=[TextBlock(text=f"message {j} " * 20)]))
        plan_state = _run(rng, SCENARIOS[i % len(SCENARIOS)], expected)
        if plan_state is not None:
            state.middle_context[STATE_KEY] = plan_state
        states.append(state)
    return states, expected
