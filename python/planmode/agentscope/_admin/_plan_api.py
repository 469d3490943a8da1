"""The one place the admin layer reaches the plan-mode API (``planmode.agentscope``), imported lazily
because ``planmode.agentscope`` itself imports this package."""

from __future__ import annotations

from types import ModuleType


def api() -> ModuleType:
    """The ``planmode.agentscope`` module: PlanMode, plan_status, enter/exit_plan_mode, answer_plan."""
    import planmode.agentscope

    return planmode.agentscope
