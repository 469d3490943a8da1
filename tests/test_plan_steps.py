"""Plan steps with stable ids: parsed from numbered and task-list items, kept across re-orderings and
re-wordings, diffed per step between revisions, carried by the todos seeded on approval."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from _plan_support import confirm_request, make_agent, results, run, text_of
from hypothesis import given, settings, strategies as st

from planmode._core import PlanBook
from planmode.agentscope import answer_plan, call_tool, plan_status, say
from planmode.exceptions import InvalidInputError

V1 = "# Plan\n\n## Steps\n1. Read the parser\n2. Change the date check in `parse.py`\n3. Run the tests\n"
V2 = ("# Plan\n\n## Steps\n1. Run the **whole** test suite first\n2. Read the parser\n"
      "3. Change the date check in parse.py and its caller\n4. Update the changelog\n")


async def test_ids_survive_a_revision_and_todos_carry_them(tmp_path: Path) -> None:
    agent, model, _ = make_agent(tmp_path, [
        call_tool("plan_enter", {}), call_tool("plan_write", {"content": V1}), call_tool("plan_exit", {}),
    ])
    request = confirm_request(await run(agent))
    first = plan_status(agent)
    assert [(s["id"], s["text"]) for s in first.steps] == [
        ("s1", "Read the parser"), ("s2", "Change the date check in `parse.py`"), ("s3", "Run the tests")]
    assert [c["change"] for c in first.step_changes or []] == ["added"] * 3
    model.extend([call_tool("plan_write", {"content": V2}), call_tool("plan_exit", {})])
    request = confirm_request(await run(agent, answer_plan(request, "request_changes", feedback="tests first")))
    second = plan_status(agent)
    assert [s["id"] for s in second.steps] == ["s3", "s1", "s2", "s4"]
    changes = {c["id"]: (c["change"], c["moved"]) for c in second.step_changes or []}
    assert changes == {"s3": ("changed", True), "s2": ("changed", False), "s4": ("added", False)}
    assert second.revisions[-1]["step_ids"] == ["s3", "s1", "s2", "s4"]
    # Approval seeds todos carrying their step ids; a todo_write that omits them keeps the link.
    model.extend([call_tool("todo_write", {"todos": [
        {"content": "Run the **whole** test suite first", "status": "completed"},
        {"content": "Read the parser", "status": "in_progress"},
        {"content": "Change the date check in parse.py and its caller", "status": "pending"},
        {"content": "Update the changelog", "status": "pending"},
        {"content": "An extra chore", "status": "pending"}]}, "t1"), say("working")])
    await run(agent, answer_plan(request, "approve"))
    assert results(agent)["t1"].state != "error", text_of(results(agent)["t1"])
    status = plan_status(agent)
    assert [t.get("step_id") for t in status.todos] == ["s3", "s1", "s2", "s4", None]
    assert [(s["id"], s["status"]) for s in status.steps] == [
        ("s3", "completed"), ("s1", "in_progress"), ("s2", "pending"), ("s4", "pending")]


async def test_a_wrong_step_id_is_an_error_and_changes_nothing(tmp_path: Path) -> None:
    good = [{"content": "a", "status": "in_progress", "step_id": "s1"}]
    agent, _, _ = make_agent(tmp_path, [
        call_tool("todo_write", {"todos": good}, "t0"),
        call_tool("todo_write", {"todos": [{"content": "b", "status": "in_progress", "step_id": "1; rm"}]}, "t1"),
        say("ok")])
    await run(agent)
    assert results(agent)["t1"].state == "error"
    assert "step_id of todo 1 (\"b\") must be a plan step id" in text_of(results(agent)["t1"])
    assert plan_status(agent).todos == good


def _book(*texts: str, kept: int = 50) -> PlanBook:
    book = PlanBook(max_revisions_kept=kept)
    book.bind("k", "plans/PLAN.md", "/tmp/w")
    book.enter()
    for text in texts:
        book.write(text)
    return book


def test_task_list_items_are_steps_and_removed_ids_are_not_reused() -> None:
    book = _book("- [ ] Write the parser\n- [x] Add a test\n", "- [ ] Add a test\n", "- [ ] Add a test\n- [ ] Ship it\n")
    assert [s["id"] for s in book.steps(1)] == ["s1", "s2"]
    assert [s["id"] for s in book.steps(2)] == ["s2"]
    assert [(s["id"], s["text"]) for s in book.steps()] == [("s2", "Add a test"), ("s3", "Ship it")]
    assert book.step_diff(1, 3) == [
        {"id": "s3", "change": "added", "text": "Ship it", "old_text": None, "moved": False},
        {"id": "s1", "change": "removed", "text": None, "old_text": "Write the parser", "moved": False}]
    assert book.step_diff(2, 2) == []


def test_unknown_and_pruned_revisions_are_clear_errors() -> None:
    book = _book("1. a\n", "1. a\n2. b\n", "1. b\n2. a\n", kept=1)
    with pytest.raises(InvalidInputError, match="there is no plan revision 9"):
        book.steps(9)
    with pytest.raises(InvalidInputError, match="text of plan revision 1 was pruned"):
        book.step_diff(1, 3)
    assert [s["id"] for s in book.steps()] == ["s2", "s1"]  # ids survive pruning of the text
    assert PlanBook().steps() == [] and PlanBook().step_diff() == []


def test_a_state_stored_before_step_ids_numbers_steps_in_order() -> None:
    state = _book("1. a\n2. b\n").to_state()
    for revision in state["revisions"]:
        revision.pop("step_ids")
    book = PlanBook(state)
    assert [s["id"] for s in book.steps()] == ["s1", "s2"]
    book.write("1. b\n2. a\n3. c\n")
    assert [s["id"] for s in book.steps()] == ["s2", "s1", "s3"]


def test_pruned_previous_revision_gives_unknown_changes_in_status(tmp_path: Path) -> None:
    from agentscope.state import AgentState

    state = AgentState()
    state.middle_context["planmode"] = _book("1. a\n", "1. a\n2. b\n", kept=1).to_state()
    status = plan_status(state)
    assert [s["id"] for s in status.steps] == ["s1", "s2"] and status.step_changes is None


WORDS = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=3, max_size=8)
STEP = st.lists(WORDS, min_size=2, max_size=5).map(" ".join)


@settings(max_examples=60, deadline=None)
@given(st.lists(STEP, min_size=1, max_size=8, unique_by=lambda s: frozenset(s.split())), st.randoms())
def test_reordering_keeps_every_id_and_only_moves(steps: list[str], rnd: Any) -> None:
    shuffled = steps[:]
    rnd.shuffle(shuffled)
    book = _book("".join(f"{i}. {s}\n" for i, s in enumerate(steps, 1)),
                 "".join(f"- [ ] {s}\n" for s in shuffled))
    before = {s["text"]: s["id"] for s in book.steps(1)}
    assert [s["id"] for s in book.steps()] == [before[s] for s in shuffled]
    assert {c["change"] for c in book.step_diff()} <= {"moved"}


@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(STEP, min_size=0, max_size=6), min_size=1, max_size=5))
def test_ids_are_unique_per_revision_and_never_reused_after_removal(revisions: list[list[str]]) -> None:
    book = _book(*["# Plan\n" + "".join(f"{i}. {s}\n" for i, s in enumerate(r, 1)) for r in revisions])
    seen: set[str] = set()
    previous: set[str] = set()
    for revision in book.revisions:
        ids = revision.get("step_ids", [])
        assert len(ids) == len(set(ids))
        current = set(ids)
        assert not (current - previous) & seen, "an id removed earlier came back"
        seen |= previous
        previous = current
