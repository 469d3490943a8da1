"""AgentScope integration: drop-in Task tools, plan mode, permission modes.

Importing this module needs ``agentscope`` (``pip install planmode[agentscope]``).
"""

from __future__ import annotations

try:
    import agentscope as _agentscope  # noqa: F401
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        "planmode.agentscope needs AgentScope: pip install 'planmode[agentscope]'"
    ) from exc

from ._tasks import TASK_TOOLS, TaskCreate, TaskGet, TaskList, TaskUpdate, resync_tasks
from .scripted import ScriptedChatModel, call_tool, call_tools, say

__all__ = [
    "TASK_TOOLS",
    "TaskCreate",
    "TaskGet",
    "TaskList",
    "TaskUpdate",
    "resync_tasks",
    "ScriptedChatModel",
    "call_tool",
    "call_tools",
    "say",
]
