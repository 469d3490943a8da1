"""Testing your own agents offline: ``ScriptedChatModel`` plays the LLM from a script (no API
key, no network), and a few helpers run a real AgentScope ``Agent`` and read what happened.
See ``docs/testing.md``.

>>> model = ScriptedChatModel([call_tool("plan_enter", {}), say("done")])

Each model call pops the next step: a ``ChatResponse``, or a callable
``(messages, tools) -> ChatResponse`` that can react to what the agent sent (AgentScope's
``Msg`` objects, and the tools' JSON schemas or None). ``model.calls`` records every call.

Needs AgentScope (``pip install 'planmode[agentscope]'``).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Iterable
from copy import deepcopy
from typing import Any

from agentscope.agent import Agent
from agentscope.credential import CredentialBase
from agentscope.event import RequireUserConfirmEvent
from agentscope.formatter import OpenAIChatFormatter
from agentscope.message import Msg, TextBlock, ToolCallBlock, ToolResultBlock, UserMsg
from agentscope.model import ChatModelBase, ChatResponse
from agentscope.tool import ToolChoice
from pydantic import BaseModel

__all__ = [
    "ScriptStep",
    "ScriptedChatModel",
    "call_tool",
    "call_tools",
    "confirm_request",
    "result_text",
    "run_reply",
    "say",
    "shown_to_model",
    "tool_results",
]

ScriptStep = ChatResponse | Callable[[list[Msg], list[dict[str, Any]] | None], ChatResponse]
"""One scripted model turn: a fixed response, or a function of (messages, tools) as the agent
passes them to the model: its ``Msg`` list and the tools' JSON schemas (None without tools)."""


class _ScriptedCredential(CredentialBase):
    """A credential that needs nothing; it only names the scripted model class."""

    @classmethod
    def get_chat_model_class(cls) -> type[ChatModelBase]:
        """The model class this credential builds: :class:`ScriptedChatModel`."""
        return ScriptedChatModel


class ScriptedChatModel(ChatModelBase):
    """A chat model that returns scripted responses in order, recording every call."""

    class Parameters(BaseModel):
        """The scripted model takes no parameters."""

    def __init__(self, script: Iterable[ScriptStep] = ()) -> None:
        super().__init__(
            credential=_ScriptedCredential(),
            model="scripted",
            parameters=ScriptedChatModel.Parameters(),
            stream=False,
            max_retries=0,
            context_size=100_000,
        )
        self.formatter = OpenAIChatFormatter()
        self.script: list[ScriptStep] = list(script)
        self.calls: list[dict[str, Any]] = []

    def extend(self, steps: Iterable[ScriptStep]) -> None:
        """Appends more scripted turns."""
        self.script.extend(steps)

    async def _call_api(
        self,
        model_name: str,
        messages: list[Msg],
        tools: list[dict[str, Any]] | None = None,
        tool_choice: ToolChoice | None = None,
        **kwargs: Any,
    ) -> ChatResponse:
        """Records the call and plays the next step (a note once the script is exhausted)."""
        self.calls.append({"messages": deepcopy(messages), "tools": tools})
        step = self._next_step()
        if step is None:
            return say("(script exhausted)")
        return step(messages, tools) if callable(step) else step

    def _next_step(self) -> ScriptStep | None:
        """The step to play now (None once the script is exhausted)."""
        return self.script.pop(0) if self.script else None


def call_tools(*calls: tuple[str, dict[str, Any]]) -> ChatResponse:
    """A model turn that calls several tools at once, each with a fresh call id."""
    return ChatResponse(
        content=[
            ToolCallBlock(id=_new_call_id(), name=name, input=json.dumps(args))
            for name, args in calls
        ],
        is_last=True,
    )


def call_tool(name: str, args: dict[str, Any] | None = None, call_id: str | None = None) -> ChatResponse:
    """A model turn that calls one tool with the given arguments."""
    block = ToolCallBlock(id=call_id or _new_call_id(), name=name, input=json.dumps(args or {}))
    return ChatResponse(content=[block], is_last=True)


def _new_call_id() -> str:
    """A tool-call id unique across processes, so a resumed stored state never sees a repeat."""
    return f"call-{uuid.uuid4().hex[:12]}"


def say(text: str) -> ChatResponse:
    """A model turn that answers with plain text (ending the reply)."""
    return ChatResponse(content=[TextBlock(text=text)], is_last=True)


# ---- driving a real Agent and reading what happened ------------------------------------


async def run_reply(agent: Agent, inputs: Any = "go") -> list[Any]:
    """Runs one reply of ``agent`` (a str becomes a user message) and returns every event."""
    if isinstance(inputs, str):
        inputs = UserMsg(name="user", content=inputs)
    return [e async for e in agent.reply_stream(inputs)]


def confirm_request(events: list[Any]) -> RequireUserConfirmEvent | None:
    """The last ``RequireUserConfirmEvent`` among the events (the agent asks a human), if any."""
    found = [e for e in events if isinstance(e, RequireUserConfirmEvent)]
    return found[-1] if found else None


def tool_results(agent: Agent) -> dict[str, ToolResultBlock]:
    """Every tool result in the agent's context, by tool call id."""
    out: dict[str, ToolResultBlock] = {}
    for msg in agent.state.context:
        if isinstance(msg.content, list):
            for block in msg.content:
                if isinstance(block, ToolResultBlock):
                    out[block.id] = block
    return out


def result_text(block: ToolResultBlock) -> str:
    """The text of a tool result."""
    if isinstance(block.output, str):
        return block.output
    return "".join(getattr(b, "text", "") for b in block.output)


def shown_to_model(model: ScriptedChatModel, call_index: int = -1) -> str:
    """Everything the model was shown in one call (the messages), as one string to search."""
    return repr(model.calls[call_index]["messages"])
