"""Plan-mode transitions that change more than the book: entering plan mode revokes the
grants of the last approval."""

from __future__ import annotations

from agentscope.state import AgentState

from ..._core import PlanBook
from . import _state
from ._grants import revoke_grants


def enter(state: AgentState, book: PlanBook, actor: str) -> str:
    """Enters plan mode on ``book``, stores it, and revokes the grants of the last approval."""
    expired = book.grants
    how = book.enter(actor)
    _state.save(state, book)
    if how != "already_active":
        revoke_grants(state, expired)
    return how
