"""Programmatic control and the stored format: enter/exit/status on an Agent or a stored
AgentState, audit entries, JSON-ready status, pickling of the core types."""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import pytest
from _plan_support import PLAN, hints, make_agent, results, run, text_of
from agentscope.state import AgentState

from planmode._core import PlanBook, PlanWorkspace, plan_steps
from planmode.agentscope import (
    PlanMode,
    call_tool,
    enter_plan_mode,
    exit_plan_mode,
    is_plan_mode_active,
    plan_status,
    say,
    set_permission_mode,
)
from planmode.exceptions import InvalidInputError, PlanStateError, StateLoadError


def test_state_only_lifecycle_and_outcomes() -> None:
    state = AgentState()
    assert plan_status(state).outcome == "never_entered" and not is_plan_mode_active(state)
    status = enter_plan_mode(state, actor="admin:ops")
    assert status.outcome == "planning_without_plan" and status.active
    assert status.audit[0] == {"kind": "entered", "actor": "admin:ops", "at": status.audit[0]["at"]}
    status = exit_plan_mode(state, actor="api")
    assert status.outcome == "exited_without_plan" and status.exited_by == "api"
    assert [a["kind"] for a in status.audit] == ["entered", "forced_exit"]
    assert exit_plan_mode(state, actor="api").audit == status.audit  # no-op when not active
    json.dumps(status.to_dict())
    # the state survives the app's persistence round trip
    again = AgentState.model_validate_json(state.model_dump_json())
    assert plan_status(again) == status


async def test_outcomes_with_a_plan(tmp_path: Path) -> None:
    agent, model, _ = make_agent(tmp_path, [call_tool("plan_enter", {}), call_tool("plan_write", {"content": PLAN}),
                                            say("drafted")])
    await run(agent)
    assert plan_status(agent).outcome == "planning_with_plan"
    status = exit_plan_mode(agent, actor="lead")
    assert status.outcome == "exited_with_plan" and status.approved_revision is None
    model.extend([say("ok")])
    await run(agent, "next")
    assert "without an approved plan" in hints(model) and "NOT approved" in hints(model)


async def test_programmatic_enter_shows_banner_and_gates(tmp_path: Path) -> None:
    agent, model, _ = make_agent(tmp_path, [call_tool("write_file", {"path": "x", "content": "1"}, "w"), say("ok")])
    enter_plan_mode(agent)
    await run(agent)
    assert results(agent)["w"].state == "denied"
    assert "PLAN MODE is active" in hints(model) and "no plan written yet" in hints(model)


def test_mode_change_audit_and_errors() -> None:
    unplanned = AgentState()
    set_permission_mode(unplanned, "explore")
    assert "planmode" not in unplanned.middle_context  # plan mode never used: nothing recorded
    state = AgentState()
    enter_plan_mode(state)
    set_permission_mode(state, "explore", actor="admin")
    entry = plan_status(state).audit[-1]
    assert (entry["kind"], entry["from_mode"], entry["to_mode"]) == ("mode_change", "default", "explore")
    with pytest.raises(InvalidInputError, match="unknown actor"):
        enter_plan_mode(AgentState(), actor="nobody")
    with pytest.raises(InvalidInputError, match="Agent or AgentState"):
        plan_status("agent")  # type: ignore[arg-type]
    bad = AgentState()
    bad.middle_context["planmode"] = {"phase": 3}
    with pytest.raises(StateLoadError):
        plan_status(bad)


def test_core_types_pickle_and_repr(tmp_path: Path) -> None:
    book = PlanBook()
    book.enter()
    book.write(PLAN)
    copy = pickle.loads(pickle.dumps(book))
    assert copy.to_state() == book.to_state() and repr(copy) == 'PlanBook(phase="planning", revision=1)'
    ws = PlanWorkspace(tmp_path)
    assert pickle.loads(pickle.dumps(ws)).root == ws.root and repr(ws).startswith("PlanWorkspace(")
    assert plan_steps(PLAN) == ["Read the code", "Change the check", "Run the tests"]
    with pytest.raises(PlanStateError):
        book.decide("approve")


async def test_audit_records_every_step(tmp_path: Path) -> None:
    from _plan_support import confirm_request

    from planmode.agentscope import answer_plan

    agent, model, _ = make_agent(tmp_path, [call_tool("plan_enter", {}), call_tool("plan_write", {"content": PLAN}),
                                            call_tool("plan_exit", {"summary": "ready"})])
    request = confirm_request(await run(agent))
    model.extend([say("ok")])
    await run(agent, answer_plan(request, "approve", feedback="ship it", next_mode="accept_edits", actor="lead"))
    audit = plan_status(agent).audit
    assert [a["kind"] for a in audit] == ["entered", "written", "exit_requested", "decision", "mode_change"]
    assert [a["actor"] for a in audit] == ["model", "model", "model", "lead", "lead"]
    assert audit[2]["detail"] == "ready" and audit[3]["feedback"] == "ship it" and audit[3]["to_mode"] == "accept_edits"
    assert all(a["at"].endswith("Z") for a in audit)
    assert "Plan approved" in text_of([r for r in results(agent).values() if r.name == "plan_exit"][0])


async def test_middleware_lists_the_plan_tools_for_the_app(tmp_path: Path) -> None:
    plan = PlanMode(workspace_dir=tmp_path)
    names = [t.name for t in await plan.middleware().list_tools()]
    assert names == ["plan_enter", "plan_write", "plan_exit", "todo_write",
                     "TaskCreate", "TaskGet", "TaskList", "TaskUpdate"]
    assert plan.middleware() is plan.middleware()


def test_set_permission_mode_is_audited_when_plan_mode_is_in_use() -> None:
    from agentscope.permission import PermissionMode

    from planmode.agentscope import set_permission_mode

    plain = AgentState()
    set_permission_mode(plain, "explore", actor="anyone")  # plan mode unused: nothing recorded
    assert "planmode" not in plain.middle_context

    state = AgentState()
    enter_plan_mode(state)
    set_permission_mode(state, PermissionMode.BYPASS, actor="admin:ops")
    set_permission_mode(state, "bypass", actor="admin:ops")  # no change, no entry
    changes = [a for a in plan_status(state).audit if a["kind"] == "mode_change"]
    assert [(c["from_mode"], c["to_mode"], c["actor"]) for c in changes] == [("default", "bypass", "admin:ops")]
    with pytest.raises(InvalidInputError, match="unknown actor"):
        set_permission_mode(state, "explore", actor="mallory")
    assert state.permission_context.mode == PermissionMode.BYPASS
