"""Scoped grants: allow rules handed out with an approval, expiring on the next plan_enter."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from _plan_support import PLAN, ReadFile, confirm_request, make_agent, results, run, text_of
from agentscope.message import TextBlock
from agentscope.permission import PermissionBehavior, PermissionContext, PermissionDecision, PermissionRule
from agentscope.tool import ToolBase, ToolChunk

from planmode.agentscope import answer_plan, call_tool, plan_status, say
from planmode.exceptions import InvalidInputError


class Deploy(ToolBase):
    """A mutating tool that asks a human unless an allow rule covers it."""

    name = "deploy"
    description = "Deploy."
    input_schema = {"type": "object", "properties": {}}
    is_concurrency_safe = False
    is_read_only = False

    async def check_permissions(self, tool_input: dict[str, Any], context: PermissionContext) -> PermissionDecision:
        return PermissionDecision(behavior=PermissionBehavior.PASSTHROUGH, message="ask")

    async def call(self) -> ToolChunk:
        return ToolChunk(content=[TextBlock(text="deployed")])


async def test_grant_applies_after_approval_and_expires_on_reentry(tmp_path: Path) -> None:
    agent, model, _ = make_agent(tmp_path, [
        call_tool("plan_enter", {}), call_tool("plan_write", {"content": PLAN}), call_tool("plan_exit", {}, "x1"),
    ], tools=[Deploy(), ReadFile(tmp_path)])
    request = confirm_request(await run(agent))
    model.extend([call_tool("deploy", {}, "d1"), say("deployed")])
    events = await run(agent, answer_plan(request, "approve", grants=[
        PermissionRule(tool_name="deploy", rule_content=None, behavior=PermissionBehavior.ALLOW, source="ui")]))
    assert confirm_request(events) is None and results(agent)["d1"].state == "success"
    assert "Granted without asking, for this plan only" in text_of(results(agent)["x1"])
    status = plan_status(agent)
    assert status.grants == [{"tool_name": "deploy", "rule_content": None, "revision": 1}]
    assert status.audit[-1]["detail"] == "granted: deploy"

    model.extend([call_tool("plan_enter", {}), say("planning again")])
    await run(agent, "new task")
    assert "deploy" not in agent.state.permission_context.allow_rules
    assert plan_status(agent).grants == []
    assert [a for a in plan_status(agent).audit if a["kind"] == "entered"][-1]["detail"] == "grants expired: deploy"


def test_grants_validation(tmp_path: Path) -> None:
    from agentscope.event import RequireUserConfirmEvent
    from agentscope.message import ToolCallBlock

    request = RequireUserConfirmEvent(reply_id="r", tool_calls=[ToolCallBlock(id="c", name="plan_exit", input="{}")])
    with pytest.raises(InvalidInputError, match="only to approvals"):
        answer_plan(request, "reject", grants=[{"tool_name": "deploy"}])
    with pytest.raises(InvalidInputError, match="ALLOW rule"):
        answer_plan(request, "approve", grants=[
            PermissionRule(tool_name="deploy", rule_content=None, behavior=PermissionBehavior.DENY, source="ui")])
    with pytest.raises(InvalidInputError, match="must be a PermissionRule"):
        answer_plan(request, "approve", grants=[{"tool": "deploy"}])


async def test_call_confirmed_after_plan_mode_was_entered_is_still_denied(tmp_path: Path) -> None:
    from agentscope.event import ConfirmResult, UserConfirmResultEvent

    from planmode.agentscope import enter_plan_mode
    from planmode.agentscope._plan._texts import DENIED

    agent, model, _ = make_agent(tmp_path, [call_tool("deploy", {}, "d1")], tools=[Deploy(), ReadFile(tmp_path)])
    request = confirm_request(await run(agent))
    assert request is not None
    enter_plan_mode(agent, actor="admin")  # e.g. an operator switches to planning meanwhile
    model.extend([say("ok")])
    await run(agent, UserConfirmResultEvent(reply_id=request.reply_id, confirm_results=[
        ConfirmResult(confirmed=True, tool_call=request.tool_calls[0])]))
    assert results(agent)["d1"].state == "denied" and text_of(results(agent)["d1"]) == DENIED
