"""Parked tool calls: finding a tool call in the agent's context, whether it waits for a
user confirmation, and closing it with a DENIED result."""

from __future__ import annotations

from typing import Any

from agentscope.message import ToolCallBlock, ToolCallState, ToolResultBlock, ToolResultState
from agentscope.state import AgentState


def find_tool_call(state: AgentState, tool_call_id: str) -> tuple[Any, ToolCallBlock] | None:
    """The message and block of a tool call in the context, newest first."""
    for msg in reversed(state.context):
        if not isinstance(msg.content, list):
            continue
        for block in msg.content:
            if isinstance(block, ToolCallBlock) and block.id == tool_call_id:
                return msg, block
    return None


def is_parked(state: AgentState, tool_call_id: str) -> bool:
    """True when the tool call is waiting for a user confirmation."""
    found = find_tool_call(state, tool_call_id)
    return found is not None and found[1].state == ToolCallState.ASKING


def close_parked_call(state: AgentState, tool_call_id: str, text: str) -> bool:
    """Ends a parked tool call with a DENIED result, so the agent is no longer waiting; calls
    of the same message that never ran are closed too (each call needs a result)."""
    found = find_tool_call(state, tool_call_id)
    if found is None or found[1].state != ToolCallState.ASKING:
        return False
    msg = found[0]
    answered = {b.id for b in msg.content if isinstance(b, ToolResultBlock)}
    for block in [b for b in msg.content if isinstance(b, ToolCallBlock)]:
        if block.id in answered or block.state == ToolCallState.FINISHED:
            continue
        note = text if block.id == tool_call_id else (
            "Not run: plan mode was ended while the plan was awaiting approval.")
        block.state = ToolCallState.FINISHED
        msg.content.append(
            ToolResultBlock(id=block.id, name=block.name, output=note, state=ToolResultState.DENIED)
        )
    return True
