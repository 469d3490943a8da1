"""Plan mode and the permission mode: switching it on approval, and recording every switch
in the plan audit log (registered with ``audit_mode_changes``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agentscope.permission import PermissionMode
from agentscope.state import AgentState

from ..._core import check_actor
from .._modes import parse_permission_mode
from .._permission_mode import audit_mode_changes, set_permission_mode
from . import _state


def mode_value(mode: PermissionMode | str) -> str:
    """The value of a permission mode given as the enum, its value (``"accept_edits"``) or its name."""
    return str(parse_permission_mode(mode).value)


def apply_mode(state: AgentState, mode: str, actor: str) -> None:
    """Switches the permission mode (through ``set_permission_mode``, which also records the
    change in the plan audit log)."""
    set_permission_mode(state, mode, actor=actor)


@audit_mode_changes
def prepare_mode_audit(state: AgentState, actor: str) -> Callable[[Any, Any], None] | None:
    """Checks everything a mode-change audit entry needs *before* the mode changes (the actor,
    the stored state) and returns the function that records it; None when plan mode is not in
    use for this agent."""
    if _state.STATE_KEY not in state.middle_context:
        return None
    check_actor(actor)
    book = _state.load(state)

    def record(from_mode: Any, to_mode: Any) -> None:
        book.record_mode_change(actor, mode_value(from_mode), mode_value(to_mode))
        _state.save(state, book)

    return record
