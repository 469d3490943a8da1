"""Inspecting and resetting an agent's plan-mode state when it cannot be loaded (hand-edited, truncated,
written by an incompatible version), without touching the rest of the agent's state."""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agentscope.message import ToolCallBlock, ToolCallState

from .._core import check_actor
from ..exceptions import PlanModeError
from ._agent_state import state_of
from ._plan import _store
from ._plan._store import GRANT_SOURCE, STATE_KEY

if TYPE_CHECKING:
    from agentscope.agent import Agent
    from agentscope.state import AgentState

RESET_NOTE = "Not run: the plan-mode state was reset by {actor}; plan mode starts afresh."


@dataclass(frozen=True)
class PlanStateReport:
    """What :func:`inspect_plan_state` found."""

    present: bool
    """True when the agent's state holds plan-mode data at all."""
    ok: bool
    """True when that data loads (``plan_status`` works)."""
    error: str | None
    """Why it does not load (the ``StateLoadError`` message), else None."""
    raw: Any
    """A deep copy of ``state.middle_context["planmode"]`` as stored (None when absent)."""


def inspect_plan_state(agent_or_state: Agent | AgentState) -> PlanStateReport:
    """Loads the plan-mode state without changing anything and says whether, and why not, it loads."""
    state = state_of(agent_or_state)
    raw = state.middle_context.get(STATE_KEY)
    if raw is None:
        return PlanStateReport(False, True, None, None)
    try:
        _store.load(state)
    except (PlanModeError, ValueError, TypeError) as exc:
        return PlanStateReport(True, False, str(exc), copy.deepcopy(raw))
    return PlanStateReport(True, True, None, copy.deepcopy(raw))


def reset_plan_state(agent_or_state: Agent | AgentState, *, actor: str = "user") -> Any:
    """Forgets the plan-mode state (as if plan mode was never used) and returns what was stored.

    Only plan mode's own data changes: ``middle_context["planmode"]`` is removed, a ``plan_exit``
    call still waiting for approval is closed (so the agent takes new messages), and allow rules
    granted by a plan approval are revoked. The context, tasks, other middlewares' data and every
    other permission rule stay. The plan file on disk is left as it is."""
    check_actor(actor)
    state = state_of(agent_or_state)
    removed = state.middle_context.pop(STATE_KEY, None)
    for msg in state.context:
        for block in msg.content if isinstance(msg.content, list) else []:
            if isinstance(block, ToolCallBlock) and block.name == "plan_exit" and block.state == ToolCallState.ASKING:
                _store.close_parked_call(state, block.id, RESET_NOTE.format(actor=actor))
    rules = state.permission_context.allow_rules
    for tool_name in list(rules):
        kept = [r for r in rules[tool_name] if r.source != GRANT_SOURCE]
        if kept:
            rules[tool_name] = kept
        else:
            del rules[tool_name]
    return removed
