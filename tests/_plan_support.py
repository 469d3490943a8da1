"""Shared helpers for the plan-mode tests: a real Agent with a scripted model."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentscope.agent import Agent
from agentscope.event import RequireUserConfirmEvent
from agentscope.message import ToolResultBlock, UserMsg
from agentscope.permission import PermissionMode
from agentscope.state import AgentState
from agentscope.tool import ToolBase, Toolkit

from planmode.agentscope import PlanMode, ScriptedChatModel
from planmode.agentscope.demo_tools import ReadFile, WriteFile

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


async def run(agent: Agent, inputs: Any = "go") -> list[Any]:
    """One reply; a str becomes a user message. Returns every event."""
    if isinstance(inputs, str):
        inputs = UserMsg(name="user", content=inputs)
    return [e async for e in agent.reply_stream(inputs)]


def confirm_request(events: list[Any]) -> RequireUserConfirmEvent | None:
    """The RequireUserConfirmEvent among the events, if any."""
    found = [e for e in events if isinstance(e, RequireUserConfirmEvent)]
    return found[-1] if found else None


def results(agent: Agent) -> dict[str, ToolResultBlock]:
    """Every tool result in the context, by tool call id."""
    out: dict[str, ToolResultBlock] = {}
    for msg in agent.state.context:
        if isinstance(msg.content, list):
            for block in msg.content:
                if isinstance(block, ToolResultBlock):
                    out[block.id] = block
    return out


def text_of(block: ToolResultBlock) -> str:
    """The text of a tool result."""
    if isinstance(block.output, str):
        return block.output
    return "".join(getattr(b, "text", "") for b in block.output)


def hints(model: ScriptedChatModel, call_index: int = -1) -> str:
    """Everything the model was shown in one call, as one string."""
    return repr(model.calls[call_index]["messages"])
