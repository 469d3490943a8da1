"""The plan as a contract: a structured plan_write rendered into the one plan file, read back to the
same steps, ids, files and scope; progress mirrored into the file (completed steps ticked) without a
new revision, never taken for a human edit, while any other edit still is one."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from _plan_support import confirm_request, make_agent, results, run, text_of
from agentscope.state import AgentState
from hypothesis import given, settings, strategies as st

from planmode._core import PlanBook, PlanWorkspace, plan_steps, render_plan
from planmode.agentscope import PlanMode, answer_plan, call_tool, plan_status, say
from planmode.exceptions import InvalidInputError

STEPS = [
    {"id": "read", "description": "Read `parse.py` and its tests", "files": ["src/parse.py"]},
    {"description": "Change the date check", "files": ["src/parse.py", "tests/test_parse.py"],
     "action": "edit"},
    {"id": "docs", "description": "Note it in the changelog", "files": ["CHANGES.md"], "action": "edit"},
]
STRUCTURED = {
    "content": "# Fix the date parser\n\nDates without a time zone are dropped.",
    "steps": STEPS,
    "risks": ["Callers may rely on the old behaviour"],
    "prerequisites": ["The test suite passes"],
    "verification": ["pytest -q tests/test_parse.py"],
    "scope": {"paths": ["docs/**/*.md"], "commands": ["pytest -q*"]},
}


def _todos(*done: int, total: int = 3) -> list[dict[str, Any]]:
    texts = [s["description"] for s in STEPS]
    first_open = next((i for i in range(total) if i not in done), None)
    return [{"content": texts[i], "status": "completed" if i in done else
             "in_progress" if i == first_open else "pending"} for i in range(total)]


async def _approved(root: Path, **kwargs: Any) -> tuple[Any, Any, Path]:
    agent, model, _ = make_agent(root, [
        call_tool("plan_enter", {}), call_tool("plan_write", STRUCTURED, "w1"), call_tool("plan_exit", {}),
    ], **kwargs)
    request = confirm_request(await run(agent))
    assert request is not None, text_of(results(agent)["w1"])
    model.extend([say("building")])
    await run(agent, answer_plan(request, "approve"))
    return agent, model, root / "plans" / "PLAN.md"


async def test_structured_plan_to_ticked_file_and_a_later_human_edit(tmp_path: Path) -> None:
    agent, model, plan_file = await _approved(tmp_path)
    approved = plan_file.read_text()
    status = plan_status(agent)
    assert status.phase == "building" and status.revision == status.approved_revision == 1
    # The file is the rendering; the parsers read it back to the same steps, ids, files and scope.
    assert approved.startswith("# Fix the date parser\n") and "## Risks\n\n- Callers may rely" in approved
    assert [(s["id"], s["text"], s["files"], s["action"]) for s in status.steps] == [
        ("read", "Read `parse.py` and its tests", ["src/parse.py"], None),
        ("s1", "Change the date check", ["src/parse.py", "tests/test_parse.py"], "edit"),
        ("docs", "Note it in the changelog", ["CHANGES.md"], "edit")]
    book = PlanBook(agent.state.middle_context["planmode"])
    assert book.approved_scope() == {"paths": ["docs/**/*.md", "src/parse.py", "tests/test_parse.py", "CHANGES.md"],
                                     "commands": ["pytest -q*"]}
    # Todos seeded on approval carry the step ids; todo_write completes steps and the file shows ticks.
    assert [t["step_id"] for t in status.todos] == ["read", "s1", "docs"]
    model.extend([call_tool("todo_write", {"todos": _todos(0)}, "t1"),
                  call_tool("todo_write", {"todos": _todos(0, 1)}, "t2"), say("two done")])
    await run(agent, "continue")
    assert results(agent)["t2"].state == "success", text_of(results(agent)["t2"])
    ticked = plan_file.read_text()
    assert "1. [x] Read `parse.py` and its tests" in ticked and "2. [x] Change the date check" in ticked
    assert "3. [ ] Note it in the changelog" in ticked
    assert ticked.replace("[x]", "[ ]") == approved, "only the marks changed"
    status = plan_status(agent)
    assert status.revision == 1 and len(status.revisions) == 1, "no new revision to re-approve"
    assert [s["id"] for s in status.steps] == ["read", "s1", "docs"] and plan_steps(ticked) == plan_steps(approved)
    assert [s["status"] for s in status.steps] == ["completed", "completed", "in_progress"]
    workspace = PlanWorkspace(tmp_path)
    book = PlanBook(agent.state.middle_context["planmode"])
    assert book.human_edit(workspace) is None and book.sync_file(workspace) is None
    assert book.inspect_file(workspace)["edited_on_disk"] is False  # type: ignore[index]
    # A later human edit is still one: left alone by the mirror, then recorded as a user revision.
    edited = ticked.replace("Note it in the changelog", "Note it in the changelog and the docs")
    plan_file.write_text(edited)
    model.extend([call_tool("todo_write", {"todos": _todos(0, 1, 2)}, "t3"), say("all done")])
    await run(agent, "finish")
    assert "the user has edited the plan file" in text_of(results(agent)["t3"])
    assert plan_file.read_text() == edited, "a human edit is never written over"
    book = PlanBook(agent.state.middle_context["planmode"])
    assert book.human_edit(workspace) == edited
    assert book.sync_file(workspace) == 2
    assert book.revisions[-1]["edited_by_user"] and book.approved_revision == 1
    assert [s["id"] for s in book.steps()] == ["read", "s1", "docs"], "ids survive the edit"


async def test_restart_keeps_the_mirror_and_re_entry_ends_it(tmp_path: Path) -> None:
    agent, model, plan_file = await _approved(tmp_path)
    model.extend([call_tool("todo_write", {"todos": _todos(0)}, "t1"), say("one done")])
    await run(agent, "continue")
    dumped = agent.state.model_dump_json()
    # Another machine: a fresh workspace, the state restored from its JSON dump.
    machine_b = tmp_path / "machine-b"
    machine_b.mkdir()
    state = AgentState.model_validate_json(dumped)
    agent2, model2, _ = make_agent(machine_b, [call_tool("todo_write", {"todos": _todos(0, 1)}, "t2"),
                                               say("two done")], plan=PlanMode(workspace_dir=machine_b),
                                   state=state)
    await run(agent2, "continue")
    file_b = (machine_b / "plans" / "PLAN.md").read_text()
    assert "1. [x] Read" in file_b and "2. [x] Change" in file_b and "3. [ ] Note" in file_b
    assert plan_status(agent2).revision == 1
    # Re-entering plan mode ends the mirroring with the plan: the plain text comes back, no revision.
    model2.extend([call_tool("plan_enter", {}, "e1"), call_tool("plan_exit", {}, "x2")])
    request = confirm_request(await run(agent2, "plan the next change"))
    assert request is not None
    assert "[x]" not in (machine_b / "plans" / "PLAN.md").read_text()
    status = plan_status(agent2)
    assert status.revision == 1 and status.pending["revision"] == 1  # type: ignore[index]
    assert not any(r["edited_by_user"] for r in status.revisions)
    # The old machine's file still shows the old mirror: it is no human edit either.
    book = PlanBook(agent2.state.middle_context["planmode"])
    assert "[x]" in plan_file.read_text() and book.human_edit(PlanWorkspace(tmp_path)) is None
    # A decision that syncs the disk first (bound to revision 1) records nothing for a stale mirror.
    (machine_b / "plans" / "PLAN.md").write_text(file_b)
    model2.extend([say("building again")])
    await run(agent2, answer_plan(agent2.state, "approve", revision=1))
    status = plan_status(agent2)
    assert status.phase == "building" and status.revision == status.approved_revision == 1


async def test_planning_and_review_see_the_plain_revision(tmp_path: Path) -> None:
    """Marks are mirrored only while building: todo_write while planning leaves the file alone."""
    agent, model, _ = make_agent(tmp_path, [
        call_tool("plan_enter", {}), call_tool("plan_write", STRUCTURED, "w1"),
        call_tool("todo_write", {"todos": _todos(0)}, "t1"), call_tool("plan_exit", {}),
    ])
    assert confirm_request(await run(agent)) is not None
    book = PlanBook(agent.state.middle_context["planmode"])
    assert (tmp_path / "plans" / "PLAN.md").read_text() == book.plan_content


async def test_a_symlinked_plan_file_is_not_written_through(tmp_path: Path) -> None:
    agent, model, plan_file = await _approved(tmp_path)
    target = tmp_path / "elsewhere.md"
    target.write_text(plan_file.read_text())
    plan_file.unlink()
    os.symlink(target, plan_file)
    model.extend([call_tool("todo_write", {"todos": _todos(0)}, "t1"), say("ok")])
    await run(agent, "continue")
    result = results(agent)["t1"]
    assert result.state == "success" and "progress was not shown in the plan file" in text_of(result)
    assert "symlink" in text_of(result) and "[x]" not in target.read_text()
    assert plan_status(agent).todos[0]["status"] == "completed", "the todo list itself is kept"


BAD = [
    ({"steps": "1. a"}, "steps must be a list"),
    ({"steps": [{"description": "a\n## Scope\n- `/etc/*`"}]}, "steps[0].description must be one line"),
    ({"steps": [{"description": "a", "id": "Bad id"}]}, "steps[0].id must be a step id"),
    ({"steps": [{"description": "a", "id": "x" * 33}]}, "steps[0].id must be a step id"),
    ({"steps": [{"description": "a", "id": "k"}, {"description": "b", "id": "k"}]}, "steps[1].id \"k\" repeats"),
    ({"steps": [{"description": "a", "files": ["../../etc/passwd"]}]}, "must not contain a .. segment"),
    ({"steps": [{"description": "a", "wat": 1}]}, "steps[0] has unknown field \"wat\""),
    ({"steps": [{"description": f"step {i}"} for i in range(201)]}, "steps has 201 items"),
    ({"verification": [None]}, "verification[0] must be a string"),
    ({"scope": {"paths": ["/abs"]}}, "scope.paths[0] must be relative"),
    ({"scope": "src/**"}, "scope must be an object"),
    ({"content": "1. my own step", "steps": [{"description": "a"}]}, "content has steps of its own"),
    ({"content": "## Risks\n- r", "risks": ["r"]}, "content has a \"Risks\" section"),
    ({"content": "## Files\n- `a`", "steps": [{"description": "a"}]}, "content has a Scope / Files section"),
    ({"content": "# P", "extra": 1}, "plan_write has unknown field \"extra\""),
    ({}, "give the plan"),
]

#: Values AgentScope's toolkit repairs against the input schema before the tool sees them (5 -> "5",
#: "none" -> ["none"]); the core refuses them when called directly.
REPAIRED = [
    ({"steps": [{"description": 5}]}, "steps[0].description must be a string"),
    ({"steps": [{"description": "a", "files": [3]}]}, "steps[0].files[0] must be a string"),
    ({"risks": "none"}, "risks must be a list of strings"),
    ({"content": 7}, "content must be a string"),
    ({"content": "# P", "steps": {"description": "a"}}, "steps must be a list"),
]


@pytest.mark.parametrize(("args", "says"), BAD + REPAIRED)
def test_the_core_names_the_field(args: dict[str, Any], says: str) -> None:
    with pytest.raises(InvalidInputError) as raised:
        render_plan(args)
    assert says in str(raised.value)


@pytest.mark.parametrize(("args", "says"), BAD, ids=[b[1][:30] for b in BAD])
async def test_bad_structured_input_is_an_error_naming_the_field(tmp_path: Path, args: dict[str, Any],
                                                                 says: str) -> None:
    agent, _, _ = make_agent(tmp_path, [
        call_tool("plan_enter", {}), call_tool("plan_write", {"content": "# Plan\n1. First\n"}, "w0"),
        call_tool("plan_write", args, "w1"), say("ok")])
    await run(agent)
    result = results(agent)["w1"]
    # AgentScope checks the input against the tool's schema first (naming the field as "$.steps");
    # what the schema allows, the core judges.
    assert result.state == "error" and (says in text_of(result) or "(at $." in text_of(result)), text_of(result)
    assert plan_status(agent).revision == 1, "no revision"
    assert (tmp_path / "plans" / "PLAN.md").read_text() == "# Plan\n1. First\n", "file untouched"


async def test_given_ids_are_kept_across_revisions_and_new_steps_get_fresh_ones(tmp_path: Path) -> None:
    v2 = {"steps": [{"description": "Write a migration first"}, *STEPS[::-1]]}
    agent, _, _ = make_agent(tmp_path, [
        call_tool("plan_enter", {}), call_tool("plan_write", STRUCTURED), call_tool("plan_write", v2, "w2"),
        say("ok")])
    await run(agent)
    assert results(agent)["w2"].state == "success", text_of(results(agent)["w2"])
    status = plan_status(agent)
    assert [s["id"] for s in status.steps] == ["s2", "docs", "s1", "read"]
    changes = {c["id"]: c["change"] for c in status.step_changes or []}
    assert changes.pop("s2") == "added" and list(changes.values()) == ["moved", "moved"]


# ---- the rendering round-trips, whatever the text ---------------------------------------------

HOSTILE = st.sampled_from(["## Scope", "# Files", "[ ]", "[x]", "[~]", "- [ ] t", "1. s", "`$ rm -rf /`",
                           "```", "- id: `evil`", "- files: `x`", "<!--", "**", "\\", "|", "#"])
LINE = st.lists(st.one_of(HOSTILE, st.text(st.characters(blacklist_categories=("Cc", "Cs")), min_size=1,
                                                max_size=12)), min_size=1, max_size=4).map(" ".join)
GLOB = st.from_regex(r"[a-z]{1,6}(/[a-z*]{1,6}){0,2}(\.[a-z]{1,3})?", fullmatch=True)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(LINE, st.lists(GLOB, max_size=3)), min_size=1, max_size=10,
                unique_by=lambda t: t[0].strip()), st.lists(LINE, max_size=3))
def test_rendering_reads_back_to_the_same_steps(steps: list[tuple[str, list[str]]], risks: list[str]) -> None:
    steps = [(d, f) for d, f in steps if d.strip()]
    if not steps:
        return
    fields = {"steps": [{"description": d, "files": f} for d, f in steps], "risks": risks or None}
    try:
        text = render_plan(fields)
    except InvalidInputError as exc:  # e.g. a risk that is blank after trimming
        assert "risks[" in str(exc) or "must be one line" in str(exc), exc
        return
    book = PlanBook()
    book.bind("k", "plans/PLAN.md", "/tmp/w")
    book.enter()
    book.write(text)
    parsed = book.steps()
    assert [s["text"] for s in parsed] == [d.strip() for d, _ in steps]
    assert [s["files"] for s in parsed] == [f for _, f in steps]
    assert len({s["id"] for s in parsed}) == len(parsed)


@settings(max_examples=60, deadline=None)
@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=5),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
                        st.sampled_from(["id", "description", "files", "action", "paths", "x"]), inner,
                        max_size=3), max_leaves=8))
def test_any_value_in_any_field_is_rendered_or_refused_clearly(value: Any) -> None:
    for name in ("steps", "risks", "prerequisites", "verification", "scope"):
        try:
            text = render_plan({name: value})
        except InvalidInputError as exc:
            assert name in str(exc) or "give the plan" in str(exc), exc
        else:
            assert text.startswith("# Plan\n")
