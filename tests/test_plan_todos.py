"""todo_write: a whole-list replace; invalid items are errors naming the item, and the list
is shown to the model on its next call."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from _plan_support import hints, make_agent, results, run, text_of
from hypothesis import given, settings, strategies as st

from planmode._core import PlanBook
from planmode.agentscope import call_tool, plan_status, say
from planmode.exceptions import InvalidInputError

GOOD = [{"content": "Read the code", "status": "completed"},
        {"content": "Change the check", "status": "in_progress", "priority": "high"},
        {"content": "Run the tests", "status": "pending"}]


@pytest.mark.parametrize(("todos", "message"), [
    ([{"content": "a", "status": "done"}], 'invalid status "done" for todo 1 ("a")'),
    ([{"content": "a", "status": "in_progress"}, {"content": "  ", "status": "pending"}], "todo 2 has blank content"),
    ([{"content": "a", "status": "in_progress"}, {"content": "b", "status": "in_progress"}],
     "exactly one todo must be in_progress"),
    ([{"content": "a", "status": "pending"}], "but none is"),
    ([{"content": "a", "status": "in_progress", "priority": "urgent"}], 'invalid priority "urgent" for todo 1'),
    ([{"content": "a", "status": "in_progress"}, {"content": "a", "status": "pending"}], "todo 2 (\"a\") duplicates todo 1"),
    ([{"content": "a", "status": "in_progress", "owner": "me"}], 'unknown field "owner"'),
])
async def test_invalid_lists_are_errors_naming_the_item(tmp_path: Path, todos: list[dict[str, Any]], message: str) -> None:
    agent, _, _ = make_agent(tmp_path, [call_tool("todo_write", {"todos": GOOD}, "t0"),
                                        call_tool("todo_write", {"todos": todos}, "t1"), say("ok")])
    await run(agent)
    res = results(agent)["t1"]
    assert res.state == "error" and message in text_of(res), text_of(res)
    assert plan_status(agent).todos == GOOD  # unchanged


async def test_valid_list_replaces_and_is_shown(tmp_path: Path) -> None:
    agent, model, _ = make_agent(tmp_path, [call_tool("todo_write", {"todos": GOOD}, "t"), say("ok")])
    await run(agent)
    text = text_of(results(agent)["t"])
    assert text.startswith("Todo list updated: 1 in progress, 1 pending, 1 completed.")
    assert "- [~] Change the check (priority: high)" in text
    assert "<todos>" in hints(model) and "- [x] Read the code" in hints(model)
    model.extend([call_tool("todo_write", {"todos": []}, "t2"), say("cleared")])
    await run(agent, "clear")
    assert text_of(results(agent)["t2"]) == "Todo list cleared (0 items)."
    assert plan_status(agent).todos == []


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(["pending", "in_progress", "completed"]), max_size=6))
def test_exactly_one_in_progress_rule(statuses: list[str]) -> None:
    todos = [{"content": f"t{i}", "status": s} for i, s in enumerate(statuses)]
    book = PlanBook()
    open_items = any(s != "completed" for s in statuses)
    valid = not open_items or statuses.count("in_progress") == 1
    if valid:
        assert book.set_todos(todos) == todos
    else:
        with pytest.raises(InvalidInputError):
            book.set_todos(todos)
        assert book.todos == []


async def test_todos_alone_leave_no_plan_file(tmp_path: Path) -> None:
    agent, _, _ = make_agent(tmp_path, [call_tool("todo_write", {"todos": GOOD}), say("ok")])
    await run(agent)
    assert plan_status(agent).plan_path is None and not (tmp_path / "plans").exists()
