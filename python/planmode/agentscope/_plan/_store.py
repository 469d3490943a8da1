"""Where plan-mode state lives: ``state.middle_context["planmode"]`` (plain JSON), loaded
into a Rust ``PlanBook`` for each change and stored back right after it (through a validated
in-memory view, ``_view``: an unchanged stored value is not parsed again)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agentscope.message import ToolCallBlock, ToolCallState, ToolResultBlock, ToolResultState
from agentscope.permission import PermissionBehavior, PermissionMode, PermissionRule
from agentscope.state import AgentState

from ..._core import DEFAULT_MAX_PLAN_BYTES, PLAN_PHASES, PLAN_STATE_KEY, PlanBook, check_actor
from .._modes import parse_permission_mode
from .._permission_mode import audit_mode_changes, set_permission_mode
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


def mode_value(mode: PermissionMode | str) -> str:
    """The value of a permission mode given as the enum, its value (``"accept_edits"``) or its name."""
    return str(parse_permission_mode(mode).value)


def find_tool_call(state: AgentState, tool_call_id: str) -> tuple[Any, ToolCallBlock] | None:
    """The message and block of a tool call in the context, newest first."""
    for msg in reversed(state.context):
        if not isinstance(msg.content, list):
            continue
        for block in msg.content:
            if isinstance(block, ToolCallBlock) and block.id == tool_call_id:
                return msg, block
    return None


def is_parked(state: AgentState, tool_call_id: str) -> bool:
    """True when the tool call is waiting for a user confirmation."""
    found = find_tool_call(state, tool_call_id)
    return found is not None and found[1].state == ToolCallState.ASKING


def close_parked_call(state: AgentState, tool_call_id: str, text: str) -> bool:
    """Ends a parked tool call with a DENIED result, so the agent is no longer waiting; calls
    of the same message that never ran are closed too (each call needs a result)."""
    found = find_tool_call(state, tool_call_id)
    if found is None or found[1].state != ToolCallState.ASKING:
        return False
    msg = found[0]
    answered = {b.id for b in msg.content if isinstance(b, ToolResultBlock)}
    for block in [b for b in msg.content if isinstance(b, ToolCallBlock)]:
        if block.id in answered or block.state == ToolCallState.FINISHED:
            continue
        note = text if block.id == tool_call_id else (
            "Not run: plan mode was ended while the plan was awaiting approval.")
        block.state = ToolCallState.FINISHED
        msg.content.append(
            ToolResultBlock(id=block.id, name=block.name, output=note, state=ToolResultState.DENIED)
        )
    return True


def apply_mode(state: AgentState, mode: str, actor: str) -> None:
    """Switches the permission mode (through ``set_permission_mode``, which also records the
    change in the plan audit log)."""
    set_permission_mode(state, mode, actor=actor)


@audit_mode_changes
def prepare_mode_audit(state: AgentState, actor: str) -> Callable[[Any, Any], None] | None:
    """Checks everything a mode-change audit entry needs *before* the mode changes (the actor,
    the stored state) and returns the function that records it; None when plan mode is not in
    use for this agent."""
    if STATE_KEY not in state.middle_context:
        return None
    check_actor(actor)
    book = load(state)

    def record(from_mode: Any, to_mode: Any) -> None:
        book.record_mode_change(actor, mode_value(from_mode), mode_value(to_mode))
        save(state, book)

    return record


#: The ``source`` of allow rules granted with a plan approval.
GRANT_SOURCE = "planmode:approval"


def add_grants(state: AgentState, grants: list[dict[str, Any]]) -> None:
    """Adds the approval's grants as allow rules (in place: the engine reads this context)."""
    rules = state.permission_context.allow_rules
    for g in grants:
        existing = rules.setdefault(g["tool_name"], [])
        if not any(r.source == GRANT_SOURCE and r.rule_content == g.get("rule_content") for r in existing):
            existing.append(PermissionRule(tool_name=g["tool_name"], rule_content=g.get("rule_content"),
                                           behavior=PermissionBehavior.ALLOW, source=GRANT_SOURCE))


def revoke_grants(state: AgentState, grants: list[dict[str, Any]]) -> None:
    """Removes expired grants (only the rules plan mode added) from the allow rules."""
    rules = state.permission_context.allow_rules
    for g in grants:
        kept = [r for r in rules.get(g["tool_name"], [])
                if not (r.source == GRANT_SOURCE and r.rule_content == g.get("rule_content"))]
        if kept:
            rules[g["tool_name"]] = kept
        else:
            rules.pop(g["tool_name"], None)


def enter(state: AgentState, book: PlanBook, actor: str) -> str:
    """Enters plan mode on ``book``, stores it, and revokes the grants of the last approval."""
    expired = book.grants
    how = book.enter(actor)
    save(state, book)
    if how != "already_active":
        revoke_grants(state, expired)
    return how
