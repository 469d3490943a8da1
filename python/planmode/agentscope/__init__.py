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

from ._permission_engine import PermissionEngine
from ._permission_middleware import PermissionMiddleware
from ._permission_mode import get_permission_mode, set_permission_mode
from ._plan import (
    PlanEnter,
    PlanExit,
    PlanMode,
    PlanModeMiddleware,
    PlanStatus,
    PlanWrite,
    TodoWrite,
    answer_plan,
    enter_plan_mode,
    exit_plan_mode,
    is_plan_mode_active,
    plan_status,
)
from .scripted import ScriptedChatModel, call_tool, call_tools, say

__all__ = [
    # ---- permission ----
    "PermissionEngine",
    "PermissionMiddleware",
    "get_permission_mode",
    "set_permission_mode",
    # ---- plan ----
    "PlanEnter",
    "PlanExit",
    "PlanMode",
    "PlanModeMiddleware",
    "PlanStatus",
    "PlanWrite",
    "TodoWrite",
    "answer_plan",
    "enter_plan_mode",
    "exit_plan_mode",
    "is_plan_mode_active",
    "plan_status",
    # ---- scripted model ----
    "ScriptedChatModel",
    "call_tool",
    "call_tools",
    "say",
]
