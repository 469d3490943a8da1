"""The in-memory view of the stored plan state: an unchanged state is not parsed again, and any
change to the stored value (replaced, edited in place at any depth, restored, another state's) is
seen, as a fresh load would see it."""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from _plan_support import PLAN, hints, make_agent, run
from agentscope.agent import Agent
from agentscope.permission import PermissionMode
from agentscope.state import AgentState

from planmode._core import PlanBook
from planmode.agentscope import PlanMode, call_tool, plan_status, say
from planmode.agentscope._plan import _state
from planmode.exceptions import PlanModeError

TODOS = [{"content": "Read the code", "status": "in_progress"}, {"content": "Change the check", "status": "pending"}]


def built_agent(tmp_path: Path, then: list[Any] | None = None) -> Agent:
    """A real agent that planned, got its plan approved (BYPASS policy) and wrote its todos."""
    plan = PlanMode(workspace_dir=tmp_path, auto_approve_in_bypass=True)
    script = [call_tool("plan_enter", {}), call_tool("plan_write", {"content": PLAN}), call_tool("plan_exit", {}),
              call_tool("todo_write", {"todos": TODOS}), say("ready"), *(then or [])]
    agent, _, _ = make_agent(tmp_path, script, plan=plan, mode=PermissionMode.BYPASS)
    return agent


def raw(agent: Agent) -> dict[str, Any]:
    return agent.state.middle_context[_state.STATE_KEY]


def _nested_status(a: Agent) -> None:
    raw(a)["todos"][0]["status"] = "completed"
    raw(a)["todos"][1]["status"] = "in_progress"


def _list_append(a: Agent) -> None:
    raw(a)["todos"].append({"content": "Run the tests", "status": "pending"})


def _list_pop(a: Agent) -> None:
    raw(a)["todos"].pop()


def _todos_replaced(a: Agent) -> None:
    raw(a)["todos"] = [{"content": "Something else", "status": "in_progress"}]


def _dict_replaced(a: Agent) -> None:
    value = copy.deepcopy(raw(a))
    value["todos"][0]["content"] = "Replaced dict"
    a.state.middle_context[_state.STATE_KEY] = value


def _restored_state(a: Agent) -> None:
    dumped = a.state.model_dump(mode="json")
    dumped["middle_context"][_state.STATE_KEY]["todos"][1]["status"] = "in_progress"
    dumped["middle_context"][_state.STATE_KEY]["todos"][0]["status"] = "completed"
    a.state = AgentState.model_validate(dumped)


def _other_agents_state(a: Agent) -> None:
    other = AgentState()
    value = copy.deepcopy(raw(a))
    value["todos"] = [{"content": "Other agent's todo", "status": "in_progress"}]
    other.middle_context[_state.STATE_KEY] = value
    _state.load(other)  # the other state has a view of its own
    a.state.middle_context[_state.STATE_KEY] = other.middle_context[_state.STATE_KEY]


def _revision_text(a: Agent) -> None:
    raw(a)["revisions"][-1]["content"] = "# Tampered\n"


def _phase(a: Agent) -> None:
    raw(a)["phase"] = "planning"


def _invalid_phase(a: Agent) -> None:
    raw(a)["phase"] = "nonsense"


def _audit_trimmed(a: Agent) -> None:
    raw(a)["audit"].pop()


def _key_removed(a: Agent) -> None:
    del raw(a)["todos"]


EDITS: list[Callable[[Agent], None]] = [
    _nested_status, _list_append, _list_pop, _todos_replaced, _dict_replaced, _restored_state,
    _other_agents_state, _revision_text, _phase, _invalid_phase, _audit_trimmed, _key_removed,
]


def fresh(state: AgentState) -> tuple[str, Any]:
    """What a load without any view gives: the book's state, or the error."""
    try:
        return "ok", PlanBook(copy.deepcopy(state.middle_context.get(_state.STATE_KEY))).to_state()
    except PlanModeError as exc:
        return "error", str(exc)


def viewed(state: AgentState) -> tuple[str, Any]:
    try:
        return "ok", _state.load(state).to_state()
    except PlanModeError as exc:
        return "error", str(exc)


@pytest.mark.parametrize("edit", EDITS, ids=lambda f: f.__name__.strip("_"))
async def test_every_change_of_the_stored_state_is_seen(tmp_path: Path, edit: Callable[[Agent], None]) -> None:
    agent = built_agent(tmp_path)
    await run(agent)
    assert viewed(agent.state) == fresh(agent.state)  # warm: the view now holds this state
    before = viewed(agent.state)
    edit(agent)
    after = viewed(agent.state)
    assert after == fresh(agent.state)
    assert after != before


