"""Shared helpers for the plan-mode tests: a real Agent with a scripted model."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentscope.agent import Agent
from agentscope.permission import PermissionMode
from agentscope.state import AgentState
from agentscope.tool import ToolBase, Toolkit

from planmode.agentscope import PlanMode, ScriptedChatModel
from planmode.agentscope.demo_tools import ReadFile, WriteFile
from planmode.testing import (
    confirm_request as confirm_request,  # re-exported for the tests
    result_text,
    run_reply,
    shown_to_model,
    tool_results,
)

PLAN = "# Plan\n\n## Goal\nFix the bug.\n\n## Steps\n1. Read the code\n2. Change the check\n3. Run the tests\n"


def make_agent(
    root: Path,
    script: list[Any],
    *,
    plan: PlanMode | None = None,
    tools: list[ToolBase] | None = None,
    mode: PermissionMode = PermissionMode.DEFAULT,
    state: AgentState | None = None,
    name: str = "dev",
) -> tuple[Agent, ScriptedChatModel, PlanMode]:
    """A real agent with the plan tools, the plan middleware and a scripted model."""
    plan = plan or PlanMode(workspace_dir=root)
    model = ScriptedChatModel(script)
    state = state or AgentState()
    state.permission_context.mode = mode
    extra = tools if tools is not None else [WriteFile(root), ReadFile(root)]
    agent = Agent(name=name, system_prompt="You are a careful engineer.", model=model,
                  toolkit=Toolkit(tools=[*extra, *plan.tools()]), middlewares=[plan.middleware()],
                  state=state)
    return agent, model, plan


# What the tests call these helpers (planmode.testing names them for users).
run, results, text_of, hints = run_reply, tool_results, result_text, shown_to_model
