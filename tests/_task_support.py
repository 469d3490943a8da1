"""Helpers shared by the Task tool tests: drive a tool call that never suspends, read its text."""

from __future__ import annotations

from collections.abc import Coroutine
from typing import Any

from agentscope.tool import ToolChunk


def run(coro: Coroutine[Any, Any, ToolChunk]) -> ToolChunk:
    """Drives a tool call that never suspends (the Task tools don't)."""
    try:
        coro.send(None)
    except StopIteration as stop:
        return stop.value
    raise AssertionError("the tool call suspended")


def text(chunk: ToolChunk) -> str:
    """The chunk's text blocks, joined."""
    return "".join(block.text for block in chunk.content)
