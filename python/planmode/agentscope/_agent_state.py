"""Finding the ``AgentState`` behind an Agent or a state: one rule for plan mode and permission modes."""

from __future__ import annotations

from typing import Any

from agentscope.state import AgentState

from ..exceptions import InvalidInputError

__all__ = ["state_of"]


def state_of(agent_or_state: Any) -> AgentState:
    """The AgentState of an Agent, or the AgentState itself.

    Raises:
        InvalidInputError: ``agent_or_state`` is neither (or an object whose ``state`` is not one).
    """
    if isinstance(agent_or_state, AgentState):
        return agent_or_state
    state = getattr(agent_or_state, "state", None)
    if isinstance(state, AgentState):
        return state
    raise InvalidInputError(
        f"expected an agentscope Agent or AgentState, got {type(agent_or_state).__name__}"
    )
