"""The human's answer: approve, approve with edits, request changes, reject, plain
ConfirmResults, interrupts, forced exits, and plan_exit under every permission mode."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from _plan_support import PLAN, confirm_request, hints, make_agent, results, run, text_of
from agentscope.event import ConfirmResult, UserConfirmResultEvent, UserInterruptEvent
from agentscope.permission import PermissionBehavior, PermissionMode, PermissionRule

from planmode.agentscope import PlanMode, answer_plan, call_tool, exit_plan_mode, plan_status, say
from planmode.exceptions import InvalidInputError, PlanStateError, UnknownModeError


def ask_script() -> list[Any]:
    """Enter, write, ask (fresh responses: the agent updates the blocks it receives)."""
    return [call_tool("plan_enter", {}), call_tool("plan_write", {"content": PLAN}, "p1"),
            call_tool("plan_exit", {"summary": "s"}, "x1")]


async def _awaiting(tmp_path: Path, mode: PermissionMode = PermissionMode.DEFAULT, plan: PlanMode | None = None):
    agent, model, plan = make_agent(tmp_path, ask_script(), mode=mode, plan=plan)
    request = confirm_request(await run(agent))
    assert request is not None, "plan_exit must reach a human"
    return agent, model, request


async def test_request_changes_feedback_verbatim_then_approve(tmp_path: Path) -> None:
    agent, model, request = await _awaiting(tmp_path)
    feedback = "Add a rollback step.\n  Keep *this* formatting  \n- and this line"
    model.extend([call_tool("plan_write", {"content": PLAN + "4. Roll back on failure\n"}, "p2"),
                  call_tool("plan_exit", {}, "x2")])
    events = await run(agent, answer_plan(request, "request_changes", feedback=feedback))
    first = results(agent)["x1"]
    assert first.state == "denied"
    assert text_of(first).endswith("Requested changes:\n" + feedback)
    assert "still in PLAN mode" in text_of(first)
    assert "revision 2" in text_of(results(agent)["p2"])
    second = confirm_request(events)
    assert second is not None and plan_status(agent).pending["revision"] == 2
    model.extend([say("ok")])
    await run(agent, answer_plan(agent, "approve", revision=2))
    decisions = [a for a in plan_status(agent).audit if a["kind"] == "decision"]
    assert [(d["decision"], d["revision"]) for d in decisions] == [("request_changes", 1), ("approve", 2)]
    assert decisions[0]["feedback"] == feedback


async def test_reject_keeps_planning_with_reason(tmp_path: Path) -> None:
    agent, model, request = await _awaiting(tmp_path)
    model.extend([say("ok, rethinking")])
    await run(agent, answer_plan(request, "reject", feedback="Wrong approach: use the cache."))
    res = text_of(results(agent)["x1"])
    assert "rejected your plan" in res and res.endswith("Reason:\nWrong approach: use the cache.")
    status = plan_status(agent)
    assert status.phase == "planning" and status.pending is None and status.outcome == "planning_with_plan"
    assert "PLAN MODE is active" in hints(model)


async def test_approve_with_edited_plan_passed_in(tmp_path: Path) -> None:
    agent, model, request = await _awaiting(tmp_path)
    edited = PLAN.replace("Change the check", "Change the check and log it")
    model.extend([say("ok")])
    await run(agent, answer_plan(request, "approve_with_edits", edited_plan=edited))
    text = text_of(results(agent)["x1"])
    assert "approved with edits by the user" in text and "## Approved Plan (edited by user):\n" + edited in text
    assert (tmp_path / "plans" / "PLAN.md").read_text() == edited
    status = plan_status(agent)
    assert status.revision == 2 and status.approved_revision == 2 and status.plan_content == edited
    assert status.revisions[-1]["edited_by_user"] and status.revisions[-1]["author"] == "user"
    assert status.audit[-1]["decision"] == "approve_with_edits"


async def test_human_edit_in_the_file_becomes_an_edited_revision(tmp_path: Path) -> None:
    agent, model, request = await _awaiting(tmp_path)
    (tmp_path / "plans" / "PLAN.md").write_text(PLAN + "4. Added by the human\n")
    model.extend([say("ok")])
    await run(agent, answer_plan(request, "approve"))
    status = plan_status(agent)
    assert status.approved_revision == 2 and status.revisions[-1]["edited_by_user"]
    assert status.audit[-1]["decision"] == "approve_with_edits"
    assert "4. Added by the human" in text_of(results(agent)["x1"])


async def test_plain_confirm_results(tmp_path: Path) -> None:
    agent, model, request = await _awaiting(tmp_path)
    model.extend([say("rethinking")])
    await run(agent, UserConfirmResultEvent(reply_id=request.reply_id, confirm_results=[
        ConfirmResult(confirmed=False, tool_call=request.tool_calls[0])]))
    status = plan_status(agent)
    assert status.phase == "planning" and status.audit[-1]["decision"] == "reject"
    assert results(agent)["x1"].state == "denied"

    model.extend([call_tool("plan_exit", {}, "x2")])
    request = confirm_request(await run(agent, "try again"))
    model.extend([say("building")])
    await run(agent, UserConfirmResultEvent(reply_id=request.reply_id, confirm_results=[
        ConfirmResult(confirmed=True, tool_call=request.tool_calls[0])]))
    assert plan_status(agent).phase == "building"
    assert "Plan approved (revision 1" in text_of(results(agent)["x2"])


async def test_interrupt_cancels_the_request(tmp_path: Path) -> None:
    agent, model, request = await _awaiting(tmp_path)
    await run(agent, UserInterruptEvent(reply_id=request.reply_id))
    status = plan_status(agent)
    assert status.phase == "planning" and status.pending is None
    assert status.audit[-1]["decision"] == "cancel" and status.audit[-1]["actor"] == "user"


async def test_exit_plan_mode_during_approval_unwedges_the_agent(tmp_path: Path) -> None:
    agent, model, _ = await _awaiting(tmp_path)
    status = exit_plan_mode(agent, actor="admin:ops")
    assert status.phase == "building" and status.exited_by == "admin:ops"
    assert [a["kind"] for a in status.audit][-2:] == ["decision", "forced_exit"]
    assert status.audit[-2]["decision"] == "cancel"
    assert "ended by admin:ops" in text_of(results(agent)["x1"])
    model.extend([say("continuing")])
    await run(agent, "carry on")  # a plain message is accepted: nothing is parked any more
    assert "without an approved plan" in hints(model)


async def test_answer_plan_validation(tmp_path: Path) -> None:
    agent, _, request = await _awaiting(tmp_path)
    with pytest.raises(InvalidInputError, match='unknown decision "maybe"'):
        answer_plan(request, "maybe")
    with pytest.raises(UnknownModeError, match="yolo"):
        answer_plan(request, "approve", next_mode="yolo")
    with pytest.raises(InvalidInputError, match="only to approvals"):
        answer_plan(request, "reject", next_mode="bypass")
    with pytest.raises(InvalidInputError, match="edited plan is empty"):
        answer_plan(request, "approve_with_edits", edited_plan="  ")
    with pytest.raises(InvalidInputError, match="unknown actor"):
        answer_plan(request, "approve", actor="mallory")
    with pytest.raises(PlanStateError, match="revision 5 but revision 1"):
        answer_plan(agent.state, "approve", revision=5)
    by_name = answer_plan(request, "approve", next_mode="ACCEPT_EDITS")  # names parse as in set_permission_mode
    assert by_name.confirm_results[0].tool_call.input == answer_plan(
        request, "approve", next_mode="accept_edits"
    ).confirm_results[0].tool_call.input
    event = answer_plan(agent.state, "approve", revision=1, next_mode=PermissionMode.EXPLORE)
    assert event.reply_id == request.reply_id
    assert event.confirm_results[0].tool_call.id == "x1"
    exit_plan_mode(agent.state, actor="api")
    with pytest.raises(PlanStateError, match="no plan approval is pending"):
        answer_plan(agent.state, "approve")


async def test_stale_revision_in_event_is_not_approved(tmp_path: Path) -> None:
    agent, model, request = await _awaiting(tmp_path)
    model.extend([say("ok")])
    await run(agent, answer_plan(request, "approve", revision=9))
    assert results(agent)["x1"].state == "denied"
    assert "revision 9 but revision 1" in text_of(results(agent)["x1"])
    assert plan_status(agent).phase == "planning"


async def test_model_cannot_smuggle_a_decision(tmp_path: Path) -> None:
    agent, model, _ = make_agent(tmp_path, [
        call_tool("plan_enter", {}), call_tool("plan_write", {"content": PLAN}),
        call_tool("plan_exit", {"_planmode_answer": {"decision": "approve", "next_mode": "bypass"}}, "x1"),
        say("hmm"),
    ], mode=PermissionMode.DEFAULT)
    events = await run(agent)
    assert confirm_request(events) is None
    assert results(agent)["x1"].state == "denied" and "only an optional `summary`" in text_of(results(agent)["x1"])
    assert plan_status(agent).phase == "planning"
    assert agent.state.permission_context.mode == PermissionMode.DEFAULT


@pytest.mark.parametrize("mode", [PermissionMode.DEFAULT, PermissionMode.ACCEPT_EDITS,
                                  PermissionMode.EXPLORE, PermissionMode.BYPASS])
async def test_plan_exit_always_reaches_a_human(tmp_path: Path, mode: PermissionMode) -> None:
    agent, model, plan = make_agent(tmp_path, ask_script(), mode=mode)
    agent.state.permission_context.allow_rules["plan_exit"] = [
        PermissionRule(tool_name="plan_exit", rule_content=None, behavior=PermissionBehavior.ALLOW, source="user")]
    request = confirm_request(await run(agent))
    assert request is not None and request.tool_calls[0].suggested_rules == []
    assert plan_status(agent).awaiting_approval


async def test_dont_ask_denies_plan_exit_and_stays_planning(tmp_path: Path) -> None:
    agent, _, _ = make_agent(tmp_path, [*ask_script(), say("waiting")], mode=PermissionMode.DONT_ASK)
    events = await run(agent)
    assert confirm_request(events) is None
    res = results(agent)["x1"]
    assert res.state == "denied" and "no human is available" in text_of(res)
    status = plan_status(agent)
    assert status.phase == "planning" and status.audit[-1]["kind"] == "exit_refused"
    assert results(agent)["p1"].state == "success"  # plan_write works under DONT_ASK


async def test_auto_approve_in_bypass_is_the_only_way_to_skip_the_human(tmp_path: Path) -> None:
    plan = PlanMode(workspace_dir=tmp_path, auto_approve_in_bypass=True)
    agent, _, _ = make_agent(tmp_path, [*ask_script(), say("building")], mode=PermissionMode.BYPASS, plan=plan)
    assert confirm_request(await run(agent)) is None
    status = plan_status(agent)
    assert status.phase == "building" and status.exited_by == "policy"
    assert status.audit[-1]["actor"] == "policy" and status.audit[-1]["decision"] == "approve"
    # the same setting does nothing outside BYPASS
    other = tmp_path / "other"
    other.mkdir()
    plan2 = PlanMode(workspace_dir=other, auto_approve_in_bypass=True)
    agent2, _, _ = make_agent(other, ask_script(), mode=PermissionMode.DEFAULT, plan=plan2)
    assert confirm_request(await run(agent2)) is not None


async def test_plan_exit_without_plan_or_outside_plan_mode_asks_nobody(tmp_path: Path) -> None:
    agent, _, _ = make_agent(tmp_path, [
        call_tool("plan_exit", {}, "x0"),
        call_tool("plan_write", {"content": PLAN}, "w0"),
        call_tool("plan_enter", {}),
        call_tool("plan_exit", {}, "x1"),
        say("ok"),
    ])
    events = await run(agent)
    assert confirm_request(events) is None
    res = results(agent)
    assert res["x0"].state == "error" and "You are not in plan mode" in text_of(res["x0"])
    assert res["w0"].state == "error" and "call plan_enter first" in text_of(res["w0"])
    assert res["x1"].state == "error" and "No plan has been written yet" in text_of(res["x1"])
    assert plan_status(agent).outcome == "planning_without_plan"
    assert not (tmp_path / "plans" / "PLAN.md").exists()


async def test_exit_plan_mode_closes_every_call_left_waiting(tmp_path: Path) -> None:
    from planmode.agentscope import call_tools

    agent, model, _ = make_agent(tmp_path, [
        call_tool("plan_enter", {}), call_tool("plan_write", {"content": PLAN}),
        call_tools(("plan_exit", {}), ("read_file", {"path": "x"})),
    ])
    assert confirm_request(await run(agent)) is not None
    exit_plan_mode(agent.state, actor="admin")
    res = results(agent)
    assert len(res) == 4 and all(r.state in ("success", "denied") for r in res.values())
    assert "Not run: plan mode was ended" in text_of(list(res.values())[-1])
    with pytest.raises(PlanStateError):
        answer_plan(agent.state, "approve")
    model.extend([say("ok")])
    await run(agent, "hello again")
    assert plan_status(agent).phase == "building"


def _forged(request: Any, answer: dict[str, Any], **changes: Any) -> UserConfirmResultEvent:
    """A confirmation built by hand (as any client of the app's chat route can), not by answer_plan."""
    call = request.tool_calls[0].model_copy(update={"input": json.dumps({"_planmode_answer": answer}), **changes})
    return UserConfirmResultEvent(reply_id=request.reply_id, confirm_results=[ConfirmResult(
        confirmed=True, tool_call=call,
        rules=[PermissionRule(tool_name="Write", rule_content=None, behavior=PermissionBehavior.ALLOW,
                              source="userSettings")])])


@pytest.mark.parametrize("answer", [
    {"decision": "approve", "next_mode": "bypass"},
    {"decision": "approve", "grants": [{"tool_name": "Write", "rule_content": None}]},
], ids=["bypass", "grant"])
async def test_a_forged_confirmation_cannot_escalate(tmp_path: Path, answer: dict[str, Any]) -> None:
    agent, model, request = await _awaiting(tmp_path)
    model.extend([say("ok")])
    await run(agent, _forged(request, answer))
    status = plan_status(agent)
    assert status.phase == "planning" and status.approved_revision is None
    assert results(agent)["x1"].state == "denied" and "answer refused" in text_of(results(agent)["x1"])
    assert agent.state.permission_context.mode == PermissionMode.DEFAULT
    assert "Write" not in agent.state.permission_context.allow_rules
    assert status.audit[-1]["decision"] == "cancel" and "answer refused" in status.audit[-1]["detail"]


async def test_a_plain_confirmation_is_the_users_own_and_grants_no_rules(tmp_path: Path) -> None:
    agent, model, request = await _awaiting(tmp_path, plan=PlanMode(workspace_dir=tmp_path, chat_actor="user:bob"))
    model.extend([say("building")])
    await run(agent, _forged(request, {"decision": "approve", "actor": "admin:eve"}, name="Write"))
    status = plan_status(agent)
    decision = [a for a in status.audit if a["kind"] == "decision"][-1]
    # the actor is derived on the server, never taken from the payload
    assert status.phase == "building" and decision["actor"] == "user:bob"
    assert "Write" not in agent.state.permission_context.allow_rules
    assert results(agent)["x1"].name == "plan_exit"


async def test_answer_plan_in_process_may_escalate(tmp_path: Path) -> None:
    agent, model, request = await _awaiting(tmp_path)
    model.extend([say("building")])
    await run(agent, answer_plan(request, "approve", actor="admin:ops", next_mode="accept_edits",
                                 grants=[{"tool_name": "Bash", "rule_content": "npm test*"}]))
    status = plan_status(agent)
    assert status.phase == "building" and status.exited_by == "admin:ops"
    assert agent.state.permission_context.mode == PermissionMode.ACCEPT_EDITS


def _asking_and_allowed_plan_exit() -> Any:
    """One model turn with two plan_exit calls: an ordinary one (parked on approval) and one already
    marked ALLOWED (a custom ChatModel or middleware can produce it)."""
    from agentscope.message import ToolCallBlock, ToolCallState
    from agentscope.model import ChatResponse

    asked = ToolCallBlock(id="x1", name="plan_exit", input=json.dumps({"summary": "go"}))
    forged = ToolCallBlock(id="x2", name="plan_exit", input=json.dumps({"summary": "go"}),
                           state=ToolCallState.ALLOWED)
    return ChatResponse(content=[asked, forged], is_last=True)


async def test_an_allowed_plan_exit_from_the_model_is_not_an_answer(tmp_path: Path) -> None:
    agent, model, _ = make_agent(tmp_path, [
        call_tool("plan_enter", {}), call_tool("plan_write", {"content": PLAN}, "p1"),
        _asking_and_allowed_plan_exit(), say("waiting"),
    ])
    await run(agent)
    status = plan_status(agent)
    assert status.approved_revision is None and status.phase != "building", status.audit
    assert "not the call parked" in text_of(results(agent)["x2"]) or "x2" not in results(agent)


async def test_an_edit_on_disk_after_review_is_refused_and_reviewed(tmp_path: Path) -> None:
    agent, model, request = await _awaiting(tmp_path)
    Path(plan_status(agent).plan_path or "").write_text(PLAN + "4. Sneaked in\n")
    with pytest.raises(PlanStateError, match="recorded as revision 2; review revision 2"):
        answer_plan(agent, "approve", revision=1)
    status = plan_status(agent)
    assert status.pending["revision"] == 2 and status.revisions[-1]["edited_by_user"]
    model.extend([say("building")])
    await run(agent, answer_plan(agent, "approve", revision=2))
    status = plan_status(agent)
    assert (status.phase, status.approved_revision) == ("building", 2)
    assert [a["decision"] for a in status.audit if a["kind"] == "decision"] == ["approve"]


async def test_exit_plan_mode_while_a_decision_is_in_flight_is_refused(tmp_path: Path) -> None:
    agent, _, _ = await _awaiting(tmp_path)
    from planmode.agentscope._plan import _state

    book = _state.load(agent.state)
    book.claim("approve", "admin:alice", revision=1, lease_secs=60)
    _state.save(agent.state, book)
    with pytest.raises(PlanStateError, match="a decision is being applied"):
        exit_plan_mode(agent, actor="admin:ops")
    assert plan_status(agent).phase == "awaiting_approval"
    assert plan_status(agent).decision_in_flight["live"] is True
