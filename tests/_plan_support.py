"""Shared helpers for the plan-mode tests: a real Agent with a scripted model."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentscope.agent import Agent
from agentscope.event import RequireUserConfirmEvent
from agentscope.message import ToolResultBlock, UserMsg
from agentscope.permission import PermissionBehavior, PermissionContext, PermissionDecision, PermissionMode
from agentscope.state import AgentState
from agentscope.tool import ToolBase, ToolChunk, Toolkit
from agentscope.message import TextBlock

from planmode.agentscope import PlanMode, ScriptedChatModel

PLAN = "# Plan\n\n## Goal\nFix the bug.\n\n## Steps\n1. Read the code\n2. Change the check\n3. Run the tests\n"


class WriteFile(ToolBase):
    """A real mutating tool: writes ``text`` to ``<root>/<name>`` (allowed by its own check)."""

    name = "write_file"
    description = "Write a file."
    input_schema = {"type": "object", "properties": {"name": {"type": "string"}, "text": {"type": "string"}},
                    "required": ["name", "text"]}
    is_concurrency_safe = False
    is_read_only = False

    def __init__(self, root: Path) -> None:
        super().__init__()
        self.root = root

    async def check_permissions(self, tool_input: dict[str, Any], context: PermissionContext) -> PermissionDecision:
        return PermissionDecision(behavior=PermissionBehavior.ALLOW, message="ok")

    async def call(self, name: str, text: str) -> ToolChunk:
        (self.root / name).write_text(text)
        return ToolChunk(content=[TextBlock(text=f"wrote {name}")])


class ReadFile(ToolBase):
    """A read-only tool."""

    name = "read_file"
    description = "Read a file."
    input_schema = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
    is_concurrency_safe = True
    is_read_only = True

    def __init__(self, root: Path) -> None:
        super().__init__()
        self.root = root

    async def check_permissions(self, tool_input: dict[str, Any], context: PermissionContext) -> PermissionDecision:
        return PermissionDecision(behavior=PermissionBehavior.ALLOW, message="ok")

    async def call(self, name: str) -> ToolChunk:
        path = self.root / name
        return ToolChunk(content=[TextBlock(text=path.read_text() if path.exists() else "(missing)")])


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
