"""Shared helpers for the permission-mode and middleware tests: a real Agent with one tool."""

from __future__ import annotations

from typing import Any

from agentscope.agent import Agent
from agentscope.message import TextBlock
from agentscope.middleware import MiddlewareBase
from agentscope.permission import PermissionBehavior, PermissionContext, PermissionDecision
from agentscope.state import AgentState
from agentscope.tool import ToolBase, ToolChunk, Toolkit

from planmode.agentscope import ScriptedChatModel


class Touch(ToolBase):
    """A mutating tool that leaves the decision to the engine (PASSTHROUGH)."""

    name = "touch"
    description = "Records a mark in agent state."
    input_schema = {"type": "object", "properties": {"mark": {"type": "string"}}, "required": ["mark"]}
    is_concurrency_safe = False
    is_read_only = False

    def __init__(self) -> None:
        super().__init__()
        self.marks: list[str] = []

    async def check_permissions(self, tool_input: dict[str, Any], context: PermissionContext) -> PermissionDecision:
        return PermissionDecision(behavior=PermissionBehavior.PASSTHROUGH, message="")

    async def call(self, mark: str) -> ToolChunk:
        self.marks.append(mark)
        return ToolChunk(content=[TextBlock(text=f"marked {mark}")])


def touch_agent(
    script: list[Any], *, state: AgentState | None = None, middlewares: list[MiddlewareBase] | None = None
) -> tuple[Agent, Touch]:
    """A real agent with a scripted model and only the ``touch`` tool."""
    tool = Touch()
    agent = Agent(
        name="dev",
        system_prompt="test",
        model=ScriptedChatModel(script),
        toolkit=Toolkit(tools=[tool]),
        state=state,
        middlewares=middlewares,
    )
    return agent, tool


def output_text(output: Any) -> str:
    """A tool result's output as text (denied results carry a plain string)."""
    if isinstance(output, str):
        return output
    return "".join(part.text for part in output if part.type == "text")


def tool_results(agent: Agent) -> list[tuple[str, str]]:
    """(state, text) of every tool result in the agent's context, in order."""
    return [
        (block.state, output_text(block.output))
        for msg in agent.state.context
        if isinstance(msg.content, list)
        for block in msg.content
        if block.type == "tool_result"
    ]
