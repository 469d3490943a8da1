"""Fail closed where planmode can see an agent in plan mode that nothing gates."""

from __future__ import annotations

from typing import Any

from ...exceptions import PlanStateError
from .._permission_middleware import guard_replies
from . import _state
from ._gate import PlanModeMiddleware


@guard_replies
def require_gate_while_planning(agent: Any) -> None:
    """Raises ``PlanStateError`` when ``agent.state`` is planning or awaiting approval (e.g. a
    state saved in plan mode and restored) but the agent has no plan-mode middleware: its
    writes would run while ``is_plan_mode_active()`` says True."""
    phase = _state.peek_phase(agent.state) or _state.load(agent.state).phase
    if phase not in ("planning", "awaiting_approval"):
        return
    if any(isinstance(m, PlanModeMiddleware) for m in getattr(agent, "_check_permission_middlewares", [])):
        return
    raise PlanStateError(
        f"agent {getattr(agent, 'name', '?')!r} is in plan mode ({phase}) but has no plan-mode "
        "middleware, so nothing would keep it read-only: build it with "
        "middlewares=[plan.middleware(), ...] (first), or end plan mode first with "
        "exit_plan_mode(state, actor=...)"
    )
