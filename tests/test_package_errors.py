"""Clear errors where a newcomer trips: tool classes in a Toolkit, the missing [service] extra, a missing
workspace, and a corrupted plan state (inspect it, reset it, keep the rest of the agent's state)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from agentscope.agent import Agent
from agentscope.message import ToolCallState
from agentscope.permission import PermissionBehavior, PermissionRule
from agentscope.tool import Toolkit

from planmode import PlanWorkspace
from planmode.agentscope import (
    PlanMode,
    ScriptedChatModel,
    answer_plan,
    call_tool,
    inspect_plan_state,
    plan_status,
    reset_plan_state,
    say,
)
from planmode.agentscope.demo_tools import ReadFile
from planmode.exceptions import InvalidInputError, StateLoadError
from tests._plan_support import PLAN, confirm_request, make_agent, run


async def test_a_tool_class_in_the_toolkit_is_named_with_the_fix(tmp_path: Path) -> None:
    plan = PlanMode(workspace_dir=tmp_path)
    agent = Agent(name="dev", system_prompt="s", model=ScriptedChatModel([call_tool("read_file", {"path": "x"})]),
                  toolkit=Toolkit(tools=[ReadFile, *plan.tools()]),  # type: ignore[list-item]
                  middlewares=[plan.middleware()])
    with pytest.raises(InvalidInputError) as caught:
        await run(agent)
    assert "the toolkit holds the class ReadFile, not a tool: register an instance, ReadFile(...)" in str(caught.value)
    assert "[tool() for tool in TASK_TOOLS]" in str(caught.value)
    assert agent.state.context == [] or all(m.role != "assistant" for m in agent.state.context)  # nothing ran


def test_the_missing_service_extra_is_named() -> None:
    code = (
        "import sys\n"
        "sys.modules['fastapi'] = None  # as if the [service] extra was not installed\n"
        "import planmode.agentscope as pa\n"
        "try:\n"
        "    pa.admin_router\n"
        "except ModuleNotFoundError as exc:\n"
        "    print(exc)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "planmode.agentscope.admin_router needs the [service] extra" in done.stdout
    assert "pip install 'planmode[agentscope,service]'" in done.stdout and "missing module: fastapi" in done.stdout


def test_a_missing_workspace_is_file_not_found(tmp_path: Path) -> None:
    missing = tmp_path / "no" / "such"
    with pytest.raises(FileNotFoundError) as caught:
        PlanMode(workspace_dir=missing)
    assert str(missing) in str(caught.value) and "mkdir -p" in str(caught.value)
    assert not (tmp_path / "no").exists()  # nothing was created
    with pytest.raises(FileNotFoundError):
        PlanWorkspace(missing)
    a_file = tmp_path / "file.txt"
    a_file.write_text("x")
    with pytest.raises(NotADirectoryError) as not_dir:
        PlanMode(workspace_dir=a_file)
    assert "is not a directory" in str(not_dir.value)


async def test_a_corrupted_plan_state_can_be_inspected_and_reset(tmp_path: Path) -> None:
    agent, model, _ = make_agent(tmp_path, [
        call_tool("plan_enter", {}), call_tool("plan_write", {"content": PLAN}), call_tool("plan_exit", {}),
    ])
    request = confirm_request(await run(agent))
    assert request is not None and plan_status(agent).awaiting_approval
    user_rule = PermissionRule(tool_name="read_file", rule_content=None, behavior=PermissionBehavior.ALLOW,
                               source="user")
    agent.state.permission_context.allow_rules["read_file"] = [user_rule]
    agent.state.middle_context["other_middleware"] = {"keep": True}
    context_before = len(agent.state.context)

    agent.state.middle_context["planmode"]["revisions"][0]["content"] = "tampered"  # sha256 no longer matches
    with pytest.raises(StateLoadError):
        plan_status(agent)
    report = inspect_plan_state(agent)
    assert report.present and not report.ok and report.error and "sha256" in report.error
    assert report.raw["revisions"][0]["content"] == "tampered"
    report.raw["phase"] = "changed"  # a copy: inspecting changes nothing
    assert agent.state.middle_context["planmode"]["phase"] == "awaiting_approval"

    removed = reset_plan_state(agent, actor="admin:ops")
    assert removed["phase"] == "awaiting_approval"
    assert "planmode" not in agent.state.middle_context
    assert agent.state.middle_context["other_middleware"] == {"keep": True}
    assert agent.state.permission_context.allow_rules["read_file"] == [user_rule]
    assert len(agent.state.context) == context_before  # the conversation is kept
    parked = [b for m in agent.state.context if isinstance(m.content, list) for b in m.content
              if getattr(b, "name", None) == "plan_exit" and b.type == "tool_call"]
    assert parked and all(b.state == ToolCallState.FINISHED for b in parked)  # no longer waiting
    assert inspect_plan_state(agent).ok and plan_status(agent).phase == "never_entered"

    model.extend([call_tool("plan_enter", {}), say("planning again")])  # the agent takes new messages
    await run(agent, "start over")
    assert plan_status(agent).phase == "planning"
    with pytest.raises(ValueError):  # the old request is gone: it cannot approve anything now
        await run(agent, answer_plan(request, "approve"))
    assert plan_status(agent).phase == "planning" and plan_status(agent).approved_revision is None


async def test_reset_revokes_the_grants_of_an_approval(tmp_path: Path) -> None:
    agent, _, _ = make_agent(tmp_path, [
        call_tool("plan_enter", {}), call_tool("plan_write", {"content": PLAN}), call_tool("plan_exit", {}),
        say("building"),
    ])
    request = confirm_request(await run(agent))
    assert request is not None
    await run(agent, answer_plan(request, "approve", grants=[{"tool_name": "write_file"}]))
    assert agent.state.permission_context.allow_rules.get("write_file")
    reset_plan_state(agent)
    assert "write_file" not in agent.state.permission_context.allow_rules


def test_reset_refuses_a_bad_actor_and_changes_nothing(tmp_path: Path) -> None:
    agent, _, _ = make_agent(tmp_path, [])
    agent.state.middle_context["planmode"] = {"version": 99}
    with pytest.raises(InvalidInputError):
        reset_plan_state(agent, actor="not an actor!")
    assert agent.state.middle_context["planmode"] == {"version": 99}
    assert not inspect_plan_state(agent).ok
