"""Deep and wide inputs: one nesting limit at every entry point (so whatever is accepted round
trips), no stack overflow at 13,000 levels, and error texts that stay short."""

from __future__ import annotations

import json
import pickle
from collections.abc import Callable
from typing import Any

import pytest
from _task_support import run, text
from agentscope.state import AgentState, Task, TaskContext

import planmode.agentscope as ours
from planmode import TaskGraph
from planmode._core import PlanBook
from planmode.exceptions import CycleError, InvalidInputError, StateLoadError

LIMIT = 100  # lists/dicts, the outermost counting as 1 (docs/tasks.md)
HUGE = 13_000


def nest(levels: int) -> Any:
    """``levels`` dicts/lists inside each other (alternating), innermost holding 0."""
    value: Any = 0
    for i in range(levels):
        value = {"k": value} if i % 2 else [value]
    return value


def metadata(levels: int) -> dict[str, Any]:
    """A metadata dict nesting ``levels`` containers deep in all (itself included)."""
    return {"m": nest(levels - 1)}


def task(levels: int) -> dict[str, Any]:
    return {"subject": "s", "description": "d", "metadata": metadata(levels), "id": "1"}


def deep_json(levels: int) -> str:
    inner = "[" * levels + "]" * levels
    return '{"tasks":[{"subject":"s","description":"d","metadata":{"m":' + inner + '},"id":"1"}]}'


ENTRY_POINTS: dict[str, Callable[[int], object]] = {
    "create": lambda n: TaskGraph().create("s", "d", metadata(n)),
    "update": lambda n: _updated(n),
    "constructor": lambda n: TaskGraph([task(n)]),
    "from_state_dict": lambda n: TaskGraph.from_state_dict({"tasks": [task(n)]}),
    "load_state_dict": lambda n: TaskGraph().load_state_dict({"tasks": [task(n)]}),
    "validate_state_dict": lambda n: TaskGraph.validate_state_dict({"tasks": [task(n)]}),
    "extra key in a task": lambda n: TaskGraph.from_state_dict({"tasks": [{**task(1), "x": nest(n)}]}),
    "extra key in the state": lambda n: TaskGraph.from_state_dict({"tasks": [], "x": nest(n)}),
    "a task that is a list": lambda n: TaskGraph.from_state_dict({"tasks": [nest(n)]}),
}


def _updated(levels: int) -> object:
    g = TaskGraph()
    g.create("s", "d")
    return g.update("1", metadata=metadata(levels))


@pytest.mark.parametrize("entry", sorted(ENTRY_POINTS))
def test_every_entry_point_refuses_too_deep_values_with_the_path(entry: str) -> None:
    for levels in (LIMIT + 1, HUGE):
        # (A task that is itself a list is refused for its type below the limit.)
        shape = "lists/dicts deep" if levels == HUGE or entry != "a task that is a list" else "Mapping"
        with pytest.raises(InvalidInputError, match=shape) as err:
            ENTRY_POINTS[entry](levels)
        assert len(str(err.value)) < 300, str(err.value)
    if entry not in ("extra key in the state", "a task that is a list"):
        ENTRY_POINTS[entry](LIMIT)  # at the limit: accepted


def test_the_path_is_named_and_loading_keeps_the_old_tasks() -> None:
    g = TaskGraph()
    g.create("kept", "")
    with pytest.raises(StateLoadError, match=r"tasks\[0\]\.metadata\.m\[0\]\.k\[0\]"):
        g.load_state_dict({"tasks": [task(HUGE)]})
    assert [t["subject"] for t in g.list()] == ["kept"]


@pytest.mark.parametrize("levels", [LIMIT + 1, 126, 127, 200, HUGE])
def test_json_and_pickle_refuse_what_create_refuses(levels: int) -> None:
    with pytest.raises(StateLoadError):
        TaskGraph.from_json(deep_json(levels - 1))
    g = TaskGraph.__new__(TaskGraph)
    with pytest.raises(StateLoadError):
        g.__setstate__(deep_json(levels - 1))


