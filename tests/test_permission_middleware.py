"""PermissionMiddleware on live AgentScope agents: the live context decides, confirmations work."""

from __future__ import annotations

from typing import Any

from _permission_support import Touch, tool_results, touch_agent
from agentscope.agent import Agent
from agentscope.event import ConfirmResult, RequireUserConfirmEvent, UserConfirmResultEvent
from agentscope.message import UserMsg
from agentscope.permission import PermissionContext, PermissionMode, PermissionRule
from agentscope.state import AgentState
from permission_tools import B

from planmode.agentscope import PermissionMiddleware, call_tool, say, set_permission_mode


def make_agent(script: list[Any], *, middleware: bool = True) -> tuple[Agent, Touch]:
    """An agent with the PermissionMiddleware (unless ``middleware=False``)."""
    return touch_agent(script, middlewares=[PermissionMiddleware()] if middleware else None)


async def run(agent: Agent, inputs: Any) -> list[Any]:
    return [event async for event in agent.reply_stream(inputs)]


async def test_without_the_middleware_agentscope_keeps_deciding_on_the_old_context() -> None:
    """The trap the middleware fixes (so the next test can fail)."""
    agent, tool = make_agent([call_tool("touch", {"mark": "a"}), say("done")], middleware=False)
    agent.state.permission_context = PermissionContext(mode=PermissionMode.DONT_ASK)
    events = await run(agent, UserMsg(name="user", content="go"))
    assert any(isinstance(e, RequireUserConfirmEvent) for e in events), "AgentScope still used DEFAULT"
    assert tool.marks == []


async def test_a_replaced_permission_context_decides_the_next_call() -> None:
    agent, tool = make_agent([call_tool("touch", {"mark": "a"}), say("done")])
    agent.state.permission_context = PermissionContext(mode=PermissionMode.DONT_ASK)
    await agent.reply(UserMsg(name="user", content="go"))
    assert tool.marks == []
    assert tool_results(agent) == [("denied", "Permission denied for touch (dont_ask mode - user not available)")]


async def test_a_replaced_state_decides_and_mode_switches_apply_between_calls() -> None:
    agent_box: list[Agent] = []

    def switch(messages: Any, tools: Any) -> Any:
        agent_box[0].state.permission_context.mode = PermissionMode.EXPLORE
        return call_tool("touch", {"mark": "second"})

    agent, tool = make_agent([call_tool("touch", {"mark": "first"}), switch, say("done")])
    agent_box.append(agent)
    loaded = AgentState.model_validate_json(agent.state.model_dump_json())
    loaded.permission_context.mode = PermissionMode.BYPASS
    agent.state = loaded
    await agent.reply(UserMsg(name="user", content="go"))
    assert tool.marks == ["first"]
    assert tool_results(agent)[1] == ("denied", "Permission denied for touch (explore mode is read-only)")


async def test_confirmation_runs_the_call_and_records_the_rule_on_the_live_context() -> None:
    agent, tool = make_agent([call_tool("touch", {"mark": "m"}), say("done")])
    events = await run(agent, UserMsg(name="user", content="go"))
    (ask,) = [e for e in events if isinstance(e, RequireUserConfirmEvent)]
    call = ask.tool_calls[0]
    assert [r.tool_name for r in call.suggested_rules or []] == ["touch"]
    # The state is swapped while the call waits: the approval must land on the new context.
    agent.state = AgentState.model_validate_json(agent.state.model_dump_json())
    rule = PermissionRule(tool_name="touch", rule_content=None, behavior=B.ALLOW, source="user")
    await run(agent, UserConfirmResultEvent(
        reply_id=ask.reply_id, confirm_results=[ConfirmResult(confirmed=True, tool_call=call, rules=[rule])]
    ))
    assert tool.marks == ["m"]
    assert agent.state.permission_context.allow_rules["touch"] == [rule]


async def test_set_permission_mode_works_with_the_middleware_across_a_round_trip() -> None:
    agent, _ = make_agent([])
    set_permission_mode(agent, "dont_ask")
    restored, tool = make_agent([call_tool("touch", {"mark": "x"}), say("done")])
    restored.state = AgentState.model_validate_json(agent.state.model_dump_json())
    await restored.reply(UserMsg(name="user", content="go"))
    assert tool.marks == []
    set_permission_mode(restored, PermissionMode.BYPASS)
    restored.model.extend([call_tool("touch", {"mark": "y"}), say("done")])
    await restored.reply(UserMsg(name="user", content="again"))
    assert tool.marks == ["y"]


async def test_a_confirmed_call_is_allowed_without_asking_again() -> None:
    agent, tool = make_agent([call_tool("touch", {"mark": "once"}), say("done")])
    events = await run(agent, UserMsg(name="user", content="go"))
    (ask,) = [e for e in events if isinstance(e, RequireUserConfirmEvent)]
    # Confirmed with no rule: only the already-confirmed path can let it through in DEFAULT mode.
    events = await run(agent, UserConfirmResultEvent(
        reply_id=ask.reply_id, confirm_results=[ConfirmResult(confirmed=True, tool_call=ask.tool_calls[0])]
    ))
    assert not any(isinstance(e, RequireUserConfirmEvent) for e in events)
    assert tool.marks == ["once"]
    assert agent.state.permission_context.allow_rules == {}
