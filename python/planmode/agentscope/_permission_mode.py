"""Switching an agent's permission mode at run time: ``set_permission_mode`` / ``get_permission_mode``.

The mode lives in ``agent.state.permission_context.mode`` (AgentScope's own model), so it is
persisted with the state and read by every permission check on the next tool call.
"""

from __future__ import annotations

from typing import Any

from agentscope.permission import PermissionContext, PermissionEngine as _AgentScopeEngine, PermissionMode
from agentscope.state import AgentState

from ..exceptions import InvalidInputError
from ._modes import parse_permission_mode
from ._plan._store import prepare_mode_audit, state_of

__all__ = ["get_permission_mode", "parse_permission_mode", "set_permission_mode"]

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
    if isinstance(engine, _AgentScopeEngine) and isinstance(state, AgentState):
        if engine.context is not state.permission_context:
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
    # Plan mode's audit log records the change: checked before anything changes.
    audit = prepare_mode_audit(state_of(agent_or_state), actor)
    old_mode = context.mode
    context.mode = new_mode
    rebind_agentscope_engine(agent_or_state)
    if audit is not None and old_mode != new_mode and isinstance(old_mode, PermissionMode):
        audit(old_mode, new_mode)
    return new_mode
