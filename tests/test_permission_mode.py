"""set_permission_mode / get_permission_mode: parsing, atomic errors, live switching, persistence."""

from __future__ import annotations

from typing import Any

import pytest
from _permission_support import tool_results, touch_agent
from agentscope.agent import Agent
from agentscope.message import UserMsg
from agentscope.permission import PermissionBehavior, PermissionMode
from agentscope.state import AgentState

from planmode.agentscope import (
    call_tool,
    get_permission_mode,
    say,
    set_permission_mode,
)
from planmode.exceptions import InvalidInputError, UnknownModeError


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        (PermissionMode.EXPLORE, PermissionMode.EXPLORE),
        ("dont_ask", PermissionMode.DONT_ASK),
        ("DONT_ASK", PermissionMode.DONT_ASK),
        ("Accept_Edits", PermissionMode.ACCEPT_EDITS),
        ("bypass", PermissionMode.BYPASS),
        ("default", PermissionMode.DEFAULT),
    ],
)
def test_accepts_the_enum_its_values_and_names(given: Any, expected: PermissionMode) -> None:
    state = AgentState()
    assert set_permission_mode(state, given) is expected
    assert state.permission_context.mode is expected
    assert get_permission_mode(state) is expected


@pytest.mark.parametrize("bad", ["plan", "dont ask", " bypass", "", None, 3, PermissionBehavior.ALLOW, ["bypass"]])
def test_rejects_unknown_modes_and_changes_nothing(bad: Any) -> None:
    agent, _ = touch_agent([])
    agent.state.permission_context.mode = PermissionMode.ACCEPT_EDITS
    before = agent.state.model_dump_json()
    with pytest.raises(UnknownModeError) as info:
        set_permission_mode(agent, bad)
    assert isinstance(info.value, ValueError)
    assert repr(bad) in str(info.value)
    for mode in PermissionMode:
        assert repr(mode.value) in str(info.value)
    assert agent.state.model_dump_json() == before
    assert agent.state.permission_context.mode is PermissionMode.ACCEPT_EDITS


def test_rejects_things_that_are_not_agents() -> None:
    with pytest.raises(InvalidInputError, match="Agent or AgentState, got dict"):
        set_permission_mode({"state": None}, "bypass")
    with pytest.raises(InvalidInputError, match="actor"):
        set_permission_mode(AgentState(), "bypass", actor=7)  # type: ignore[arg-type]


def test_get_reads_a_mode_stored_as_a_string() -> None:
    state = AgentState()
    state.permission_context.mode = "explore"  # type: ignore[assignment]  # AgentScope does not validate
    assert get_permission_mode(state) is PermissionMode.EXPLORE


async def test_switching_on_a_live_agent_applies_to_the_next_tool_call() -> None:
    agent_box: list[Agent] = []

    def then_explore(messages: Any, tools: Any) -> Any:
        set_permission_mode(agent_box[0], "explore", actor="test")
        return call_tool("touch", {"mark": "second"})

    agent, tool = touch_agent([call_tool("touch", {"mark": "first"}), then_explore, say("done")])
    agent_box.append(agent)
    set_permission_mode(agent, PermissionMode.BYPASS)
    await agent.reply(UserMsg(name="user", content="go"))
    assert tool.marks == ["first"]
    assert tool_results(agent) == [
        ("success", "marked first"),
        ("denied", "Permission denied for touch (explore mode is read-only)"),
    ]


async def test_mode_survives_a_json_round_trip_into_a_new_agent() -> None:
    agent, _ = touch_agent([])
    set_permission_mode(agent, "dont_ask")
    saved = agent.state.model_dump_json()
    restored, tool = touch_agent(
        [call_tool("touch", {"mark": "x"}), say("done")],
        state=AgentState.model_validate_json(saved),
    )
    assert get_permission_mode(restored) is PermissionMode.DONT_ASK
    assert restored.state.permission_context.mode is PermissionMode.DONT_ASK
    await restored.reply(UserMsg(name="user", content="go"))
    assert tool.marks == []
    assert tool_results(restored) == [("denied", "Permission denied for touch (dont_ask mode - user not available)")]


async def test_switch_after_replacing_the_state_is_not_left_on_the_old_context() -> None:
    agent, tool = touch_agent([call_tool("touch", {"mark": "y"}), say("done")])
    old_context = agent.state.permission_context
    agent.state = AgentState.model_validate_json(agent.state.model_dump_json())
    set_permission_mode(agent, "bypass")
    assert old_context.mode is PermissionMode.DEFAULT
    await agent.reply(UserMsg(name="user", content="go"))
    assert tool.marks == ["y"]


def test_permission_modules_do_not_import_plan_mode() -> None:
    """Permission modes sit below plan mode: plan mode registers its audit with them, never the
    other way round (no import circle, not even a function-local one)."""
    import ast
    from pathlib import Path

    import planmode.agentscope as package

    root = Path(package.__file__).parent
    for name in ("_permission_mode", "_permission_engine", "_permission_middleware", "_modes", "_agent_state"):
        tree = ast.parse((root / f"{name}.py").read_text())
        imported = [
            node.module or ""
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom)
        ] + [alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names]
        assert not [m for m in imported if "_plan" in m], (name, imported)
