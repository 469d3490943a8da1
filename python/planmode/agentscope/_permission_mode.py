"""Switching an agent's permission mode at run time: ``set_permission_mode`` / ``get_permission_mode``.

The mode lives in ``agent.state.permission_context.mode`` (AgentScope's own model), so it is
persisted with the state and read by every permission check on the next tool call. Layers above
(plan mode's audit log) learn of switches through :func:`audit_mode_changes`; this module imports
none of them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agentscope.permission import PermissionContext, PermissionEngine as _AgentScopeEngine, PermissionMode
from agentscope.state import AgentState

from ..exceptions import InvalidInputError
from ._agent_state import state_of
from ._modes import parse_permission_mode

__all__ = ["audit_mode_changes", "get_permission_mode", "parse_permission_mode", "set_permission_mode"]

ModeAudit = Callable[[AgentState, str], Callable[[Any, Any], None] | None]
"""``prepare(state, actor)``: checks everything an audit entry needs *before* the mode changes
(raising InvalidInputError to refuse the switch) and returns ``record(old_mode, new_mode)``, or
None when it has nothing to record for this state."""

_AUDITS: list[ModeAudit] = []


def audit_mode_changes(prepare: ModeAudit) -> ModeAudit:
    """Registers ``prepare`` to be asked on every ``set_permission_mode`` (usable as a decorator)."""
    if prepare not in _AUDITS:
        _AUDITS.append(prepare)
    return prepare


def _context_of(agent_or_state: Any) -> PermissionContext:
    """The permission context of an agent or state, checked to be one."""
    context = state_of(agent_or_state).permission_context
    if not isinstance(context, PermissionContext):
        raise InvalidInputError(
            f"state.permission_context is a {type(context).__name__}, not a PermissionContext"
        )
    return context


def rebind_agentscope_engine(agent: object) -> None:
    """Points AgentScope's built-in engine (``agent._engine``) at the agent's current permission
    context, so a replaced ``agent.state`` / ``permission_context`` is never left behind (AgentScope
    binds the context object once, in ``Agent.__init__``). Does nothing for anything else."""
    engine = getattr(agent, "_engine", None)
    state = getattr(agent, "state", None)
    if (isinstance(engine, _AgentScopeEngine) and isinstance(state, AgentState)
            and engine.context is not state.permission_context):
        engine.context = state.permission_context


def get_permission_mode(agent_or_state: Any) -> PermissionMode:
    """The current permission mode of an agent (or of an ``AgentState``)."""
    return parse_permission_mode(_context_of(agent_or_state).mode)


def set_permission_mode(agent_or_state: Any, mode: PermissionMode | str, *, actor: str = "user") -> PermissionMode:
    """Switches the permission mode of an agent (or ``AgentState``); it applies from the next tool call.

    ``mode`` is a ``PermissionMode`` or its value / name as a string (``"dont_ask"``, ``"DONT_ASK"``).
    The enum is stored in place in ``state.permission_context.mode`` (so it persists through
    ``model_dump_json``); on an agent, AgentScope's built-in engine is re-pointed at that context.
    ``actor`` names who made the change (recorded by plan mode's audit log when in use).
    Returns the new mode.

    Raises:
        UnknownModeError: ``mode`` names no permission mode (nothing is changed).
        InvalidInputError: ``agent_or_state`` is neither an Agent nor an AgentState, or plan mode is
            in use and ``actor`` is not one its audit log knows (nothing is changed).
    """
    new_mode = parse_permission_mode(mode)
    context = _context_of(agent_or_state)
    if not isinstance(actor, str):
        raise InvalidInputError(f"actor must be a string, got {type(actor).__name__}")
    # The audit logs (plan mode's) record the change: checked before anything changes.
    state = state_of(agent_or_state)
    records = [record for prepare in _AUDITS if (record := prepare(state, actor)) is not None]
    old_mode = context.mode
    context.mode = new_mode
    rebind_agentscope_engine(agent_or_state)
    if old_mode != new_mode and isinstance(old_mode, PermissionMode):
        for record in records:
            record(old_mode, new_mode)
    return new_mode
