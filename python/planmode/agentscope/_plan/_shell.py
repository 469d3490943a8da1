"""Shell commands in plan mode: allowed only when both the shell tool's own
``check_read_only`` and planmode's Rust classifier (``classify_shell``) prove the command
read-only. Anything else — including a checker that fails — is denied (fail closed)."""

from __future__ import annotations

import asyncio
from typing import Any

from agentscope.tool import ToolBase

from ..._core import classify_shell

# Longer command lines are classified on a worker thread (the classifier releases the GIL): at
# the 64 KiB limit it takes up to a few hundred milliseconds, which must not block the event loop.
_OFF_LOOP_BYTES = 4096


async def shell_is_read_only(tool: ToolBase, tool_input: dict[str, Any]) -> bool:
    """True only if the command is a non-empty string that both checks prove read-only."""
    command = tool_input.get("command")
    if not isinstance(command, str) or not command.strip():
        return False
    try:
        if not await tool.check_read_only(tool_input):
            return False
    except Exception:  # a checker that fails proves nothing: fail closed
        return False
    if len(command) > _OFF_LOOP_BYTES:
        return (await asyncio.to_thread(classify_shell, command)).read_only
    return classify_shell(command).read_only