def test_whatever_is_accepted_round_trips() -> None:
    g = TaskGraph()
    g.create("s", "d", metadata(LIMIT))
    g.create("t", "d", {"wide": list(range(10_000)), "deep": nest(LIMIT - 1)})
    assert TaskGraph.from_json(g.to_json()) == g
    assert pickle.loads(pickle.dumps(g)) == g
    assert TaskGraph.from_state_dict(g.state_dict()) == g
    # And through AgentScope's own state (pydantic's JSON limits are higher).
    state = AgentState(tasks_context=TaskContext(tasks=[Task(**t) for t in g.list()]))
    again = AgentState.model_validate_json(state.model_dump_json())
    assert TaskGraph.from_state_dict(again.tasks_context.model_dump()) == g
    # The fast reader sees exactly the limit too.
    assert len(TaskGraph.from_json(deep_json(LIMIT - 1))) == 1


def test_the_drop_in_tools_refuse_too_deep_metadata_and_change_nothing() -> None:
    state = AgentState()
    create, update = ours.TaskCreate(), ours.TaskUpdate()
    refused = run(create(_agent_state=state, subject="s", description="", metadata=metadata(HUGE)))
    assert refused.state == "error"
    assert text(refused).startswith("InvalidInputError: metadata.m[0].k[0]")
    assert state.tasks_context.tasks == []
    assert run(create(_agent_state=state, subject="s", description="", metadata=metadata(LIMIT))).state != "error"
    before = state.model_dump()
    refused = run(update(_agent_state=state, task_id="1", metadata=metadata(LIMIT + 1)))
    assert refused.state == "error" and "nested more than 100" in text(refused)
    assert state.model_dump() == before
    # What the tools accepted survives AgentScope's own JSON round trip.
    assert AgentState.model_validate_json(state.model_dump_json()).model_dump() == before


def test_plan_book_conversions_refuse_too_deep_values() -> None:
    with pytest.raises(StateLoadError, match="nested more than 100"):
        PlanBook({"phase": "idle", "x": nest(HUGE)})
    book = PlanBook()
    with pytest.raises(InvalidInputError, match=r"todos\[0\].*nested more than 100"):
        book.set_todos([{"content": "a", "status": "pending", "x": nest(HUGE)}])


def test_many_edges_on_one_task() -> None:
    n = 20_000
    g = TaskGraph()
    for _ in range(n + 1):
        g.create("s", "d")
    ids = [str(i) for i in range(2, n + 2)]
    assert g.update("1", add_blocked_by=ids) == ["add_blocked_by"]
    assert g.get("1")["blocked_by"] == ids
    assert g.validate() == []
    star = g.state_dict()
    assert TaskGraph.validate_state_dict(star) == []
    assert g.update("2", status="completed") == ["status"]
    assert len(g.get("1")["blocked_by"]) == n - 1
    g.update("1", status="deleted")
    assert all(t["blocks"] == [] for t in g.list() if t["id"] != "2")


def test_a_cycle_error_on_a_long_chain_stays_short() -> None:
    n = 30_000
    tasks = [
        {"subject": "s", "description": "", "metadata": {}, "id": str(i), "blocked_by": [str(i - 1)] if i > 1 else []}
        for i in range(1, n + 1)
    ]
    for t in tasks[:-1]:
        t["blocks"] = [str(int(t["id"]) + 1)]
    g = TaskGraph(tasks)
    with pytest.raises(CycleError) as err:
        g.update("1", add_blocked_by=[str(n)])
    message = str(err.value)
    assert len(message) < 1_000, len(message)
    assert f"{n} is blocked by {n - 1}" in message and "2 is blocked by 1" in message
    assert f"{n} tasks in all" in message
    # validate() reports a loaded cycle as briefly, with every id kept in `ids`.
    tasks[0]["blocked_by"] = [str(n)]
    tasks[-1]["blocks"] = ["1"]
    (problem,) = TaskGraph.validate_state_dict({"tasks": tasks})
    assert problem["kind"] == "cycle" and len(problem["ids"]) == n + 1
    assert len(problem["message"]) < 1_000
    # The drop-in tool's refusal text too.
    state = AgentState(tasks_context=TaskContext(tasks=[Task(**t) for t in tasks[:-1]] + [Task(**{**tasks[-1], "blocks": []})]))
    state.tasks_context.tasks[0].blocked_by = []
    refused = run(ours.TaskUpdate()(_agent_state=state, task_id="1", add_blocked_by=[str(n)]))
    assert refused.state == "error" and len(text(refused)) < 1_000


def test_long_ids_are_cut_in_error_texts() -> None:
    g = TaskGraph()
    g.create("s", "d")
    with pytest.raises(InvalidInputError) as err:
        g.update("1", add_blocked_by=["x" * 100_000])
    assert len(str(err.value)) < 400
    assert json.dumps(str(err.value))  # plain text
