"""Plan mode for AgentScope agents: read-only planning, a plan file, human approval, a build phase."""

from __future__ import annotations

from . import (
    _guard,  # noqa: F401 - registers the PermissionMiddleware guard for unguarded plan mode
    _mode_audit,  # noqa: F401 - records permission-mode switches in the plan audit log
)
from ._api import (
    PlanStatus,
    answer_plan,
    enter_plan_mode,
    exit_plan_mode,
    is_plan_mode_active,
    plan_status,
)
from ._gate import PlanModeMiddleware
from ._mode import PlanMode
from ._tools import PlanEnter, PlanExit, PlanWrite, TodoWrite

#: The public plan-mode names, re-exported by ``planmode.agentscope``.
__all__ = [
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
]
