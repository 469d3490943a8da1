"""Where plan-mode state lives: ``state.middle_context["planmode"]`` (plain JSON), loaded
into a Rust ``PlanBook`` for each change and stored back right after it (through a validated
in-memory view, ``_view``: an unchanged stored value is not parsed again); ``peek_phase`` reads
the phase alone."""

from __future__ import annotations

from typing import Any

from agentscope.state import AgentState

from ..._core import DEFAULT_MAX_PLAN_BYTES, PLAN_PHASES, PLAN_STATE_KEY, PlanBook
from . import _view

#: The ``middle_context`` key holding plan-mode state (the core's).
STATE_KEY = PLAN_STATE_KEY


def load(state: AgentState, max_plan_bytes: int = DEFAULT_MAX_PLAN_BYTES, **bounds: int) -> PlanBook:
    """The plan book stored in ``state`` (a fresh one when plan mode was never used); ``bounds``
    are PlanBook's history limits (max_revisions_kept, max_revision_records, max_audit_entries)."""
    limits = (max_plan_bytes, *sorted(bounds.items()))
    return _view.book(state, limits, lambda raw: build(raw, max_plan_bytes, **bounds))


def build(raw: Any, max_plan_bytes: int, **bounds: int) -> PlanBook:
    """Parses and validates a stored value into a new PlanBook (what ``load`` avoids repeating)."""
    return PlanBook(raw, max_plan_bytes=max_plan_bytes, **bounds)


def save(state: AgentState, book: PlanBook) -> None:
    """Stores the book as plain JSON in ``state.middle_context``."""
    value = book.to_state()
    state.middle_context[STATE_KEY] = value
    _view.stored(state, book, value)


def peek_phase(state: AgentState) -> str | None:
    """The stored phase without parsing the whole state (revision texts can be large);
    None when plan mode has no bound state yet or the stored value looks unusual (callers
    then do a full, validating load)."""
    raw = state.middle_context.get(STATE_KEY)
    if isinstance(raw, dict) and raw.get("version") == 1 and raw.get("plan_path"):
        phase = raw.get("phase")
        if phase in PLAN_PHASES:
            return str(phase)
    return None
