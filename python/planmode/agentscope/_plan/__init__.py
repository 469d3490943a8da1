"""Plan mode for AgentScope agents: read-only planning, a plan file, human approval, a build phase."""

from __future__ import annotations

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
from ._store import STATE_KEY, record_mode_change
from ._texts import DENIED as PLAN_MODE_DENIED
from ._tools import PlanEnter, PlanExit, PlanWrite, TodoWrite

__all__ = [
    "PLAN_MODE_DENIED",
    "STATE_KEY",
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
    "record_mode_change",
]
