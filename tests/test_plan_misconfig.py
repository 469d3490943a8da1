"""Misconfiguration fails closed with an error saying how to fix it: plan tools without the plan
middleware, a state restored in plan mode into an Agent without it, bad PlanModeWiring options;
and the smaller holes: hard-linked plan files, over-long plan_exit summaries."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from _plan_support import PLAN, WriteFile, confirm_request, make_agent, results, run, text_of
from agentscope.agent import Agent
from agentscope.permission import PermissionMode
from agentscope.state import AgentState
from agentscope.tool import Toolkit

from planmode.agentscope import (
    PermissionMiddleware,
    PlanMode,
    PlanModeWiring,
    ScriptedChatModel,
    call_tool,
    enter_plan_mode,
    is_plan_mode_active,
    plan_status,
    say,
)
from planmode.exceptions import InvalidInputError, PathEscapeError, PlanStateError

ALL_MODES = list(PermissionMode)


async def test_plan_tools_without_the_plan_middleware_refuse(tmp_path: Path) -> None:
    plan = PlanMode(workspace_dir=tmp_path)
    agent = Agent(name="dev", system_prompt="s", toolkit=Toolkit(tools=plan.tools()),
                  model=ScriptedChatModel([call_tool("plan_enter", {}, "e"), call_tool("plan_write", {"content": PLAN}, "w"),
                                           call_tool("todo_write", {"todos": []}, "t"), say("ok")]))
    await run(agent)
    for call_id in ("e", "w", "t"):
        result = results(agent)[call_id]
        assert result.state == "error" and "not the plan-mode middleware" in text_of(result)
        assert "middlewares=[plan.middleware()" in text_of(result)
    assert plan_status(agent).phase == "never_entered" and not (tmp_path / "plans").exists()


async def test_plan_tools_with_another_plan_modes_middleware_refuse(tmp_path: Path) -> None:
    mine, other = PlanMode(workspace_dir=tmp_path), PlanMode(workspace_dir=tmp_path)
    from planmode.agentscope import PlanEnter

    agent = Agent(name="dev", system_prompt="s", toolkit=Toolkit(tools=[PlanEnter(other)]),
                  model=ScriptedChatModel([say("ok")]), middlewares=[mine.middleware()])
    from planmode.exceptions import PlanModeError

    with pytest.raises(PlanModeError, match="another PlanMode"):
        await run(agent)


@pytest.mark.parametrize("mode", ALL_MODES, ids=[m.value for m in ALL_MODES])
async def test_state_restored_in_plan_mode_without_the_plan_middleware_refuses(tmp_path: Path,
                                                                               mode: PermissionMode) -> None:
    planner, _, _ = make_agent(tmp_path, [], mode=mode)
    enter_plan_mode(planner)
    saved = planner.state.model_dump_json()
    restored = AgentState.model_validate_json(saved)
    agent = Agent(name="dev", system_prompt="s", state=restored, toolkit=Toolkit(tools=[WriteFile(tmp_path)]),
                  model=ScriptedChatModel([call_tool("write_file", {"path": "x.txt", "content": "x"}), say("ok")]),
                  middlewares=[PermissionMiddleware()])
    assert is_plan_mode_active(agent)
    with pytest.raises(PlanStateError, match="in plan mode .* no plan-mode middleware"):
        await run(agent)
    assert not (tmp_path / "x.txt").exists()
    # outside plan mode the same agent is fine
    fine = Agent(name="dev", system_prompt="s", toolkit=Toolkit(tools=[WriteFile(tmp_path)]),
                 model=ScriptedChatModel([say("ok")]), middlewares=[PermissionMiddleware()])
    await run(fine)


@pytest.mark.parametrize("options, error, match", [
    ({"plan_dir": "/etc"}, PathEscapeError, "is absolute"),
    ({"plan_dir": "../up"}, PathEscapeError, "contains '..'"),
    ({"plan_dirr": "plans"}, InvalidInputError, "unknown plan-mode option 'plan_dirr'"),
    ({"workspace_dir": "/tmp"}, InvalidInputError, "workspace_dir is set per session"),
    ({"subagent_policy": "maybe"}, InvalidInputError, "subagent_policy"),
    ({"extra_allowed_tools": "Write"}, InvalidInputError, "extra_allowed_tools"),
    ({"trust_mcp_read_only": "notes"}, InvalidInputError, "trust_mcp_read_only"),
    ({"max_plan_bytes": 0}, InvalidInputError, "max_plan_bytes"),
])
def test_plan_mode_wiring_refuses_bad_options_at_construction(options: dict, error: type, match: str) -> None:  # type: ignore[type-arg]
    with pytest.raises(error, match=match):
        PlanModeWiring(**options)


def test_plan_mode_wiring_accepts_every_plan_mode_option() -> None:
    wiring = PlanModeWiring(plan_dir="notes/plans", allow_shell_in_plan_mode=True, subagent_policy="ceiling",
                            trust_mcp_read_only=["docs"], extra_allowed_tools=["Glob"])
    assert wiring.plan_mode_options["subagent_policy"] == "ceiling"


async def test_hard_linked_plan_file_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    secret = outside / "secret.txt"
    secret.write_text("not a plan\n")
    root = tmp_path / "ws"
    root.mkdir()
    agent, model, _ = make_agent(root, [call_tool("plan_enter", {}), call_tool("plan_write", {"content": PLAN}, "w1"),
                                        say("ok")])
    await run(agent)
    plan_file = root / "plans" / "PLAN.md"
    plan_file.unlink()
    os.link(secret, plan_file)  # the plan file is now also the outside file
    model.extend([call_tool("plan_write", {"content": PLAN + "4. more\n"}, "w2"), say("ok")])
    await run(agent, "again")
    w2 = results(agent)["w2"]
    assert w2.state == "error" and "hard links" in text_of(w2), text_of(w2)
    assert secret.read_text() == "not a plan\n"
    assert plan_status(agent).revision == 1  # nothing of the outside file became a revision


@pytest.mark.parametrize("mode", ALL_MODES, ids=[m.value for m in ALL_MODES])
async def test_over_long_plan_exit_summary_is_an_error_result(tmp_path: Path, mode: PermissionMode) -> None:
    plan = PlanMode(workspace_dir=tmp_path, auto_approve_in_bypass=True)
    agent, _, _ = make_agent(tmp_path, [call_tool("plan_enter", {}), call_tool("plan_write", {"content": PLAN}),
                                        call_tool("plan_exit", {"summary": "s" * (64 * 1024 + 1)}, "x"), say("ok")],
                             plan=plan, mode=mode)
    events = await run(agent)
    x = results(agent)["x"]
    assert x.state == "error" and "65536 bytes" in text_of(x) and "No approval was requested" in text_of(x)
    assert confirm_request(events) is None and plan_status(agent).phase == "planning"
