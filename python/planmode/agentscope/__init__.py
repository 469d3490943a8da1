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