@pytest.mark.parametrize("edit", [_nested_status, _list_append, _todos_replaced, _dict_replaced, _restored_state],
                         ids=lambda f: f.__name__.strip("_"))
async def test_the_model_sees_todos_edited_between_turns(tmp_path: Path, edit: Callable[[Agent], None]) -> None:
    agent = built_agent(tmp_path, [say("again")])
    await run(agent)
    _state.load(agent.state)  # warm view
    edit(agent)
    expected = plan_status(agent).todos
    await run(agent, "continue")
    shown = hints(agent.model)
    assert expected != TODOS
    for item in expected:
        assert item["content"] in shown
    assert _state.load(agent.state).todos == PlanBook(raw(agent)).todos


def test_a_loaded_book_does_not_alias_the_view() -> None:
    state = AgentState()
    book = _state.load(state)
    book.enter("user")
    _state.save(state, book)
    first = _state.load(state)
    first.set_todos(TODOS)  # changed, not saved
    assert _state.load(state).todos == []
    assert _state.load(state) is not _state.load(state)
    book.set_todos(TODOS)  # the saved book is the caller's too: changing it later changes no view
    assert _state.load(state).todos == []


def test_limits_are_part_of_the_view() -> None:
    state = AgentState()
    book = _state.load(state)
    book.enter("user")
    for i in range(5):
        book.write(f"{PLAN}\n{i}\n")
    _state.save(state, book)
    kept = _state.load(state, max_revisions_kept=2).to_state()
    assert kept == PlanBook(copy.deepcopy(raw_of(state)), max_revisions_kept=2).to_state()
    assert _state.load(state).to_state() == PlanBook(copy.deepcopy(raw_of(state))).to_state()


def raw_of(state: AgentState) -> dict[str, Any]:
    return state.middle_context[_state.STATE_KEY]


async def test_unchanged_state_is_not_parsed_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    builds: list[int] = []
    saves: list[int] = []
    real_build, real_save = _state.build, _state.save

    def counting_build(*args: Any, **kwargs: Any) -> PlanBook:
        builds.append(1)
        return real_build(*args, **kwargs)

    def counting_save(*args: Any, **kwargs: Any) -> None:
        saves.append(1)
        real_save(*args, **kwargs)

    monkeypatch.setattr(_state, "build", counting_build)
    monkeypatch.setattr(_state, "save", counting_save)
    per_turn: list[tuple[int, int]] = []

    def turn(action: Any) -> Any:
        def step(messages: Any, tools: Any) -> Any:
            per_turn.append((len(builds), len(saves)))
            return action
        return step

    todo_steps = [call_tool("todo_write", {"todos": [dict(t, content=f"{t['content']} {i}") for t in TODOS]})
                  for i in range(4)]
    agent = built_agent(tmp_path, [turn(s) for s in [*todo_steps, say("a"), say("b")]])
    await run(agent)  # plan, approve, first todos: the view is warm after this
    await run(agent, "build")  # four todo_write turns, then a plain turn
    await run(agent, "again")  # one plain turn
    counts = [(b2 - b1, s2 - s1) for (b1, s1), (b2, s2) in zip(per_turn, per_turn[1:], strict=False)]
    todo_turns, plain = counts[:4], counts[4:]
    assert all(b == 0 for b, _ in plain), counts  # an unchanged state: no PlanBook built
    assert all(s == 0 for _, s in plain), counts
    assert all(b <= 1 and s <= 1 for b, s in todo_turns), counts  # a plan tool: at most one load and one store
    assert sum(b for b, _ in todo_turns) == 0, counts  # the view follows its own stores


def test_loads_with_different_limits_each_keep_their_view(monkeypatch: pytest.MonkeyPatch) -> None:
    builds: list[int] = []
    real_build = _state.build
    monkeypatch.setattr(_state, "build", lambda *a, **k: builds.append(1) or real_build(*a, **k))
    state = AgentState()
    book = _state.load(state)
    book.enter("user")
    _state.save(state, book)  # a book built from no state: no view knows its limits yet
    builds.clear()
    for _ in range(5):
        _state.load(state)
        _state.load(state, max_revisions_kept=3)
    assert len(builds) == 2  # one parse per limits, then peeks
